"""The exact answer of a question, from the one engine (or the pack's safe answer text)."""

from __future__ import annotations

from drills.engine.exact import Exact
from drills.engine.metrics.registry import metric_value
from drills.model import Question


def reference(question: Question) -> Exact:
    """The exact answer of a numeric question (engine value or safe-parsed answer text)."""
    if question.problem is not None and question.metric:
        return metric_value(question.problem, question.metric)
    if question.answer is not None:
        from drills.answers.parser import parse  # deferred: only a pack's fixed answer is parsed

        return parse(question.answer)
    raise ValueError(f"question {question.id} has no exact answer")
