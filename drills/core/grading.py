"""Tolerance and verdicts: is a typed answer correct, close, wrong or unreadable?

One rule everywhere (quiz, linter, diagnosis): accept |answer - exact| <=
max(absolute, relative * |exact|) from ``Tolerance``. Every verdict carries the
accepted interval, the exact value and the learner's error, so a learner never has
to wonder why 0.75 was not accepted. sympy is imported only to decide whether an
expression answer is *exactly* the reference, and only when the floats already agree.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from drills.core.answers import Answer, AnswerError, parse
from drills.core.questions import Tolerance

Verdict = Literal["correct", "close", "wrong", "invalid"]  # the loop adds "skipped", "timeout"
VERDICTS: tuple[str, ...] = ("correct", "close", "wrong", "invalid")
CLOSE_FACTOR = 3  # "close": outside the tolerance but within 3 times it
EXACT_PRECHECK = 1e-9  # relative float agreement needed before asking sympy
EXACT_DIGITS = 60  # evalf precision of the exactness check
EXACT_EPSILON = 1e-40  # |answer - reference| below this at 60 digits counts as equal
_PLAIN = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class Reference(Protocol):
    """What the grader needs from an exact value (drills.core.exact.Exact fits)."""

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

    @property
    def allowed(self) -> float:
        return self.tolerance.allowed(self.expected_value)

    def rule(self) -> str:
        """The tolerance rule in words, e.g. ±max(0.005 abs, 0.5% rel) = ±0.005."""
        t = self.tolerance
        return f"±max({t.absolute:g} abs, {t.relative * 100:g}% rel) = ±{_num(self.allowed, 4)}"

    def describe(self) -> str:
        """One or two lines for the learner: verdict, numbers, interval, rule, error."""
        expected = f"{self.expected_text} = {_num(self.expected_value, 12)}"
        if self.expected_text == _num(self.expected_value, 12):
            expected = self.expected_text
        interval = f"[{_num(self.low, 6)}, {_num(self.high, 6)}]"
        if self.verdict == "invalid":
            return f"Not graded (not counted as wrong): {self.message}"
        if self.value is None or self.error is None:  # "skipped", "timeout" from the loop
            label = {"timeout": "Time is up"}.get(self.verdict, self.verdict.capitalize())
            return f"{label}: the exact answer is {expected}.\nAccepted {interval} ({self.rule()})."
        given = self.given.strip()
        if not _PLAIN.fullmatch(given):
            given = f"{given} = {_num(self.value, 10)}"
        error = f"error {_signed(self.error)}"
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


def grade(text: str, reference: Reference, tolerance: Tolerance | None = None) -> Check:
    """Grade typed ``text`` against ``reference`` under ``tolerance`` (default Tolerance())."""
    tol = tolerance if tolerance is not None else Tolerance()
    expected = float(reference.value)
    allowed = tol.allowed(expected)
    common: dict[str, Any] = {
        "given": text, "expected_text": reference.text, "expected_value": expected,
        "low": expected - allowed, "high": expected + allowed, "tolerance": tol,
    }
    try:
        answer = parse(text)
        # An expression's float can cancel away what it means (exp(100) + 1 - exp(100) is
        # 0 in floats, 1 in fact): grade its 50-digit decimal instead.
        value = answer.value if answer.is_plain_number else float(answer.decimal())
    except AnswerError as exc:
        return Check("invalid", value=None, exact=False, error=None, message=str(exc), **common)
    error = value - expected
    exact = _is_exact(answer, reference)
    if exact or within(value, expected, tol):
        verdict = "correct"
    elif abs(error) <= CLOSE_FACTOR * allowed * (1 + 1e-9):
        verdict = "close"
    else:
        verdict = "wrong"
    return Check(verdict, value=value, exact=exact, error=error, **common)


def _is_exact(answer: Answer, reference: Reference) -> bool:
    """An expression answer symbolically equal to the reference (60-digit check)."""
    expected = float(reference.value)
    if answer.is_plain_number:
        return False
    if abs(answer.value - expected) > EXACT_PRECHECK * max(1.0, abs(expected)):
        return False
    import sympy

    try:
        diff = (answer.to_sympy() - reference.to_sympy()).evalf(EXACT_DIGITS)
        return bool(abs(complex(diff)) < EXACT_EPSILON)
    except (TypeError, ValueError, ArithmeticError, sympy.SympifyError):
        return False


def _num(x: float, digits: int) -> str:
    """A compact decimal with up to ``digits`` significant digits, no exponent for NDCG-sized values."""
    text = f"{x:.{digits}g}"
    if "e" in text and 1e-6 <= abs(x) < 1e15:
        text = f"{x:.{max(0, digits - 1 - math.floor(math.log10(abs(x))))}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
    return text


def _signed(x: float) -> str:
    return ("+" if x >= 0 else "") + _num(x, 4)
