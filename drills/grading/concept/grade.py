"""Grade a concept answer against its rubric: a verdict, the points made (with the words
that made them), the points missed, and each wrong belief named with its correction.

- ``correct``: every required point made, no wrong belief;
- ``partial``: no wrong belief, something relevant said, a required point missing;
- ``wrong``: a wrong belief stated, or nothing relevant.

Pure and deterministic; the phrasings are compiled once per rubric (cached).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from drills.grading.concept.phrasing import Phrasing, compile_phrasing, find
from drills.grading.concept.text import MAX_CHARS, Token, tokens
from drills.model import Rubric

VERDICTS = ("correct", "partial", "wrong")
MAX_EVIDENCE = 80  # characters of the answer quoted as a point's evidence


@dataclass(frozen=True)
class PointMark:
    """One key point of a rubric, and whether (and by which words) the answer made it."""

    text: str
    covered: bool
    required: bool
    evidence: str = ""  # the words of the answer that made the point


@dataclass(frozen=True)
class BeliefMark:
    """One wrong belief the answer stated, with its correction and the words that stated it."""

    id: str
    correction: str
    evidence: str = ""


@dataclass(frozen=True)
class ConceptGrade:
    """A concept answer's grade: its verdict, each key point marked, the wrong beliefs found."""

    verdict: str
    points: tuple[PointMark, ...]
    misconceptions: tuple[BeliefMark, ...]

    @property
    def made(self) -> tuple[PointMark, ...]:
        return tuple(p for p in self.points if p.covered)

    @property
    def missed(self) -> tuple[PointMark, ...]:
        return tuple(p for p in self.points if not p.covered)

    def as_json(self) -> dict:
        return {"verdict": self.verdict,
                "key_points": [{"text": p.text, "covered": p.covered, "required": p.required,
                                "evidence": p.evidence} for p in self.points],
                "misconceptions": [{"id": m.id, "correction": m.correction} for m in self.misconceptions]}


@lru_cache(maxsize=4096)
def _compiled(text: str) -> Phrasing:
    return compile_phrasing(text)


def _evidence(answer: str, start: int, end: int) -> str:
    """The answer's words from ``start`` to ``end``, a bracket left open closed from the answer."""
    opened = answer.count("(", start, end) - answer.count(")", start, end)
    while opened > 0 and end < len(answer) and (close := answer.find(")", end, end + 20)) >= 0:
        end, opened = close + 1, opened - 1
    text = " ".join(answer[start:end].split())
    return text if len(text) <= MAX_EVIDENCE else text[: MAX_EVIDENCE - 3].rstrip() + "..."


def _first(phrasings: tuple[str, ...], toks: list[Token], answer: str, ordered: bool) -> str | None:
    for text in phrasings:
        m = find(_compiled(text), toks, ordered)
        if m is not None:
            return _evidence(answer, m.start, m.end)
    return None


def grade_concept(rubric: Rubric, answer: str) -> ConceptGrade:
    """How ``answer`` fares against ``rubric`` (see the module docstring)."""
    answer = answer[:MAX_CHARS]
    toks = tokens(answer)
    marks = []
    for point in rubric.points:
        phrasings = point.accept or (point.text,)
        said = _first(phrasings, toks, answer, ordered=False)
        marks.append(PointMark(point.text, said is not None, point.required, said or ""))
    beliefs = []
    for belief in rubric.misconceptions:
        said = _first(belief.signals, toks, answer, ordered=True)
        if said is not None:
            beliefs.append(BeliefMark(belief.id, belief.correction, said))
    required = [m for m in marks if m.required] or marks
    if beliefs or not any(m.covered for m in marks):
        verdict = "wrong"
    elif all(m.covered for m in required):
        verdict = "correct"
    else:
        verdict = "partial"
    return ConceptGrade(verdict, tuple(marks), tuple(beliefs))
