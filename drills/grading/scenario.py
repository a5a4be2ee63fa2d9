"""Interview scenarios: one shared problem, follow-up steps, graded with carry-forward.

A scenario puts one ranking on the whiteboard and asks a chain of steps (DCG@3, IDCG@3, so
NDCG@3, what if binary, swap two ranks ...). Each step is an ordinary question (numeric with
a metric, choice, concept, code) whose problem is the shared one with at most a few things
changed (``change``: k, gain, binarised labels, a swap, the judged pool). A numeric step may
name the earlier steps it ``uses``; it is then graded against the exact value *and* against
the value recomputed from the learner's own earlier answers (error carried forward, as Moodle
STACK's follow-through marking does): an answer that follows from the learner's numbers is
``consistent``, counted as right for that step, and the slip is named once, at the step where
it was made.

A scenario is planned as one item (a ``Question`` of kind ``scenario`` holding its ``steps``);
the session asks its steps one at a time (``flatten``). Pure: no terminal, no files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from drills.engine.problem import Problem
from drills.model import Part, Question, Tolerance

CHANGES = ("k", "gain", "binarise", "swap", "judged")
CONSISTENT = "consistent"
# Verdicts that count as a right answer (a consistent step is right: its slip was earlier).
RIGHT = ("correct", CONSISTENT)
MIN_STEPS, MAX_STEPS = 2, 12


class ScenarioError(ValueError):
    """A scenario that cannot be built (an unknown step name in ``uses``, a bad change);
    ``step``: the 0-based index of the step at fault, when one is."""

    def __init__(self, message: str, step: int | None = None) -> None:
        super().__init__(message)
        self.step = step


def changed(problem: Problem, change: Mapping[str, Any], metric: str | None = None) -> Problem:
    """The shared problem with one step's ``change`` applied (each change relative to the
    shared problem, not to the step before)."""
    # deferred for start-up: the registry loads every metric family, the quiz's start needs none
    from drills.engine.metrics.registry import names

    unknown = [key for key in change if key not in CHANGES]
    if unknown:
        raise ScenarioError(f"unknown change {unknown[0]!r} (one of {', '.join(CHANGES)})")
    out = problem
    if "k" in change:
        out = replace(out, k=None if change["k"] is None else int(change["k"]))
    if "gain" in change:
        out = replace(out, gain=change["gain"])
    if "judged" in change:
        out = replace(out, judged=None if change["judged"] is None else tuple(change["judged"]))
    if change.get("binarise"):
        def binary(grades: tuple[int, ...] | None) -> tuple[int, ...] | None:
            return None if grades is None else tuple(int(g >= out.threshold) for g in grades)
        out = replace(out, relevance=binary(out.relevance) or (), judged=binary(out.judged),
                      queries=tuple(replace(q, relevance=binary(q.relevance) or (),
                                            judged=binary(q.judged)) for q in out.queries),
                      threshold=1, max_grade=None)  # the labels are 0/1 now
    if "swap" in change:
        i, j = (int(x) for x in change["swap"])
        if not (1 <= i <= len(out.relevance) and 1 <= j <= len(out.relevance)) or i == j:
            raise ScenarioError(f"swap {[i, j]}: two different ranks from 1 to {len(out.relevance)}")
        # the metrics whose swap is part of the question (LambdaRank's |delta NDCG|); for any
        # other a ``swap`` change swaps the two documents, and the step asks about the result
        if metric in names(taking="swap"):
            out = replace(out, swap=(min(i, j), max(i, j)))
        else:
            grades = list(out.relevance)
            grades[i - 1], grades[j - 1] = grades[j - 1], grades[i - 1]
            out = replace(out, relevance=tuple(grades), swap=None)
    elif metric not in names(taking="swap") and out.swap is not None:
        out = replace(out, swap=None)
    return out


def bind(scenario: Question, problem: Problem | None, steps: Sequence[Question],
         setup: str | None = None) -> Question:
    """The scenario with its ``steps`` made concrete for ``problem``.

    Each step (a Question with a ``part`` naming it: name, uses, change) gets its id
    (``<scenario id>#<n>``), its place (n of N), the shared setup text, the scenario's pack,
    source and (unless it has its own) topic and difficulty, and, for a numeric step with a
    ``metric`` and no fixed ``answer``, the shared problem with its change applied.
    """
    text = scenario.prompt if setup is None else setup
    out: list[Question] = []
    for n, step in enumerate(steps, 1):
        part = step.part or Part(scenario.id, name=f"step{n}")
        part = replace(part, scenario=scenario.id, step=n, of=len(steps), setup=text)
        fields: dict[str, Any] = {"id": f"{scenario.id}#{n}", "part": part, "pack": scenario.pack,
                                  "source": step.source if step.source.line else scenario.source,
                                  "topic": step.topic or scenario.topic,
                                  "difficulty": scenario.difficulty}  # a step has none of its own
        if step.kind == "numeric" and step.metric and problem is not None and step.answer is None:
            fields["problem"] = changed(problem, dict(part.change), step.metric)
        if scenario.generator and not step.generator:  # the drawn problem goes with each step
            fields.update(generator=scenario.generator, params=scenario.params)
        out.append(replace(step, **fields))
    check_uses(out)
    return replace(scenario, kind="scenario", problem=problem, prompt=text, steps=tuple(out))


def check_uses(steps: Sequence[Question]) -> None:
    """Every ``uses`` names an earlier numeric step whose value this step can be recomputed
    from (see CARRY), on the same problem; raises ScenarioError otherwise."""
    earlier: dict[str, Question] = {}
    for index, q in enumerate(steps):
        try:
            _check_step(q, earlier)
        except ScenarioError as exc:
            raise ScenarioError(str(exc), index) from None
        assert q.part is not None
        earlier[q.part.name] = q


def _check_step(q: Question, earlier: Mapping[str, Question]) -> None:
    """One step's ``uses`` and name against the steps before it."""
    part = q.part
    assert part is not None
    for name in part.uses:
        if name not in earlier:
            names = ", ".join(earlier) or "none"
            raise ScenarioError(f"step {part.name!r} uses {name!r}, which is not an earlier step "
                                f"(earlier: {names})")
        if q.kind != "numeric" or q.metric not in CARRY:
            carried = ", ".join(f"{m} (from {', '.join(n)})" for m, (n, _) in CARRY.items())
            what = f"metric {q.metric}" if q.kind == "numeric" and q.metric else (
                "a fixed answer" if q.kind == "numeric" else f"a {q.kind} step")
            raise ScenarioError(f"step {part.name!r} uses earlier steps, but {what} is not recomputed "
                                f"from a learner's earlier numbers; these are: {carried}")
        used = earlier[name]
        needs = CARRY[q.metric][0]
        if used.kind != "numeric" or used.metric not in needs:
            raise ScenarioError(f"step {part.name!r} ({q.metric}) uses {name!r}, but {q.metric} is "
                                f"recomputed from {' and '.join(needs)}, not from "
                                f"{used.metric or used.kind}")
        if not _same(used.problem, q.problem, used.metric):
            raise ScenarioError(f"step {part.name!r} uses {name!r}, which is about a different "
                                "problem (another k, gain or list): its number cannot carry forward")
    if part.name in earlier:
        raise ScenarioError(f"two steps are named {part.name!r}")


def check_values(scenario: Question) -> None:
    """Every numeric step's answer can be computed on its problem (a drawn problem with a
    pack's change may not allow it); raises ScenarioError naming the step."""
    from drills.engine.metrics.registry import (
        metric_value,  # deferred: not needed before the first question
    )
    from drills.engine.problem import ProblemError  # deferred: not needed before the first question

    for index, step in enumerate(scenario.steps):
        if step.kind == "numeric" and step.metric and step.problem is not None:
            try:
                metric_value(step.problem, step.metric)
            except (ProblemError, ZeroDivisionError, ValueError, ArithmeticError) as exc:
                name = step.part.name if step.part else index + 1
                raise ScenarioError(f"step {name!r} ({step.metric}): {exc}", index) from None


def _same(a: Problem | None, b: Problem | None, quantity: str | None = None) -> bool:
    """Whether a step's ``quantity`` computed on problem ``a`` is the same number on ``b``: the
    same problem (a swap aside), or for IDCG the same ideal (a swap inside the ranking leaves
    the judged pool, hence IDCG, alone)."""
    if a is None or b is None:
        return False
    if quantity == "dcg":  # DCG reads the ranking alone, not the judged pool
        return (a.relevance, a.k, a.gain) == (b.relevance, b.k, b.gain)
    if quantity == "idcg":
        def ideal(p: Problem) -> tuple[object, ...]:
            return (sorted(p.judged if p.judged is not None else p.relevance), p.k, p.gain)
        return ideal(a) == ideal(b)
    return replace(a, swap=None) == replace(b, swap=None)


def flatten(items: Sequence[Question]) -> tuple[list[Question], list[int]]:
    """The questions a session asks, a scenario's steps in its place, and for each the index
    of the planned item it belongs to."""
    asked: list[Question] = []
    owner: list[int] = []
    for index, q in enumerate(items):
        parts = q.steps if q.kind == "scenario" else (q,)
        asked.extend(parts)
        owner.extend([index] * len(parts))
    return asked, owner


# metric -> the quantities a learner's earlier answers may stand in for, and how the step's
# value is made from them (every quantity not taken from the learner is the engine's exact one).
Combine = Callable[[Mapping[str, float], Mapping[str, float]], float]
CARRY: dict[str, tuple[tuple[str, ...], Combine]] = {
    # NDCG = DCG / IDCG
    "ndcg": (("dcg", "idcg"), lambda v, exact: v["dcg"] / v["idcg"]),
    # |delta NDCG| = |delta DCG| / IDCG: a swap leaves IDCG alone, so a wrong IDCG carries.
    "delta_ndcg": (("idcg",), lambda v, exact: exact["delta_ndcg"] * exact["idcg"] / v["idcg"]),
}


def carried_value(question: Question, learner: Mapping[str, float],
                  used: Mapping[str, str]) -> float | None:
    """The step's value recomputed from the learner's answers to the steps it uses (the engine's
    exact values for the rest); None when it uses none of them or cannot be recomputed.

    ``learner``: the learner's numbers by step name; ``used``: step name -> the quantity (metric)
    that step computed.
    """
    from drills.engine.metrics.registry import (
        metric_value,  # deferred: not needed before the first question
    )

    metric = question.metric or ""
    if metric not in CARRY or question.problem is None:
        return None
    needs, combine = CARRY[metric]
    values = {used[name]: learner[name] for name in learner if used.get(name) in needs}
    if not values:
        return None
    exact = {m: metric_value(question.problem, m).value for m in (*needs, metric)}
    try:
        return combine({m: values.get(m, exact[m]) for m in needs}, exact)
    except (ZeroDivisionError, OverflowError):
        return None


@dataclass(frozen=True)
class StepGrade:
    """How a step was graded: the ordinary outcome, and carry-forward when it applied."""

    verdict: str  # correct | consistent | close | wrong | invalid
    outcome: Any  # drills.grading.check.Outcome
    carried: float | None = None  # the value that follows from the learner's earlier answers
    message: str | None = None  # "0.8012 follows from your DCG 7.52 and IDCG 9.39: ..."
    inherited: bool = False  # a slip named at an earlier step is not named again here


# What a carried value can be: one outside is not "consistent", whatever the learner's numbers.
RANGES: dict[str, tuple[float, float, str]] = {"ndcg": (0.0, 1.0, "NDCG"),
                                               "delta_ndcg": (0.0, 1.0, "|delta NDCG|")}


def carry(outcome: Any, question: Question, learner: Mapping[str, float],
          missed: Mapping[str, int], used: Mapping[str, str]) -> StepGrade:
    """Carry-forward on an ordinary ``outcome`` of a step: ``learner`` holds the learner's
    numbers for the earlier steps this one uses (by name), ``missed`` the 1-based number of each
    earlier step that was not right, ``used`` each used step's quantity.

    An answer that follows from the learner's numbers is ``consistent`` when one of them was
    missed, and ``correct`` when they were all accepted (each within its tolerance: their
    errors may add up past this step's); never when the value it follows to is impossible
    (an NDCG above 1: then the learner is told why)."""
    part = question.part
    if outcome.verdict in ("correct", "invalid") or part is None or not part.uses:
        return StepGrade(outcome.verdict, outcome)
    given = outcome.expected_value + outcome.error if (
        outcome.expected_value is not None and outcome.error is not None) else None
    mine = {name: learner[name] for name in part.uses if name in learner}
    value = carried_value(question, mine, used) if mine and given is not None else None
    if value is None or given is None:
        return StepGrade(outcome.verdict, outcome)
    tol = outcome.tolerance or Tolerance()
    if abs(given - value) > tol.allowed(value):
        return StepGrade(outcome.verdict, outcome, value)
    names = " and ".join(f"{used[name].upper()} {learner[name]:.6g}" for name in part.uses
                         if name in learner)
    low, high, label = RANGES.get(question.metric or "", (float("-inf"), float("inf"), ""))
    if not low - 1e-12 <= value <= high + 1e-12:
        return StepGrade(outcome.verdict, outcome, value,
                         f"{given:.6g} follows from your {names}, but {label} lies between "
                         f"{low:g} and {high:g}: one of those numbers is wrong.")
    inherited = [name for name in part.uses if name in missed]
    if not inherited:
        return StepGrade("correct", outcome, value,
                         f"{given:.6g} follows from your {names} (each accepted), so it is right.")
    first = min(missed[name] for name in inherited)
    message = (f"{given:.6g} follows from your {names}: this step is right; "
               f"the slip was in step {first}.")
    return StepGrade(CONSISTENT, outcome, value, message, inherited=True)


def answer_of(text: str) -> float | None:
    """The learner's number in ``text`` (for later steps' carry-forward), or None."""
    from drills.answers.parser import (  # deferred: not needed before the first question
        AnswerError,
        parse,
    )

    try:
        return float(parse(text).decimal())
    except (AnswerError, ValueError, ArithmeticError):
        return None


def regrade(outcome: Any, question: Question, earlier: Sequence[tuple[Question, str, str]]) -> Any:
    """A step's ``outcome`` after carry-forward: ``earlier`` holds the scenario's steps asked
    before it as (question, verdict, the learner's text). An answer that follows from the
    learner's own earlier numbers becomes verdict ``consistent`` (its slip was named at the
    step where it was made, so none is named here); any other outcome is returned as it is."""
    part = question.part
    if part is None or not part.uses or not outcome.counted or outcome.verdict == "correct":
        return outcome
    learner: dict[str, float] = {}
    missed: dict[str, int] = {}
    used: dict[str, str] = {}
    for q, verdict, given in earlier:
        if q.part is None:
            continue
        name = q.part.name
        used[name] = q.metric or q.kind
        if verdict not in RIGHT:
            missed[name] = q.part.step
        value = answer_of(given) if q.kind == "numeric" and given else None
        if value is not None:
            learner[name] = value
    grade = carry(outcome, question, learner, missed, used)
    if grade.message is None:
        return outcome
    if grade.verdict not in RIGHT:  # follows from the learner's numbers, but cannot be right
        return replace(outcome, diagnosis=(*outcome.diagnosis, grade.message))
    from drills.engine.exact import with_value  # deferred: not needed before the first question

    exact = with_value(outcome.expected, f"{outcome.expected_value:.6g}") \
        if outcome.expected_value is not None else outcome.expected
    head = "Consistent" if grade.verdict == CONSISTENT else "Correct"
    summary = f"{head}: {grade.message} (The exact answer is {exact}.)"
    return replace(outcome, verdict=grade.verdict, summary=summary, misconceptions=(), diagnosis=(),
                   pointer=None)


def named_once(outcome: Any, earlier: Sequence[tuple[Question, tuple[str, ...]]]) -> Any:
    """A slip explained at an earlier step of the same scenario (``earlier``: each step asked
    before, with the slips named there) is not explained again: the step says so in a line
    and keeps only its own right step."""
    slip = outcome.misconceptions[0] if outcome.misconceptions else None
    if slip is None or not outcome.diagnosis:
        return outcome
    step = next((q.part.step for q, ids in earlier if q.part is not None and ids[:1] == (slip,)), None)
    if step is None:
        return outcome
    _, found, right = outcome.diagnosis[0].partition("Right step: ")
    line = f"The same slip as at step {step} ({slip}), explained there." + (f" Right step: {right}" if found else "")
    return replace(outcome, diagnosis=(line, *outcome.diagnosis[1:]))
