"""The field reader every question kind receives: typed getters over a pack's document.

Each getter reports its own problem at the field's file:line (``doc.error``) and returns
None, so a kind reads all its fields and every problem is listed at once. A question
kind is a ``Check``: it takes the reader, the question's mapping, its path and the
pack's header, and returns the Question fields it owns. The kinds (kinds.py,
codekind.py, scenariokind.py, problems.py) import only this module and each other; the
orchestrator (schema.py) is above them all. No YAML library here: a Document is data.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable
from typing import Any

from drills.model import Tolerance
from drills.packs.document import INVALID, Document, described
from drills.packs.errors import FieldPath, excerpt, suggest
from drills.packs.meta import PackMeta

TOLERANCE_FIELDS = ("absolute", "relative")

_kind_of = described


class FieldReader:
    """Typed field getters that report their own problems (and return None).

    What every question kind receives (``Check``): the document being checked (its
    values, lines and errors) and whether it is a built-in pack (strict topics).
    """

    def __init__(self, doc: Document, builtin: bool) -> None:
        self.doc = doc
        self.builtin = builtin
        self.catalogue: dict[str, Any] = {}  # the pack's shared misconceptions, by id (rubrickind)

    def err(self, path: FieldPath, message: str) -> None:
        self.doc.error(path, message)

    def text(self, m: dict, path: FieldPath, key: str, *, required: bool = False) -> str | None:
        value = m.get(key)
        if type(value) is str and (not required or value.strip()):  # the common case, first
            return value
        p = (*path, key)
        if value is INVALID:
            return None
        if value is None:
            if required:
                self.err(p if key in m else path, f"`{key}` is required" + (" (it is empty)" if key in m else ""))
            return None
        if isinstance(value, str):
            if required and not value.strip():
                self.err(p, f"`{key}` is empty")
                return None
            return value
        self.err(p, self.not_text(p, value))
        return None

    def not_text(self, p: FieldPath, value: Any) -> str:
        typed = self.doc.shown(p, value)
        if isinstance(value, bool):
            return (f"YAML 1.1 read {typed} as the boolean {str(value).lower()}; "
                    f"write '{typed}' in quotes")
        if isinstance(value, (int, float, _dt.date)):
            return f"YAML read {typed} as {_kind_of(value)}, not text; write it in quotes: \"{typed}\""
        return f"expected text, got {_kind_of(value)}"

    def choice(self, m: dict, path: FieldPath, key: str, allowed: tuple[str, ...],
               default: str | None = None, *, required: bool = False) -> str | None:
        raw = m.get(key)
        if raw is not None and raw is not INVALID and not isinstance(raw, str):
            self.err((*path, key), f"expected one of: {', '.join(allowed)}; got {self.doc.shown((*path, key), raw)}")
            return None
        value = self.text(m, path, key, required=required)
        if value is None:  # absent or empty (``difficulty:``): the default, unless required
            return None if required or raw is INVALID else default
        if value not in allowed:
            self.err((*path, key), f"unknown {key} {excerpt(value)!r}; expected one of: {', '.join(allowed)}"
                     + suggest(value, allowed))
            return None
        return value

    def text_list(self, m: dict, path: FieldPath, key: str) -> tuple[str, ...] | None:
        value = m.get(key)
        if value is None or value is INVALID:
            return () if value is None else None
        if not isinstance(value, list):
            self.err((*path, key), f"`{key}` must be a list, e.g. {key}: [\"...\", \"...\"]")
            return None
        ok = True
        for i, item in enumerate(value):
            if item is INVALID:
                ok = False
            elif not isinstance(item, str) or not item.strip():
                self.err((*path, key, i), "empty text" if isinstance(item, str) or item is None
                         else self.not_text((*path, key, i), item))
                ok = False
        return tuple(value) if ok else None

    def mapping(self, value: Any, p: FieldPath, fields: tuple[str, ...], what: str) -> dict | None:
        if value is INVALID:
            return None
        if not isinstance(value, dict):
            self.err(p, f"{what} must be a mapping ({', '.join(f + ':' for f in fields)}), got {_kind_of(value)}")
            return None
        for key in value:
            if key not in fields:
                self.err((*p, key), f"unknown field `{excerpt(key)}` in {what}" + suggest(key, fields))
        return value

    def integer(self, value: Any, p: FieldPath, *, minimum: int, maximum: int | None = None) -> int | None:
        if value is INVALID:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            what, shown = _kind_of(value), self.doc.shown(p, value)
            self.err(p, f"expected a whole number, got {what}" + (f" ({shown})" if shown != what else ""))
            return None
        if value < minimum or (maximum is not None and value > maximum):
            bound = f"at least {minimum}" if maximum is None else f"from {minimum} to {maximum}"
            self.err(p, f"must be {bound}, got {value}")
            return None
        return value

    def tolerance(self, value: Any, p: FieldPath, base: Tolerance | None) -> Tolerance | None:
        m = self.mapping(value, p, TOLERANCE_FIELDS, "tolerance")
        if m is None:
            return None
        start = base or Tolerance()
        out = {"absolute": start.absolute, "relative": start.relative}
        for key in TOLERANCE_FIELDS:
            if key not in m or m[key] is INVALID:
                continue
            number = m[key]
            if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number) or number < 0:
                self.err((*p, key), f"must be a number >= 0, got {self.doc.shown((*p, key), number)}")
                return None
            out[key] = float(number)
        return Tolerance(**out)


# A question kind: reader, the question's mapping, its path, the pack's header -> its fields.
Check = Callable[[FieldReader, dict, FieldPath, "PackMeta | None"], dict[str, Any]]
