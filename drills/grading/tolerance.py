"""Tolerance and verdicts: is a typed answer correct, close, wrong or unreadable?

One rule everywhere (quiz, linter, diagnosis): accept |answer - exact| <=
max(absolute, relative * |exact|) from ``Tolerance``. Every verdict carries the
accepted interval, the exact value and the learner's error, so a learner never has
to wonder why 0.75 was not accepted. Numbers shown are numbers accepted: the bounds
are printed rounded inward (typed back, they pass) and the error with enough digits to
compare with the tolerance. sympy is imported only to decide whether an expression
answer is *exactly* the reference (drills.answers.exactness), and only when the values
already agree to 30 digits.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any, Literal, Protocol

from drills.answers.exactness import equal
from drills.answers.parser import Answer, AnswerError, parse
from drills.model import Narrowing, Tolerance

Verdict = Literal["correct", "close", "wrong", "invalid"]  # the loop adds "skipped", "timeout"
VERDICTS: tuple[str, ...] = ("correct", "close", "wrong", "invalid")
CLOSE_FACTOR = 3  # "close": outside the tolerance but within 3 times it
EXACT_PRECHECK = Decimal("1e-30")  # relative agreement at 50 digits needed before the symbolic check
BOUND_DIGITS = 6  # significant digits of a printed bound (more when the interval is narrow)
_PLAIN = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class Reference(Protocol):
    """What the grader needs from an exact value (drills.engine.exact.Exact fits)."""

    @property
    def text(self) -> str: ...

    @property
    def value(self) -> float: ...

    def to_sympy(self) -> Any: ...


@dataclass(frozen=True)
class Check:
    """The outcome of grading one answer, with everything needed to explain it."""

    verdict: str
    given: str
    value: float | None
    exact: bool
    expected_text: str
    expected_value: float
    low: float
    high: float
    error: float | None
    tolerance: Tolerance
    message: str | None = None
    narrowing: Narrowing | None = None  # the tolerance was narrowed: it accepted a slip
    expected_decimal: Decimal | None = None  # the reference to 50 digits (for the bounds)

    @property
    def allowed(self) -> float:
        return self.tolerance.allowed(self.expected_value)

    def rule(self) -> str:
        """The tolerance rule in words, e.g. ±max(0.005 abs, 0.5% rel) = ±0.005."""
        if self.narrowing is not None:
            before = self.narrowing.before.allowed(self.expected_value)
            return (f"±{_down(self.allowed)}, narrowed from ±{_down(before)}: "
                    f"{self.narrowing.reason}")
        t = self.tolerance
        return f"±max({t.absolute:g} abs, {t.relative * 100:g}% rel) = ±{_down(self.allowed)}"

    def bounds(self) -> tuple[str, str]:
        """The accepted interval as printed: rounded inward, so a bound typed back is accepted."""
        return bounds_text(self.expected_decimal if self.expected_decimal is not None
                           else Decimal(repr(self.expected_value)), self.allowed)

    def error_text(self) -> str:
        """The error, with enough digits to compare it with the printed tolerance."""
        return error_text(self.error or 0.0, self.allowed)

    def describe(self) -> str:
        """One or two lines for the learner: verdict, numbers, interval, rule, error."""
        expected = f"{self.expected_text} = {_num(self.expected_value, 12)}"
        if self.expected_text == _num(self.expected_value, 12):
            expected = self.expected_text
        interval = "[{}, {}]".format(*self.bounds())
        if self.verdict == "invalid":
            return f"Not graded (not counted as wrong): {self.message}"
        if self.value is None or self.error is None:  # "skipped", "timeout" from the loop
            label = {"timeout": "Time is up"}.get(self.verdict, self.verdict.capitalize())
            return f"{label}: the exact answer is {expected}.\nAccepted {interval} ({self.rule()})."
        given = self.given.strip()
        if not _PLAIN.fullmatch(given):
            given = f"{given} = {_num(self.value, 10)}"
        error = f"error {self.error_text()}"
        if self.verdict == "correct" and self.exact:
            same = self.given.strip().replace(" ", "") == self.expected_text.replace(" ", "")
            return (f"Correct, and exact: {expected if same else f'{given} equals {expected}'}.\n"
                    f"Accepted {interval} ({self.rule()}).")
        if self.verdict == "correct":
            return (f"Correct: {given}; exact {expected}.\n"
                    f"Accepted {interval} ({self.rule()}); {error}.")
        if self.verdict == "close":
            return (f"Close, but not accepted: {given} is outside {interval} "
                    f"({self.rule()}); {error}.\n"
                    f"Exact {expected}. Likely rounding or truncation: keep 4+ "
                    f"significant digits until the last step.")
        return (f"Wrong: {given}; exact {expected}.\n"
                f"Accepted {interval} ({self.rule()}); {error}.")


def within(value: float, expected: float, tolerance: Tolerance) -> bool:
    """The tolerance rule; the boundary counts as inside (with float-rounding slack)."""
    allowed = tolerance.allowed(expected)
    return abs(value - expected) <= allowed * (1 + 1e-9) + 1e-15


def grade(text: str, reference: Reference, tolerance: Tolerance | None = None,
          narrowing: Narrowing | None = None) -> Check:
    """Grade typed ``text`` against ``reference`` under ``tolerance`` (default Tolerance()).

    ``narrowing``: why ``tolerance`` is narrower than the question's (it accepted a slip).
    """
    tol = tolerance if tolerance is not None else Tolerance()
    expected = float(reference.value)
    allowed = tol.allowed(expected)
    exact_decimal = getattr(reference, "decimal", None)
    common: dict[str, Any] = {
        "given": text, "expected_text": reference.text, "expected_value": expected,
        "low": expected - allowed, "high": expected + allowed, "tolerance": tol,
        "narrowing": narrowing,
        "expected_decimal": exact_decimal() if callable(exact_decimal) else None,
    }
    try:
        answer = parse(text)
        # An expression's float can cancel away what it means (exp(100) + 1 - exp(100) is
        # 0 in floats, 1 in fact): grade its 50-digit decimal instead.
        precise = None if answer.is_plain_number else answer.decimal()
        value = answer.value if precise is None else float(precise)
    except AnswerError as exc:
        return Check("invalid", value=None, exact=False, error=None, message=str(exc), **common)
    error = value - expected
    exact = _is_exact(answer, precise, reference, common["expected_decimal"])
    if exact or within(value, expected, tol):
        verdict = "correct"
    elif abs(error) <= CLOSE_FACTOR * allowed * (1 + 1e-9):
        verdict = "close"
    else:
        verdict = "wrong"
    return Check(verdict, value=value, exact=exact, error=error, **common)


def _is_exact(answer: Answer, mine: Decimal | None, reference: Reference, expected: Decimal | None) -> bool:
    """An expression answer symbolically equal to the reference (drills.answers.exactness).

    Values that differ at 50 digits are not equal, and are told so without sympy; an
    equality the bounded check cannot decide in time is not claimed.
    """
    if answer.is_plain_number or mine is None:
        return False
    target = expected if expected is not None else Decimal(repr(float(reference.value)))
    agree = EXACT_PRECHECK if expected is not None else Decimal("1e-12")  # a float reference
    if abs(mine - target) > agree * max(Decimal(1), abs(target)):
        return False

    return equal(answer, reference) is True


def bounds_text(expected: Decimal, allowed: float) -> tuple[str, str]:
    """[expected - allowed, expected + allowed] printed rounded inward (never outside).

    Six significant digits, or two more decimals than the tolerance has, whichever is
    finer; a bound of a whole number or larger is printed to whole units at least.
    """
    width = Decimal(repr(allowed))
    low, high = expected - width, expected + width
    big = max(abs(low), abs(high), Decimal("1e-30"))
    places = max(0, BOUND_DIGITS - (big.adjusted() + 1), 2 - width.adjusted() if width else 0)
    unit = Decimal(1).scaleb(-places)
    return (_plain(low.quantize(unit, rounding=ROUND_CEILING)),
            _plain(high.quantize(unit, rounding=ROUND_FLOOR)))


def _plain(x: Decimal) -> str:
    text = format(x, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _down(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits, rounded down (a printed tolerance never grows)."""
    if x <= 0:
        return _num(x, digits)
    d = Decimal(repr(x))
    unit = Decimal(1).scaleb(d.adjusted() - digits + 1)
    return _plain(d.quantize(unit, rounding=ROUND_FLOOR))


def error_text(error: float, allowed: float) -> str:
    """The signed error with at least 4 significant digits, and more until its size compares
    with the printed tolerance as the real numbers do (error +0.005001 is not "+0.005")."""
    shown_allowed = Decimal(_down(allowed))
    inside = abs(error) <= allowed * (1 + 1e-9) + 1e-15
    for digits in range(4, 18):
        text = _num(error, digits)
        size = abs(Decimal(text))
        if (size <= shown_allowed) == inside or digits == 17:
            return ("+" if error >= 0 else "") + text
    return ("+" if error >= 0 else "") + _num(error, 17)  # pragma: no cover


def _num(x: float, digits: int) -> str:
    """A compact decimal with up to ``digits`` significant digits, no exponent for NDCG-sized values."""
    text = f"{x:.{digits}g}"
    if "e" in text and 1e-6 <= abs(x) < 1e15:
        text = f"{x:.{max(0, digits - 1 - math.floor(math.log10(abs(x))))}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
    return text

