"""The text a question shows when nobody answered it (skip, timeout) and a concept's model answer.

Pure: built from the engine's worked steps, like every explanation.
"""

from __future__ import annotations

from typing import Any

from drills.model import Question


def answer_for(q: Question) -> dict[str, Any]:
    """Expected answer and explanation for a question nobody answered (skip, timeout)."""
    if q.kind == "concept":
        return {"expected": q.model_answer or "", "explanation": concept_text(q, ())}
    from drills.grading import check as checking  # deferred: not needed before the first question

    if q.kind == "choice":
        text = checking.correct_answer(q)
        return {"expected": text, "explanation": "\n".join(
            x for x in (f"Answer: {text}", q.explanation.strip()) if x)}
    ref = checking.reference(q)
    from drills.engine.exact import (  # deferred: not needed before the first question
        decimal_text,
        with_value,
    )

    lines = [f"Answer: {with_value(ref.text, decimal_text(ref.decimal(), 10))}"]
    from drills.grading.solution import worked_for  # deferred: not needed before the first question

    worked = worked_for(q)
    if worked is not None:
        lines += ["", worked]
    if q.prose:
        lines += ["", q.prose]
    return {"expected": ref.text, "expected_value": ref.value, "explanation": "\n".join(lines)}


def concept_text(q: Question, points: tuple[tuple[str, bool], ...], grade: Any = None) -> str:
    """The full feedback on a concept answer: with a rubric's ``grade``
    (drills.grading.concept.grade.ConceptGrade) its verdict and wrong beliefs first, then the
    model answer and the key points (made, with the learner's words, or missed)."""
    lines: list[str] = []
    if grade is not None:
        lines += [verdict_line(grade)]
        for m in grade.misconceptions:
            lines += [f"Wrong belief ({m.id}): {m.correction}", f"  you said: \"{m.evidence}\""]
        lines.append("")
    lines += ["Model answer:", (q.model_answer or "").strip()]
    if grade is not None:
        lines += ["", "Key points:"] + [
            f"  [{'x' if p.covered else ' '}] {p.text}" + (" (required)" if p.required and not p.covered else "")
            + (f' - "{p.evidence}"' if p.covered else "") for p in grade.points]
        return "\n".join(lines)
    marks = points or tuple((p, False) for p in q.key_points)
    if marks:
        lines += ["", "Key points:"] + [f"  [{'x' if ok else ' '}] {p}" for p, ok in marks]
    return "\n".join(lines)


def verdict_line(grade: Any) -> str:
    """One line: the verdict and why (the wrong belief, or the required points made)."""
    required = [p for p in grade.points if p.required]
    made = sum(p.covered for p in required)
    if grade.verdict == "correct":
        return f"Correct: every required point made ({made}/{len(required)})."
    if grade.verdict == "partial":
        return f"Partial: {made} of {len(required)} required points made, no wrong belief."
    if grade.misconceptions:
        names = ", ".join(m.id for m in grade.misconceptions)
        return f"Wrong: a wrong belief ({names})."
    return "Wrong: the answer makes none of the key points."
