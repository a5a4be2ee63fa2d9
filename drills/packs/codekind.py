"""The ``code`` question kind (the coding round) and the ``code:`` snippet of find-the-bug
questions, checked field by field with file:line errors.

A code question names the function to write, the signature shown, and the engine quantity
it must compute (``task``); its expected values come from the engine, never from the pack,
and a pack never supplies code that runs. A ``code:`` snippet on a choice or numeric
question is only shown, with line numbers.
"""

from __future__ import annotations

import keyword
import re
from fractions import Fraction
from typing import Any

from drills.coding.task import (
    DEFAULT_CASES,
    EDGES,
    MAX_CASES,
    ROLES,
    CodeTask,
    TaskError,
    problem_for,
)
from drills.engine.metrics.cascade import parse_persistence
from drills.engine.metrics.registry import CODE_METRICS, metric_value
from drills.engine.problem import AP_CONVENTION_NAMES, GAINS, ProblemError
from drills.packs.document import INVALID
from drills.packs.errors import FieldPath
from drills.packs.fieldreader import FieldReader
from drills.packs.meta import PackMeta

CODE_FIELDS = ("function", "signature", "task", "examples", "cases", "tolerance")
TASK_FIELDS = ("metric", "args", "gain", "denominator", "threshold", "persistence", "max_grade", "grades")
CASES_FIELDS = ("count", "include")
MAX_SNIPPET_LINES = 60
MAX_EXAMPLES = 10
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def code(c: FieldReader, item: dict, p: FieldPath, meta: PackMeta | None) -> dict[str, Any]:
    """``function``, ``signature``, ``task`` (+ ``examples``, ``cases``, ``tolerance``)."""
    function = c.text(item, p, "function", required=True)
    if function is not None and (not _NAME.fullmatch(function) or keyword.iskeyword(function)):
        c.err((*p, "function"), f"`function` must be a Python name such as ndcg_at_k, got {function!r}")
        function = None
    signature = c.text(item, p, "signature", required=True)
    if signature is not None and function is not None and not re.search(
            rf"(?<![\w.]){re.escape(function)}\s*\(", signature):
        c.err((*p, "signature"), f"the signature should show the function {function}(...)")
    task = _task(c, item, p, function is not None and signature is not None)
    if function is None or signature is None or task is None:
        return {"function": None, "signature": signature, "task": None}
    return {"function": function, "signature": signature, "task": task}


def _task(c: FieldReader, item: dict, p: FieldPath, ok: bool) -> CodeTask | None:
    q = (*p, "task")
    m = c.mapping(item.get("task"), q, TASK_FIELDS, "task") if "task" in item else None
    if "task" not in item:
        c.err(p, "a code question needs `task:` with the `metric` to compute and its `args`")
    if m is None:
        return None
    metric = c.choice(m, q, "metric", CODE_METRICS, required=True)
    args = m.get("args")
    if args is INVALID:
        return None
    if not isinstance(args, list) or not args or not all(isinstance(a, str) for a in args):
        c.err((*q, "args"), "`args` lists the role of each argument in order, e.g. [relevance, k]; "
                            f"roles: {', '.join(ROLES)}")
        return None
    fields: dict[str, Any] = {
        "gain": c.choice(m, q, "gain", GAINS, "exponential"),
        "denominator": c.choice(m, q, "denominator", AP_CONVENTION_NAMES, "R"),
        "threshold": c.integer(m["threshold"], (*q, "threshold"), minimum=1, maximum=20)
        if m.get("threshold") is not None else 1,
        "max_grade": c.integer(m["max_grade"], (*q, "max_grade"), minimum=1, maximum=20)
        if m.get("max_grade") is not None else None,
        "top_grade": c.integer(m["grades"], (*q, "grades"), minimum=1, maximum=10)
        if m.get("grades") is not None else (1 if metric in ("ap", "map", "rr", "mrr", "precision",
                                                               "recall", "rprec", "hit") else 3),
    }
    if m.get("persistence") is not None:
        fields["persistence"] = _persistence(c, m["persistence"], (*q, "persistence"))
        if fields["persistence"] is None:
            return None
    cases = _cases(c, item, p)
    examples = _examples(c, item, p, len(args))
    tolerance = _tolerance(c, item, p)
    if metric is None or None in (fields["gain"], fields["denominator"], fields["threshold"],
                                  fields["top_grade"]) or cases is None or examples is None \
            or tolerance is None:
        return None
    if m.get("max_grade") is not None and fields["max_grade"] is None:
        return None
    task = CodeTask(metric, tuple(args), cases=cases[0], include=cases[1], examples=examples,
                    tolerance=tolerance, **fields)
    try:
        task.check()
        _try_examples(task)
    except (TaskError, ValueError) as exc:
        c.err(q, str(exc))
        return None
    return task if ok else None


def _persistence(c: FieldReader, raw: Any, p: FieldPath) -> Fraction | None:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        c.err(p, "`persistence` is RBP's p, a number between 0 and 1 such as 0.8 or \"4/5\"")
        return None
    try:
        return parse_persistence(str(raw))
    except ProblemError as exc:
        c.err(p, str(exc))
        return None


def _cases(c: FieldReader, item: dict, p: FieldPath) -> tuple[int, tuple[str, ...]] | None:
    if "cases" not in item:
        return DEFAULT_CASES, ()
    q = (*p, "cases")
    m = c.mapping(item["cases"], q, CASES_FIELDS, "cases")
    if m is None:
        return None
    count = c.integer(m["count"], (*q, "count"), minimum=1, maximum=MAX_CASES) if "count" in m else DEFAULT_CASES
    include = m.get("include", [])
    if not isinstance(include, list) or not all(isinstance(e, str) for e in include):
        c.err((*q, "include"), f"`include` lists edge cases: {', '.join(EDGES)}")
        return None
    bad = [e for e in include if e not in EDGES]
    if bad:
        c.err((*q, "include"), f"unknown edge case {bad[0]!r}; known: {', '.join(EDGES)}")
        return None
    return (count, tuple(include)) if count is not None else None


def _examples(c: FieldReader, item: dict, p: FieldPath, arity: int) -> tuple[tuple[Any, ...], ...] | None:
    raw = item.get("examples", [])
    q = (*p, "examples")
    if raw is INVALID:
        return None
    if not isinstance(raw, list) or len(raw) > MAX_EXAMPLES:
        c.err(q, f"`examples` is a list of up to {MAX_EXAMPLES} calls, each a list of arguments")
        return None
    out = []
    for i, call in enumerate(raw):
        if not isinstance(call, list) or len(call) != arity or not all(_plain(a) for a in call):
            c.err((*q, i), f"each example is a list of {arity} arguments (whole numbers or lists of them), "
                           "in the order of `task.args`")
            return None
        out.append(tuple(call))
    return tuple(out)


def _plain(value: Any) -> bool:
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return isinstance(value, int) and not isinstance(value, bool)


def _tolerance(c: FieldReader, item: dict, p: FieldPath) -> float | None:
    raw = item.get("tolerance", 1e-6)
    if isinstance(raw, str):  # YAML 1.1 reads 1e-6 (no dot) as text
        try:
            raw = float(raw)
        except ValueError:
            pass
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 < raw < 0.1:
        c.err((*p, "tolerance"), "a code question's `tolerance` is one relative error, e.g. 1e-6")
        return None
    return float(raw)


def _try_examples(task: CodeTask) -> None:
    """Every example must be a call the engine can compute."""
    for n, call in enumerate(task.examples):
        try:
            metric_value(problem_for(task, call), task.metric)
        except (ProblemError, ZeroDivisionError, TypeError) as exc:
            raise TaskError(f"example {n + 1} cannot be computed: {exc}") from None


def snippet(c: FieldReader, item: dict, p: FieldPath) -> str | None:
    """A find-the-bug ``code:`` block: shown with line numbers, never run."""
    text = c.text(item, p, "code")
    if text is not None and len(text.splitlines()) > MAX_SNIPPET_LINES:
        c.err((*p, "code"), f"`code` is shown on one screen: at most {MAX_SNIPPET_LINES} lines")
        return None
    return text
