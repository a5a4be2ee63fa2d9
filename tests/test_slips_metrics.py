"""Slips of the metrics beyond NDCG (issue 12, point 5): every id on the notes' worked examples.

Expected values are the notes' slip table (metrics-facts.md) and a naive recomputation here
from the definitions (tests/metrics_reference.py, tests/cascade_reference.py, plain loops),
never the engine's output.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from fractions import Fraction

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from drills.cli import cli
from drills.engine.metrics.registry import metric_value
from drills.engine.problem import Problem, ProblemError
from drills.grading.check import check
from drills.grading.diagnose import Case, diagnose_case, right_step, same, slip_values
from drills.grading.narrowing import prepared
from drills.grading.slips import FAMILIES, SLIPS, slips_for
from drills.grading.tolerance import within
from drills.model import Question, Tolerance

from . import cascade_reference as cref
from . import metrics_reference as ref

B = (1, 0, 1, 1, 0)  # binary, R = 4: one relevant document never retrieved
POOL_B = (1, 1, 1, 1, 0)
G = (2, 1, 3, 0)  # graded, pool {3, 2, 1, 0}
POOL_G = (3, 2, 1, 0)
AP_B = Problem(B, POOL_B)
HALF = Fraction(1, 2)

NEW_IDS = ("ap_over_retrieved", "ap_over_k", "ap_all_ranks", "map_of_precision", "recall_over_k",
           "precision_over_relevant", "r_from_retrieved", "mrr_skips_misses", "err_linear_gain",
           "err_no_stop", "err_log_discount", "rbp_no_one_minus_p", "rbp_one_based_power")


def _queries(*pairs: tuple[tuple[int, ...], tuple[int, ...] | None], k: int | None = None) -> Problem:
    qs = tuple(Problem(r, j) for r, j in pairs)
    return Problem(qs[0].relevance, qs[0].judged, k, queries=qs)


MRR3 = _queries(((1, 0, 0), None), ((0, 0, 1), None), ((0, 0, 0), (1, 0, 0)))  # RR 1, 1/3, 0
MAP_BG = _queries((B, POOL_B), (G, POOL_G), k=5)


def values(problem: Problem, metric: str) -> dict[str, Fraction | float]:
    """Every slip's value on ``problem`` (exact when rational)."""
    out: dict[str, Fraction | float] = {}
    for v in slip_values(Case(problem, metric)):
        exact = v.value
        out[v.misconception.id] = exact.const if getattr(exact, "is_rational", False) else exact.value  # type: ignore[attr-defined]
    return out


def _question(problem: Problem, metric: str, tolerance: Tolerance | None = None) -> Question:
    return Question(id="m", topic="hand-computation", kind="numeric", prompt="p", problem=problem,
                    metric=metric, tolerance=tolerance)


# --------------------------------------------------------------------------- naive slip formulas
def sum_of_precisions(ranking, k=None):
    k = len(ranking) if k is None else k
    return sum((ref.precision(ranking, i) for i in range(1, k + 1) if ref.rel_at(ranking, i)), Fraction(0))


def err_variant(grades, g_max, stop, discount, product=True):
    total, reach = 0, 1
    for r, g in enumerate(grades, start=1):
        total += (reach if product else 1) * stop(g, g_max) * discount(r)
        reach *= 1 - stop(g, g_max)
    return total


def exp_stop(g, g_max):
    return Fraction(2**g - 1, 2**g_max)


def test_the_notes_slip_table_on_the_worked_examples():
    # AP of B: /R = 29/48; the notes' wrong values, and the same from plain loops
    assert ref.ap(list(B), judged=list(POOL_B)) == Fraction(29, 48)
    ap = values(AP_B, "ap")
    assert ap["ap_over_retrieved"] == Fraction(29, 36) == sum_of_precisions(B) / 3
    assert ap["ap_over_k"] == Fraction(29, 60) == sum_of_precisions(B) / 5
    assert values(replace(AP_B, k=5), "ap")["ap_over_k"] == Fraction(29, 60)  # AP@5 over k
    every_rank = sum((ref.precision(list(B), i) for i in range(1, 6)), Fraction(0)) / 5
    assert ap["ap_all_ranks"] == Fraction(211, 300) == every_rank
    # MAP@5 over B and G (l = 1): the mean P@5 is 3/5, the right 77/96
    right_map = ref.mean([ref.ap(list(B), 5, list(POOL_B)), ref.ap(list(G), 5, list(POOL_G))])
    assert metric_value(MAP_BG, "map").value == pytest.approx(float(right_map)) and right_map == Fraction(77, 96)
    assert values(MAP_BG, "map")["map_of_precision"] == Fraction(3, 5) == ref.mean(
        [ref.precision(list(B), 5), ref.precision(list(G), 5)])
    # recall@3 over k, P@3 over R, R from the retrieved documents
    assert values(Problem(B, POOL_B, 3), "recall")["recall_over_k"] == Fraction(2, 3)
    assert ref.recall(list(B), 3, list(POOL_B)) == HALF
    assert values(Problem(B, POOL_B, 3), "precision")["precision_over_relevant"] == HALF
    assert ref.precision(list(B), 3) == Fraction(2, 3)
    assert values(AP_B, "rprec")["r_from_retrieved"] == Fraction(2, 3) == ref.r_precision(list(B))
    assert values(Problem(B, POOL_B, 5), "recall")["r_from_retrieved"] == 1 == ref.recall(list(B), 5)
    # MRR over 3 queries: 4/9; over the two with a hit: 2/3
    assert values(MRR3, "mrr") == {"mrr_skips_misses": Fraction(2, 3)}
    assert ref.mean([ref.rr([1, 0, 0]), ref.rr([0, 0, 1]), ref.rr([0, 0, 0])]) == Fraction(4, 9)


def test_the_cascade_slips_on_g_and_b():
    graded = Problem(G, POOL_G)  # g_max = 3 from the pool
    assert cref.err(list(G), g_max=3) == Fraction(881, 1536)
    err = values(graded, "err")
    assert err["err_linear_gain"] == Fraction(43, 54) == err_variant(G, 3, lambda g, m: Fraction(g, m),
                                                                      lambda r: Fraction(1, r))
    assert err["err_no_stop"] == Fraction(35, 48) == err_variant(G, 3, exp_stop, lambda r: Fraction(1, r),
                                                                 product=False)
    logged = err_variant(G, 3, lambda g, m: float(exp_stop(g, m)), lambda r: 1 / math.log2(r + 1))
    assert logged == pytest.approx(0.663549, abs=5e-7)
    assert err["err_log_discount"] == pytest.approx(logged, abs=1e-12)
    rbp = values(Problem(B, persistence=HALF), "rbp")
    assert cref.rbp(list(B), HALF)[0] == Fraction(11, 16)
    assert rbp == {"rbp_no_one_minus_p": Fraction(11, 8), "rbp_one_based_power": Fraction(11, 32)}
    assert sum(Fraction(g) * HALF ** (i - 1) for i, g in enumerate(B, 1)) == Fraction(11, 8)
    assert (1 - HALF) * sum(Fraction(g) * HALF**i for i, g in enumerate(B, 1)) == Fraction(11, 32)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=120))
def test_err_slips_equal_the_plain_loops_on_random_lists(grades):
    """The ERR slips sum over one common denominator (issue 25: no quadratic growth at 1,000
    ranks): each still equals the plain loop of Fractions, term by term."""
    top = max(grades)
    got = {name: SLIPS[name].value(Case(Problem(tuple(grades)), "err"))
           for name in ("err_linear_gain", "err_no_stop", "err_log_discount")}
    right = cref.err(list(grades), g_max=top) if top else Fraction(0)
    linear = err_variant(grades, top, lambda g, m: Fraction(g, m), lambda r: Fraction(1, r)) if top else None
    no_stop = err_variant(grades, top, exp_stop, lambda r: Fraction(1, r), product=False) if top else None
    for name, want in (("err_linear_gain", linear), ("err_no_stop", no_stop)):
        value = got[name]
        if want is None or want == right:
            assert value is None, name
        else:
            assert value is not None and value.is_rational and value.const == want, name
    logged = err_variant(grades, top, lambda g, m: float(exp_stop(g, m)),
                         lambda r: 1 / math.log2(r + 1)) if top else 0.0
    if got["err_log_discount"] is not None:
        assert got["err_log_discount"].value == pytest.approx(logged, rel=1e-12, abs=1e-15)


def test_zero_based_rank_in_rr_and_mrr():
    assert values(Problem((0, 0, 1, 0, 1)), "rr")["zero_based_rank"] == HALF  # 1/(3 - 1), not 1/3
    assert "zero_based_rank" not in values(Problem((1, 0, 1)), "rr")  # rank 1 would be 1/0
    assert "zero_based_rank" not in values(Problem((0, 0, 0), (1,)), "rr")  # no hit: 0 either way
    # the threshold decides the first relevant rank: grade 1 is not relevant at l = 2
    assert values(Problem((1, 0, 2), threshold=2), "rr")["zero_based_rank"] == HALF
    # MRR: 1/(3 - 1) and 1/(2 - 1), a query with no hit counting 0: (1/2 + 1 + 0) / 3
    mrr = _queries(((0, 0, 1), None), ((0, 1), None), ((0,), (1, 0)))
    assert values(mrr, "mrr")["zero_based_rank"] == HALF
    assert "zero_based_rank" not in values(MRR3, "mrr")  # its first query hits at rank 1
    assert SLIPS["zero_based_rank"].metrics.count("rr") == 1  # extended, not registered twice


def test_not_applicable_where_no_mistake():
    everything = Problem((1, 0, 1), (1, 1, 0))  # every relevant document retrieved
    assert "ap_over_retrieved" not in values(everything, "ap")
    assert SLIPS["ap_over_retrieved"].value(Case(everything, "ap")) is None
    asked_retrieved = replace(AP_B, convention="retrieved")  # the question's own convention
    assert SLIPS["ap_over_retrieved"].value(Case(asked_retrieved, "ap")) is None
    all_hit = _queries(((1, 0), None), ((0, 1), None))
    none_hit = _queries(((0, 0), (1, 0, 0)), ((0,), (1, 0)))
    assert SLIPS["mrr_skips_misses"].value(Case(all_hit, "mrr")) is None
    assert SLIPS["mrr_skips_misses"].value(Case(none_hit, "mrr")) is None
    assert SLIPS["r_from_retrieved"].value(Case(Problem(B), "rprec")) is None  # pool = the list
    assert SLIPS["precision_over_relevant"].value(Case(Problem((0, 0), k=2), "precision")) is None  # R = 0
    assert SLIPS["err_linear_gain"].value(Case(Problem((0, 0)), "err")) is None


# --------------------------------------------------------------------------- diagnosis by check()
@pytest.mark.parametrize("problem, metric, typed, slip", [
    (AP_B, "ap", "0.8056", "ap_over_retrieved"),
    (AP_B, "ap", "0.4833", "ap_over_k"),
    (AP_B, "ap", "0.7033", "ap_all_ranks"),
    (MAP_BG, "map", "0.6", "map_of_precision"),
    (Problem(B, POOL_B, 3), "recall", "2/3", "recall_over_k"),
    (Problem(B, POOL_B, 3), "precision", "0.5", "precision_over_relevant"),
    (AP_B, "rprec", "0.6667", "r_from_retrieved"),
    (MRR3, "mrr", "0.6667", "mrr_skips_misses"),
    (Problem((0, 0, 1, 0, 1)), "rr", "1/2", "zero_based_rank"),
    (Problem(G, POOL_G), "err", "0.7963", "err_linear_gain"),
    (Problem(G, POOL_G), "err", "0.7292", "err_no_stop"),
    (Problem(G, POOL_G), "err", "0.6635", "err_log_discount"),
    (Problem(B, persistence=HALF), "rbp", "1.375", "rbp_no_one_minus_p"),
    (Problem(B, persistence=HALF), "rbp", "0.3438", "rbp_one_based_power"),
])
def test_check_names_the_slip(problem, metric, typed, slip):
    outcome = check(_question(problem, metric), typed)
    assert outcome.verdict == "wrong" and slip in outcome.misconceptions, outcome.misconceptions
    assert outcome.misconceptions[0] == slip
    assert any("Right step: " in note for note in outcome.diagnosis)


def test_recall_over_k_and_r_from_retrieved_give_the_same_number_both_named():
    # recall@3 of B: 2/3 is both "over k" and "over the 3 relevant retrieved"; nothing tells them apart
    assert check(_question(Problem(B, POOL_B, 3), "recall"), "0.6667").misconceptions == (
        "recall_over_k", "r_from_retrieved")


def test_precision_over_relevant_supersedes_answered_recall():
    p = Problem(B, POOL_B, 3)
    assert diagnose_case(Case(p, "precision"), 0.5, Tolerance()).ids == ["precision_over_relevant"]
    # still registered (its id is public), named where a question declares it and not the new id
    assert "answered_recall" in SLIPS and "answered_recall" in slips_for("precision")
    assert diagnose_case(Case(p, "precision", ("answered_recall",)), 0.5, Tolerance()).ids == ["answered_recall"]
    assert SLIPS["precision_over_relevant"].supersedes == ("answered_recall",)


def test_right_steps_say_what_the_right_computation_does():
    step = right_step(AP_B, SLIPS["ap_over_retrieved"], "ap")
    assert step.startswith("AP divides by R = 4 (the relevant documents in the judged pool, retrieved or not)")
    assert step.endswith("AP = (1 + 2/3 + 3/4) / 4 = 29/48")
    assert "mean is over all 3 queries" in right_step(MRR3, SLIPS["mrr_skips_misses"], "mrr")
    assert "1 - p = 1/2" in right_step(Problem(B, persistence=HALF), SLIPS["rbp_no_one_minus_p"], "rbp")
    assert "g_max = 3" in right_step(Problem(G, POOL_G), SLIPS["err_linear_gain"], "err")


def test_a_miss_matching_no_slip_gets_a_pointer():
    outcome = check(_question(AP_B, "ap"), "0.5")
    assert outcome.misconceptions == ()
    assert outcome.pointer == ("AP adds P@i at the relevant ranks (1, 3, 4): 1 + 2/3 + 3/4 = 29/12, and divides "
                               "by R = 4 (the relevant documents in the judged pool, retrieved or not).")
    assert "Check rank 1" in (check(_question(Problem(G, POOL_G), "err"), "0.2").pointer or "")
    assert "1, 1/3, 0" in (check(_question(MRR3, "mrr"), "0.1").pointer or "")
    assert check(_question(Problem(B, POOL_B, 3), "recall"), "0.9").pointer == (
        "2 relevant in the top 3; R@3 divides by R = 4, every relevant judged document.")


# --------------------------------------------------------------------------- the CLI (issue's must-show)
def test_solve_ap_answer_0_8056_is_ap_over_retrieved():
    args = ["solve", "1,0,1,1,0", "--judged", "1,1,1,1,0", "--metric", "ap", "--answer", "0.8056"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 1
    assert "Diagnosis: ap_over_retrieved" in res.output
    assert "0.805556" in res.output and "R = 4" in res.output
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).output)
    assert data["check"]["verdict"] == "wrong"
    assert data["check"]["misconceptions"] == ["ap_over_retrieved"]


# --------------------------------------------------------------------------- slip-aware tolerance
def test_an_ap_question_whose_tolerance_accepts_a_slip_is_narrowed():
    # AP of [0, 1, 0, 0, 1] with R = 3: (1/2 + 2/5) / 3 = 3/10; the mean precision at every
    # rank, (0 + 1/2 + 1/3 + 1/4 + 2/5) / 5 = 89/300 = 0.29667, is inside the default ±0.005
    p = Problem((0, 1, 0, 0, 1), (0, 1, 0, 0, 1, 1))
    assert ref.ap([0, 1, 0, 0, 1], judged=[0, 1, 0, 0, 1, 1]) == Fraction(3, 10)
    every_rank = sum((ref.precision([0, 1, 0, 0, 1], i) for i in range(1, 6)), Fraction(0)) / 5
    assert every_rank == Fraction(89, 300) and abs(every_rank - Fraction(3, 10)) < Fraction(5, 1000)
    built = prepared(_question(p, "ap"))
    assert built.narrowing is not None and built.narrowing.slip == "ap_all_ranks"
    assert built.narrowing.reason == "0.2967 would be the mean precision at every rank"
    assert built.tolerance == Tolerance(0.0005, 0.0) and built.decimals == 3
    assert check(built, "0.300").correct
    wrong = check(built, "0.297")
    assert wrong.verdict == "wrong" and wrong.misconceptions == ("ap_all_ranks",)


# --------------------------------------------------------------------------- registry
def test_new_ids_registered_in_their_families_and_documented():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "diagnosis.md").read_text(encoding="utf-8")
    assert FAMILIES.index("binary") < FAMILIES.index("cutoff") and "cascade" in FAMILIES
    for slip_id in NEW_IDS:
        s = SLIPS[slip_id]
        assert s.family in ("binary", "cascade") and s.short and s.description.startswith("You ")
        assert f"`{slip_id}`" in doc


# --------------------------------------------------------------------------- never the right value
METRICS = ("ap", "map", "precision", "recall", "rprec", "rr", "mrr", "hit", "err", "rbp")
grades = st.lists(st.integers(0, 3), min_size=1, max_size=7)


@settings(max_examples=300, deadline=None)
@given(ranked=grades, extra=st.lists(st.integers(0, 3), max_size=3), more=st.lists(grades, max_size=2),
       k=st.one_of(st.none(), st.integers(1, 8)), threshold=st.integers(1, 2),
       convention=st.sampled_from(["R", "min_k_R", "retrieved"]),
       persistence=st.sampled_from([HALF, Fraction(4, 5)]), metric=st.sampled_from(METRICS))
def test_a_slip_never_fires_on_the_correct_value(ranked, extra, more, k, threshold, convention,
                                                 persistence, metric):
    first = Problem(tuple(ranked), tuple(ranked) + tuple(extra))
    queries = (first, *(Problem(tuple(r)) for r in more)) if metric in ("map", "mrr") else ()
    p = Problem(first.relevance, first.judged, None if metric == "rprec" else k, threshold=threshold,
                convention=convention, persistence=persistence if metric == "rbp" else None,
                queries=queries)
    correct = metric_value(p, metric)
    case = Case(p, metric)
    for s in SLIPS.values():
        if not s.applies(case) or (s.id not in NEW_IDS and s.id != "zero_based_rank"):
            continue
        try:
            value = s.value(case)
        except (ProblemError, ZeroDivisionError):
            continue
        # a slip that is no mistake here says so (None), rather than giving the right number
        assert value is None or not same(value.decimal(), correct.decimal()), s.id
    # the right value, typed to 12 digits, is correct and names nothing; no slip is accepted
    q = prepared(_question(p, metric))
    outcome = check(q, format(correct.decimal(), ".12g"))
    assert outcome.correct and outcome.misconceptions == ()
    for v in slip_values(case):
        assert not within(v.value.value, correct.value, q.tolerance or Tolerance()), v.misconception.id


def test_ap_over_r_and_err_gmax_four_are_named():
    """The two conventions a learner brings from another tool: trec_eval's R where the question
    asks for scikit-learn's denominator, and gdeval's fixed g_max = 4 (metrics-facts.md)."""
    from fractions import Fraction

    from drills.engine.problem import Problem
    from drills.grading.check import check
    from drills.model import Question

    def ask(problem, metric, answer):
        q = Question(id="x", topic="hand-computation", kind="numeric", prompt="", problem=problem,
                     metric=metric)
        return check(q, answer)
    b, pool = (1, 0, 1, 1, 0), (1, 1, 1, 1, 0)
    over_r = ask(Problem(b, pool, convention="retrieved"), "ap", str(Fraction(29, 48)))
    assert over_r.misconceptions == ("ap_over_r",)
    four = ask(Problem((2, 1, 3, 0), k=4), "err", str(Fraction(1327, 4096)))
    assert four.misconceptions == ("err_gmax_four",)
    assert ask(Problem((2, 1, 3, 0), k=4, max_grade=4), "err", "0.5736").misconceptions != ("err_gmax_four",)
