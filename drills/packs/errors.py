"""PackError: one problem in one pack file, printed as ``path:line: field: message``.

Every check (YAML reading, schema, cross-pack) reports these instead of raising,
so a validation run can list every problem at once, each with a place to jump to.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

FieldPath = tuple["str | int", ...]


@dataclass(frozen=True)
class PackError:
    path: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line > 0 else self.path
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


def field_name(path: FieldPath) -> str:
    """("questions", 3, "answer") -> "questions[3].answer" (what the author can search for)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def suggest(word: str, choices: Iterable[str]) -> str:
    """' (did you mean `x`?)' for a near miss, else ''."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.7)
    return f" (did you mean `{close[0]}`?)" if close else ""
