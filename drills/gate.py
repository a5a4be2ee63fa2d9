"""The one gate every printed line passes: standard output and error, sanitised.

``gated()`` puts a ``Gate`` in front of ``sys.stdout`` and ``sys.stderr`` for the length
of a command, so text from a pack, a file name or the learner can reach the terminal
only through ``drills.safetext.terminal_text``: drills' own colour codes pass, any
other control character is shown (``^[``), never sent. prompt_toolkit draws with escape
sequences of its own, so the interactive front end hands it ``ungated(sys.stdout)``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from drills.safetext import terminal_text


class Gate:
    """A text stream that sanitises what is written and delegates everything else."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str | bytes) -> int:
        if isinstance(text, bytes):  # click.echo(bytes) comes here too, since there is no .buffer
            self._stream.write(terminal_text(text.decode("utf-8", "replace")))
            return len(text)
        self._stream.write(terminal_text(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":  # no way around the gate: click then writes text to us
            raise AttributeError(name)
        return getattr(self._stream, name)


def ungated(stream: Any) -> Any:
    """The stream behind a Gate (for prompt_toolkit's own drawing), or the stream itself."""
    return stream._stream if isinstance(stream, Gate) else stream


@contextmanager
def gated() -> Iterator[None]:
    """Gate stdout and stderr until the block ends (a no-op when already gated)."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, Gate) and sys.stdout is not None:
        sys.stdout = Gate(sys.stdout)  # type: ignore[assignment]
    if not isinstance(sys.stderr, Gate) and sys.stderr is not None:
        sys.stderr = Gate(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
