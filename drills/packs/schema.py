"""Check a parsed pack and build Questions from it, reporting every problem.

The checks are written for authors: each message names the field, says what was
expected, and for YAML 1.1 surprises (``NO`` read as false, ``1.10`` read as 1.1)
quotes what was typed and how to fix it. A question with any problem is skipped;
the others are still built, so one typo never hides a whole pack's questions
from ``drills packs validate``.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any

from drills.engine.problem import GAINS
from drills.model import DIFFICULTIES, KINDS, TOPICS, Question, Source, Tolerance
from drills.packs import codekind, kinds, scenariokind
from drills.packs.document import described
from drills.packs.errors import FieldPath, excerpt, suggest
from drills.packs.meta import PackMeta  # noqa: F401 - re-exported: PackMeta was defined here
from drills.packs.yamlsafe import INVALID, Document

NAME_RE = re.compile(r"[a-z0-9-]+")
ID_RE = re.compile(r"[a-z0-9][a-z0-9._-]*")
TOPIC_RE = re.compile(r"[a-z0-9-]+")
MAX_ID_LENGTH = 100

TOP_FIELDS = ("pack", "defaults", "questions")
PACK_FIELDS = ("name", "version", "description", "author")
DEFAULT_FIELDS = ("tolerance", "gain", "difficulty")
COMMON_FIELDS = ("id", "topic", "kind", "difficulty", "prompt", "hints", "explanation")
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "numeric": ("answer", "problem", "metric", "unit", "tolerance", "code"),
    "generated": ("generator", "params", "tolerance"),
    "choice": ("options", "code"),
    "concept": ("model_answer", "key_points"),
    "code": codekind.CODE_FIELDS,
    "scenario": scenariokind.SCENARIO_FIELDS,
}
ALL_FIELDS = COMMON_FIELDS + tuple(f for fs in KIND_FIELDS.values() for f in fs if f != "tolerance") + ("tolerance",)
_ALLOWED = {kind: frozenset(COMMON_FIELDS + fields) for kind, fields in KIND_FIELDS.items()}
_REQUIRED = ("id", "topic", "kind", "prompt", "difficulty", "hints")
TOLERANCE_FIELDS = ("absolute", "relative")


_kind_of = described


class Checker:
    """Typed field getters that report their own problems (and return None)."""

    def __init__(self, doc: Document, builtin: bool) -> None:
        self.doc = doc
        self.builtin = builtin

    def err(self, path: FieldPath, message: str) -> None:
        self.doc.error(path, message)

    # --- typed getters: each reports its own problem and returns None ---------------
    def text(self, m: dict, path: FieldPath, key: str, *, required: bool = False) -> str | None:
        value = m.get(key)
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

    # --- the pack --------------------------------------------------------------------
    def pack(self) -> tuple[PackMeta | None, list[Question]]:
        data = self.doc.data
        if data is INVALID:
            return None, []
        if not isinstance(data, dict):
            self.err((), f"a pack file must be a mapping with `pack:` and `questions:`, got {_kind_of(data)}")
            return None, []
        # Some other YAML file (or one a symlink points to): say so, without quoting its keys.
        a_pack = "pack" in data or "questions" in data
        for key in data:
            if isinstance(key, str) and key.startswith("x-"):
                continue  # a place for shared anchors (x-base: &base {...}), ignored
            if key not in TOP_FIELDS and (a_pack or suggest(key, TOP_FIELDS)):
                self.err((key,), f"unknown top-level field `{excerpt(key)}`" + suggest(key, TOP_FIELDS))
        if not a_pack:
            self.err((), "not a pack: a pack file has `pack:` and `questions:` at the top level "
                         "(see docs/packs.md)")
            return None, []
        meta = self.meta(data)
        questions = data.get("questions")
        if questions is INVALID:
            return meta, []
        if not isinstance(questions, list) or not questions:
            where = ("questions",) if "questions" in data else ()
            self.err(where, "`questions` must be a non-empty list of questions")
            return meta, []
        broken_by_yaml = {p[1] for p in self.doc.broken if len(p) > 1 and p[0] == "questions"}
        built: list[Question] = []
        seen: dict[str, int] = {}
        for i, item in enumerate(questions):
            before = len(self.doc.errors)
            q = self.question(item, ("questions", i), meta)
            if q is not None and q.id in seen:
                self.err(("questions", i, "id"), f"duplicate id {q.id!r} (first at line {seen[q.id]})")
            elif q is not None:
                seen[q.id] = q.source.line
            if q is not None and len(self.doc.errors) == before and i not in broken_by_yaml:
                built.append(q)
            elif len(self.doc.errors) == before and i not in broken_by_yaml:  # never drop silently
                self.err(("questions", i), "this question could not be built")
        return meta, built

    def meta(self, data: dict) -> PackMeta | None:
        head = data.get("pack")
        if head is None:
            self.err((), "`pack:` is required (name: and version:)")
            return None
        m = self.mapping(head, ("pack",), PACK_FIELDS, "pack")
        defaults = self.mapping(data.get("defaults", {}), ("defaults",), DEFAULT_FIELDS, "defaults")
        if m is None:
            return None
        p: FieldPath = ("pack",)
        name = self.text(m, p, "name", required=True)
        if name is not None and not NAME_RE.fullmatch(name):
            self.err((*p, "name"), f"pack name {excerpt(name)!r} may use only a-z, 0-9 and -")
            name = None
        version = self.text(m, p, "version", required=True)
        description = self.text(m, p, "description") or ""
        author = self.text(m, p, "author") or ""
        tol, gain, difficulty = None, "exponential", "medium"
        if defaults is not None:
            d: FieldPath = ("defaults",)
            if "tolerance" in defaults:
                tol = self.tolerance(defaults["tolerance"], (*d, "tolerance"), None)
            gain = self.choice(defaults, d, "gain", GAINS, "exponential") or "exponential"
            difficulty = self.choice(defaults, d, "difficulty", DIFFICULTIES, "medium") or "medium"
        if name is None or version is None:
            return None
        return PackMeta(name, version, description, author, tol, gain, difficulty,
                        self.doc.line(("pack", "name")))

    def question(self, item: Any, p: FieldPath, meta: PackMeta | None) -> Question | None:
        if item is INVALID:
            return None
        if not isinstance(item, dict):
            self.err(p, f"each question must be a mapping (id:, topic:, kind:, prompt: ...), got {_kind_of(item)}")
            return None
        kind = self.choice(item, p, "kind", KINDS, required=True)
        allowed = _ALLOWED[kind] if kind else ALL_FIELDS
        for key in item:
            if key in allowed:
                continue
            if key in ALL_FIELDS:
                self.err((*p, key), f"`{key}` is not used by kind {kind!r} questions")
            else:
                self.err((*p, key), f"unknown field `{excerpt(key)}`" + suggest(key, ALL_FIELDS))
        qid = self.text(item, p, "id", required=True)
        if qid is not None and (not ID_RE.fullmatch(qid) or len(qid) > MAX_ID_LENGTH):
            self.err((*p, "id"), f"id {excerpt(qid)!r} must start with a-z or 0-9 and use only a-z 0-9 . _ - "
                                 f"(at most {MAX_ID_LENGTH} characters)")
        topic = self.text(item, p, "topic", required=True)
        if topic is not None:
            if self.builtin and topic not in TOPICS:
                self.err((*p, "topic"), f"unknown topic {excerpt(topic)!r} for a built-in pack; expected one of: "
                                        f"{', '.join(TOPICS)}" + suggest(topic, TOPICS))
            elif not TOPIC_RE.fullmatch(topic):
                self.err((*p, "topic"), f"topic {excerpt(topic)!r} may use only a-z, 0-9 and -")
        default_difficulty = meta.difficulty if meta else "medium"
        fields: dict[str, Any] = {
            "id": qid, "topic": topic, "kind": kind,
            "prompt": self.text(item, p, "prompt", required=True),
            "difficulty": self.choice(item, p, "difficulty", DIFFICULTIES, default_difficulty),
            "hints": self.text_list(item, p, "hints"),
            "explanation": self.text(item, p, "explanation") or "",
        }
        if kind in ("numeric", "generated") and "tolerance" in item:
            fields["tolerance"] = self.tolerance(item["tolerance"], (*p, "tolerance"), meta.tolerance if meta else None)
        elif kind in ("numeric", "generated"):
            fields["tolerance"] = meta.tolerance if meta else None
        if kind is not None:
            fields.update(kinds.CHECKS[kind](self, item, p, meta))
        if kind in ("numeric", "choice") and "code" in item:
            fields["code"] = codekind.snippet(self, item, p)
            if fields["code"] is None:
                return None
        if any(fields[k] is None for k in _REQUIRED) or (kind == "scenario" and fields["steps"] is None):
            return None
        q = Question(**fields, pack=meta.name if meta else "", source=Source(self.doc.name, self.doc.line(p)))
        return scenariokind.finish(self, q, p) if kind == "scenario" else q


def build_pack(doc: Document, *, builtin: bool = False) -> tuple[PackMeta | None, list[Question]]:
    """Check ``doc``; return its header and the questions without problems.

    Problems are appended to ``doc.errors``. ``builtin`` packs must use the
    project's fixed topics; custom packs may name their own.
    """
    if doc.fatal:
        return None, []
    return Checker(doc, builtin).pack()
