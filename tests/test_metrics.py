"""The exact engine: the facts file's test vectors, properties, and an independent cross-check."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drills.engine.exact import Log, LogSum
from drills.engine.metrics.ndcg import NDCG_ZERO_REASON, Formula, delta_ndcg, ndcg_solution
from drills.engine.metrics.registry import metric_value
from drills.engine.problem import Problem, ProblemError

from . import ndcg_reference as ref

WORKED = Problem((2, 1, 3, 0), (3, 2, 1, 0))
L = 1 / math.log2(3)


def test_worked_example_exponential():
    sol = ndcg_solution(WORKED)
    assert sol.dcg.text == "13/2 + 1/log2(3)"
    assert sol.idcg.text == "15/2 + 3/log2(3)"
    assert sol.dcg.value == pytest.approx(6.5 + L, abs=1e-12)
    assert sol.dcg.value == pytest.approx(7.130929753571458, abs=1e-12)
    assert sol.idcg.value == pytest.approx(9.392789260714371, abs=1e-12)
    assert sol.ndcg.value == pytest.approx(0.759191924319732, abs=1e-12)


def test_worked_example_linear_and_cutoffs():
    assert ndcg_solution(Problem((2, 1, 3, 0), (3, 2, 1, 0), gain="linear")).ndcg.value == pytest.approx(
        0.867503492569437, abs=1e-12)
    assert ndcg_solution(Problem((2, 1, 3, 0), (3, 2, 1, 0), k=2)).ndcg.value == pytest.approx(0.408300, abs=1e-6)
    assert ndcg_solution(Problem((2, 1, 3, 0), (3, 2, 1, 0), k=2, gain="linear")).ndcg.value == pytest.approx(
        0.617320, abs=1e-6)
    assert ndcg_solution(Problem((2, 1, 3, 0), (3, 2, 1, 0), k=1)).ndcg.text == "3/7"
    assert ndcg_solution(Problem((2, 1, 3, 0), (3, 2, 1, 0), k=1, gain="linear")).ndcg.text == "2/3"


def test_k_larger_than_list_is_whole_list():
    assert ndcg_solution(Problem((2, 1, 3, 0), k=10)).ndcg == ndcg_solution(Problem((2, 1, 3, 0))).ndcg


def test_all_zero_gives_zero_with_reason():
    sol = ndcg_solution(Problem((0, 0, 0)))
    assert sol.ndcg.value == 0
    assert sol.ndcg_note == NDCG_ZERO_REASON
    assert "IDCG" in sol.ndcg_note


@pytest.mark.parametrize("pair,expected", [((1, 3), 0.2129292955), ((1, 2), 0.0785858676),
                                           ((3, 4), 0.0516634708)])
def test_swap_deltas(pair, expected):
    assert delta_ndcg(Problem((2, 1, 3, 0), (3, 2, 1, 0), swap=pair)).value == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("r,ndcg_value,rr_value", [(2, 0.6309, 0.5), (3, 0.5, 1 / 3), (5, 0.3869, 0.2),
                                                  (10, 0.2891, 0.1)])
def test_single_relevant_ndcg_vs_rr(r, ndcg_value, rr_value):
    grades = tuple(1 if i == r else 0 for i in range(1, 11))
    p = Problem(grades)
    assert ndcg_solution(p).ndcg.value == pytest.approx(ndcg_value, abs=1e-4)
    assert metric_value(p, "rr").value == pytest.approx(rr_value)


def test_precision_and_hit():
    p = Problem((0, 2, 0, 1), k=2)
    assert metric_value(p, "precision").text == "1/2"
    assert metric_value(p, "hit").value == 1
    assert metric_value(Problem((0, 0, 1), k=2), "hit").value == 0
    assert metric_value(Problem((0, 0, 0)), "rr").value == 0


def test_log2_of_power_of_two_is_an_integer():
    assert Log("log2", 8).text == "3"
    assert Log("log2", 9).reciprocal() == LogSum(Fraction(0), ((("log2", 3), Fraction(1, 2)),))
    # rank 8 discount log2(9) = 2*log2(3) merges with rank 2's 1/log2(3)
    sol = ndcg_solution(Problem((0, 1, 0, 0, 0, 0, 0, 1)))
    assert sol.dcg.text == "3/(2*log2(3))"


@pytest.mark.parametrize("problem,message", [
    (Problem(()), "empty"),
    (Problem((1, -1)), ">= 0"),
    (Problem((1, 2), (1,)), "missing"),
    (Problem((1, 2), k=0), "at least 1"),
    (Problem((1, 2), gain="cubic"), "gain"),
    (Problem((1, 2), swap=(1, 1)), "swap"),
])
def test_bad_problems_raise_problem_error(problem, message):
    with pytest.raises(ProblemError, match=message):
        ndcg_solution(problem) if problem.swap is None else delta_ndcg(problem)


# ---------- properties ----------

grades = st.lists(st.integers(0, 4), min_size=1, max_size=12)


@st.composite
def problems(draw):
    ranked = draw(grades)
    extra = draw(st.lists(st.integers(0, 4), max_size=4))
    judged = tuple(ranked) + tuple(extra) if draw(st.booleans()) else None
    k = draw(st.one_of(st.none(), st.integers(1, 15)))
    g = draw(st.sampled_from(["exponential", "linear"]))
    return Problem(tuple(ranked), judged, k, g)


@given(problems())
@settings(max_examples=300, deadline=None)
def test_ndcg_in_unit_interval_and_matches_reference(p):
    value = ndcg_solution(p).ndcg.value
    assert 0 <= value <= 1 + 1e-15
    assert value == pytest.approx(ref.ndcg(p.relevance, p.judged, p.k, p.gain), abs=1e-9)


@given(problems())
@settings(max_examples=200, deadline=None)
def test_ideal_order_scores_one(p):
    pool = p.judged if p.judged is not None else p.relevance
    ideal = Problem(tuple(sorted(pool, reverse=True)), p.judged, p.k, p.gain)
    sol = ndcg_solution(ideal)
    if sol.idcg.is_zero:
        assert sol.ndcg.value == 0
    else:
        assert sol.ndcg.text == "1"


@given(problems())
@settings(max_examples=200, deadline=None)
def test_log_base_cancels_in_ndcg_not_in_dcg(p):
    base2, natural = ndcg_solution(p), ndcg_solution(p, Formula(discount="ln"))
    assert natural.ndcg.value == pytest.approx(base2.ndcg.value, abs=1e-12)
    if not base2.dcg.is_zero:
        # ln(x) = log2(x) * ln 2, so DCG under ln is DCG under log2 divided by ln 2
        assert natural.dcg.value == pytest.approx(base2.dcg.value / math.log(2), rel=1e-12)


@given(problems())
@settings(max_examples=200, deadline=None)
def test_exact_forms_agree_with_sympy(p):
    import sympy

    sol = ndcg_solution(p)
    for x in (sol.dcg, sol.idcg, sol.ndcg):
        assert float(sympy.N(x.to_sympy(), 30)) == pytest.approx(x.value, abs=1e-12)


@given(grades, st.data())
@settings(max_examples=200, deadline=None)
def test_swap_delta_closed_form(ranked, data):
    if len(ranked) < 2:
        return
    i = data.draw(st.integers(1, len(ranked)))
    j = data.draw(st.integers(1, len(ranked)).filter(lambda x: x != i))
    p = Problem(tuple(ranked), swap=(i, j))
    ideal = ref.idcg(ranked)
    expected = 0.0 if ideal == 0 else abs((2 ** ranked[i - 1]) - (2 ** ranked[j - 1])) * abs(
        1 / math.log2(1 + i) - 1 / math.log2(1 + j)) / ideal
    assert delta_ndcg(p).value == pytest.approx(expected, abs=1e-12)


@given(st.lists(st.integers(0, 1), min_size=1, max_size=10))
def test_binary_labels_same_under_both_gains(ranked):
    assert ndcg_solution(Problem(tuple(ranked))).ndcg == ndcg_solution(Problem(tuple(ranked), gain="linear")).ndcg


@given(problems())
@settings(max_examples=100, deadline=None)
def test_ndcg_at_1_binary_is_precision_at_1(p):
    binary = tuple(int(r > 0) for r in p.relevance)
    q = Problem(binary, k=1)
    if any(binary):
        assert metric_value(q, "ndcg").value == metric_value(q, "precision").value == metric_value(q, "hit").value


def test_cross_check_against_scikit_learn_1000_cases():
    sklearn = pytest.importorskip("sklearn.metrics")
    rng = random.Random(20261202)
    for _ in range(1000):
        n = rng.randint(1, 15)
        ranked = [rng.randint(0, 4) for _ in range(n)]
        extra = [rng.randint(0, 4) for _ in range(rng.randint(0, 3))]
        k = rng.randint(1, n)
        convention = rng.choice(["exponential", "linear"])
        labels = ranked + extra
        y_true = [[(2**r - 1) if convention == "exponential" else r for r in labels]]
        y_score = [[float(len(labels) - i) for i in range(len(labels))]]  # distinct: no ties
        if len(labels) < 2:
            continue
        expected = sklearn.ndcg_score(y_true, y_score, k=k)
        got = ndcg_solution(Problem(tuple(ranked), tuple(labels), k, convention)).ndcg.value
        assert got == pytest.approx(expected, abs=1e-9), (ranked, extra, k, convention)


def test_engine_does_not_import_sympy():
    code = ("import sys; from drills.engine.metrics.ndcg import ndcg_solution; from drills.model import Problem;"
            "from drills.engine.metrics.ndcg_text import worked_solution;"
            "from drills.engine.metrics.registry import worked_steps;"
            "worked_solution(ndcg_solution(Problem((2,1,3,0)))); worked_steps(Problem((2,1,3,0)), 'ap');"
            "print('sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_decimal_text_never_pads_a_rounded_number_with_zeros():
    from decimal import Decimal

    from drills.engine.exact import decimal_text

    assert decimal_text(Decimal(2**40 - 1), 6) == "1099511627775"  # whole numbers stay whole
    assert decimal_text(Decimal(2**100 - 1), 15) == "1267650600228229401496703205375"
    assert decimal_text(Decimal("1099511627775.6309297535714574"), 6) == "1.09951e+12"
    assert decimal_text(Decimal("1099511627775.6309297535714574"), 15) == "1099511627775.63"
    assert decimal_text(Decimal("0.7591919243197"), 6) == "0.759192"
    assert decimal_text(Decimal("7.5"), 6) == "7.5"
    assert decimal_text(Decimal("123456.7"), 6) == "123457"


def test_solve_table_shows_a_large_gain_exactly():
    from drills.engine.metrics.ndcg_text import worked_solution

    text = worked_solution(ndcg_solution(Problem((20, 1))))
    assert "2^20 - 1 = 1048575" in text and "1048580" not in text  # 6 digits would round it
