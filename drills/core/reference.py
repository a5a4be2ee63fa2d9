"""The exact answer of a question, from the one engine (or the pack's safe answer text)."""

from __future__ import annotations

from drills.core.exact import Exact
from drills.core.metrics import metric_value
from drills.core.questions import Question


def reference(question: Question) -> Exact:
    """The exact answer of a numeric question (engine value or safe-parsed answer text)."""
    if question.problem is not None and question.metric:
        return metric_value(question.problem, question.metric)
    if question.answer is not None:
        from drills.core.answers import parse

        return parse(question.answer)
    raise ValueError(f"question {question.id} has no exact answer")
