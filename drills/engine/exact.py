"""Exact values for ranking metrics, without importing sympy.

Every DCG-like sum is a rational constant plus rational multiples of 1/log_b(m)
terms: ``c0 + sum c_m / log2(m)``. ``LogSum`` keeps that form exactly (Fractions),
prints it readably (``13/2 + 1/log2(3)``, which is also valid answer syntax),
evaluates it to 50 significant digits with ``decimal``, and builds the sympy
expression on demand. NDCG-like values are a ``Ratio`` of two LogSums.
Keeping sympy out of this path is what lets the first question appear before
sympy is imported; the grader still compares against ``to_sympy()``. Imports nothing from
drills: every module of the engine may import this one.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any, Protocol

PRECISION = 50
_CTX = decimal.Context(prec=PRECISION + 10)
DECIMALS = _CTX  # the 60-digit context of every decimal sum outside this module too


class Exact(Protocol):
    """What every exact value offers: a readable exact form, a float, a sympy expr."""

    @property
    def text(self) -> str: ...

    @property
    def value(self) -> float: ...

    def decimal(self) -> decimal.Decimal: ...

    def to_sympy(self) -> Any: ...


_PRIME_LN: dict[int, decimal.Decimal] = {}


def _prime_ln(p: int) -> decimal.Decimal:
    value = _PRIME_LN.get(p)
    if value is None:
        value = _PRIME_LN[p] = _CTX.ln(decimal.Decimal(p))
    return value


@lru_cache(maxsize=65536)
def _ln(m: int) -> decimal.Decimal:
    """ln(m) to PRECISION + 10 digits, as the sum of its prime factors' logarithms: a list of
    10,000 ranks needs the 1,229 primes below 10,000, not 10,000 logarithms (about 70 µs each)."""
    if m < 2 or m > 10**12:
        return _CTX.ln(decimal.Decimal(m))
    total = decimal.Decimal(0)
    rest, p = m, 2
    while p * p <= rest:
        while rest % p == 0:
            total = _CTX.add(total, _prime_ln(p))
            rest //= p
        p += 1 if p == 2 else 2
    return _CTX.add(total, _prime_ln(rest)) if rest > 1 else total


@lru_cache(maxsize=65536)
def log_value(fn: str, m: int) -> decimal.Decimal:
    """log2(m) or ln(m) to PRECISION digits."""
    if fn == "ln":
        return _ln(m)
    return _CTX.divide(_ln(m), _ln(2))


def _frac_dec(q: Fraction) -> decimal.Decimal:
    return _CTX.divide(decimal.Decimal(q.numerator), decimal.Decimal(q.denominator))


@lru_cache(maxsize=4096)
def perfect_power(m: int) -> tuple[int, int]:
    """Smallest base b and exponent e with b**e == m (m >= 2)."""
    for e in range(m.bit_length(), 1, -1):
        b = round(m ** (1.0 / e))
        for cand in (b - 1, b, b + 1):
            if cand >= 2 and cand**e == m:
                return cand, e
    return m, 1


def fraction_text(q: Fraction) -> str:
    """``3`` or ``29/48``, however many digits (ERR and RBP of a long list reach thousands)."""
    try:
        return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"
    except ValueError:  # past sys.get_int_max_str_digits(): the exact form was asked for
        import sys

        limit = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            return fraction_text(q)
        finally:
            sys.set_int_max_str_digits(limit)


def short_fraction(q: Fraction, width: int = 24) -> str:
    """A fraction for a table cell or a sum's term: exact when short, else its value (6
    significant digits; fewer in a cell narrower than 11, so that it fits)."""
    if max(q.numerator.bit_length(), q.denominator.bit_length()) * 0.302 < width:
        text = fraction_text(q)
        if len(text) <= width:
            return text
    return f"{float(q):.{6 if width >= 11 else max(2, width - 5)}g}"


@dataclass(frozen=True)
class Log:
    """log2(m) or ln(m) for an integer m >= 1; log2 of a power of two is an integer."""

    fn: str
    arg: int

    @property
    def rational(self) -> Fraction | None:
        """The exact rational value when there is one (log2(8) = 3, log(1) = 0)."""
        if self.arg == 1:
            return Fraction(0)
        if self.fn == "log2" and self.arg & (self.arg - 1) == 0:
            return Fraction(self.arg.bit_length() - 1)
        return None

    @property
    def text(self) -> str:
        r = self.rational
        return fraction_text(r) if r is not None else f"{self.fn}({self.arg})"

    @property
    def symbol(self) -> str:
        """The unevaluated form, e.g. log2(4), for worked steps."""
        return f"{self.fn}({self.arg})"

    def decimal(self) -> decimal.Decimal:
        r = self.rational
        return _frac_dec(r) if r is not None else log_value(self.fn, self.arg)

    @property
    def value(self) -> float:
        return float(self.decimal())

    def reciprocal(self) -> LogSum:
        """1 / this log, as a LogSum (reducing log2(9) to 2*log2(3))."""
        r = self.rational
        if r is not None:
            if r == 0:
                raise ZeroDivisionError(f"{self.symbol} is 0")
            return LogSum(1 / r)
        base, e = perfect_power(self.arg)
        return LogSum(Fraction(0), (((self.fn, base), Fraction(1, e)),))

    def to_sympy(self) -> Any:
        import sympy

        r = self.rational
        if r is not None:
            return sympy.Rational(r.numerator, r.denominator)
        if self.fn == "ln":
            return sympy.log(self.arg)
        return sympy.log(self.arg, 2)


@dataclass(frozen=True)
class LogSum:
    """``const + sum(coef / fn(base))``: terms sorted, no zero coefficients."""

    const: Fraction = Fraction(0)
    terms: tuple[tuple[tuple[str, int], Fraction], ...] = ()

    @staticmethod
    def of(value: int | Fraction) -> LogSum:
        return LogSum(Fraction(value))

    @staticmethod
    def from_terms(const: Fraction, terms: dict[tuple[str, int], Fraction]) -> LogSum:
        return LogSum._build(const, terms)

    @staticmethod
    def _build(const: Fraction, terms: dict[tuple[str, int], Fraction]) -> LogSum:
        return LogSum(const, tuple(sorted((k, v) for k, v in terms.items() if v != 0)))

    def __add__(self, other: LogSum) -> LogSum:
        terms = dict(self.terms)
        for key, coef in other.terms:
            terms[key] = terms.get(key, Fraction(0)) + coef
        return LogSum._build(self.const + other.const, terms)

    def __neg__(self) -> LogSum:
        return LogSum(-self.const, tuple((k, -v) for k, v in self.terms))

    def __sub__(self, other: LogSum) -> LogSum:
        return self + (-other)

    def scale(self, factor: int | Fraction) -> LogSum:
        f = Fraction(factor)
        if f == 0:
            return LogSum()
        return LogSum(self.const * f, tuple((k, v * f) for k, v in self.terms))

    @property
    def is_rational(self) -> bool:
        return not self.terms

    @property
    def is_zero(self) -> bool:
        return self.const == 0 and not self.terms

    def decimal(self) -> decimal.Decimal:
        return self._decimal

    @cached_property
    def _decimal(self) -> decimal.Decimal:  # once: grading reads a slip's value many times
        total = _frac_dec(self.const)
        for (fn, base), coef in self.terms:
            total = _CTX.add(total, _CTX.divide(_frac_dec(coef), log_value(fn, base)))
        return total

    @property
    def value(self) -> float:
        return float(self._decimal)

    @cached_property
    def signed_parts(self) -> tuple[tuple[bool, str], ...]:
        """(negative, magnitude text) of each term, the constant first (when not 0)."""
        parts: list[tuple[bool, str]] = []
        if self.const != 0 or not self.terms:
            parts.append((self.const < 0, fraction_text(abs(self.const))))
        for (fn, base), coef in self.terms:
            num, den = coef.numerator, coef.denominator
            neg = num < 0
            log = f"{fn}({base})" if den == 1 else f"({den}*{fn}({base}))"
            parts.append((neg, f"{-num if neg else num}/{log}"))
        return tuple(parts)

    @property
    def positive_terms(self) -> list[str] | None:
        """The terms' texts when none is negative (the text is them joined by " + "), else None."""
        parts = self.signed_parts
        return None if any(neg for neg, _ in parts) else [t for _, t in parts]

    @cached_property
    def text(self) -> str:
        parts = self.signed_parts
        out = [("-" if parts[0][0] else "") + parts[0][1]]
        for neg, mag_text in parts[1:]:
            out.append((" - " if neg else " + ") + mag_text)
        return "".join(out)

    def to_sympy(self) -> Any:
        import sympy

        expr = sympy.Rational(self.const.numerator, self.const.denominator)
        for (fn, base), coef in self.terms:
            log = sympy.log(base) if fn == "ln" else sympy.log(base, 2)
            expr += sympy.Rational(coef.numerator, coef.denominator) / log
        return expr

    def __str__(self) -> str:
        return self.text


def _grouped(text: str) -> str:
    """A quotient's side in parentheses unless it is one number: ``1 / (3/2 + ...)``."""
    return text if text.isdigit() else f"({text})"


@dataclass(frozen=True)
class Ratio:
    """``num / den`` of two LogSums (den not zero), e.g. NDCG = DCG / IDCG."""

    num: LogSum
    den: LogSum

    def __post_init__(self) -> None:
        if self.den.is_zero:
            raise ZeroDivisionError("ratio with a zero denominator")

    @property
    def simplified(self) -> LogSum | None:
        """The ratio as a LogSum when it is one (0, 1, a rational, a LogSum over a rational)."""
        if self.num.is_zero:
            return LogSum()
        if self.num == self.den:
            return LogSum.of(1)
        if self.den.is_rational:
            return self.num.scale(1 / self.den.const)
        return None

    def decimal(self) -> decimal.Decimal:
        return _CTX.divide(self.num.decimal(), self.den.decimal())

    @property
    def value(self) -> float:
        return float(self.decimal())

    @property
    def text(self) -> str:
        simple = self.simplified
        if simple is not None:
            return simple.text
        return f"{_grouped(self.num.text)} / {_grouped(self.den.text)}"

    def to_sympy(self) -> Any:
        simple = self.simplified
        if simple is not None:
            return simple.to_sympy()
        return self.num.to_sympy() / self.den.to_sympy()

    def __str__(self) -> str:
        return self.text


def rational_of(x: Any) -> Fraction | None:
    """The exact rational value of a Log or LogSum when it has one, else None."""
    if isinstance(x, Log):
        return x.rational
    if isinstance(x, LogSum) and x.is_rational:
        return x.const
    return None


@dataclass(frozen=True)
class Quotient:
    """``num / den`` of two discounts (Log or LogSum), e.g. log2(11)/log2(3)."""

    num: Any
    den: Any

    def __post_init__(self) -> None:
        if rational_of(self.den) == 0:
            raise ZeroDivisionError("quotient with a zero denominator")

    @property
    def rational(self) -> Fraction | None:
        a, b = rational_of(self.num), rational_of(self.den)
        return None if a is None or b is None else a / b

    @property
    def text(self) -> str:
        q = self.rational
        if q is not None:
            return fraction_text(q)
        if rational_of(self.den) == 1:
            return self.num.text
        wrap = [t if isinstance(x, Log) or rational_of(x) is not None and "/" not in t else f"({t})"
                for x, t in ((self.num, self.num.text), (self.den, self.den.text))]
        return f"{wrap[0]}/{wrap[1]}"

    def decimal(self) -> decimal.Decimal:
        return _CTX.divide(self.num.decimal(), self.den.decimal())

    @property
    def value(self) -> float:
        return float(self.decimal())

    def to_sympy(self) -> Any:
        return self.num.to_sympy() / self.den.to_sympy()

    def __str__(self) -> str:
        return self.text


def with_value(text: str, value: str) -> str:
    """``13/2 + 1/log2(3) = 7.1309``, but just ``15`` when the exact text is the number."""
    return text if text == value else f"{text} = {value}"


def decimal_text(value: decimal.Decimal, digits: int = 15) -> str:
    """A decimal rendering with ``digits`` significant digits, trailing zeros trimmed.

    A whole number is shown whole (2^40 - 1 is 1099511627775, not 1099510000000); a
    value too large for ``digits`` that is not whole is shown in scientific notation
    rather than padded with zeros that look exact. Below 1e40 the 50-digit values of
    the engine keep at least ten fractional digits, so "whole" means whole.
    """
    if value == 0:
        return "0"
    if value.adjusted() < 40 and value == value.to_integral_value():
        return str(int(value))
    q = decimal.Context(prec=digits).create_decimal(value)
    if q.adjusted() >= digits:
        mantissa, _, exponent = format(q, "e").partition("e")
        if "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{exponent}"
    text = format(q, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text
