"""Tolerance and verdicts: the worked example, the tolerance boundary, exactness, messages."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from drills.grading.tolerance import Check, grade, within
from drills.model import Tolerance

ROOT = Path(__file__).resolve().parents[1]
LOG2_3 = math.log(3) / math.log(2)


@dataclass(frozen=True)
class FakeRef:
    """A reference as the engine provides one: exact text, float, sympy expression."""

    text: str
    expr: Any

    @property
    def value(self) -> float:
        return float(self.expr.evalf(30))

    def to_sympy(self) -> Any:
        return self.expr


R, LOG = sympy.Rational, sympy.log
NDCG = FakeRef("(13/2 + 1/log2(3)) / (15/2 + 3/log2(3))",
               (R(13, 2) + LOG(2) / LOG(3)) / (R(15, 2) + 3 * LOG(2) / LOG(3)))
DCG = FakeRef("13/2 + 1/log2(3)", R(13, 2) + LOG(2) / LOG(3))
HALF = FakeRef("19/25", R(19, 25))


def test_reference_values_by_hand() -> None:
    # Independent of sympy: the fake references are the numbers the brief states.
    assert NDCG.value == pytest.approx((6.5 + 1 / LOG2_3) / (7.5 + 3 / LOG2_3), rel=1e-15)
    assert NDCG.value == pytest.approx(0.759191924319732, abs=1e-15)
    assert DCG.value == pytest.approx(7.130929753571458, abs=1e-14)


@pytest.mark.parametrize("text", ["0.76", "0.759", "76%", "0.7592", "75.9%", "0.755", "0.764"])
def test_ndcg_correct_numbers(text: str) -> None:
    check = grade(text, NDCG)
    assert check.verdict == "correct"
    assert check.exact is False  # plain numbers are never "exact"


@pytest.mark.parametrize("text", ["(13+2/log2(3))/(15+6/log2(3))",
                                  "(13/2 + 1/log2(3)) / (15/2 + 3/log2(3))",
                                  "(13/2 + ln(2)/ln(3)) / (15/2 + 3*log(2)/log(3))",
                                  "(13 + 2/log(3, 2)) / (15 + 6/log(3, 2))"])
def test_ndcg_exact_expressions(text: str) -> None:
    check = grade(text, NDCG)
    assert check.verdict == "correct"
    assert check.exact is True
    assert check.value == pytest.approx(0.759191924319732, abs=1e-15)


def test_close_and_wrong() -> None:
    close = grade("0.75", NDCG)
    assert close.verdict == "close"  # error 0.0092: outside 0.005, within 3 * 0.005
    assert close.error == pytest.approx(0.75 - 0.759191924319732, abs=1e-15)
    assert grade("0.8675", NDCG).verdict == "wrong"
    assert grade("0.7", NDCG).verdict == "wrong"  # error 0.059 > 0.015
    assert grade("0.745", NDCG).verdict == "close"


def test_dcg_relative_tolerance() -> None:
    # allowed = max(0.005, 0.005 * 7.1309...) = 0.03565...: relative wins for DCG-sized values
    assert grade("7.13", DCG).verdict == "correct"
    assert grade("7.1", DCG).verdict == "correct"
    assert grade("7.2", DCG).verdict != "correct"
    assert grade("7.2", DCG).verdict == "close"
    check = grade("7.1", DCG)
    allowed = 0.005 * (6.5 + 1 / LOG2_3)
    assert check.low == pytest.approx(6.5 + 1 / LOG2_3 - allowed, abs=1e-12)
    assert check.high == pytest.approx(6.5 + 1 / LOG2_3 + allowed, abs=1e-12)
    assert grade("13/2 + 1/log2(3)", DCG).exact is True


def test_exact_only_for_equal_expressions() -> None:
    assert grade("0.76", HALF).exact is False  # equal, but a typed decimal
    assert grade("19/25", HALF).exact is True
    assert grade("76/100", HALF).exact is True
    assert grade("(1/2 + 26/100)", HALF).exact is True
    near = grade("13/2 + 1/log2(3) + 1e-12", DCG)
    assert near.verdict == "correct" and near.exact is False
    assert grade("13/2 + 1/log2(3.0000001)", DCG).exact is False


def test_interval_and_fields() -> None:
    check = grade("0.76", NDCG)
    assert check.given == "0.76"
    assert check.value == 0.76
    assert check.expected_text == NDCG.text
    assert check.expected_value == NDCG.value
    assert check.low == pytest.approx(0.759191924319732 - 0.005, abs=1e-15)
    assert check.high == pytest.approx(0.759191924319732 + 0.005, abs=1e-15)
    assert check.error == pytest.approx(0.76 - 0.759191924319732, abs=1e-15)
    assert check.tolerance == Tolerance()
    assert check.message is None


def test_invalid_is_not_wrong() -> None:
    check = grade("abc", NDCG)
    assert check.verdict == "invalid"
    assert check.value is None and check.error is None and check.exact is False
    assert check.message is not None and check.message.startswith("could not read 'abc'")
    assert "not counted" in check.describe()
    assert check.message in check.describe()
    assert grade("1/0", NDCG).verdict == "invalid"
    assert grade("__import__('os')", NDCG).verdict == "invalid"


def test_custom_tolerance() -> None:
    loose = Tolerance(absolute=0.1, relative=0.0)
    assert grade("0.7", NDCG, loose).verdict == "correct"
    tight = Tolerance(absolute=0.0, relative=0.0001)
    assert grade("0.759", NDCG, tight).verdict != "correct"
    assert grade("0.75919", NDCG, tight).verdict == "correct"
    exact_only = Tolerance(absolute=0.0, relative=0.0)
    assert grade("(13+2/log2(3))/(15+6/log2(3))", NDCG, exact_only).verdict == "correct"


@pytest.mark.parametrize(("value", "inside"), [
    (1.005, True), (0.995, True),  # the boundary is inside, despite binary rounding of 0.995
    (1.0051, False), (0.9949, False), (1.0, True),
])
def test_within_boundary(value: float, inside: bool) -> None:
    assert within(value, 1.0, Tolerance()) is inside


def test_within_uses_relative_for_large_values() -> None:
    assert within(101.0, 100.5, Tolerance())  # allowed 0.5025
    assert not within(101.1, 100.5, Tolerance())
    assert within(-0.004, 0.0, Tolerance())  # absolute floor at 0


@settings(max_examples=200, deadline=None)
@given(st.fractions(min_value=-1000, max_value=1000, max_denominator=10**6),
       st.floats(min_value=-2, max_value=2, allow_nan=False))
def test_verdict_bands_follow_the_rule(expected: Fraction, scale: float) -> None:
    """Independent restatement: |error| vs max(0.005, 0.5% |exact|) decides the band."""
    ref = FakeRef(f"{expected.numerator}/{expected.denominator}",
                  R(expected.numerator, expected.denominator))
    allowed = max(0.005, 0.005 * abs(float(expected)))
    typed = f"{float(expected) + scale * 2.5 * allowed:.12f}"
    answer = float(typed)
    check = grade(typed, ref)
    ratio = abs(answer - float(expected)) / allowed
    if ratio < 0.999:
        assert check.verdict == "correct"
    elif 1.001 < ratio < 2.999:
        assert check.verdict == "close"
    elif ratio > 3.001:
        assert check.verdict == "wrong"


def test_describe_correct_mentions_interval_rule_and_error() -> None:
    text = grade("0.76", NDCG).describe()
    assert text.startswith("Correct")
    assert "0.76" in text
    assert "[0.754192, 0.764191]" in text
    assert "±max(0.005 abs, 0.5% rel)" in text
    assert NDCG.text in text and "0.759191924" in text
    assert "error +0.000808" in text
    assert len(text.splitlines()) <= 2


def test_describe_close_blames_rounding() -> None:
    text = grade("0.75", NDCG).describe()
    assert text.startswith("Close")
    assert "rounding" in text and "truncation" in text
    assert "[0.754192, 0.764191]" in text
    assert "error -0.009192" in text


def test_describe_wrong_and_exact() -> None:
    wrong = grade("0.8675", NDCG).describe()
    assert wrong.startswith("Wrong") and "error +0.1083" in wrong
    exact = grade("(13+2/log2(3))/(15+6/log2(3))", NDCG).describe()
    assert "exact" in exact.splitlines()[0].lower()
    assert "= 0.7591919243" in exact  # the learner's expression is shown evaluated
    dcg = grade("7.1", DCG).describe()
    assert "±0.03565" in dcg and "[7.09528, 7.16658]" in dcg


def test_check_is_frozen() -> None:
    check = grade("0.76", NDCG)
    assert isinstance(check, Check)
    with pytest.raises(AttributeError):
        check.verdict = "wrong"  # type: ignore[misc]


def test_grading_plain_numbers_never_touches_sympy() -> None:
    class NoSympy:
        text = "3/4"
        value = 0.75

        def to_sympy(self) -> Any:
            raise AssertionError("to_sympy must not be needed for a typed number")

    assert grade("0.75", NoSympy()).verdict == "correct"
    assert grade("0.7", NoSympy()).verdict == "wrong"
    assert grade("3/5", NoSympy()).verdict == "wrong"  # expression, but floats disagree


def test_grading_a_number_does_not_import_sympy() -> None:
    code = ("import sys\n"
            "from drills.grading.tolerance import grade\n"
            "class Ref:\n"
            "    text = '3/4'\n"
            "    value = 0.75\n"
            "    def to_sympy(self): raise AssertionError\n"
            "assert grade('0.75', Ref()).verdict == 'correct'\n"
            "assert grade('7/10', Ref()).verdict == 'wrong'\n"
            "print('sympy' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env=env, check=True)
    assert out.stdout.strip() == "False"


def test_engine_exact_values_grade_their_own_text() -> None:
    """The engine's printed exact form must parse and grade as correct and exact."""
    exact = pytest.importorskip("drills.engine.exact")
    dcg = exact.LogSum(Fraction(13, 2), ((("log2", 3), Fraction(1)),))
    idcg = exact.LogSum(Fraction(15, 2), ((("log2", 3), Fraction(3)),))
    ndcg = exact.Ratio(dcg, idcg)
    for ref in (dcg, idcg, ndcg, exact.LogSum(Fraction(0), ((("ln", 3), Fraction(1)),))):
        check = grade(ref.text, ref)
        assert check.verdict == "correct" and check.exact, ref.text
    assert ndcg.value == pytest.approx(0.759191924319732, abs=1e-15)
    assert grade("0.76", ndcg).verdict == "correct"
    assert grade("0.75", ndcg).verdict == "close"


def test_describe_small_and_large_values_stay_readable() -> None:
    small = FakeRef("1/50000", R(1, 50000))  # 0.00002: "%.12g" would print 2e-05
    text = grade("0.00002", small).describe()
    assert "= 0.00002." in text and "e-05" not in text
    big = FakeRef("1234567/1", R(1234567))
    text = grade("1234567", big).describe()
    assert "1234567/1 = 1234567." in text  # no 1.234567e+06
    # 1234567 -+ 6172.835: bounds rounded inward, the tolerance rounded down
    assert "±6172" in text and "[1228395, 1240739]" in text
    whole = grade("3", FakeRef("3", R(3))).describe()
    assert "exact 3." in whole and "3 = 3" not in whole  # the value is not repeated


def test_describe_without_a_value_for_loop_verdicts() -> None:
    check = grade("0.76", NDCG)
    skipped = Check("skipped", "", None, False, check.expected_text, check.expected_value,
                    check.low, check.high, None, check.tolerance)
    text = skipped.describe()
    assert text.startswith("Skipped: the exact answer is " + NDCG.text)
    assert "[0.754192, 0.764191]" in text
    timeout = Check("timeout", "", None, False, "1/2", 0.5, 0.495, 0.505, None, Tolerance())
    assert timeout.describe().startswith("Time is up: the exact answer is 1/2 = 0.5.")


def test_an_expression_is_graded_by_its_value_not_its_cancelling_float() -> None:
    one = FakeRef("1", R(1))
    assert 1e43 + 1 - 1e43 + 1 == 1.0  # what floats make of it: the first +1 is lost
    check = grade("exp(100) + 1 - exp(100) + 1", one)  # exactly 2
    assert check.verdict == "wrong" and check.value == pytest.approx(2.0)
    assert grade("exp(100) + 1 - exp(100)", one).verdict == "correct"


def test_an_answer_with_no_exact_decimal_is_invalid() -> None:
    check = grade("1/(sqrt(2)^2 - 2)", HALF)  # the float is 4.5e15; the value does not exist
    assert check.verdict == "invalid" and "cannot be evaluated precisely" in check.message


# ------------------------------------------------------------- numbers shown are numbers accepted
def _engine_cases():
    from drills.engine.metrics.registry import metric_value
    from drills.engine.problem import Problem

    rng = __import__("random").Random(5)
    for _ in range(120):
        n = rng.randint(2, 8)
        problem = Problem(tuple(rng.randint(0, 3) for _ in range(n)), None,
                          rng.choice([None, rng.randint(1, n)]), rng.choice(["exponential", "linear"]))
        for metric in ("dcg", "idcg", "ndcg"):
            yield metric_value(problem, metric)


@pytest.mark.parametrize("tol", [Tolerance(), Tolerance(0.0005, 0.0), Tolerance(0.01, 0.02),
                                 Tolerance(0.0, 0.001), Tolerance(5e-7, 0.0)])
def test_a_printed_bound_typed_back_is_accepted(tol: Tolerance) -> None:
    checked = 0
    for value in _engine_cases():
        check = grade("0", value, tol)
        low, high = check.bounds()
        assert Decimal(low) <= Decimal(high)
        for bound in (low, high):
            assert grade(bound, value, tol).verdict == "correct", (bound, value.text, tol)
            checked += 1
        # and the printed bounds are within a unit of the last printed digit of the true ones
        width = Decimal(repr(tol.allowed(value.value)))
        places = -Decimal(low).as_tuple().exponent if "." in low else 0
        assert value.decimal() - width <= Decimal(low) <= value.decimal() - width + Decimal(1).scaleb(-places)
    assert checked > 500


@settings(max_examples=300, deadline=None)
@given(error=st.floats(-0.02, 0.02, allow_nan=False), allowed=st.sampled_from([0.005, 0.0005, 0.03565, 1e-6]))
def test_the_printed_error_compares_with_the_printed_tolerance(error: float, allowed: float) -> None:
    from drills.grading.tolerance import _down, error_text

    shown = Decimal(error_text(error, allowed).lstrip("+"))
    inside = abs(error) <= allowed * (1 + 1e-9) + 1e-15
    assert (abs(shown) <= Decimal(_down(allowed))) == inside
    assert abs(float(shown) - error) <= abs(error) * 1e-3 + 1e-12  # and it is the error


def test_error_at_the_edge_gets_more_digits() -> None:
    from drills.grading.tolerance import error_text

    assert error_text(0.0050004, 0.005) == "+0.0050004"  # not "+0.005", which looks accepted
    assert error_text(-0.00500001, 0.005) == "-0.00500001"
    assert error_text(0.0008081, 0.005) == "+0.0008081"


def test_exact_means_symbolically_equal() -> None:
    from drills.engine.metrics.registry import metric_value
    from drills.engine.problem import Problem

    dcg = metric_value(Problem((2, 1, 3, 0)), "dcg")
    near = grade("13/2 + 1/log2(3) + 1e-41", dcg)
    assert near.verdict == "correct" and near.exact is False  # 60 digits agree; the value does not
    assert "Correct, and exact" not in near.describe()
    assert grade("13/2 + 1/log2(9)*2", dcg).exact is True  # log2(9) = 2 log2(3)
    assert grade("13/2 + ln(2)/ln(3)", dcg).exact is True
    assert grade("13/2 + 1/log2(3) + sqrt(2)^2 - 2", dcg).exact is True
    assert grade("6.5 + 1/log2(3)", dcg).exact is True
    assert grade("13/2 + 1/log2(3.0000001)", dcg).exact is False


def test_cancellation_raises_precision_instead_of_grading_a_wrong_value() -> None:
    from drills.engine.metrics.registry import metric_value
    from drills.engine.problem import Problem

    ndcg = metric_value(Problem((2, 1, 3, 0), (3, 2, 1, 0)), "ndcg")
    text = f"{ndcg.text} + (exp(600)+1-exp(600)-1)"  # exactly the answer
    check = grade(text, ndcg)
    assert check.verdict == "correct" and check.error == pytest.approx(0, abs=1e-15)
    assert check.exact is True  # exp(600) cancels symbolically too
    assert grade("exp(600) + 1 - exp(600) + 1", FakeRef("2", R(2))).verdict == "correct"


def test_a_narrowed_interval_says_why() -> None:
    from drills.model import Narrowing

    n = Narrowing(Tolerance(0.0005, 0.0), Tolerance(), 3, "reciprocal_discount", "0.4118",
                  "0.4118 would be the 1/i discount")
    check = grade("0.4118", FakeRef("x", R(4083, 10000)), n.tolerance, n)
    assert check.verdict == "wrong"
    assert "(±0.0005, narrowed from ±0.005: 0.4118 would be the 1/i discount)" in check.describe()
