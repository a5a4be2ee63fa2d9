"""Interview scenarios: one shared problem, follow-up steps, graded with carry-forward.

A scenario puts one ranking on the whiteboard and asks a chain of steps (DCG@3, IDCG@3, so
NDCG@3, what if binary, swap two ranks ...). Each step is an ordinary question (numeric with
a metric, choice, concept) whose problem is the shared one with at most one thing changed
(``change``: k, gain, binarised labels, a swap). A numeric step may name the earlier steps it
``uses``; it is then graded against the exact value *and* against the value recomputed from
the learner's own earlier answers (error carried forward, as Moodle STACK's follow-through
marking does): an answer that follows from the learner's numbers is ``consistent``, counted
as right for that step, and the slip is named once, at the step where it was made.

Pure: no terminal, no files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from drills.core.questions import Problem, Question, Tolerance

CHANGES = ("k", "gain", "binarise", "swap", "judged")
CONSISTENT = "consistent"


class ScenarioError(ValueError):
    """A scenario that cannot be built (an unknown step name in ``uses``, a bad change)."""


@dataclass(frozen=True)
class Step:
    """One step: its name (what later steps' ``uses`` refer to), its question, what it uses."""

    name: str
    question: Question
    uses: tuple[str, ...] = ()


def changed(problem: Problem, change: Mapping[str, Any]) -> Problem:
    """The shared problem with one step's ``change`` applied."""
    unknown = [key for key in change if key not in CHANGES]
    if unknown:
        raise ScenarioError(f"unknown change {unknown[0]!r} (one of {', '.join(CHANGES)})")
    out = problem
    if "k" in change:
        out = replace(out, k=change["k"])
    if "gain" in change:
        out = replace(out, gain=change["gain"])
    if change.get("binarise"):
        def binary(grades: tuple[int, ...] | None) -> tuple[int, ...] | None:
            return None if grades is None else tuple(int(g > 0) for g in grades)
        out = replace(out, relevance=binary(out.relevance) or (), judged=binary(out.judged))
    if "swap" in change:
        i, j = change["swap"]
        out = replace(out, swap=(int(i), int(j)))
    if "judged" in change:
        out = replace(out, judged=tuple(change["judged"]))
    return out


# metric -> the quantities a learner's earlier answers may stand in for, and how the step's
# value is made from them (every quantity not taken from the learner is the engine's exact one).
Combine = Callable[[Mapping[str, float]], float]
CARRY: dict[str, tuple[tuple[str, ...], Combine]] = {
    "ndcg": (("dcg", "idcg"), lambda v: v["dcg"] / v["idcg"]),
}


def carried_value(step: Step, problem: Problem, learner: Mapping[str, float]) -> float | None:
    """The step's value recomputed from the learner's answers to the steps it uses (the engine's
    exact values for the rest); None when the step uses none of them or cannot be recomputed."""
    from drills.core.metrics import metric_value

    metric = step.question.metric or ""
    if metric not in CARRY or not step.uses:
        return None
    needs, combine = CARRY[metric]
    used = {name: learner[name] for name in step.uses if name in learner and name in needs}
    if not used:
        return None
    values = {name: used.get(name, metric_value(problem, name).value) for name in needs}
    try:
        return combine(values)
    except ZeroDivisionError:
        return None


@dataclass(frozen=True)
class StepGrade:
    """How a step was graded: the ordinary outcome, and carry-forward when it applied."""

    verdict: str  # correct | consistent | close | wrong | invalid
    outcome: Any  # drills.core.checking.Outcome
    carried: float | None = None  # the value that follows from the learner's earlier answers
    message: str | None = None  # "0.8012 follows from your DCG 7.52 and IDCG 9.39: ..."
    inherited: bool = False  # a slip named at an earlier step is not named again here


def grade_step(step: Step, text: str, problem: Problem, learner: Mapping[str, float],
               wrong_steps: Mapping[str, int], tolerance: Tolerance | None = None) -> StepGrade:
    """Grade ``text`` for ``step``; ``learner`` holds the learner's numbers for the earlier
    steps by name, ``wrong_steps`` the 1-based number of each earlier step that was missed."""
    from drills.core.checking import check

    outcome = check(step.question, text, tolerance)
    if outcome.verdict in ("correct", "invalid") or outcome.error is None:
        return StepGrade(outcome.verdict, outcome)
    missed = [name for name in step.uses if name in wrong_steps]
    carried = carried_value(step, problem, learner) if missed else None
    if carried is None:
        return StepGrade(outcome.verdict, outcome)
    tol = outcome.tolerance or Tolerance()
    given = outcome.expected_value + outcome.error if outcome.expected_value is not None else None
    if given is None or abs(given - carried) > tol.allowed(carried):
        return StepGrade(outcome.verdict, outcome, carried)
    names = " and ".join(f"{name.upper()} {learner[name]:.6g}" for name in step.uses if name in learner)
    first = min(wrong_steps[name] for name in missed)
    message = (f"{given:.6g} follows from your {names}: this step is right; "
               f"the slip was in step {first}.")
    return StepGrade(CONSISTENT, outcome, carried, message, inherited=True)
