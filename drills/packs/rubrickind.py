"""A concept question's rubric, read from the pack: ``key_points`` (text, or a mapping with
``required`` and ``accept`` phrasings), ``misconceptions`` (each an ``id``, a
``correction`` and ``signals``, or the id of one in the pack's top-level
``misconceptions:`` catalogue) and ``examples`` (answers with the verdict, points and
misconceptions their rubric must give them; ``drills packs lint`` runs them).

See docs/packs.md ("Concept rubrics"). The phrasings are data: they are compiled by
drills.grading.concept.phrasing, never as regular expressions.
"""

from __future__ import annotations

import re
from typing import Any

from drills.grading.concept.grade import VERDICTS
from drills.grading.concept.phrasing import MAX_PHRASING, compile_phrasing
from drills.grading.concept.text import NEGATIONS, STOP
from drills.model import Example, KeyPoint, Misconception, Rubric
from drills.packs.document import INVALID
from drills.packs.errors import FieldPath, excerpt
from drills.packs.fieldreader import FieldReader

MISCONCEPTION_ID = re.compile(r"[a-z][a-z0-9_]{1,60}")
POINT_FIELDS = ("text", "required", "accept")
BELIEF_FIELDS = ("id", "correction", "signals")
EXAMPLE_FIELDS = ("answer", "verdict", "points", "misconceptions")
MAX_PHRASINGS = 40


def phrasings(c: FieldReader, m: dict, p: FieldPath, key: str) -> tuple[str, ...] | None:
    """A list of phrasings, each one that can match something (no empty, no negation
    inside ``a|b`` alternatives)."""
    found = c.text_list(m, p, key)
    if found is None:
        return None
    if len(found) > MAX_PHRASINGS:
        c.err((*p, key), f"at most {MAX_PHRASINGS} phrasings, got {len(found)}")
        return None
    ok = True
    for i, text in enumerate(found):
        where = (*p, key, i)
        if len(text) > MAX_PHRASING:
            c.err(where, f"a phrasing is at most {MAX_PHRASING} characters")
            ok = False
        elif not _has_word(text) and compile_phrasing(text).empty:
            c.err(where, f"{excerpt(text)!r} has no word to match (only stop words?)")
            ok = False
        elif any(alt.lower() in NEGATIONS for chunk in text.split() if "|" in chunk
                 for alt in re.split(r"[|_\-]", chunk)):
            c.err(where, f"{excerpt(text)!r}: no negation inside `a|b` alternatives; "
                  "write a second phrasing with the negation outside")
            ok = False
    return found if ok else None


_WORDS = re.compile(r"[a-z0-9]+|[<>=/^@+~]")


def _has_word(text: str) -> bool:
    """A quick yes for a phrasing with a word beyond stop words and negations (most of them):
    compiling every phrasing of the bank at the first launch would cost a third of a second."""
    return any(w not in STOP and w not in NEGATIONS for w in _WORDS.findall(text.lower()))


def catalogue(c: FieldReader, value: Any) -> dict[str, Misconception]:
    """The pack's top-level ``misconceptions:`` list, by id."""
    if value is None or value is INVALID:
        return {}
    if not isinstance(value, list):
        c.err(("misconceptions",), "`misconceptions` must be a list of {id, correction, signals}")
        return {}
    out: dict[str, Misconception] = {}
    for i, item in enumerate(value):
        belief = _belief(c, item, ("misconceptions", i), {})
        if belief is not None:
            if belief.id in out:
                c.err(("misconceptions", i, "id"), f"duplicate misconception id {belief.id!r}")
            out[belief.id] = belief
    return out


def _belief(c: FieldReader, item: Any, p: FieldPath, known: dict[str, Misconception]) -> Misconception | None:
    if isinstance(item, str):  # a reference to the pack's catalogue
        if item in known:
            return known[item]
        c.err(p, f"unknown misconception {excerpt(item)!r}: define it here (id, correction, "
                 "signals) or in the pack's top-level `misconceptions:`")
        return None
    m = c.mapping(item, p, BELIEF_FIELDS, "a misconception")
    if m is None:
        return None
    mid = c.text(m, p, "id", required=True)
    correction = c.text(m, p, "correction", required=True)
    signals = phrasings(c, m, p, "signals")
    if mid is not None and not MISCONCEPTION_ID.fullmatch(mid):
        c.err((*p, "id"), f"misconception id {excerpt(mid)!r}: snake_case, a-z 0-9 _ (like a slip id)")
        return None
    if signals == ():
        c.err((*p, "signals") if "signals" in m else p, "a misconception needs `signals:`, the "
              "phrasings that show an answer holds it")
        return None
    if mid is None or correction is None or signals is None:
        return None
    return Misconception(mid, " ".join(correction.split()), signals)


def _point(c: FieldReader, item: Any, p: FieldPath) -> KeyPoint | None:
    if isinstance(item, str):
        return KeyPoint(item) if item.strip() else None
    m = c.mapping(item, p, POINT_FIELDS, "a key point")
    if m is None:
        return None
    text = c.text(m, p, "text", required=True)
    required = m.get("required", False)
    if not isinstance(required, bool):
        c.err((*p, "required"), "`required` must be true or false (no quotes)")
        return None
    accept = phrasings(c, m, p, "accept")
    if text is None or accept is None:
        return None
    return KeyPoint(text, required, accept)


def _example(c: FieldReader, item: Any, p: FieldPath) -> Example | None:
    m = c.mapping(item, p, EXAMPLE_FIELDS, "an example")
    if m is None:
        return None
    answer = c.text(m, p, "answer", required=True)
    verdict = c.choice(m, p, "verdict", VERDICTS, required=True)
    points = c.text_list(m, p, "points") if "points" in m else ()
    beliefs = c.text_list(m, p, "misconceptions")
    if answer is None or verdict is None or points is None or beliefs is None:
        return None
    return Example(answer, verdict, points if "points" in m else None, beliefs, c.doc.line(p))


def rubric(c: FieldReader, item: dict, p: FieldPath) -> dict[str, Any]:
    """``key_points`` (texts), and the ``rubric`` when the question has one."""
    raw = item.get("key_points")
    if raw is INVALID:
        return {"key_points": None}
    if not isinstance(raw, list) or not raw:
        c.err((*p, "key_points") if "key_points" in item else p,
              "a concept question needs `key_points:` with at least one point")
        return {"key_points": None}
    points = [_point(c, x, (*p, "key_points", i)) for i, x in enumerate(raw)]
    if any(x is None for x in points):
        if not any(isinstance(x, str) and not x.strip() for x in raw):
            return {"key_points": None}
        c.err((*p, "key_points"), "empty key point")
        return {"key_points": None}
    kps = tuple(x for x in points if x is not None)
    texts = [k.text for k in kps]
    if len(set(texts)) != len(texts):
        c.err((*p, "key_points"), "the same key point appears twice")
        return {"key_points": None}
    known: dict[str, Misconception] = getattr(c, "catalogue", {})
    raw_beliefs = item.get("misconceptions")
    beliefs: list[Misconception] = []
    if raw_beliefs not in (None, INVALID):
        if not isinstance(raw_beliefs, list):
            c.err((*p, "misconceptions"), "`misconceptions` must be a list")
            return {"key_points": None}
        for i, x in enumerate(raw_beliefs):
            b = _belief(c, x, (*p, "misconceptions", i), known)
            if b is None:
                return {"key_points": None}
            if any(b.id == other.id for other in beliefs):
                c.err((*p, "misconceptions", i), f"misconception {b.id!r} listed twice")
                return {"key_points": None}
            beliefs.append(b)
    examples = _examples(c, item, p, texts, [b.id for b in beliefs])
    if examples is None:
        return {"key_points": None}
    graded = any(k.accept or k.required for k in kps) or beliefs or examples
    if not graded:
        return {"key_points": tuple(texts)}
    if not any(k.required for k in kps):
        c.err((*p, "key_points"), "a rubric needs at least one point with `required: true` "
              "(what a correct answer must say)")
        return {"key_points": None}
    return {"key_points": tuple(texts), "rubric": Rubric(kps, tuple(beliefs), examples)}


def _examples(c: FieldReader, item: dict, p: FieldPath, points: list[str],
              beliefs: list[str]) -> tuple[Example, ...] | None:
    raw = item.get("examples")
    if raw is None:
        return ()
    if raw is INVALID:
        return None
    if not isinstance(raw, list):
        c.err((*p, "examples"), "`examples` must be a list of {answer, verdict, points, misconceptions}")
        return None
    out = []
    for i, x in enumerate(raw):
        e = _example(c, x, (*p, "examples", i))
        if e is None:
            return None
        for k, text in enumerate(e.points or ()):
            if text not in points:
                c.err((*p, "examples", i, "points", k), f"{excerpt(text)!r} is not one of the key points")
                return None
        for k, mid in enumerate(e.misconceptions):
            if mid not in beliefs:
                c.err((*p, "examples", i, "misconceptions", k),
                      f"{excerpt(mid)!r} is not one of this question's misconceptions")
                return None
        out.append(e)
    return tuple(out)
