"""The code grader of the quiz and of ``drills code check``: the learner's function runs in a
separate, limited process (``drills.runner``) on hidden cases chosen by the exact engine
(``drills.coding.grade``); nothing the learner writes is imported into drills.

A ``ModuleNotFoundError`` (at module level or inside the function) is followed by what the
runner offers (``drills.runner.offers``): which libraries the code can import there.

Everything the parent needs after a check is imported before the child starts (``preload``;
tests/test_runner_isolation.py checks it), so nothing the child writes to drills' files can
reach this check; ``drills.runner`` puts back drills' files the child changed."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from drills.coding.grade import check_code, outcome_of
from drills.runner import run_function
from drills.runner.offers import offered

MISSING = "ModuleNotFoundError"
PYTHON: list[str | None] = [None]  # the learner's interpreter (--python, [code] python)


def preload() -> None:
    """Import now what the parent uses after a check (the worked case, the record, the
    review card): the child cannot reach a module drills has already imported."""
    import drills.grading.solution  # noqa: F401  lazy: only for a check, before the child
    import drills.store.cards  # noqa: F401  lazy: as above (fsrs)
    import drills.store.fields  # noqa: F401  lazy: as above
    import drills.store.undo  # noqa: F401  lazy: as above


def run(source: str, function: str, cases: Any) -> Any:
    """The runner with its default limits and the chosen interpreter (a seam for tests)."""
    preload()
    return run_function(source, function, cases, python=PYTHON[0])


def check_source(question: Any, source: str, examples_only: bool = False) -> Any:
    """Grade ``source`` for a code question: a CodeResult (``examples_only``: on the visible
    examples alone)."""
    return with_offer(check_code(question, source, run, examples_only))


def with_offer(result: Any) -> Any:
    """``result`` with what the runner offers said after a ModuleNotFoundError."""
    if MISSING in result.message:
        return replace(result, message=f"{result.message.rstrip('.')}. {offered(PYTHON[0])}")
    if any((c.error or "").startswith(MISSING) for c in result.cases):
        return replace(result, explanations=(*result.explanations, offered(PYTHON[0])))
    return result


def grade(question: Any, source: str) -> Any:
    """The quiz's code grader (Session(code_grader=...)): an Outcome."""
    return outcome_of(question, source, check_source(question, source))
