"""Input of any size, read in bounded time: the answer line never holds more than its limit.

prompt_toolkit collects a bracketed paste by appending each chunk to one string and
searching all of it for the end mark (quadratic: a 1 MB paste took minutes), and it
handles typed characters one key press at a time (about 0.3 ms each: a 100 kB stream
took 45 s). ``CappedParser`` keeps at most the limit of a paste and counts the rest, and
turns a long run of plain typed characters into one paste; ``Overflow`` carries the count
to the prompt, which refuses the answer with its true length.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.keys import Keys

_END = "\x1b[201~"
# Plain printable characters only; the first _SETTLE go through the normal parser so any
# escape sequence in progress (the longest, a mouse report, is under 16) completes first.
_RUN = re.compile(r"[^\x00-\x1f\x7f-\x9f]{64,}")
_SETTLE = 16


@dataclass
class Overflow:
    """How long the answer line may be now, and how many characters were dropped past it."""

    limit: Callable[[], int]
    dropped: int = 0

    def take(self, text: str, room: int) -> str:
        """The part of ``text`` that fits in ``room``; the rest is counted as dropped."""
        room = max(0, room)
        if len(text) > room:
            self.dropped += len(text) - room
            return text[:room]
        return text


class CappedParser(Vt100Parser):
    """A Vt100Parser whose pastes cost time linear in their size and memory up to the limit."""

    def __init__(self, feed_key_callback: Callable[[KeyPress], None], overflow: Overflow) -> None:
        self.overflow = overflow
        super().__init__(feed_key_callback)

    def reset(self, request: bool = False) -> None:
        super().reset(request)
        self._kept: list[str] = []
        self._kept_len = 0
        self._tail = ""

    def feed(self, data: str) -> None:
        if self._in_bracketed_paste:
            self._feed_paste(data)
            return
        i = 0
        while i < len(data):
            if self._in_bracketed_paste:
                self._feed_paste(data[i:])
                return
            run = _RUN.match(data, i)
            if run is not None:
                settled = i + _SETTLE
                while i < settled and not self._in_bracketed_paste:
                    self._input_parser.send(data[i])
                    i += 1
                if not self._in_bracketed_paste:  # else the loop's top hands the rest to the paste
                    text = self.overflow.take(data[i:run.end()], self.overflow.limit() + 1)
                    self.feed_key_callback(KeyPress(Keys.BracketedPaste, text))
                    i = run.end()
                continue
            self._input_parser.send(data[i])
            i += 1

    def _feed_paste(self, data: str) -> None:
        text = self._tail + data
        end = text.find(_END)
        if end < 0:
            keep = max(0, len(text) - (len(_END) - 1))  # the end mark may straddle two chunks
            self._keep(text[:keep])
            self._tail = text[keep:]
            return
        self._keep(text[:end])
        content = "".join(self._kept)
        self._kept, self._kept_len, self._tail = [], 0, ""
        self._in_bracketed_paste = False
        self._paste_buffer = ""
        self.feed_key_callback(KeyPress(Keys.BracketedPaste, content))
        self.feed(text[end + len(_END):])

    def _keep(self, text: str) -> None:
        kept = self.overflow.take(text, self.overflow.limit() + 1 - self._kept_len)
        if kept:
            self._kept.append(kept)
            self._kept_len += len(kept)
