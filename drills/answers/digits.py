"""A parsed answer's value to N significant digits, raising the precision over cancellation.

``exp(600) + 1 - exp(600) - 1`` is exactly 0, but at 60 digits exp(600) swallows the
+1 and the sum comes out -1. So the answer tree is evaluated (stdlib ``decimal``, no
sympy) with enough digits that the largest intermediate value still resolves well below
the digits asked for, then again with more; the value is kept only when both agree. A
value that keeps moving (``1/(sqrt(2)^2 - 2)``: the denominator is exactly 0, and each
precision finds a different tiny rounding error) is refused, never graded. Rational
answers are computed exactly from their Fraction. parse() has already bounded every
number and checked every domain, so each evaluation is bounded too.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation, getcontext, localcontext
from fractions import Fraction
from functools import lru_cache

from drills.answers.nodes import Bin, Call, Neg, Node, Num, Percent

GUARD = 10  # digits beyond those asked for
STEP = 25  # digits added between the two evaluations that must agree (doubling while unstable)
MAX_PRECISION = 1500  # enough for any intermediate within 1e±300; beyond, refuse


class Imprecise(ArithmeticError):
    """No precision up to MAX_PRECISION gives a stable value."""


def to_decimal(node: Node, exact: Fraction | None, digits: int) -> Decimal:
    """The value of ``node`` rounded to ``digits`` significant digits; Imprecise if unstable."""
    with localcontext() as ctx:
        if exact is not None:
            ctx.prec = digits
            return Decimal(exact.numerator) / Decimal(exact.denominator)
        precision = digits + GUARD
        previous: Decimal | None = None
        while precision <= MAX_PRECISION:
            result = _run(node, precision)
            if result is not None and previous is not None and _agree(previous, result[0], digits):
                ctx.prec = digits
                return +result[0] if result[0] else Decimal(0)
            # the largest intermediate must still resolve 10^-(digits + GUARD)
            need = digits + GUARD + max(0, result[1] + 1) if result is not None else 0
            previous = result[0] if result is not None and need <= precision else None
            precision = max(precision + STEP, 2 * precision if previous is None else 0, need)
        raise Imprecise("the answer cannot be evaluated precisely (a value that rounds to nonzero "
                        "is exactly 0 or negative)")


def _agree(a: Decimal, b: Decimal, digits: int) -> bool:
    """Within 10^-digits of each other, relative to the value (absolute for values below 1)."""
    scale = max(abs(b), Decimal(1))
    return abs(a - b) <= scale.scaleb(-digits)


def _run(node: Node, precision: int) -> tuple[Decimal, int] | None:
    """One evaluation at ``precision`` digits: the value and the largest intermediate's exponent."""
    with localcontext() as ctx:
        ctx.prec = precision
        biggest = [0]
        try:
            value = _eval(node, biggest)
        except (ArithmeticError, InvalidOperation, ValueError):  # a cancelled 0 divided by, log of
            return None
        return (value, biggest[0]) if value.is_finite() else None


@lru_cache(maxsize=4096)  # log2(3) appears many times in one answer, and in every answer
def _function(name: str, x: Decimal, precision: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = precision
        return getattr(x, name)()


def _seen(x: Decimal, biggest: list[int]) -> Decimal:
    if x and x.is_finite():
        biggest[0] = max(biggest[0], x.adjusted())
    return x


def _eval(node: Node, biggest: list[int]) -> Decimal:
    if isinstance(node, Num):
        return _seen(Decimal(node.value.numerator) / Decimal(node.value.denominator), biggest)
    if isinstance(node, Neg):
        return -_eval(node.operand, biggest)
    if isinstance(node, Percent):
        return _eval(node.operand, biggest) / 100
    if isinstance(node, Call):
        x = _eval(node.args[0], biggest)
        if node.name in ("sqrt", "exp", "log10", "ln"):
            if node.name != "exp" and x <= 0 and not (node.name == "sqrt" and x == 0):
                raise ArithmeticError("a cancelled value reached a logarithm or a root")
            return _seen(_function(node.name, x, getcontext().prec), biggest)
        base = _eval(node.args[1], biggest) if len(node.args) == 2 else None
        base = Decimal(2) if node.name == "log2" else base
        if x <= 0 or (base is not None and (base <= 0 or base == 1)):
            raise ArithmeticError("a cancelled value reached a logarithm")
        prec = getcontext().prec
        ln = _function("ln", x, prec)
        return _seen(ln if base is None else ln / _function("ln", base, prec), biggest)
    assert isinstance(node, Bin)
    a, b = _eval(node.left, biggest), _eval(node.right, biggest)
    if node.op == "^":  # parse() allowed a negative base only with an integral exponent
        if a < 0 or b == b.to_integral_value():
            n = int(b.to_integral_value())
            return _seen(Decimal(1) if n == 0 else a**n, biggest)
        return _seen(a**b, biggest)
    if node.op == "+":
        return _seen(a + b, biggest)
    if node.op == "-":
        return _seen(a - b, biggest)
    if node.op == "*":
        return _seen(a * b, biggest)
    if b == 0:
        raise ArithmeticError("a cancelled value in a denominator")
    return _seen(a / b, biggest)
