"""Check a parsed pack and build Questions from it, reporting every problem.

The orchestrator, on top of drills.packs' checks: the top-level fields, the ``pack:``
header, each question's common fields, then its kind's own check from REGISTRY, each
given only the field reader (fieldreader.py).

The checks are written for authors: each message names the field, says what was
expected, and for YAML 1.1 surprises (``NO`` read as false, ``1.10`` read as 1.1)
quotes what was typed and how to fix it. A question with any problem is skipped;
the others are still built, so one typo never hides a whole pack's questions
from ``drills packs validate``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from drills.engine.problem import GAINS
from drills.model import DIFFICULTIES, KINDS, TOPICS, Question, Source
from drills.packs import codekind, kinds, rubrickind, scenariokind
from drills.packs.document import INVALID, Document, described
from drills.packs.errors import FieldPath, excerpt, suggest
from drills.packs.fieldreader import Check, FieldReader
from drills.packs.meta import PackMeta

NAME_RE = re.compile(r"[a-z0-9-]+")
ID_RE = re.compile(r"[a-z0-9][a-z0-9._-]*")
TOPIC_RE = re.compile(r"[a-z0-9-]+")
MAX_ID_LENGTH = 100

TOP_FIELDS = ("pack", "defaults", "misconceptions", "questions")
PACK_FIELDS = ("name", "version", "description", "author")
DEFAULT_FIELDS = ("tolerance", "gain", "difficulty")
COMMON_FIELDS = ("id", "topic", "kind", "difficulty", "prompt", "hints", "explanation", "variant_of")


@dataclass(frozen=True)
class Kind:
    """A question kind: the fields it adds to COMMON_FIELDS and the check that reads them."""

    fields: tuple[str, ...]
    check: Check


# The question kinds, the one place a new kind is added (its check in its own module).
REGISTRY: dict[str, Kind] = {
    "numeric": Kind(("answer", "problem", "metric", "unit", "tolerance", "code"), kinds.numeric),
    "generated": Kind(("generator", "params", "tolerance"), kinds.generated),
    "choice": Kind(("options", "code"), kinds.choice),
    "concept": Kind(("model_answer", "key_points", "misconceptions", "examples"), kinds.concept),
    "code": Kind(codekind.CODE_FIELDS, codekind.code),
    "scenario": Kind(scenariokind.SCENARIO_FIELDS, scenariokind.scenario),
}
KIND_FIELDS: dict[str, tuple[str, ...]] = {name: kind.fields for name, kind in REGISTRY.items()}
ALL_FIELDS = COMMON_FIELDS + tuple(f for fs in KIND_FIELDS.values() for f in fs if f != "tolerance") + ("tolerance",)
_ALLOWED = {kind: frozenset(COMMON_FIELDS + fields) for kind, fields in KIND_FIELDS.items()}
_REQUIRED = ("id", "topic", "kind", "prompt", "difficulty", "hints")

_kind_of = described


def _pack(c: FieldReader) -> tuple[PackMeta | None, list[Question]]:
    data = c.doc.data
    if data is INVALID:
        return None, []
    if not isinstance(data, dict):
        c.err((), f"a pack file must be a mapping with `pack:` and `questions:`, got {_kind_of(data)}")
        return None, []
    # Some other YAML file (or one a symlink points to): say so, without quoting its keys.
    a_pack = "pack" in data or "questions" in data
    for key in data:
        if isinstance(key, str) and key.startswith("x-"):
            continue  # a place for shared anchors (x-base: &base {...}), ignored
        if key not in TOP_FIELDS and (a_pack or suggest(key, TOP_FIELDS)):
            c.err((key,), f"unknown top-level field `{excerpt(key)}`" + suggest(key, TOP_FIELDS))
    if not a_pack:
        c.err((), "not a pack: a pack file has `pack:` and `questions:` at the top level "
                  "(see docs/packs.md)")
        return None, []
    meta = _meta(c, data)
    c.catalogue = rubrickind.catalogue(c, data.get("misconceptions"))
    questions = data.get("questions")
    if questions is INVALID:
        return meta, []
    if not isinstance(questions, list) or not questions:
        where = ("questions",) if "questions" in data else ()
        c.err(where, "`questions` must be a non-empty list of questions")
        return meta, []
    broken_by_yaml = {p[1] for p in c.doc.broken if len(p) > 1 and p[0] == "questions"}
    built: list[Question] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(questions):
        before = len(c.doc.errors)
        q = _question(c, item, ("questions", i), meta)
        if q is not None and q.id in seen:
            c.err(("questions", i, "id"), f"duplicate id {q.id!r} (first at line {seen[q.id]})")
        elif q is not None:
            seen[q.id] = q.source.line
        if q is not None and len(c.doc.errors) == before and i not in broken_by_yaml:
            built.append(q)
        elif len(c.doc.errors) == before and i not in broken_by_yaml:  # never drop silently
            c.err(("questions", i), "this question could not be built")
    return meta, built


def _meta(c: FieldReader, data: dict) -> PackMeta | None:
    head = data.get("pack")
    if head is None:
        c.err((), "`pack:` is required (name: and version:)")
        return None
    m = c.mapping(head, ("pack",), PACK_FIELDS, "pack")
    defaults = c.mapping(data.get("defaults", {}), ("defaults",), DEFAULT_FIELDS, "defaults")
    if m is None:
        return None
    p: FieldPath = ("pack",)
    name = c.text(m, p, "name", required=True)
    if name is not None and not NAME_RE.fullmatch(name):
        c.err((*p, "name"), f"pack name {excerpt(name)!r} may use only a-z, 0-9 and -")
        name = None
    version = c.text(m, p, "version", required=True)
    description = c.text(m, p, "description") or ""
    author = c.text(m, p, "author") or ""
    tol, gain, difficulty = None, "exponential", "medium"
    if defaults is not None:
        d: FieldPath = ("defaults",)
        if "tolerance" in defaults:
            tol = c.tolerance(defaults["tolerance"], (*d, "tolerance"), None)
        gain = c.choice(defaults, d, "gain", GAINS, "exponential") or "exponential"
        difficulty = c.choice(defaults, d, "difficulty", DIFFICULTIES, "medium") or "medium"
    if name is None or version is None:
        return None
    return PackMeta(name, version, description, author, tol, gain, difficulty,
                    c.doc.line(("pack", "name")))


def _question(c: FieldReader, item: Any, p: FieldPath, meta: PackMeta | None) -> Question | None:
    if item is INVALID:
        return None
    if not isinstance(item, dict):
        c.err(p, f"each question must be a mapping (id:, topic:, kind:, prompt: ...), got {_kind_of(item)}")
        return None
    kind = c.choice(item, p, "kind", KINDS, required=True)
    allowed = _ALLOWED[kind] if kind else ALL_FIELDS
    for key in item:
        if key in allowed:
            continue
        if key in ALL_FIELDS:
            c.err((*p, key), f"`{key}` is not used by kind {kind!r} questions")
        else:
            c.err((*p, key), f"unknown field `{excerpt(key)}`" + suggest(key, ALL_FIELDS))
    qid = c.text(item, p, "id", required=True)
    if qid is not None and (not ID_RE.fullmatch(qid) or len(qid) > MAX_ID_LENGTH):
        c.err((*p, "id"), f"id {excerpt(qid)!r} must start with a-z or 0-9 and use only a-z 0-9 . _ - "
                          f"(at most {MAX_ID_LENGTH} characters)")
    topic = c.text(item, p, "topic", required=True)
    if topic is not None:
        if c.builtin and topic not in TOPICS:
            c.err((*p, "topic"), f"unknown topic {excerpt(topic)!r} for a built-in pack; expected one of: "
                                 f"{', '.join(TOPICS)}" + suggest(topic, TOPICS))
        elif not TOPIC_RE.fullmatch(topic):
            c.err((*p, "topic"), f"topic {excerpt(topic)!r} may use only a-z, 0-9 and -")
    default_difficulty = meta.difficulty if meta else "medium"
    fields: dict[str, Any] = {
        "id": qid, "topic": topic, "kind": kind,
        "prompt": c.text(item, p, "prompt", required=True),
        "difficulty": c.choice(item, p, "difficulty", DIFFICULTIES, default_difficulty),
        "hints": c.text_list(item, p, "hints"),
        "explanation": c.text(item, p, "explanation") or "",
    }
    variant = c.text(item, p, "variant_of")
    if variant is not None and not ID_RE.fullmatch(variant):
        c.err((*p, "variant_of"), f"variant_of {excerpt(variant)!r} must be a question id")
    elif variant is not None:
        fields["variant_of"] = variant
    if kind in ("numeric", "generated") and "tolerance" in item:
        fields["tolerance"] = c.tolerance(item["tolerance"], (*p, "tolerance"), meta.tolerance if meta else None)
    elif kind in ("numeric", "generated"):
        fields["tolerance"] = meta.tolerance if meta else None
    if kind is not None:
        fields.update(REGISTRY[kind].check(c, item, p, meta))
    if kind in ("numeric", "choice") and "code" in item:
        fields["code"] = codekind.snippet(c, item, p)
        if fields["code"] is None:
            return None
    if any(fields[k] is None for k in _REQUIRED) or (kind == "scenario" and fields["steps"] is None):
        return None
    q = Question(**fields, pack=meta.name if meta else "", source=Source(c.doc.name, c.doc.line(p)))
    return scenariokind.finish(c, q, p) if kind == "scenario" else q


def build_pack(doc: Document, *, builtin: bool = False) -> tuple[PackMeta | None, list[Question]]:
    """Check ``doc``; return its header and the questions without problems.

    Problems are appended to ``doc.errors``. ``builtin`` packs must use the
    project's fixed topics; custom packs may name their own.
    """
    if doc.fatal:
        return None, []
    return _pack(FieldReader(doc, builtin))
