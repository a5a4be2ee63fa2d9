"""The safe answer parser: accepted forms, rejections, caps, and that nothing runs."""

from __future__ import annotations

import builtins
import dataclasses
import math
import os
import subprocess
import sys
import time
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drills.answers import digits, nodes
from drills.answers import parser as answers
from drills.answers.parser import Answer, AnswerError, check_syntax, parse

ROOT = Path(__file__).resolve().parents[1]
LOG2_3 = math.log(3) / math.log(2)
NDCG = (13 / 2 + 1 / LOG2_3) / (15 / 2 + 3 / LOG2_3)  # the worked example, by hand


# -- accepted forms ------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "value", "plain"),
    [
        ("0.76", 0.76, True),
        ("76%", 0.76, True),
        ("76 %", 0.76, True),
        ("7.5%", 0.075, True),
        ("-0.5", -0.5, True),
        ("+2", 2.0, True),
        ("7.", 7.0, True),
        (".5", 0.5, True),
        ("1.2e-3", 0.0012, True),
        ("1.2E+3", 1200.0, True),
        ("  3  ", 3.0, True),
        ("7/2", 3.5, False),
        ("2^10", 1024.0, False),
        ("2**10", 1024.0, False),
        ("2^-1", 0.5, False),
        ("-2^2", -4.0, False),  # ^ binds tighter than unary minus, as in Python and maths
        ("2^3^2", 512.0, False),  # right-associative
        ("(1/2)%", 0.005, False),
        ("1/2 + 5%", 0.55, False),
        ("log2(8)", 3.0, False),
        ("log(8, 2)", 3.0, False),
        ("log(100, 10)", 2.0, False),
        ("log(1)", 0.0, False),
        ("ln(1)", 0.0, False),
        ("log10(1000)", 3.0, False),
        ("sqrt(16)", 4.0, False),
        ("exp(0)", 1.0, False),
        ("\u22123 \u00d7 2", -6.0, False),  # unicode minus and times
        ("6 \u00f7 4", 1.5, False),
        ("3 \u00b7 2", 6.0, False),
    ],
)
def test_accepted_forms(text: str, value: float, plain: bool) -> None:
    answer = parse(text)
    assert answer.value == pytest.approx(value, rel=1e-12, abs=1e-15)
    assert answer.is_plain_number is plain
    assert answer.text == text.strip()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("(13+2/log2(3))/(15+6/log2(3))", NDCG),
        ("(13/2 + 1/log2(3)) / (15/2 + 3/log2(3))", NDCG),
        ("13/2 + 1/log2(3)", 6.5 + 1 / LOG2_3),
        ("3/(2*log2(5))", 3 / (2 * math.log(5) / math.log(2))),
        ("1/ln(3)", 1 / math.log(3)),
        ("7/log2(11) - 1/(2*log2(3))", 7 / math.log2(11) - 1 / (2 * LOG2_3)),
        ("ln(3)", math.log(3)),
        ("exp(2)", math.e**2),
        ("sqrt(2)", 2**0.5),
        ("log(5)", math.log(5)),
    ],
)
def test_engine_exact_forms(text: str, value: float) -> None:
    assert parse(text).value == pytest.approx(value, rel=1e-14)


def test_worked_example_value() -> None:
    assert parse("(13+2/log2(3))/(15+6/log2(3))").value == pytest.approx(0.759191924319732, abs=1e-15)


@pytest.mark.parametrize(
    ("text", "exact"),
    [
        ("0.76", Fraction(19, 25)),
        ("76%", Fraction(19, 25)),
        ("1.2e-3", Fraction(12, 10_000)),
        ("0.1", Fraction(1, 10)),  # not the binary float 0.1000000000000000055...
        ("7/2", Fraction(7, 2)),
        ("0.1 + 0.2", Fraction(3, 10)),
        ("2^-3", Fraction(1, 8)),
        ("(2/3)^2", Fraction(4, 9)),
        ("(1/2)%", Fraction(1, 200)),
        ("123456789012345678901234567890", Fraction(123456789012345678901234567890)),
        ("log2(8)", None),  # a function: no exact rational promised
        ("4^(1/2)", None),
    ],
)
def test_exact_fractions(text: str, exact: Fraction | None) -> None:
    assert parse(text).fraction() == exact


def test_plain_decimal_node_is_exact() -> None:
    node = parse("0.76").node
    assert isinstance(node, answers.Num)
    assert node.value == Fraction(19, 25)


def test_to_sympy_builds_exact_values() -> None:
    sympy = pytest.importorskip("sympy")
    assert parse("0.76").to_sympy() == sympy.Rational(19, 25)
    assert parse("1.2e-3").to_sympy() == sympy.Rational(3, 2500)
    assert parse("76%").to_sympy() == sympy.Rational(19, 25)
    assert parse("(1/2)%").to_sympy() == sympy.Rational(1, 200)
    assert parse("log2(8)").to_sympy() == 3
    assert parse("log(8, 2)").to_sympy() == 3
    assert parse("log10(1000)").to_sympy() == 3
    assert parse("sqrt(2)^2").to_sympy() == 2
    assert parse("exp(1)").to_sympy() == sympy.E
    assert sympy.simplify(parse("1/ln(3)").to_sympy() - 1 / sympy.log(3)) == 0
    ref = (sympy.Rational(13, 2) + sympy.log(2) / sympy.log(3)) / (
        sympy.Rational(15, 2) + 3 * sympy.log(2) / sympy.log(3))
    diff = (parse("(13+2/log2(3))/(15+6/log2(3))").to_sympy() - ref).evalf(60)
    assert abs(diff) < 1e-50


def test_decimal_is_high_precision_and_exact_for_typed_decimals() -> None:
    assert parse("0.76").decimal() == Decimal("0.76")
    assert parse("76%").decimal() == Decimal("0.76")
    with localcontext() as ctx:
        ctx.prec = 50
        third = Decimal(1) / Decimal(3)
        ln3 = Decimal(3).ln()
    assert parse("1/3").decimal(50) == third
    assert parse("ln(3)").decimal(50) == ln3
    # log2(3) = 1.5849625007211561814537389439478165087598144076924810604557526545410982...
    assert str(parse("log2(3)").decimal(40)) == "1.584962500721156181453738943947816508760"
    assert parse("sqrt(2)").decimal(30) == Decimal("1.41421356237309504880168872421")


def test_check_syntax_accepts_and_rejects() -> None:
    check_syntax("13/2 + 1/log2(3)")
    with pytest.raises(AnswerError):
        check_syntax("13/2 + 1/log3(3)")


def test_nodes_and_answer_are_immutable() -> None:
    answer = parse("1 + log2(3)")
    with pytest.raises(dataclasses.FrozenInstanceError):
        answer.value = 2.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        answer.node.op = "-"  # type: ignore[union-attr]
    assert hash(answer) == hash(parse("1 + log2(3)"))


def test_the_tree_lives_below_the_parser_and_digits_reads_it_alone() -> None:
    # nodes.py holds the tree; parse() builds it and digits evaluates it without the parser
    tree = parse("1 + log2(3)").node
    assert isinstance(tree, nodes.Bin) and isinstance(tree.left, nodes.Num)
    assert answers.Num is nodes.Num  # the old import path still names the same class
    built = nodes.Bin("+", nodes.Num(Fraction(1), "1"), nodes.Call("log2", (nodes.Num(Fraction(3), "3"),)))
    assert built == tree
    assert digits.to_decimal(built, None, 20) == parse("1 + log2(3)").decimal(20)


# -- rejections ------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("abc", "unknown name 'abc'"),
        ("e", "unknown name"),
        ("x + 1", "unknown name 'x'"),
        ("factorial(10**9)", "unknown function 'factorial'"),
        ("log3(9)", "unknown function 'log3'"),
        ("2(3)", "use * to multiply"),
        ("log2()", "wrong number of arguments"),
        ("log2(8, 2)", "wrong number of arguments"),
        ("log(1, 2, 3)", "wrong number of arguments"),
        ("sqrt(x=4)", "unexpected character '='"),
        ("1,5", "decimals with a dot"),
        ("0,76", "decimals with a dot"),
        ("()", "empty parentheses"),
        ("(())", "empty parentheses"),
        ("__import__('os').system('touch pwned')", "unexpected character"),
        ("'0.76'", "unexpected character"),
        ("True", "only plain numbers"),
        ("None", "only plain numbers"),
        ("1j", "only plain numbers"),
        ("0x10", "write numbers with digits"),
        ("1_000", "unexpected character '_'"),
        ("1.real", "could not read"),
        ("5%3", "answer with a number"),
        ("76%%", "% must follow a number"),
        ("log2(3)%", "% must follow a number"),
        ("-(1/2)%", "% must follow a number"),
        ("%", "% must follow a number"),
        ("1 < 2", "unexpected character '<'"),
        ("2 ++", "answer with a number"),
        ("(1", "answer with a number"),
        ("2 3", "answer with a number"),
        ("2log2(3)", "answer with a number"),
        ("1\n+2", "unexpected character"),
        ("1\x00", "unexpected character"),
        ("\uff11", "unexpected character"),  # fullwidth digit one
        ("\uff4c\uff4f\uff47(2)", "unexpected character"),  # fullwidth "log": NFKC would make it log
    ],
)
def test_rejections(text: str, fragment: str) -> None:
    with pytest.raises(AnswerError) as info:
        parse(text)
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("1/0", "division by zero"),
        ("1/(0.1+0.2-0.3)", "division by zero"),  # exact zero even though the float is 5.6e-17
        ("1/log2(1)", "division by zero"),
        ("0^-1", "division by zero"),
        ("log2(0)", "log2 needs a positive number"),
        ("log2(-8)", "log2 needs a positive number"),
        ("ln(-1)", "ln needs a positive number"),
        ("log(-1, 2)", "log needs a positive number"),
        ("log(8, 1)", "log base must be positive and not 1"),
        ("log(8, -2)", "log base must be positive and not 1"),
        ("log10(0)", "log10 needs a positive number"),
        ("sqrt(-1)", "sqrt needs a number >= 0"),
        ("(-8)^(1/3)", "negative number to a fractional power"),
        ("exp(700)", "too large"),
    ],
)
def test_domain_errors(text: str, fragment: str) -> None:
    with pytest.raises(AnswerError) as info:
        parse(text)
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("9**9**9**9", "exponent too large"),
        ("10^10^10", "exponent too large"),
        ("9^9^9", "exponent too large"),
        ("2^65", "exponent too large"),
        ("2^-65", "exponent too large"),
        ("10^64 ^ 2", "exponent too large"),
        ("(10^30)^20", "too large or too small"),  # 1e600
        ("(10^-30)^20", "too large or too small"),
        ("1e65", "exponent too large"),
        ("1e-65", "exponent too large"),
        ("1e999999999999", "exponent too large"),
        ("1" * 31, "too many digits"),
        ("0." + "1" * 30, "too many digits"),
        ("1e64 * 1e64 * 1e64 * 1e64 * 1e64", "too large"),
        ("(1.00000000000000000000000000001)^64", "too large to compute exactly"),
        ("-" * 150 + "1", "nested too deeply"),
        ("+".join(["1"] * 150), "nested too deeply"),
    ],
)
def test_caps(text: str, fragment: str) -> None:
    assert _parse_quickly(text) is None
    with pytest.raises(AnswerError) as info:
        parse(text)
    assert fragment in str(info.value)


def test_caps_accept_their_limits() -> None:
    assert parse("2^64").value == 2.0**64
    assert parse("1e64").fraction() == 10**64
    assert parse("1e-64").fraction() == Fraction(1, 10**64)
    assert parse("1" * 30).fraction() == int("1" * 30)
    assert parse("-" * 90 + "1").value == 1.0


def test_node_count_cap() -> None:
    text = "+".join(["1*1*1*1*1"] * 60)  # 599 nodes, but only ~65 levels deep
    assert len(text) < answers.MAX_LENGTH
    with pytest.raises(AnswerError, match="too complex"):
        parse(text)


@pytest.mark.parametrize("size", [answers.MAX_LENGTH + 1, 100_000, 10_000_000])
def test_long_input_rejected_immediately(size: int) -> None:
    text = "1" * size
    assert _parse_quickly(text) is None
    with pytest.raises(AnswerError, match="too long"):
        parse(text)


def test_long_whitespace_padding_is_still_too_long() -> None:
    with pytest.raises(AnswerError, match="too long"):
        parse(" " * 100_000 + "1")


def test_error_message_says_what_is_wrong_and_what_is_accepted() -> None:
    with pytest.raises(AnswerError) as info:
        parse("abc")
    message = str(info.value)
    assert "'abc'" in message
    for form in ("log2", "log(x, b)", "ln", "log10", "sqrt", "exp"):
        assert form in message
    with pytest.raises(AnswerError) as info:
        parse("0.7.6")
    message = str(info.value)
    assert message.startswith("could not read '0.7.6'")
    assert "76%" in message and "7/2" in message and "log2" in message
    assert isinstance(info.value, ValueError)


def test_long_text_is_shortened_in_the_message() -> None:
    with pytest.raises(AnswerError) as info:
        parse("abc" * 50)
    assert len(str(info.value)) < 200


# -- nothing gets executed -------------------------------------------------------------

def _payloads(target: Path) -> list[str]:
    t = str(target)
    return [
        f"__import__('os').system('touch {t}')",
        f"__import__('pathlib').Path('{t}').touch()",
        f"open('{t}', 'w').write('x')",
        f"(lambda: __import__('os').system('touch {t}'))()",
        f"[c for c in ().__class__.__base__.__subclasses__()]; open('{t}','w')",
        f"exec(\"open('{t}','w')\")",
        f"eval(\"open('{t}','w')\")",
        f"f'{{open(\"{t}\",\"w\")}}'",
    ]


def test_nothing_is_executed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("eval/exec must never be called")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    target = tmp_path / "pwned"
    for payload in _payloads(target):
        with pytest.raises(AnswerError):
            parse(payload)
        with pytest.raises(AnswerError):
            check_syntax(payload)
    assert not target.exists()
    assert parse("log2(8) + 1").value == 4.0  # the guard did not break normal parsing


def test_ast_whitelist_rejects_calls_even_with_allowed_characters() -> None:
    # Only letters, digits and ( ) , reach ast: names other than the functions are refused.
    for text in ("exit(1)", "quit()", "input()", "print(1)", "breakpoint()", "globals()",
                 "vars(1)", "help(log2)", "log2(exit)", "sqrt(log2)"):
        with pytest.raises(AnswerError):
            parse(text)


def test_to_sympy_never_uses_sympify_on_text(monkeypatch: pytest.MonkeyPatch) -> None:
    sympy = pytest.importorskip("sympy")
    import sympy.parsing.sympy_parser as sympy_parser

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("parse_expr must never be called")

    monkeypatch.setattr(sympy_parser, "parse_expr", forbidden)
    expr = parse("(13+2/log2(3))/(15+6/log2(3))").to_sympy()
    assert isinstance(expr, sympy.Expr)


def test_import_does_not_load_sympy_or_ui_libraries() -> None:
    code = ("import sys, drills.answers.parser, drills.grading.tolerance\n"
            "from drills.answers.parser import parse\n"
            "parse('(13+2/log2(3))/(15+6/log2(3))').decimal()\n"
            "bad = [m for m in ('sympy', 'mpmath', 'click', 'prompt_toolkit', 'sqlite3')"
            " if m in sys.modules]\n"
            "print(','.join(bad))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env=env, check=True)
    assert out.stdout.strip() == ""


# -- properties ---------------------------------------------------------------------------

@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60))
def test_fuzz_random_text_only_answers_or_answer_errors(text: str) -> None:
    _parse_quickly(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789.eE+-*/^()%, logsqrtexpn2 \u2212\u00d7_'", max_size=40))
def test_fuzz_answer_like_text(text: str) -> None:
    _parse_quickly(text)


def _parse_quickly(text: str) -> Answer | None:
    """parse() returns an Answer or raises AnswerError, within 50 ms (best of 3 timings,
    so a scheduler hiccup on a busy machine is not mistaken for unbounded work)."""
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        try:
            answer = parse(text)
        except AnswerError as exc:
            assert str(exc)
            answer = None
        else:
            assert isinstance(answer.value, float) and math.isfinite(answer.value)
        best = min(best, time.perf_counter() - start)
        if best < 0.05:
            break
    assert best < 0.05
    return answer


def _numbers() -> st.SearchStrategy[tuple[str, Fraction]]:
    ints = st.integers(0, 10**6).map(lambda n: (str(n), Fraction(n)))
    decs = st.decimals(min_value=0, max_value=1000, places=4, allow_nan=False,
                       allow_infinity=False).map(lambda d: (str(d), Fraction(d)))
    return st.one_of(ints, decs)


def _rational_tree(children: st.SearchStrategy[tuple[str, Fraction | None]]
                   ) -> st.SearchStrategy[tuple[str, Fraction | None]]:
    def combine(op: str, left: tuple[str, Fraction | None], right: tuple[str, Fraction | None]
                ) -> tuple[str, Fraction | None]:
        (lt, lv), (rt, rv) = left, right
        value: Fraction | None = None
        if lv is not None and rv is not None:
            if op == "/":
                value = lv / rv if rv != 0 else None
            else:
                value = {"+": lv + rv, "-": lv - rv, "*": lv * rv}[op]
        return f"({lt} {op} {rt})", value

    def neg(child: tuple[str, Fraction | None]) -> tuple[str, Fraction | None]:
        return f"-{child[0]}", (None if child[1] is None else -child[1])

    def power(child: tuple[str, Fraction | None], n: int) -> tuple[str, Fraction | None]:
        v = child[1]
        ok = v is not None and not (v == 0 and n < 0)
        return f"({child[0]})^{n}", (v**n if ok and v is not None else None)

    return st.one_of(
        st.builds(combine, st.sampled_from("+-*/"), children, children),
        st.builds(neg, children),
        st.builds(power, children, st.integers(-3, 3)),
    )


RATIONAL_EXPRS = st.recursive(_numbers(), _rational_tree, max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RATIONAL_EXPRS)
def test_rational_trees_match_independent_fraction_arithmetic(case: tuple[str, Fraction | None]) -> None:
    text, expected = case
    answer = _parse_quickly(text)
    if expected is None:
        return  # a zero division somewhere: only "no crash, quick" is promised
    if answer is None:
        # Only the size caps may refuse a well-defined rational expression.
        with pytest.raises(AnswerError, match="too large|exactly|too complex|nested"):
            parse(text)
        return
    assert answer.fraction() == expected
    assert answer.value == pytest.approx(float(expected), rel=1e-12)


FUNCTION_EXPRS = st.recursive(
    st.one_of(_numbers().map(lambda c: c[0]), st.just("0"), st.just("1")),
    lambda kids: st.one_of(
        st.builds(lambda f, a: f"{f}({a})", st.sampled_from(["log2", "ln", "log10", "sqrt", "exp", "log"]), kids),
        st.builds(lambda a, b: f"log({a}, {b})", kids, kids),
        st.builds(lambda a, op, b: f"({a}){op}({b})", kids, st.sampled_from(["+", "-", "*", "/", "^", "**"]), kids),
        st.builds(lambda a: f"-{a}", kids),
        st.builds(lambda a: f"{a}%", _numbers().map(lambda c: c[0])),
    ),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FUNCTION_EXPRS)
def test_well_formed_expression_trees_parse_or_fail_cleanly(text: str) -> None:
    answer = _parse_quickly(text)
    if answer is not None:
        answer.decimal(20)  # every accepted answer evaluates at high precision too


@settings(max_examples=300, deadline=None)
@given(st.integers(-(10**30) + 1, 10**30 - 1), st.integers(1, 10**30 - 1))
def test_p_over_q_is_exactly_the_fraction(p: int, q: int) -> None:
    answer = parse(f"{p}/{q}")
    assert answer.fraction() == Fraction(p, q)
    assert answer.is_plain_number is False
    assert answer.value == pytest.approx(p / q, rel=1e-15)


@settings(max_examples=300, deadline=None)
@given(st.decimals(allow_nan=False, allow_infinity=False, places=6,
                   min_value=Decimal("-1e12"), max_value=Decimal("1e12")))
def test_typed_decimals_are_exact(d: Decimal) -> None:
    text = format(d, "f")
    answer = parse(text)
    assert answer.fraction() == Fraction(d)
    assert answer.is_plain_number is True
    assert answer.decimal(50) == d


@pytest.mark.parametrize("text", ["1/(sqrt(2)^2-2)", "log2(sqrt(2)^2 - 2)"])
def test_decimal_refuses_values_whose_float_hid_an_exact_zero(text: str) -> None:
    answer = parse(text)  # the float path sees 4.4e-16, not 0
    with pytest.raises(AnswerError, match="cannot be evaluated precisely"):
        answer.decimal()


def test_decimal_raises_its_precision_over_cancellation() -> None:
    # at 60 digits exp(600) swallows the +1 and the sum would come out -1
    assert parse("exp(600)+1-exp(600)-1").decimal() == 0
    x = parse("1/log2(3)").decimal()
    assert parse("1/log2(3) + (exp(600)+1-exp(600)-1)").decimal() == x
    assert parse("exp(100) + 1 - exp(100)").decimal() == 1
