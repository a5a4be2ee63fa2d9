"""What reading a pack file produces: its values, the line of each, its problems.

The builder (yamlbuild.py) fills a Document; the schema (schema.py) checks it. Split
from yamlbuild.py to keep modules small.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from drills.packs.errors import FieldPath, PackError, excerpt, field_name


class _Invalid:
    """Stands in for a value already reported as an error (no second message)."""

    _instance: _Invalid | None = None

    def __new__(cls) -> _Invalid:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "INVALID"


INVALID: Any = _Invalid()


def described(value: Any) -> str:
    """What kind of value ``value`` is, for a message ("a list"); never the internal placeholder."""
    if value is INVALID:
        return "a value with an error (reported above)"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, (_dt.date, _dt.datetime)):
        return "a date"
    if isinstance(value, str):
        return "text"
    return type(value).__name__


@dataclass
class Document:
    """The values of one YAML file, with where each came from."""

    name: str
    data: Any = None
    lines: dict[FieldPath, int] = field(default_factory=dict)
    raw: dict[FieldPath, str] = field(default_factory=dict)
    errors: list[PackError] = field(default_factory=list)
    broken: set[FieldPath] = field(default_factory=set)  # paths of values with errors
    fatal: bool = False  # nothing usable: the schema should not run

    def line(self, path: FieldPath) -> int:
        """Line of ``path``, else of its nearest recorded ancestor (values under an alias)."""
        while path:
            found = self.lines.get(path)
            if found is not None:
                return found
            path = path[:-1]
        return self.lines.get((), 1)

    def text(self, path: FieldPath, value: Any) -> str:
        """What the author typed for a scalar YAML retyped, else str(value)."""
        return self.raw.get(path, str(value))

    def shown(self, path: FieldPath, value: Any) -> str:
        """``text`` to quote in a message: at most 60 characters; a list or mapping is named."""
        if isinstance(value, (list, dict)) or value is INVALID:
            return described(value)
        return excerpt(self.text(path, value))

    def error(self, path: FieldPath, message: str, line: int | None = None) -> None:
        self.broken.add(path)
        self.errors.append(PackError(self.name, self.line(path) if line is None else line,
                                     field_name(path), message))


class Stop(Exception):
    """A fatal problem: the rest of the file is not read."""

    def __init__(self, line: int, message: str, path: FieldPath = ()) -> None:
        super().__init__(message)
        self.line, self.message, self.path = line, message, path
