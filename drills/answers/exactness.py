"""Is a typed expression *exactly* the engine's answer? A bounded symbolic check.

Both sides become fractions of polynomials (sympy's sparse ``ring`` over QQ) in one
variable per natural logarithm ln(b) (b not a perfect power: ln(9) is 2 ln(3)); log2(x),
log10(x) and log(x, b) are quotients of those. Two values are symbolically equal when
A/B - C/D has a zero numerator. Treating every ln(b) as an independent variable is sound
(equal polynomials give equal numbers, whatever the logs are worth), so "exact" is
never claimed for a value that merely agrees to 60 digits (13/2 + 1/log2(3) + 1e-41).
It can miss an equality (ln(6) = ln(2) + ln(3), sqrt, exp): then the answer is plain
"correct". The sizes are bounded and the work is timed; when it cannot decide in time
the answer is None (undecided). Nothing here parses text: the input is the safe
parser's tree and the engine's exact values.
"""

from __future__ import annotations

import time
from fractions import Fraction
from functools import lru_cache
from typing import Any

from drills.answers.nodes import Bin, Call, Neg, Node, Num, Percent
from drills.answers.parser import Answer, _evaluate
from drills.engine.exact import Log, LogSum, Quotient, Ratio, perfect_power
from drills.engine.lazy import exact_of

MAX_LOGS = 40  # distinct ln(b) variables
MAX_TERMS = 5000  # terms in any polynomial built on the way
BUDGET_S = 0.25  # wall time before giving up (the answer is then just "correct")
MAX_ARGUMENT = 10**40  # ln of a larger integer is not reduced


class Undecided(Exception):
    """The check cannot decide (an unsupported form, or too big or slow)."""


Key = tuple[str, int]  # ("ln", b): the variable ln(b); also ("exp", q) and ("sqrt", q)


def equal(answer: Answer, reference: Any, budget: float = BUDGET_S) -> bool | None:
    """True/False when decided; None when undecided (never claims equality it cannot prove)."""
    _ring(1)  # import sympy's polynomials before the clock starts (about a second, once)
    try:
        return _Check(budget).run(answer.node, reference)
    except (Undecided, ZeroDivisionError, RecursionError, OverflowError):
        return None


@lru_cache(maxsize=8)
def _ring(n: int) -> tuple[Any, tuple[Any, ...]]:
    from sympy.polys.domains import QQ
    from sympy.polys.rings import ring

    made = ring(",".join(f"y{i}" for i in range(n)) or "y0", QQ)
    return made[0], tuple(made[1:])


class _Check:
    def __init__(self, budget: float) -> None:
        self.deadline = time.monotonic() + budget
        self.keys: dict[Key, int] = {}

    # -- pass 1: which logarithms appear --------------------------------------------------
    def run(self, node: Node, reference: Any) -> bool:
        self.mode = "collect"
        self.convert_node(node)
        self.convert_exact(reference)
        if len(self.keys) > MAX_LOGS:
            raise Undecided
        self.ring, self.ys = _ring(max(1, len(self.keys)))
        self.mode = "build"
        a, b = self.convert_node(node)
        c, d = self.convert_exact(reference)
        return bool(self.small(a * d - b * c) == 0)

    # -- helpers -------------------------------------------------------------------------
    def small(self, p: Any) -> Any:
        if self.mode == "build":
            if len(p) > MAX_TERMS:
                raise Undecided
            if time.monotonic() > self.deadline:
                raise Undecided
        return p

    def const(self, q: Fraction) -> tuple[Any, Any]:
        if self.mode == "collect":
            return (None, None)
        return self.ring(self._qq(q)), self.ring(1)

    def _qq(self, q: Fraction) -> Any:
        from sympy.polys.domains import QQ

        return QQ(q.numerator, q.denominator)

    def ln_int(self, m: int) -> tuple[Any, Any]:
        """ln(m) for an integer m >= 1: e * ln(b) with b not a perfect power."""
        if m == 1:
            return self.const(Fraction(0))
        base, e = perfect_power(m) if m <= MAX_ARGUMENT else (m, 1)
        key = ("ln", base)
        if self.mode == "collect":
            self.keys.setdefault(key, len(self.keys))
            return (None, None)
        return self.ys[self.keys[key]] * e, self.ring(1)

    def atom(self, key: tuple[str, Fraction]) -> tuple[Any, Any]:
        """exp(q) or sqrt(q) as a variable of its own (sound: no relation is assumed)."""
        if self.mode == "collect":
            self.keys.setdefault(key, len(self.keys))  # type: ignore[arg-type]
            return (None, None)
        return self.ys[self.keys[key]], self.ring(1)  # type: ignore[index]

    def ln_rational(self, q: Fraction) -> tuple[Any, Any]:
        if q <= 0:
            raise Undecided
        top, bottom = self.ln_int(q.numerator), self.ln_int(q.denominator)
        return self.sub(top, bottom)

    # -- fraction arithmetic on (numerator, denominator) pairs ---------------------------
    def add(self, x: tuple[Any, Any], y: tuple[Any, Any]) -> tuple[Any, Any]:
        if self.mode == "collect":
            return x
        if x[1] == y[1]:
            return self.small(x[0] + y[0]), x[1]
        return self.small(x[0] * y[1] + y[0] * x[1]), self.small(x[1] * y[1])

    def neg(self, x: tuple[Any, Any]) -> tuple[Any, Any]:
        return x if self.mode == "collect" else (-x[0], x[1])

    def sub(self, x: tuple[Any, Any], y: tuple[Any, Any]) -> tuple[Any, Any]:
        return self.add(x, self.neg(y))

    def mul(self, x: tuple[Any, Any], y: tuple[Any, Any]) -> tuple[Any, Any]:
        if self.mode == "collect":
            return x
        return self.small(x[0] * y[0]), self.small(x[1] * y[1])

    def div(self, x: tuple[Any, Any], y: tuple[Any, Any]) -> tuple[Any, Any]:
        if self.mode == "collect":
            return x
        if y[0] == 0:
            raise ZeroDivisionError
        return self.small(x[0] * y[1]), self.small(x[1] * y[0])

    def log_of(self, x: Node, name: str, base: Node | None) -> tuple[Any, Any]:
        """log2/ln/log10/log(x, b) of rational arguments, as ln quotients."""
        q = _rational(x)
        if q is None:
            raise Undecided  # ln of an irrational argument: not reduced here
        value = self.ln_rational(q)
        if name in ("ln",) or (name == "log" and base is None):
            return value
        if name == "log2":
            return self.div(value, self.ln_int(2))
        if name == "log10":
            return self.div(value, self.ln_int(10))
        b = _rational(base) if base is not None else None
        if b is None or b <= 0 or b == 1:
            raise Undecided
        return self.div(value, self.ln_rational(b))

    # -- the two sides -------------------------------------------------------------------
    def convert_node(self, node: Node) -> tuple[Any, Any]:
        if isinstance(node, Num):
            return self.const(node.value)
        if isinstance(node, Neg):
            return self.neg(self.convert_node(node.operand))
        if isinstance(node, Percent):
            return self.div(self.convert_node(node.operand), self.const(Fraction(100)))
        if isinstance(node, Call):
            if node.name in ("sqrt", "exp"):
                q = _rational(node)  # sqrt(4) is rational
                if q is not None:
                    return self.const(q)
                arg = _rational(node.args[0])
                if arg is None:
                    raise Undecided  # a root or exp of an irrational argument: not reduced
                return self.atom((node.name, arg))  # exp(600), sqrt(2): a variable of its own
            return self.log_of(node.args[0], node.name, node.args[1] if len(node.args) == 2 else None)
        assert isinstance(node, Bin)
        if node.op == "^":
            n = _rational(node.right)
            if n is None or n.denominator != 1:
                raise Undecided
            k = int(n)
            left = node.left
            if isinstance(left, Call) and left.name == "sqrt" and k % 2 == 0:  # sqrt(q)^2k = q^k
                return self.convert_node(Bin("^", left.args[0], Num(Fraction(k // 2), str(k // 2))))
            base = self.convert_node(left)
            if self.mode == "collect":
                return base
            num, den = (base if k >= 0 else (base[1], base[0]))
            if num == 0 and k < 0:
                raise ZeroDivisionError
            return self.small(num ** abs(k)), self.small(den ** abs(k))
        left, right = self.convert_node(node.left), self.convert_node(node.right)
        return {"+": self.add, "-": self.sub, "*": self.mul, "/": self.div}[node.op](left, right)

    def convert_exact(self, x: Any) -> tuple[Any, Any]:
        if isinstance(x, Answer):
            return self.convert_node(x.node)
        x = exact_of(x)  # a value known by its float: its exact form, built now
        if isinstance(x, LogSum):
            total = self.const(x.const)
            for (fn, base), coef in x.terms:
                log = self.ln_int(base) if fn == "ln" else self.div(self.ln_int(base), self.ln_int(2))
                total = self.add(total, self.div(self.const(coef), log))
            return total
        if isinstance(x, Log):
            r = x.rational
            if r is not None:
                return self.const(r)
            value = self.ln_int(x.arg)
            return value if x.fn == "ln" else self.div(value, self.ln_int(2))
        if isinstance(x, Ratio | Quotient):
            return self.div(self.convert_exact(x.num), self.convert_exact(x.den))
        to_sympy = getattr(x, "to_sympy", None)  # any other reference: its sympy expression
        if to_sympy is None:
            raise Undecided
        return self.convert_sympy(to_sympy())

    def convert_sympy(self, e: Any) -> tuple[Any, Any]:
        """Rationals, + * and integer powers, log of a rational, exp/sqrt of a rational."""
        import sympy

        if e.is_Rational:
            return self.const(Fraction(int(e.p), int(e.q)))
        if isinstance(e, sympy.Add | sympy.Mul):
            parts = [self.convert_sympy(a) for a in e.args]
            total = parts[0]
            for part in parts[1:]:
                total = self.add(total, part) if isinstance(e, sympy.Add) else self.mul(total, part)
            return total
        if isinstance(e, sympy.Pow) and e.exp.is_Rational:
            if e.exp == sympy.Rational(1, 2) and e.base.is_Rational and e.base > 0:
                return self.atom(("sqrt", Fraction(int(e.base.p), int(e.base.q))))
            if e.exp.is_Integer:
                base, k = self.convert_sympy(e.base), int(e.exp)
                if self.mode == "collect":
                    return base
                num, den = base if k >= 0 else (base[1], base[0])
                return self.small(num ** abs(k)), self.small(den ** abs(k))
        if isinstance(e, sympy.log) and len(e.args) == 1 and e.args[0].is_Rational:
            return self.ln_rational(Fraction(int(e.args[0].p), int(e.args[0].q)))
        if isinstance(e, sympy.exp) and e.args[0].is_Rational:
            return self.atom(("exp", Fraction(int(e.args[0].p), int(e.args[0].q))))
        raise Undecided


def _rational(node: Node) -> Fraction | None:
    """The exact rational value of a subtree, when it has one (sqrt(4) = 2, 2^-1 = 1/2)."""
    if isinstance(node, Call) and node.name == "sqrt":
        inner = _rational(node.args[0])
        if inner is None or inner < 0:
            return None
        num, den = _isqrt(inner.numerator), _isqrt(inner.denominator)
        return None if num is None or den is None else Fraction(num, den)
    try:
        return _evaluate(node)[1]
    except (ArithmeticError, ValueError):
        return None


def _isqrt(n: int) -> int | None:
    import math

    r = math.isqrt(n)
    return r if r * r == n else None
