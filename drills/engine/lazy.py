"""Values known first by their floats: ``Lazy`` (the exact form built when it is shown,
compared closely or exported), and the helpers that read a value without building it:
``shown_decimal`` (its digits from the float when they are certain) and ``same_value``
(equal to 12 digits, from the floats unless they are too close to tell).

Imports only ``exact``: every module of the engine may import this one.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from typing import Any

from drills.engine.exact import decimal_text


class Lazy:
    """An exact value known first by its float: ``value`` is there at once (computed in
    floats, within a few units in the last place of the exact value), and the exact form
    (a LogSum, Ratio, ...) is built, once, the first time its ``text``, its 50-digit
    ``decimal()`` or its sympy expression is asked for: when it is shown, compared closely
    or exported. Grading compares floats first and asks for the exact form only where the
    floats cannot tell two numbers apart.
    """

    __slots__ = ("_build", "_decimal", "_exact", "value")

    def __init__(self, value: float, build: Callable[[], Any]) -> None:
        self.value = value
        self._build: Callable[[], Any] | None = build
        self._exact: Any = None
        self._decimal: decimal.Decimal | None = None

    @property
    def exact(self) -> Any:
        """The exact form (built on first use)."""
        if self._build is not None:
            self._exact, self._build = self._build(), None
        return self._exact

    @property
    def built(self) -> bool:
        return self._build is None

    @property
    def text(self) -> str:
        return str(self.exact.text)

    def decimal(self) -> decimal.Decimal:
        if self._decimal is None:
            self._decimal = self.exact.decimal()
        return self._decimal

    def to_sympy(self) -> Any:
        return self.exact.to_sympy()

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:  # compared: the exact forms are
        return bool(self.exact == exact_of(other))

    def __hash__(self) -> int:
        return hash(self.exact)

    def __repr__(self) -> str:
        return f"Lazy({self.value!r}{', built' if self.built else ''})"


def exact_of(x: Any) -> Any:
    """The exact form behind ``x`` (a Lazy's, built if need be; anything else as it is)."""
    return x.exact if isinstance(x, Lazy) else x


# A Lazy's float is within this relative error of its exact value (fsum of correctly rounded
# terms, or a 60-digit decimal rounded once, is good to about 1e-15): two floats further apart
# than FLOAT_APART (relative) are different numbers, two closer than FLOAT_SAME are the same
# to 12 digits (grading.diagnose.SAME); in between, the exact forms decide.
FLOAT_ERROR = 1e-14
FLOAT_SAME = 1e-13
FLOAT_APART = 1e-11


def _fresh(x: Any) -> bool:
    """A Lazy value whose 50-digit decimal has not been computed yet."""
    return isinstance(x, Lazy) and x._decimal is None


def shown_decimal(x: Any, digits: int = 6) -> str:
    """``decimal_text(x.decimal(), digits)``, from the float when the float rounds to the same
    digits on both sides of its error (almost always, at 12 digits or fewer), so that showing
    a value does not build its exact form; from the exact decimal otherwise."""
    if _fresh(x) and x.value:
        d = decimal.Decimal(repr(x.value))
        spread = abs(d) * decimal.Decimal(FLOAT_ERROR)
        text = decimal_text(d, digits)
        if decimal_text(d - spread, digits) == text == decimal_text(d + spread, digits):
            return text
    return decimal_text(x.decimal(), digits)


def same_value(a: Any, b: Any, decide: Callable[[decimal.Decimal, decimal.Decimal], bool]) -> bool:
    """``decide(a.decimal(), b.decimal())`` (equal to 12 digits), from the floats when they are
    clearly equal or clearly apart, so that comparing does not build exact forms needlessly."""
    if _fresh(a) or _fresh(b):
        x, y = a.value, b.value
        gap, scale = abs(x - y), max(1.0, abs(y))
        if gap <= FLOAT_SAME * scale:
            return True
        if gap > FLOAT_APART * scale:
            return False
    return decide(a.decimal(), b.decimal())
