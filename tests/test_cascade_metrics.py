"""ERR@k and RBP: the notes' vectors, a naive reference on random cases, and bad input."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drills.engine.metrics import cascade as cm
from drills.engine.metrics.registry import measure, metric_value
from drills.engine.problem import Problem, ProblemError

from . import cascade_reference as ref

B = (1, 0, 1, 1, 0)
G = (2, 1, 3, 0)


def test_notes_vectors():
    """metrics-facts.md, checked there against ir_measures, trec_eval 10, ranx and cwl-eval."""
    assert cm.err(B).exact == Fraction(59, 96)
    assert cm.err(B, max_grade=4).exact == Fraction(1569, 16384)  # gdeval's fixed g_max = 4
    assert cm.err(G, 4).exact == Fraction(881, 1536)
    assert cm.err(G, 4, max_grade=4).exact == Fraction(1327, 4096)
    assert cm.err(sorted(G, reverse=True), 4).exact == Fraction(1385, 1536)  # the ideal order
    half = cm.rbp(B, "0.5")
    assert (half.exact, half.residual) == (Fraction(11, 16), Fraction(1, 32))
    assert cm.rbp(B, "4/5").exact == Fraction(269, 625)
    assert cm.rbp(G, Fraction(1, 2)).exact == Fraction(13, 24)
    assert cm.rbp(G, "0.8").exact == Fraction(118, 375)


def test_rows_explain_the_value():
    result = cm.err(G, 4)
    assert [r.stop for r in result.rows] == [Fraction(3, 8), Fraction(1, 8), Fraction(7, 8), 0]
    assert result.rows[-1].running == result.exact
    assert sum(r.contribution for r in result.rows) == result.exact
    assert result.working == "ERR@4 = 3/8 + 5/128 + 245/1536 = 881/1536"


grades = st.lists(st.integers(0, 4), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(grades, st.one_of(st.none(), st.integers(1, 15)), st.one_of(st.none(), st.integers(4, 6)))
def test_err_matches_the_reference(g, k, g_max):
    assert cm.err(g, k, max_grade=g_max).exact == ref.err(g, k, g_max)


@settings(max_examples=300, deadline=None)
@given(grades, st.fractions(Fraction(1, 100), Fraction(99, 100), max_denominator=100),
       st.one_of(st.none(), st.integers(1, 15)))
def test_rbp_matches_the_reference(g, p, k):
    result = cm.rbp(g, p, k)
    assert (result.exact, result.residual) == ref.rbp(g, p, k)
    assert 0 <= result.exact <= 1 - result.residual  # what is left is at most the residual


def test_measure_and_metric_value_agree():
    problem = Problem(G, k=4, persistence=Fraction(1, 2))
    assert metric_value(problem, "err").text == "881/1536"
    assert measure(problem, "rbp").exact == ref.rbp(G, Fraction(1, 2), 4)[0]
    assert metric_value(Problem((0, 0, 0)), "err").value == 0  # nothing relevant: 0, not an error


@pytest.mark.parametrize("call,message", [
    (lambda: cm.rbp(B, "1"), "strictly between 0 and 1"),
    (lambda: cm.rbp(B, "x"), "cannot read persistence"),
    (lambda: cm.rbp(B, "0.1234567"), "6 decimal places"),
    (lambda: cm.err(G, max_grade=2), "above the top grade"),
    (lambda: cm.err(()), "empty"),
    (lambda: cm.err(G, 0), "k must be"),
])
def test_bad_input_is_a_problem_error(call, message):
    with pytest.raises(ProblemError, match=message):
        call()


def test_long_lists_with_fine_persistence_stay_exact_and_printable():
    """p with 6 decimals over 1,000 ranks: fractions of thousands of digits (past Python's
    int-to-text limit) are computed, printed by value in the equation, exact in .text."""
    ranking = [(i * 7) % 4 for i in range(1000)]
    result = cm.rbp(ranking, "0.999999")
    assert result.exact == ref.rbp(ranking, Fraction(999999, 1000000))[0]
    assert len(result.text) > 4300  # the exact form is there in full
    assert "exact: a fraction of" in result.working and len(result.working) < 400
    err = cm.err([20 - i % 21 for i in range(700)])
    assert err.exact == ref.err([20 - i % 21 for i in range(700)])
    assert len(err.worked.splitlines()[-1]) < 400
