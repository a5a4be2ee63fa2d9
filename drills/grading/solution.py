"""A question's worked solution: the engine's worked steps for its problem and metric.

Pure text, like every explanation; the front ends (feedback, reveal, worksheets, Anki)
print it.
"""

from __future__ import annotations

from drills.engine.metrics.registry import worked_steps
from drills.engine.table import WIDE, Layout
from drills.model import Question


def worked_for(question: Question, layout: Layout = WIDE) -> str | None:
    """Worked steps for a numeric question the engine computes; None for answer-text ones."""
    if question.problem is None or not question.metric:
        return None
    # A scenario's DCG or IDCG step shows its own table, not the NDCG a later step asks for.
    return worked_steps(question.problem, question.metric, layout, scoped=question.part is not None)
