"""The safe answer parser: typed text -> a small exact AST, a float, sympy on demand.

Learners and pack authors type text that we must never execute, so nothing here calls
eval, exec, sympify or parse_expr. Python's ``ast`` only *parses* (mode="eval"); the
tree is then walked against a whitelist and rebuilt as our own frozen nodes. Every
input is bounded (length, nodes, depth, digits, exponents, exact-number size) before
any arithmetic, so each answer is read in well under a millisecond or rejected.
sympy is imported only inside ``Answer.to_sympy`` (startup speed matters).
"""

from __future__ import annotations

import ast
import math
import operator
import re
import warnings
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from drills.answers.digits import Imprecise, to_decimal
from drills.answers.nodes import Bin, Call, Neg, Node, Num, Percent

MAX_LENGTH = 1000  # characters; engine exact forms for 30-item lists are ~450
MAX_NODES = 500  # numbers, operators and calls in one answer
MAX_DEPTH = 100  # nesting levels: keeps our and sympy's recursion far from Python's limit
MAX_DIGITS = 30  # digits in one number literal
MAX_LITERAL_EXPONENT = 64  # |n| in 1.2e-n
MAX_POWER_EXPONENT = 64  # |y| in x^y
MAX_MAGNITUDE = 1e300  # any intermediate value; powers also bounded in log10 by 300
MAX_EXACT_BITS = 10_000  # estimated size of exact rationals kept for sympy/Fraction

FUNCTIONS: dict[str, tuple[int, ...]] = {
    "log2": (1,), "log": (1, 2), "ln": (1,), "log10": (1,), "sqrt": (1,), "exp": (1,),
}
ACCEPTED = ("answer with a number (0.76, 76%, 7/2, 1.2e-3) or an expression using "
            "+ - * / ^ ( ) and log2, log(x, b), ln, log10, sqrt, exp")
_FUNCS_TEXT = "log2(x), log(x) (natural), log(x, b), ln(x), log10(x), sqrt(x), exp(x)"
_TRANSLATE = str.maketrans({"\u2212": "-", "\u2013": "-", "\u00d7": "*", "\u00b7": "*",
                            "\u22c5": "*", "\u00f7": "/", "\t": " "})
_ALLOWED_CHARS = frozenset("0123456789.+-*/^()%, abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LITERAL = re.compile(r"(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?")
_BINOPS: dict[type, str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "^"}
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
_PERCENT_RULE = "a % must follow a number (76%) or a whole answer in parentheses ((1/2)%)"


class AnswerError(ValueError):
    """An answer we cannot read; str() says what is wrong and what is accepted."""

    def __init__(self, reason: str, text: str = "") -> None:
        shown = _short(text)
        super().__init__(f"could not read {shown!r}: {reason}" if text else reason)
        self.reason = reason
        self.text = text


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Answer:
    """A parsed answer. ``is_plain_number``: a bare literal (0.76, -3, 1.2e-3, 76%)."""

    text: str
    node: Node
    is_plain_number: bool
    value: float

    def to_sympy(self) -> Any:
        """The exact sympy expression, built node by node (never from text)."""
        import sympy

        return _to_sympy(self.node, sympy)

    def decimal(self, digits: int = 50) -> Decimal:
        """A ``decimal.Decimal`` rounded to ``digits`` significant digits.

        Computed by the stdlib ``decimal`` module (no mpmath or sympy import): a rational
        answer exactly from its Fraction (``0.76`` gives exactly 0.76), any other with
        as many digits as its cancellations need (drills.answers.digits); an answer with
        no stable value (``1/(sqrt(2)^2 - 2)``: the float was 4e-16, the value 1/0) is
        refused.
        """
        try:
            return to_decimal(self.node, self.fraction(), digits)
        except Imprecise as exc:
            raise AnswerError(str(exc), self.text) from None

    def fraction(self) -> Fraction | None:
        """The exact rational value, or None when the answer uses a function or a root."""
        return _evaluate(self.node)[1]


def parse(text: str) -> Answer:
    """Read one answer; raises AnswerError for anything outside the accepted forms."""
    stripped = text.strip() if len(text) <= 4 * MAX_LENGTH else text
    if len(stripped) > MAX_LENGTH:
        raise AnswerError(f"answer too long ({len(text)} characters, at most {MAX_LENGTH})")
    if not stripped:
        raise AnswerError("empty answer; " + ACCEPTED)
    source = stripped.translate(_TRANSLATE)
    bad = sorted(set(source) - _ALLOWED_CHARS)
    if bad:
        raise AnswerError(f"unexpected character {bad[0]!r}; {ACCEPTED}", stripped)
    source = source.replace("^", "**")
    whole_percent = _whole_percent(source)
    if whole_percent:
        source = source.rstrip()[:-1]
    source, percent_ends = _blank_percents(source, stripped)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "'int' object is not callable" SyntaxWarnings
            tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise AnswerError(ACCEPTED, stripped) from None
    converter = _Converter(source, percent_ends, stripped)
    node = converter.convert(tree.body, 1)
    if not all(converter.percent_ends.values()):
        raise AnswerError(_PERCENT_RULE, stripped)
    if whole_percent:
        node = Percent(node)
    try:
        value, _, _ = _evaluate(node)
    except AnswerError as exc:
        raise AnswerError(exc.reason, stripped) from None
    except (ArithmeticError, ValueError):  # safety net; the explicit checks come first
        raise AnswerError("the answer cannot be evaluated to a real number", stripped) from None
    plain = isinstance(node.operand if isinstance(node, Neg) else node, Num)
    return Answer(stripped, node, plain, value)


def check_syntax(text: str) -> None:
    """Raise AnswerError if ``text`` is not a valid answer (fast; never imports sympy)."""
    parse(text)


def _whole_percent(source: str) -> bool:
    """True for ``(...)%``: the trailing % applies to the whole parenthesized answer."""
    body = source.rstrip()
    if not body.endswith("%") or not body.startswith("("):
        return False
    body = body[:-1].rstrip()
    depth = 0
    for i, ch in enumerate(body):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return i == len(body) - 1
    return False


def _blank_percents(source: str, shown: str) -> tuple[str, dict[int, bool]]:
    """Replace each % by a space (offsets unchanged); map the end of its number to it."""
    ends: dict[int, bool] = {}  # end offset of a literal -> claimed by a Num yet
    for i in (i for i, ch in enumerate(source) if ch == "%"):
        end = len(source[:i].rstrip())
        if source[end - 1 : end] not in tuple("0123456789.") or end in ends:
            raise AnswerError(_PERCENT_RULE, shown)
        ends[end] = False
    return source.replace("%", " "), ends


class _Converter:
    """Whitelist walk of the Python AST into our nodes, counting nodes and depth."""

    def __init__(self, source: str, percent_ends: dict[int, bool], shown: str) -> None:
        self.source = source
        self.percent_ends = percent_ends
        self.shown = shown
        self.count = 0

    def fail(self, reason: str) -> AnswerError:
        return AnswerError(reason, self.shown)

    def convert(self, node: ast.AST, depth: int) -> Node:
        self.count += 1
        if self.count > MAX_NODES:
            raise self.fail(f"answer too complex (more than {MAX_NODES} parts)")
        if depth > MAX_DEPTH:
            raise self.fail(f"answer nested too deeply (more than {MAX_DEPTH} levels of "
                            "operators, parentheses or calls)")
        if isinstance(node, ast.Constant):
            if type(node.value) not in (int, float):
                raise self.fail(f"only plain numbers are allowed; {ACCEPTED}")
            return self.literal(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = self.convert(node.operand, depth + 1)
            return Neg(inner) if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left = self.convert(node.left, depth + 1)
            return Bin(_BINOPS[type(node.op)], left, self.convert(node.right, depth + 1))
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        if isinstance(node, ast.Name):
            raise self.fail(f"unknown name {_short(node.id, 20)!r}; functions: {_FUNCS_TEXT}")
        if isinstance(node, ast.Tuple) and not node.elts:
            raise self.fail("empty parentheses: write a number or an expression inside them")
        if isinstance(node, ast.Tuple):
            raise self.fail("a comma only separates log(x, b); write decimals with a dot (0.76)")
        raise self.fail(ACCEPTED)

    def call(self, node: ast.Call, depth: int) -> Node:
        func = node.func
        if not isinstance(func, ast.Name):
            raise self.fail("use * to multiply, e.g. 2*(3) or 2*log2(3)")
        if func.id not in FUNCTIONS:
            raise self.fail(f"unknown function {_short(func.id, 20)!r}; functions: {_FUNCS_TEXT}")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail(f"write {func.id}(x) with plain arguments")
        if len(node.args) not in FUNCTIONS[func.id]:
            raise self.fail(f"wrong number of arguments to {func.id}; functions: {_FUNCS_TEXT}")
        return Call(func.id, tuple(self.convert(a, depth + 1) for a in node.args))

    def literal(self, node: ast.Constant) -> Num:
        end = node.end_col_offset if node.end_col_offset is not None else -1
        text = self.source[node.col_offset:end]
        match = _LITERAL.fullmatch(text)
        if match is None or not (match.group(1) or match.group(2)):
            raise self.fail(f"write numbers with digits, a dot and an optional e-exponent "
                            f"(0.76, 1.2e-3), not {_short(text, 20)!r}")
        whole, frac, exp = match.group(1), match.group(2) or "", match.group(3)
        if len(whole) + len(frac) > MAX_DIGITS:
            raise self.fail(f"too many digits in one number (at most {MAX_DIGITS})")
        if exp is not None and (len(exp) > 4 or abs(int(exp)) > MAX_LITERAL_EXPONENT):
            raise self.fail(f"exponent too large in {_short(text, 20)!r} (at most e\u00b1{MAX_LITERAL_EXPONENT})")
        value = Fraction(int(whole + frac or "0"), 10 ** len(frac)) * Fraction(10) ** int(exp or 0)
        if end in self.percent_ends:
            self.percent_ends[end] = True
            return Num(value / 100, text + "%")
        return Num(value, text)


_Value = tuple[float, Fraction | None, int]  # float, exact rational if any, size estimate


def _bits(q: Fraction) -> int:
    return q.numerator.bit_length() + q.denominator.bit_length()


def _finite(x: float | Fraction) -> float:
    try:
        f = float(x)
    except OverflowError:  # a huge Fraction
        f = math.inf
    if not math.isfinite(f) or abs(f) > MAX_MAGNITUDE:
        raise AnswerError(f"a number in the answer is too large (beyond {MAX_MAGNITUDE:g})")
    return f


def _check_bits(bits: int) -> int:
    if bits > MAX_EXACT_BITS:
        raise AnswerError("the answer is too large to compute exactly")
    return bits


def _evaluate(node: Node) -> _Value:
    """Float value, exact Fraction when rational, and a size estimate, all bounded."""
    if isinstance(node, Num):
        return float(node.value), node.value, _bits(node.value)
    if isinstance(node, Neg):
        x, q, b = _evaluate(node.operand)
        return -x, (None if q is None else -q), b
    if isinstance(node, Percent):
        x, q, b = _evaluate(node.operand)
        return x / 100, (None if q is None else q / 100), b + 7
    if isinstance(node, Call):
        args = [_evaluate(a) for a in node.args]
        return _call(node.name, [a[0] for a in args]), None, sum(a[2] for a in args) + 1
    left, right = _evaluate(node.left), _evaluate(node.right)
    if node.op == "^":
        return _power(left, right)
    (x, qx, bx), (y, qy, by) = left, right
    bits = _check_bits(bx + by + 1)
    if node.op == "/" and (qy == 0 if qy is not None else y == 0.0):
        raise AnswerError("division by zero")
    if qx is not None and qy is not None:
        q = _ARITH[node.op](qx, qy)
        return _finite(q), q, bits
    return _finite(_ARITH[node.op](x, y)), None, bits


def _power(base: _Value, exponent: _Value) -> _Value:
    (x, qx, bx), (y, qy, by) = base, exponent
    if abs(y) > MAX_POWER_EXPONENT:
        raise AnswerError(f"exponent too large (|exponent| at most {MAX_POWER_EXPONENT})")
    integral = qy.denominator == 1 if qy is not None else y.is_integer()
    if x == 0 and y < 0:
        raise AnswerError("division by zero (0 to a negative power)")
    if x < 0 and not integral:
        raise AnswerError("a negative number to a fractional power is not a real number")
    if x != 0 and abs(y * math.log10(abs(x))) > 300:
        raise AnswerError("a power in the answer is too large or too small (beyond 1e\u00b1300)")
    bits = _check_bits(bx * max(1, math.ceil(abs(y))) + by)
    if qx is not None and qy is not None and integral:
        q = qx ** int(qy)
        return _finite(q), q, bits
    return _finite(math.pow(x, y)), None, bits


def _call(name: str, args: list[float]) -> float:
    x = args[0]
    if name in ("log2", "log", "ln", "log10") and x <= 0:
        raise AnswerError(f"{name} needs a positive number, got {x:g}")
    if name == "sqrt":
        if x < 0:
            raise AnswerError(f"sqrt needs a number >= 0, got {x:g}")
        return math.sqrt(x)
    if name == "exp":
        if x > 690:
            raise AnswerError("exp of a number above 690 is too large")
        return math.exp(x)
    if name == "log" and len(args) == 2:
        if args[1] <= 0 or math.log(args[1]) == 0:
            raise AnswerError(f"log base must be positive and not 1, got {args[1]!r}")
        return math.log(x) / math.log(args[1])
    return {"log2": math.log2, "log10": math.log10}.get(name, math.log)(x)


def _to_sympy(node: Node, sp: Any) -> Any:
    if isinstance(node, Num):
        return sp.Rational(node.value.numerator, node.value.denominator)
    if isinstance(node, Neg):
        return -_to_sympy(node.operand, sp)
    if isinstance(node, Percent):
        return _to_sympy(node.operand, sp) * sp.Rational(1, 100)
    if isinstance(node, Call):
        args = [_to_sympy(a, sp) for a in node.args]
        if node.name in ("sqrt", "exp"):
            return getattr(sp, node.name)(args[0])
        base = {"log2": 2, "log10": 10}.get(node.name, args[1] if len(args) == 2 else None)
        return sp.log(args[0]) if base is None else sp.log(args[0], base)
    a, b = _to_sympy(node.left, sp), _to_sympy(node.right, sp)
    return sp.Pow(a, b) if node.op == "^" else _ARITH[node.op](a, b)
