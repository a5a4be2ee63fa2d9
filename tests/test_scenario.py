"""Scenarios' carry-forward grading (the pure core): a later step that follows from the
learner's own earlier numbers is `consistent`, and the slip is named once, where it was made.

Expected values come from tests/ndcg_reference.py, not from the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from drills.engine.problem import Problem
from drills.grading.check import check
from drills.grading.scenario import CONSISTENT, ScenarioError, StepGrade, carry, changed
from drills.model import Part, Question

from . import ndcg_reference as ref

RANKED, POOL, K = (3, 0, 2, 1), (3, 2, 2, 1, 0), 3
PROBLEM = Problem(RANKED, POOL, K)


@dataclass(frozen=True)
class Step:
    """A named step whose name is its quantity (as in a DCG -> IDCG -> NDCG chain)."""

    name: str
    question: Question
    uses: tuple[str, ...] = ()


def grade_step(step: Step, text: str, problem: Problem, learner: dict, wrong_steps: dict) -> StepGrade:
    """The session's grading of one step: the ordinary check, then carry-forward from the
    learner's numbers for the earlier steps (by name) and the steps missed (name -> number)."""
    q = replace(step.question, part=Part("", name=step.name, uses=step.uses), problem=problem)
    return carry(check(q, text), q, learner, wrong_steps, {name: name for name in step.uses})


def step(name: str, metric: str, uses: tuple[str, ...] = ()) -> Step:
    q = Question(id=f"scen.{name}", topic="hand-computation", kind="numeric", prompt=name,
                 problem=PROBLEM, metric=metric)
    return Step(name, q, uses)


DCG, IDCG, NDCG = step("dcg", "dcg"), step("idcg", "idcg"), step("ndcg", "ndcg", ("dcg", "idcg"))


def test_linear_gain_in_step_one_then_a_right_division_is_consistent():
    linear_dcg = ref.dcg(RANKED, K, "linear")
    one = grade_step(DCG, f"{linear_dcg:.4f}", PROBLEM, {}, {})
    assert one.verdict == "wrong" and "linear_gain" in one.outcome.misconceptions
    idcg = ref.idcg(RANKED, POOL, K)
    two = grade_step(IDCG, f"{idcg:.4f}", PROBLEM, {"dcg": linear_dcg}, {"dcg": 1})
    assert two.verdict == "correct"
    learner = {"dcg": linear_dcg, "idcg": idcg}
    three = grade_step(NDCG, f"{linear_dcg / idcg:.4f}", PROBLEM, learner, {"dcg": 1})
    assert three.verdict == CONSISTENT and three.inherited
    assert three.message.endswith("this step is right; the slip was in step 1.")
    assert "your DCG 4 and IDCG 10.3928" in three.message  # the learner's own numbers
    assert three.carried == pytest.approx(linear_dcg / idcg)


def test_a_wrong_division_is_still_wrong():
    linear_dcg = ref.dcg(RANKED, K, "linear")
    learner = {"dcg": linear_dcg, "idcg": ref.idcg(RANKED, POOL, K)}
    three = grade_step(NDCG, "0.5", PROBLEM, learner, {"dcg": 1})
    assert three.verdict == "wrong" and not three.inherited


def test_carry_forward_only_when_an_earlier_step_was_missed():
    exact = ref.ndcg(RANKED, POOL, K)
    learner = {"dcg": ref.dcg(RANKED, K), "idcg": ref.idcg(RANKED, POOL, K)}
    assert grade_step(NDCG, f"{exact:.4f}", PROBLEM, learner, {}).verdict == "correct"
    assert grade_step(NDCG, "0.5", PROBLEM, learner, {}).verdict == "wrong"


def test_changes_apply_one_thing():
    assert changed(PROBLEM, {"k": 1}).k == 1
    assert changed(PROBLEM, {"gain": "linear"}).gain == "linear"
    binary = changed(PROBLEM, {"binarise": True})
    assert binary.relevance == (1, 0, 1, 1) and binary.judged == (1, 1, 1, 1, 0)
    assert changed(PROBLEM, {"swap": [1, 3]}, "delta_ndcg").swap == (1, 3)  # the swap is asked about
    swapped = changed(PROBLEM, {"swap": [1, 3]}, "ndcg")  # the ranking after the swap
    assert swapped.relevance == (2, 0, 3, 1) and swapped.swap is None
    with pytest.raises(ScenarioError, match="unknown change"):
        changed(PROBLEM, {"depth": 3})


def test_a_division_of_two_accepted_but_rounded_numbers_is_right():
    """Each within its tolerance, their errors add up past NDCG's: the division is still right."""
    dcg, idcg = ref.dcg(RANKED, K) * 0.996, ref.idcg(RANKED, POOL, K) * 1.004  # both accepted
    learner = {"dcg": dcg, "idcg": idcg}
    assert grade_step(DCG, f"{dcg:.6f}", PROBLEM, {}, {}).verdict == "correct"
    assert grade_step(IDCG, f"{idcg:.6f}", PROBLEM, {}, {}).verdict == "correct"
    three = grade_step(NDCG, f"{dcg / idcg:.6f}", PROBLEM, learner, {})
    assert three.verdict == "correct" and "follows from your DCG" in three.message


def test_an_impossible_value_is_never_consistent():
    """A DCG above the IDCG divides to an NDCG above 1: told why, not forgiven."""
    dcg, idcg = 2 * ref.idcg(RANKED, POOL, K), ref.idcg(RANKED, POOL, K)
    three = grade_step(NDCG, f"{dcg / idcg:.4f}", PROBLEM, {"dcg": dcg, "idcg": idcg}, {"dcg": 1})
    assert three.verdict == "wrong" and not three.inherited
    assert "NDCG lies between 0 and 1: one of those numbers is wrong" in three.message
    negative = grade_step(NDCG, f"{-dcg / idcg:.4f}", PROBLEM, {"dcg": -dcg, "idcg": idcg}, {"dcg": 1})
    assert negative.verdict == "wrong"


def test_binarising_resets_the_threshold():
    """Grades 0/1 after binarising: a threshold of 2 would make every document non-relevant."""
    graded = Problem((3, 0, 2, 1), None, 3, threshold=2)
    binary = changed(graded, {"binarise": True}, "rr")
    assert binary.relevance == (1, 0, 1, 0) and binary.threshold == 1


def test_a_step_that_uses_dcg_may_change_the_pool():
    """DCG reads the ranking only: an NDCG over another judged pool may use it."""
    from drills.grading.scenario import _same

    assert _same(PROBLEM, changed(PROBLEM, {"judged": [3, 3, 2, 2, 1, 0]}), "dcg")
    assert not _same(PROBLEM, changed(PROBLEM, {"judged": [3, 3, 2, 2, 1, 0]}), "idcg")
    assert _same(PROBLEM, changed(PROBLEM, {"swap": [1, 2]}, "ndcg"), "idcg")  # same ideal
