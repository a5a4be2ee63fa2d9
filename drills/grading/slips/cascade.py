"""Cascade and user-model slips: ERR with linear gain, without the stopping product or with a
log discount; RBP without (1 - p) or with p^i.

Every value comes from what ``drills.engine.metrics.cascade`` (the engine that grades the
answer) worked with: its grades, g_max, stopping probabilities R_i, reach and persistence p,
with one thing changed, and is None where it is no mistake (the right number). The ERR slips
sum their terms in integers over one denominator (a Fraction per term, reduced by a gcd of
ever longer numbers, made 1,000 ranks cost 200 ms); the linear-gain one is the engine's own
``err_total`` with its stops. Past EXACT_RANKS ranks, where the engine builds no fraction,
they are 60-digit decimals as its value is.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

from drills.engine.exact import DECIMALS, Exact, Log, LogSum, fraction_text
from drills.engine.metrics import cascade as cm
from drills.engine.metrics.rational import elided, ends
from drills.engine.metrics.registry import measure
from drills.engine.problem import Problem
from drills.grading.slips.registry import Case, slip

_SAME = Decimal("1e-45")
_CTX = DECIMALS  # past EXACT_RANKS, the engine's 60 digits


def _err_stop(top: int) -> Any:
    """ERR's R = (2^g - 1) / 2^top as a 60-digit Decimal, per grade."""
    return lambda g: _CTX.divide((1 << g) - 1, 1 << top)


def _result(p: Problem, metric: str) -> cm.CascadeResult:
    result = measure(p, metric)
    assert isinstance(result, cm.CascadeResult)
    return result


def _unless_right(case: Case, value: LogSum) -> Exact | None:
    result = _result(case.problem, case.metric)
    if result.capped:  # past EXACT_RANKS no fraction is built: the same to 45 digits is the same
        right = result.decimal()
        same = abs(value.decimal() - right) <= _SAME * max(Decimal(1), abs(right))
    else:
        same = value.is_rational and value.const == result.exact
    return None if same else value


def _exact(result: cm.CascadeResult) -> Fraction:
    """The result as a fraction: exact, or past EXACT_RANKS its 60-digit decimal's."""
    return Fraction(result.decimal()) if result.capped else result.exact


def _rational(case: Case, value: Fraction) -> Exact | None:
    return _unless_right(case, LogSum.of(value))


def _line(p: Problem, metric: str) -> str:
    return _result(p, metric).working


# --------------------------------------------------------------------------- ERR
def _stops(p: Problem) -> str:
    result = _result(p, "err")
    rows = result.rows
    return elided([fraction_text(r.stop) for r in ends(rows)], ", ", total=len(rows), unit="ranks")


def _past_exact(grades: tuple[int, ...], stop: Any, discount: Any, product: bool = True) -> Fraction:
    """An ERR variant past EXACT_RANKS ranks, where the engine builds no fraction either:
    60-digit decimals (``stop(g)`` and ``discount(rank)`` give Decimals), as the engine's own
    value there. Exact fractions of 10,000 ranks took seconds per slip, and no one reads them."""
    ctx = _CTX
    total, reach = Decimal(0), Decimal(1)
    for rank, g in enumerate(grades, start=1):
        r = stop(g)
        if r:
            total = ctx.add(total, ctx.divide(ctx.multiply(reach, r) if product else r, discount(rank)))
            if product:
                reach = ctx.multiply(reach, ctx.subtract(1, r))
    return Fraction(total)


@slip("err_linear_gain", "ERR with R_i = g / g_max",
      "You took the chance of stopping at a document as its grade over the top grade. ERR's "
      "R_i = (2^g - 1) / 2^g_max: exponential in the grade, so even a top-grade document "
      "leaves a chance 1/2^g_max that the user reads on.",
      metrics=("err",), family="cascade", short="ERR with linear gain",
      step=lambda p, m: (f"R_i = (2^g - 1) / 2^g_max with g_max = {_result(p, m).max_grade}: "
                         f"{_stops(p)}; {_line(p, m)}"))
def err_linear_gain(case: Case) -> Exact | None:
    result = _result(case.problem, "err")
    top = result.max_grade
    if top == 0:
        return None
    grades = result.grades  # the rows' grades, without building the exact rows
    if result.capped:
        return _rational(case, _past_exact(grades, lambda g: _CTX.divide(g, top), Decimal))
    return _rational(case, cm.err_total(grades, top))  # R_i = g_i / top


@slip("err_no_stop", "ERR summed without the stopping product",
      "You added R_r / r at every rank without multiplying by the chance that the user got that "
      "far, prod_{i<r} (1 - R_i). In ERR a satisfying document above rank r makes the user "
      "stop, so it lowers every contribution below it.",
      metrics=("err",), family="cascade", short="ERR without the stopping product",
      step=lambda p, m: (f"each R_r / r is multiplied by prod_{{i<r}} (1 - R_i), the chance of "
                         f"reaching rank r: {_line(p, m)}"))
def err_no_stop(case: Case) -> Exact | None:
    result = _result(case.problem, "err")
    top, grades = result.max_grade, result.grades  # R_r = (2^g - 1) / 2^top
    if result.capped:
        return _rational(case, _past_exact(grades, _err_stop(top), Decimal, product=False))
    ranks = math.lcm(*range(1, len(grades) + 1))
    total = sum(((1 << g) - 1) * (ranks // rank) for rank, g in enumerate(grades, start=1))
    return _rational(case, Fraction(total, (1 << top) * ranks))


@slip("err_log_discount", "ERR with a 1/log2(r + 1) discount",
      "You discounted rank r by 1/log2(r + 1), as DCG does. ERR's discount is 1/r, the "
      "reciprocal rank at which the user stops.",
      metrics=("err",), family="cascade", short="ERR with the log2(r + 1) discount",
      step=lambda p, m: f"ERR discounts rank r by 1/r: {_line(p, m)}")
def err_log_discount(case: Case) -> Exact | None:
    result = _result(case.problem, "err")
    top, grades = result.max_grade, result.grades
    n = len(grades)
    if result.capped:  # 60-digit reach and stops, the logs in floats: enough to tell it apart
        stop, reach, terms = _err_stop(top), Decimal(1), []
        for rank, g in enumerate(grades, start=1):
            if g:
                r = stop(g)
                terms.append(float(_CTX.multiply(reach, r)) / math.log2(rank + 1))
                reach = _CTX.multiply(reach, _CTX.subtract(1, r))
        return _unless_right(case, LogSum.of(Fraction(math.fsum(terms))))
    # every term over one denominator 2^(top n) * lcm(1..E), E the largest exponent e with
    # r + 1 = b^e (1 / log2(b^e) = (1/e) / log2(b)): reach_r R_r = A_r (2^g - 1) / 2^(top r)
    # in integers, so each term's numerator is a shift; one Fraction per log at the end
    scale = math.lcm(*range(1, (n + 1).bit_length() + 1))
    const, terms, reach = 0, {}, 1
    for rank, g in enumerate(grades, start=1):
        stop = (1 << g) - 1
        if stop:
            part = Log("log2", rank + 1).reciprocal()
            num = reach * stop << (top * (n - rank))
            if part.is_rational:  # 1 / m for rank + 1 = 2^m
                const += num * (scale // part.const.denominator) * part.const.numerator
            else:
                ((key, coef),) = part.terms  # 1 / e of log2(b)
                terms[key] = terms.get(key, 0) + num * (scale // coef.denominator) * coef.numerator
        reach *= (1 << top) - stop
    common = scale << (top * n)
    return _unless_right(case, LogSum.from_terms(Fraction(const, common),
                                                 {k: Fraction(v, common) for k, v in terms.items()}))


# --------------------------------------------------------------------------- RBP
@slip("err_gmax_four", "ERR with g_max = 4 where the scale tops elsewhere",
      "You took g_max = 4, the fixed top grade of gdeval.pl and ir_measures' ERR. R_i = "
      "(2^g - 1) / 2^g_max uses the top grade of this question's scale: a larger g_max makes "
      "every document less satisfying and ERR smaller.",
      metrics=("err",), family="cascade", short="ERR with g_max = 4",
      step=lambda p, m: f"g_max = {_result(p, m).max_grade}: {_line(p, m)}")
def err_gmax_four(case: Case) -> Exact | None:
    p = case.problem
    if _result(p, "err").max_grade == 4 or max(p.relevance) > 4:
        return None
    return _rational(case, _exact(cm.err(p.relevance, p.k, judged=p.judged, max_grade=4)))


def _p(p: Problem) -> Fraction:
    return _result(p, "rbp").persistence or cm.DEFAULT_PERSISTENCE


@slip("rbp_no_one_minus_p", "RBP without the factor (1 - p)",
      "You summed r_i p^(i-1) and left out the factor (1 - p). It makes the weights "
      "(1 - p) p^(i-1) add up to 1, so RBP stays in [0, 1].",
      metrics=("rbp",), family="cascade", short="RBP without (1 - p)",
      step=lambda p, m: f"RBP multiplies the sum by 1 - p = {fraction_text(1 - _p(p))}: {_line(p, m)}")
def rbp_no_one_minus_p(case: Case) -> Exact | None:
    result = _result(case.problem, "rbp")
    return _rational(case, _exact(result) / (1 - _p(case.problem)))


@slip("rbp_one_based_power", "RBP with p^i instead of p^(i-1)",
      "You weighted rank i by p^i. RBP's weight is (1 - p) p^(i-1): rank 1 gets 1 - p, "
      "the chance the user stops after the first document.",
      metrics=("rbp",), family="cascade", short="RBP with p^i",
      step=lambda p, m: (f"rank i weighs (1 - p) p^(i-1), rank 1 weighs 1 - p = "
                         f"{fraction_text(1 - _p(p))}: {_line(p, m)}"))
def rbp_one_based_power(case: Case) -> Exact | None:
    result = _result(case.problem, "rbp")
    return _rational(case, _exact(result) * _p(case.problem))
