"""The code grader of the quiz and of ``drills code check``: the learner's function runs in a
separate, limited process (``drills.runner``) on hidden cases chosen by the exact engine
(``drills.coding.grade``); nothing the learner writes is imported into drills."""

from __future__ import annotations

from typing import Any

from drills.coding.grade import check_code, outcome_of
from drills.runner import run_function


def run(source: str, function: str, cases: Any) -> Any:
    """The runner with its default limits (a seam for tests)."""
    return run_function(source, function, cases)


def check_source(question: Any, source: str) -> Any:
    """Grade ``source`` for a code question: a CodeResult."""
    return check_code(question, source, run)


def grade(question: Any, source: str) -> Any:
    """The quiz's code grader (Session(code_grader=...)): an Outcome."""
    return outcome_of(question, source, check_source(question, source))
