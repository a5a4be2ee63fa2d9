"""NDCG's worked solution as plain text and JSON (the DCG and IDCG tables, the division, a
swap's |delta NDCG|, the difference of two rankings) and the declarations of the NDCG
metrics: dcg, idcg, ndcg, delta_ndcg, ndcg_difference, computed by ``ndcg``.

No terminal library here: the CLI and the quiz front ends print these strings. Imports only
the engine's low modules (exact, problem, table, metrics.spec, metrics.ndcg).
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from drills.engine.exact import DECIMALS, Exact, LogSum, Ratio, decimal_text, with_value
from drills.engine.lazy import exact_of, shown_decimal
from drills.engine.metrics.ndcg import (
    STANDARD,
    Formula,
    Row,
    Rows,
    Solution,
    delta_ndcg,
    gain,
    ndcg_difference,
    ndcg_solution,
    swapped,
)
from drills.engine.metrics.ndcg_sums import discount_float
from drills.engine.metrics.spec import Metric
from drills.engine.problem import MAX_LIST, Problem
from drills.engine.table import WIDE, Layout, format_table, quotient


def num(x: Exact, digits: int = 6) -> str:
    """A short decimal for display (``digits`` significant digits; from a Lazy value's float
    when that gives the same digits)."""
    return shown_decimal(x, digits)


def gain_text(rel: int, convention: str) -> str:
    if convention == "exponential":
        return f"2^{rel} - 1 = {2**rel - 1}"
    if convention == "pow2":
        return f"2^{rel} = {2**rel}"
    return str(rel)


def discount_text(row: Row) -> str:
    d = row.discount
    if d.symbol == d.text:
        return f"{d.symbol} = {d.value:.4f}" if not d.inverse.is_rational else d.symbol
    return f"{d.symbol} = {d.text}"


def contribution_text(c: LogSum) -> str:
    return c.text if c.is_rational else f"{c.text} = {num(c)}"


def row_text(row: Row, convention: str) -> str:
    """One rank as a sentence, for diagnoses."""
    return (f"rank {row.rank}: rel {row.relevance}, gain {gain_text(row.relevance, convention)}, "
            f"discount {discount_text(row)}, contribution {contribution_text(row.contribution)}")


def table(rows: tuple[Row, ...], convention: str, layout: Layout = WIDE) -> list[list[str]]:
    """Header plus one line per rank: rank, rel, gain, discount, contribution, running."""
    if layout.narrow:
        out = [["rank", "rel", "gain", "disc", "gain/disc", "running"]]
        for r in rows:
            gain = gain_text(r.relevance, convention).rsplit("= ", 1)[-1]
            d = r.discount
            disc = d.text if d.symbol != d.text else f"{d.value:.4f}"  # log2(4) = 2 stays exact
            out.append([str(r.rank), str(r.relevance), gain, disc, num(r.contribution),
                        decimal_text(r.running, 6)])
        return out
    out = [["rank", "rel", "gain", "discount", "gain/discount", "running"]]
    for r in rows:
        out.append([
            str(r.rank),
            str(r.relevance),
            gain_text(r.relevance, convention),
            discount_text(r),
            num(r.contribution),
            decimal_text(r.running, 6),
        ])
    return out


def cutoff_sentence(sol: Solution) -> str:
    """Which NDCG was computed: cut at k on both sides, or uncut (whole ranking, whole pool)."""
    n = len(sol.problem.relevance)
    pool = len(sol.problem.judged) if sol.problem.judged is not None else n
    if sol.cut:
        beyond = f"; the ranking has only {n} documents" if sol.k > n else ""
        return f"k = {sol.k}: DCG and IDCG are both cut at rank {sol.k}{beyond}"
    return (f"no cut-off: DCG over the whole ranking ({n} documents), IDCG over the whole judged "
            f"pool ({pool} documents), as trec_eval's and ranx's ndcg")


def worked_solution(sol: Solution, layout: Layout = WIDE, only: str | None = None) -> str:
    """DCG@k table, ideal table, the division: the steps a candidate writes on a whiteboard.

    ``only="dcg"`` or ``"idcg"``: that table alone (a scenario's step, whose later steps ask
    for the rest)."""
    k = sol.k
    dcg, idcg, ndcg = sol.label("DCG"), sol.label("IDCG"), sol.label("NDCG")
    cut = "" if k >= len(sol.problem.relevance) else f" (cut at k = {k} of {len(sol.problem.relevance)})"
    size = len(sol.problem.judged if sol.problem.judged is not None else sol.problem.relevance)
    pool = "judged grades sorted best first" + (f", cut at {k}" if sol.cut and k < size else "")
    head = [f"gain = {sol.gain_form}, discount = {sol.discount_form}, {cutoff_sentence(sol)}", ""]
    # up to MAX_LIST documents the totals show 15 digits of their exact values; past it 12,
    # read from floats (good to about 1e-15), so that no 50-digit logarithm is computed
    most = 15 if max(len(sol.rows), len(sol.ideal_rows)) <= MAX_LIST else 12
    tables = {
        "dcg": [f"{dcg}: the ranking as given{cut}", _rows_block(sol.rows, sol.gain, layout),
                f"  {dcg} = {with_value(shown_exact(sol.dcg, layout), num(sol.dcg_lazy, most))}"],
        "idcg": [f"{idcg}: {pool}: {_grades(sol.ideal_order)}", _rows_block(sol.ideal_rows, sol.gain, layout),
                 f"  {idcg} = {with_value(shown_exact(sol.idcg, layout), num(sol.idcg_lazy, most))}"],
    }
    if only in tables:
        return "\n".join(head + tables[only])
    lines = [*head, *tables["dcg"], "", *tables["idcg"], ""]
    if sol.ndcg_note:
        lines.append(f"{ndcg} = 0. {sol.ndcg_note}")
    else:
        lines.append(f"{ndcg} = {dcg} / {idcg} = {num(sol.dcg_lazy, 10)} / {num(sol.idcg_lazy, 10)}")
        pad = " " * len(ndcg)
        shown = shown_exact(sol.ndcg, layout)  # a long quotient: each side elided
        sides = quotient(shown) if layout.exact_width and len(shown) > layout.exact_width else None
        if sides is None:
            lines.append(f"{pad} = {shown}")
        else:  # still too wide for one line: the division on a line of its own
            top, bottom = (s if s.isdigit() else f"({s})" for s in sides)
            lines += [f"{pad} = {top}", f"{pad}   / {bottom}"]
        lines.append(f"{pad} = {num(sol.ndcg, most)}")
    return "\n".join(lines)


def shown_exact(x: Exact, layout: Layout) -> str:
    """``layout.exact(x.text)``, cut from a sum's terms when it is long: the text of a
    100,000-term DCG (megabytes) is never joined only to be cut to one line."""
    x = exact_of(x)
    if layout.exact_width is None:
        return layout.exact(x.text)
    if isinstance(x, LogSum) and (terms := x.positive_terms) is not None:
        return layout.exact_sum(terms)
    if isinstance(x, Ratio) and x.simplified is None:
        sides = [s.positive_terms for s in (x.num, x.den)]
        if sides[0] is not None and sides[1] is not None:
            grouped = [len(t) == 1 and t[0].isdigit() for t in sides]
            size = sum(sum(map(len, t)) + 3 * (len(t) - 1) + (0 if g else 2)
                       for t, g in zip(sides, grouped, strict=True)) + 3
            if size <= layout.exact_width:
                return x.text
            side = replace(layout, exact_width=max(12, (layout.exact_width - 7) // 2))
            top, bottom = (t[0] if g else f"({side.exact_sum(t)})"
                           for t, g in zip(sides, grouped, strict=True))
            return f"{top} / {bottom}"
    return layout.exact(x.text)


def _grades(order: tuple[int, ...], limit: int = 30) -> str:
    text = ", ".join(map(str, order[:limit]))
    return text + (f", ... ({len(order)} in all)" if len(order) > limit else "")


def _rows_block(rows: tuple[Row, ...], convention: str, layout: Layout) -> str:
    shown = rows if len(rows) <= layout.max_rows else rows[: max(1, layout.max_rows - 1)]
    text = format_table(table(shown, convention, layout))
    if len(shown) < len(rows):
        text += (f"\n  ... {len(rows) - len(shown)} more ranks (`drills solve --all` shows every "
                 "row, --json too)")
    return text


def exact_json(x: Exact) -> dict[str, Any]:
    return {"exact": x.text, "value": x.value}


def rows_json(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Every row; past MAX_LIST ranks from floats, their "exact" null (the totals stay exact)."""
    if isinstance(rows, Rows) and len(rows) > MAX_LIST:
        return [*rows_json(rows[:MAX_LIST]), *_float_rows(rows, float(rows[MAX_LIST - 1].running))]
    out = []
    running = decimal.Decimal(0)  # the exact terms' 60-digit decimals added up: the running
    for r in rows:  # LogSum's own decimal would sum every term again at every row (quadratic)
        running = DECIMALS.add(running, r.contribution.decimal())
        out.append({
            "rank": r.rank,
            "relevance": r.relevance,
            "gain": str(r.gain),
            "discount": {"exact": r.discount.text, "value": r.discount.value},
            "contribution": exact_json(r.contribution),
            "running": float(running),
        })
    return out


def _float_rows(rows: Rows, running: float) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for rank in range(MAX_LIST + 1, len(rows) + 1):
        rel = rows.grades[rank - 1]
        g = float(gain(rel, rows.convention))
        d = discount_float(rank, rows.form)
        running += g / d
        out.append({"rank": rank, "relevance": rel, "gain": str(int(g)),
                    "discount": {"exact": None, "value": d},
                    "contribution": {"exact": None, "value": g / d}, "running": running})
    return out


def solution_json(sol: Solution) -> dict[str, Any]:
    return {
        "relevance": list(sol.problem.relevance),
        "judged": list(sol.problem.judged) if sol.problem.judged is not None else None,
        "k": sol.problem.k,
        "cutoff": cutoff_sentence(sol),
        "gain": sol.gain,
        "dcg": exact_json(sol.dcg),
        "idcg": exact_json(sol.idcg),
        "ndcg": exact_json(sol.ndcg),
        "note": sol.ndcg_note,
        "rows": rows_json(sol.rows),
        "ideal_order": list(sol.ideal_order),
        "ideal_rows": rows_json(sol.ideal_rows),
    }


def _difference_steps(problem: Problem, layout: Layout) -> str:
    a = ndcg_solution(problem)
    b = ndcg_solution(replace(problem, relevance=problem.versus or (), versus=None))
    diff = ndcg_difference(problem)
    return (f"Ranking A: {worked_solution(a, layout)}\n\n"
            f"Ranking B [{', '.join(map(str, b.problem.relevance))}]: same documents, same "
            f"{a.label('IDCG')}; {b.label('DCG')} = {with_value(b.dcg.text, num(b.dcg, 10))}\n"
            f"{a.label('NDCG')}(A) - {a.label('NDCG')}(B) = (DCG(A) - DCG(B)) / IDCG"
            f" = ({num(a.dcg, 10)} - {num(b.dcg, 10)}) / {num(a.idcg, 10)}\n"
            f"        = {diff.text}\n        = {num(diff, 12)}")


def _delta_steps(problem: Problem, layout: Layout) -> str:
    before, after = ndcg_solution(problem), ndcg_solution(swapped(problem))
    i, j = problem.swap or (0, 0)
    delta = delta_ndcg(problem)
    return (f"{worked_solution(before, layout)}\n\n"
            f"After swapping ranks {i} and {j}: [{', '.join(map(str, after.problem.relevance))}]\n"
            f"  {after.label('DCG')} = {with_value(after.dcg.text, num(after.dcg, 10))}\n"
            f"|delta {before.label('NDCG')}| = |DCG after - DCG before| / {before.label('IDCG')}"
            f" = |{num(after.dcg, 10)} - {num(before.dcg, 10)}| / {num(before.idcg, 10)}\n"
            f"        = {delta.text}\n        = {num(delta, 12)}")


def _shown(value: Exact) -> str:
    return with_value(value.text, num(value, 6))


def _solution_part(name: str) -> Metric:
    """dcg, idcg or ndcg: one of the three numbers of the NDCG solution."""

    def value(problem: Problem, formula: Formula) -> Exact:
        sol = ndcg_solution(problem, formula)  # floats now, the exact forms when asked for
        return sol.ndcg if name == "ndcg" else sol.dcg_lazy if name == "dcg" else sol.idcg_lazy

    def steps(problem: Problem, layout: Layout, scoped: bool) -> str:
        only = name if scoped and name != "ndcg" else None
        return worked_solution(ndcg_solution(problem), layout, only)

    def line(problem: Problem) -> str:
        sol = ndcg_solution(problem)
        shown = _shown(value(problem, STANDARD))
        if name == "ndcg":
            return f"{sol.label('NDCG')} = {sol.label('DCG')} / {sol.label('IDCG')} = {shown}"
        return f"{sol.label(name.upper())} = {shown}"

    return Metric(name, "ndcg", frozenset({"k", "judged", "gain"}), value, steps, line,
                  trec=("ndcg", "ndcg_cut") if name == "ndcg" else ())


# The family's metrics (drills.engine.metrics.registry lists them).
DCG = _solution_part("dcg")
IDCG = _solution_part("idcg")
NDCG = _solution_part("ndcg")
DELTA_NDCG = Metric(
    "delta_ndcg", "ndcg", frozenset({"k", "judged", "gain", "swap"}), delta_ndcg,
    lambda problem, layout, _scoped: _delta_steps(problem, layout),
    lambda problem: f"|delta NDCG| = |DCG after - DCG before| / IDCG = {_shown(delta_ndcg(problem))}")
NDCG_DIFFERENCE = Metric(
    "ndcg_difference", "ndcg", frozenset({"k", "judged", "gain", "versus"}), ndcg_difference,
    lambda problem, layout, _scoped: _difference_steps(problem, layout),
    lambda problem: f"NDCG(A) - NDCG(B) = (DCG(A) - DCG(B)) / IDCG = {_shown(ndcg_difference(problem))}")
METRICS: tuple[Metric, ...] = (DCG, IDCG, NDCG, DELTA_NDCG, NDCG_DIFFERENCE)
