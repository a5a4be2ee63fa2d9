"""PackError: one problem in one pack file, printed as ``path:line: field: message``.

Every check (YAML reading, schema, cross-pack) reports these instead of raising,
so a validation run can list every problem at once, each with a place to jump to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from drills.safetext import shorten, visible

FieldPath = tuple["str | int", ...]


@dataclass(frozen=True)
class PackError:
    """One problem in one pack file, at a line and a field."""

    path: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        """One line, safe for a terminal: file names and pack text show their control characters."""
        path, field, message = shown(self.path), shown(self.field), shown(self.message)
        where = f"{path}:{self.line}" if self.line > 0 else path
        return f"{where}: {field}: {message}" if field else f"{where}: {message}"


def shown(text: str) -> str:
    """``text`` (a file name, a field, pack text) for one line of a message: controls shown, not sent."""
    return visible(text).replace("\n", "^J")


def excerpt(text: object, width: int = 60) -> str:
    """At most ``width`` characters of pack text to quote in a message, never a whole line of a file."""
    return shorten(str(text), width).replace("\n", "^J")


def field_name(path: FieldPath) -> str:
    """("questions", 3, "answer") -> "questions[3].answer" (what the author can search for)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:  # a key is pack text: at most an excerpt of it (a file's line may be one long key)
            out += f".{excerpt(part)}" if out else excerpt(part)
    return out


def suggest(word: str, choices: Iterable[str]) -> str:
    """' (did you mean `x`?)' for a near miss, else ''."""
    import difflib  # lazy: only a pack with a problem needs it, not a launch

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.7)
    return f" (did you mean `{close[0]}`?)" if close else ""
