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


def concept_text(q: Question, points: tuple[tuple[str, bool], ...]) -> str:
    lines = ["Model answer:", (q.model_answer or "").strip()]
    marks = points or tuple((p, False) for p in q.key_points)
    if marks:
        lines += ["", "Key points:"] + [f"  [{'x' if ok else ' '}] {p}" for p, ok in marks]
    return "\n".join(lines)
