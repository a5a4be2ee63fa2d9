"""Question tests for concept rubrics: every example of a question must grade as its
author says (verdict, points made, misconceptions named), else a lint error at the
example's file:line; a rubric without examples, or with fewer misconceptions than a
built-in question needs, is a warning.

Pure: grades text against the rubric, nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator

from drills.grading.concept.grade import grade_concept
from drills.grading.concept.phrasing import ignored_words
from drills.model import Example, Question
from drills.safetext import shorten

MIN_EXAMPLES = 3
MIN_MISCONCEPTIONS = 2


def concept_questions(q: Question) -> Iterator[Question]:
    """The concept questions inside ``q``: itself, or a scenario's concept steps."""
    if q.kind == "concept":
        yield q
    for step in q.steps:
        yield from concept_questions(step)


def _where(q: Question, ex: Example) -> str:
    step = f" step {q.part.step}" if q.part is not None else ""
    return f"{q.source.path}:{ex.line}: {q.id}{step}"


def example_errors(q: Question) -> list[str]:
    """One error per example its rubric grades otherwise than the example says."""
    errors: list[str] = []
    for c in concept_questions(q):
        if c.rubric is None:
            continue
        for n, ex in enumerate(c.rubric.examples, start=1):
            got = grade_concept(c.rubric, ex.answer)
            wrong = []
            if got.verdict != ex.verdict:
                wrong.append(f"verdict {got.verdict}, expected {ex.verdict}")
            named = sorted(m.id for m in got.misconceptions)
            if named != sorted(ex.misconceptions):
                wrong.append(f"misconceptions [{', '.join(named)}], expected "
                             f"[{', '.join(sorted(ex.misconceptions))}]")
            if ex.points is not None:
                made = {p.text for p in got.made}
                extra, missing = made - set(ex.points), set(ex.points) - made
                if extra:
                    wrong.append("also makes " + "; ".join(repr(shorten(x, 40)) for x in sorted(extra)))
                if missing:
                    wrong.append("misses " + "; ".join(repr(shorten(x, 40)) for x in sorted(missing)))
            if wrong:
                errors.append(f"{_where(c, ex)}: example {n} ({shorten(' '.join(ex.answer.split()), 50)!r}) "
                              f"grades otherwise: {'; '.join(wrong)}")
    return errors


def rubric_warnings(q: Question) -> list[str]:
    """Concept questions without a rubric, or with too few examples or misconceptions."""
    out = []
    for c in concept_questions(q):
        where = f"{c.source}: {c.id}" + (f" step {c.part.step}" if c.part is not None else "")
        if c.rubric is None:
            out.append(f"{where}: no rubric (required points, misconceptions, examples): "
                       "the learner grades themselves")
            continue
        if len(c.rubric.examples) < MIN_EXAMPLES:
            out.append(f"{where}: {len(c.rubric.examples)} examples; write at least {MIN_EXAMPLES} "
                       "(a right paraphrase, a partial, a wrong belief)")
        phrasings = [x for p in c.rubric.points for x in p.accept] + [
            x for m in c.rubric.misconceptions for x in m.signals]
        for text in phrasings:
            if ignored_words(text):
                out.append(f"{where}: phrasing {shorten(text, 40)!r}: "
                           f"{', '.join(map(repr, ignored_words(text)))} only stop words, never matched")
        if len(c.rubric.misconceptions) < MIN_MISCONCEPTIONS:
            out.append(f"{where}: {len(c.rubric.misconceptions)} misconceptions; name at least "
                       f"{MIN_MISCONCEPTIONS} wrong beliefs candidates hold")
    return out
