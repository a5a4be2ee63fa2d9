"""Shared checks of the experiment packs (variance-reduction, experiment-health,
interference-and-sequential, off-policy-evaluation), independent of drills' engine: the YAML
is read with yaml.safe_load and every `answer:` evaluated by the tiny evaluator here."""

from __future__ import annotations

import ast
import math
import operator
import re
from fractions import Fraction
from pathlib import Path

import yaml

QUESTIONS_DIR = Path(__file__).resolve().parent.parent / "questions"

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv}


def load(stem: str) -> dict:
    return yaml.safe_load((QUESTIONS_DIR / f"{stem}.yaml").read_text(encoding="utf-8"))


def evaluate(expr: str | int) -> float:
    """An `answer:` (numbers, + - * /, ^ with a whole exponent, sqrt, exp) as a float."""

    def ev(node: ast.AST) -> Fraction | float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return Fraction(str(node.value))
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return ev(node.left) ** int(ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("sqrt", "exp"):
            f = math.sqrt if node.func.id == "sqrt" else math.exp
            return f(float(ev(node.args[0])))
        raise ValueError(f"unsupported: {ast.dump(node)}")

    return float(ev(ast.parse(str(expr).replace("^", "**"), mode="eval")))


ABSOLUTE = re.compile(r"\b(always|never|any|nothing|every|all|only|none)\b", re.I)


def choice_cues(questions: list[dict]) -> tuple[int, int, list[str]]:
    """(choice questions that are not true/false, those whose correct option is the longest,
    the ids whose correct option is more than 1.5x the longest wrong one)."""
    counted, longest, blatant = 0, 0, []
    for q in questions:
        if q["kind"] != "choice" or {o["text"] for o in q["options"]} == {"True", "False"}:
            continue
        counted += 1
        right = next(len(o["text"]) for o in q["options"] if o.get("correct"))
        wrong = max(len(o["text"]) for o in q["options"] if not o.get("correct"))
        longest += right > wrong
        if right > 1.5 * wrong:
            blatant.append(q["id"])
    return counted, longest, blatant


def absolutes_only_in_wrong(questions: list[dict]) -> list[str]:
    """Choice questions whose wrong options carry absolute words the correct one lacks, when
    every wrong option does (the cue a test-wise candidate uses)."""
    out = []
    for q in questions:
        if q["kind"] != "choice":
            continue
        right = [o["text"] for o in q["options"] if o.get("correct")][0]
        wrong = [o["text"] for o in q["options"] if not o.get("correct")]
        if not ABSOLUTE.search(right) and wrong and all(ABSOLUTE.search(w) for w in wrong):
            out.append(q["id"])
    return out


def same_start(questions: list[dict]) -> list[str]:
    """Choice questions with two options opening with the same two words."""
    out = []
    for q in questions:
        if q["kind"] != "choice":
            continue
        starts = [" ".join(o["text"].lower().split()[:2]) for o in q["options"]]
        if len(set(starts)) < len(starts):
            out.append(q["id"])
    return out


def coarse_tolerances(questions: list[dict], keys: dict) -> list[str]:
    """Numeric questions whose prompt asks for D decimal places (3, or 4 when it says so)
    but whose tolerance accepts more than half a unit there at the key's value (the pack's
    relative tolerance, merged key by key, can be wider than the question's absolute one)."""
    out = []
    for q in questions:
        if q["kind"] != "numeric" or "places" not in q["prompt"]:
            continue
        digits = 4 if "4 decimal places" in q["prompt"] else 3
        tol = q["tolerance"]
        allowed = max(tol["absolute"], tol["relative"] * abs(float(keys[q["id"]])))
        if allowed > 0.5 * 10 ** -digits + 1e-12:
            out.append(q["id"])
    return out
