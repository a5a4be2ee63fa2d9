"""What the keys do at the answer prompt: Tab completes commands, Up recalls answers only.

prompt_toolkit pieces for the interactive front end: a completer for ``:`` commands
(``:h`` + Tab is ``:hint``, the alias's command), a history that keeps answers and never
commands, self-grades or the Enter that dismisses feedback, and the toolbar's progress bar.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import History

from drills.quiz.session import ALIASES, COMMANDS


class CommandCompleter(Completer):
    """Completes a line that starts with ``:`` to an in-quiz command."""

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        text = document.text_before_cursor.lstrip()
        if not text.startswith(":") or " " in text:
            return
        word = text[1:].lower()
        names = [ALIASES[word]] if word in ALIASES else [n for n in COMMANDS if n.startswith(word)]
        for name in names:
            yield Completion(f":{name}", start_position=-len(text), display_meta=COMMANDS[name][0])


class AnswersOnly(History):
    """A history that stores only what ``keep`` accepts (answers, not commands)."""

    def __init__(self, inner: History, keep: Callable[[str], bool]) -> None:
        super().__init__()
        self.inner = inner
        self.keep = keep

    def load_history_strings(self) -> Iterable[str]:
        return self.inner.load_history_strings()

    def store_string(self, string: str) -> None:
        self.inner.store_string(string)

    def append_string(self, string: str) -> None:
        if self.keep(string):
            super().append_string(string)


def progress_bar(done: int, total: int, width: int = 10) -> str:
    """``[####------]``: how much of the session is behind you."""
    filled = 0 if total <= 0 else min(width, round(width * done / total))
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def keys_hint(session: Any) -> str:
    """The keys that apply now, for the toolbar."""
    if session.waiting:
        after = "summary" if session.current() is None else "next"
        return f"Enter {after}  s steps  :undo  :q quit"
    if session.awaiting_grade:
        return "1-4 again/hard/good/easy  Ctrl-C skip"
    q = session.current()
    if q is not None and q.kind == "concept":
        return "Enter twice: done  Tab :cmd  Ctrl-C skip  Ctrl-D quit"
    return "Tab :cmd  Ctrl-C skip  Ctrl-D quit"
