"""``drills solve --metric ap|precision|recall|rprec|hit|rr|err|rbp``: one ranking, one metric.

The worked table and equation come from the metric registry's result (the grader's own);
``--answer`` is graded by the same ``check`` as the quiz, so the verdict, the slip named and
the steps agree with practice.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import replace
from typing import Any

import click

from drills.cli.errors import Exit, fail
from drills.cli.options import parse_grades, tolerance_option
from drills.cli.solve.jsonout import dumps
from drills.cli.solve.verdict import check_answer, check_json, echo_verdict, echo_verdict_again
from drills.cli.style import screen_rows, wrap_width
from drills.display import Style, use_color
from drills.engine.exact import decimal_text, fraction_text, short_fraction, with_value
from drills.engine.metrics.cascade import EXACT_RANKS, CascadeResult, parse_persistence
from drills.engine.metrics.ndcg import ndcg_solution
from drills.engine.metrics.ndcg_text import solution_json
from drills.engine.metrics.registry import measure
from drills.engine.problem import Problem, ProblemError

NAMES = {"ap": "AP", "precision": "precision", "recall": "recall", "rprec": "R-precision",
         "hit": "hit", "rr": "reciprocal rank", "err": "ERR", "rbp": "RBP"}


def solve_metric(relevance: tuple[str, ...], metric: str, k: int | None, judged: str | None,
                 threshold: int, denominator: str, persistence: str | None, max_grade: int | None,
                 answer: str | None, tolerance: str | None, all_rows: bool, as_json: bool) -> None:
    grades = parse_grades(" ".join(relevance))
    pool = parse_grades(judged, "judged") if judged is not None else None
    override = tolerance_option(tolerance)
    if persistence is not None and metric != "rbp":
        fail("--persistence is RBP's: use it with --metric rbp")
    if denominator != "R" and metric != "ap":
        fail("--denominator is AP's: use it with --metric ap")
    if max_grade is not None and metric not in ("err", "rbp"):
        fail("--max-grade is g_max of ERR and RBP: use it with --metric err or rbp")
    if threshold != 1 and metric in ("err", "rbp"):
        fail(f"--threshold binarises grades for the binary metrics; {metric} uses the grades themselves")
    if k is not None and metric == "rprec":
        fail("R-precision has its own cut-off, R: drop --k")
    try:
        p = parse_persistence(persistence) if metric == "rbp" else None
        problem = Problem(grades, pool, k, threshold=threshold, convention=denominator,
                          persistence=p, max_grade=max_grade)
        result = measure(problem, metric)
    except ProblemError as exc:
        fail(str(exc))
    outcome = None
    if answer is not None:
        outcome = check_answer(problem, metric, answer, override)
        if outcome.verdict == "invalid" and not as_json:
            fail(outcome.summary.splitlines()[0])
    if as_json:
        click.echo(dumps(_json(problem, metric, result, answer, outcome)))
    else:
        _text(problem, metric, result, outcome, all_rows)
    if outcome is not None:
        sys.exit(Exit.OK if outcome.correct else Exit.USAGE if outcome.verdict == "invalid" else Exit.FAILED)


def _ndcg_keys(problem: Any) -> dict[str, Any]:
    """The NDCG solution's keys, when the same grades make an NDCG problem (a pool that leaves
    out ranked non-relevant grades gets them back: they change no IDCG)."""
    pool = problem.judged
    if pool is not None:
        missing = Counter(problem.relevance) - Counter(pool)
        if any(g > 0 for g in missing):
            return {}
        pool = tuple(pool) + tuple(missing.elements())
    try:
        return solution_json(ndcg_solution(replace(problem, judged=pool)))
    except ProblemError:
        return {}


def _json(problem: Any, metric: str, result: Any, answer: str | None, outcome: Any) -> dict[str, Any]:
    data = _ndcg_keys(problem)
    data.update(relevance=list(problem.relevance),
                judged=list(problem.judged) if problem.judged is not None else None, k=problem.k)
    data["metric"] = metric
    entry: dict[str, Any] = {"exact": result.text, "value": result.value, "label": result.label,
                             "working": result.working, "note": result.note}
    if isinstance(result, CascadeResult):
        entry["max_grade"] = result.max_grade
        if result.persistence is not None:
            entry["persistence"] = fraction_text(result.persistence)
            residual = result.residual
            exact = fraction_text(residual) if not result.capped else None  # p^d: d digits
            entry["residual"] = {"exact": exact, "value": float(residual)}
        # a row's fraction past 60 characters is given by its value (the total stays exact)
        entry["rows"] = [{"rank": r.rank, "grade": r.grade, "stop": short_fraction(r.stop, 60),
                          "reach": short_fraction(r.reach, 60),
                          "contribution": short_fraction(r.contribution, 60),
                          "running": short_fraction(r.running, 60)}
                         for r in result.rows[:EXACT_RANKS]]
        entry["rows"] += [{"rank": rank, "grade": grade, **values}  # past it: 6 digits of 60
                          for rank, grade, values in result.source.decimal_rows(EXACT_RANKS)]
    else:
        entry.update(threshold=result.threshold, relevant_total=result.relevant_total)
        if result.convention is not None:
            entry["denominator"] = result.convention
        entry["rows"] = [{"rank": r.rank, "grade": r.grade, "relevant": r.relevant, "hits": r.hits,
                          "precision": fraction_text(r.precision), "counts": r.counts}
                         for r in result.rows]
    data[metric] = entry
    if outcome is not None:
        data["check"] = check_json(outcome, answer or "", metric)
    return data


def _text(problem: Any, metric: str, result: Any, outcome: Any, all_rows: bool) -> None:
    width = wrap_width()
    style = Style(color=use_color(sys.stdout), width=width)
    printed = echo_verdict(outcome, style) if outcome is not None else 0
    limit = 10**6 if all_rows else max(8, screen_rows() - 12)
    shown = result if len(result.rows) <= limit else replace(result, rows=result.rows[: limit - 1])
    text = shown.worked_at(width)
    if shown is not result:
        # the equation is the whole list's, not the shortened table's
        text = text.rsplit("\n", 1)[0] + (
            f"\n  ... {len(result.rows) - len(shown.rows)} more ranks (`drills solve --all` shows "
            f"every row, --json too)\n{result.working}")
    click.echo(style.wrap(text))
    value = decimal_text(result.decimal(), 6)
    printed += style.wrap(text).count("\n") + 1
    if result.shown == result.text and value != result.text:  # (a long fraction: the equation has it)
        click.echo(style.wrap(f"{result.label} = {with_value(result.text, value)}"))
        printed += 1
    if outcome is not None:
        echo_verdict_again(outcome, style, printed)
