"""Worked solutions rendered as plain text, straight from the engine's own rows.

No terminal library here: the CLI and the quiz front ends print these strings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from drills.engine.exact import Exact, LogSum, decimal_text, with_value
from drills.engine.metrics.ndcg import (
    QUANTITIES,
    Row,
    Solution,
    discount,
    metric_value,
    solve,
    swapped,
)
from drills.engine.problem import Problem
from drills.model import Question


def num(x: Exact, digits: int = 6) -> str:
    """A short decimal for display (``digits`` significant digits)."""
    return decimal_text(x.decimal(), digits)


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


@dataclass(frozen=True)
class Layout:
    """How worked tables are laid out for the screen they go to.

    ``narrow`` (under 72 columns): the gain and discount columns show values only
    (``3``, ``1.585``), not their formulas, so a row never wraps. ``max_rows``: ranks
    shown per table before "... N more ranks".
    """

    narrow: bool = False
    max_rows: int = 50
    exact_width: int | None = None  # elide exact forms longer than this (the full one: --json)

    def exact(self, text: str) -> str:
        """An exact form as shown: whole, or cut in the middle between terms."""
        terms = text.split(" + ")
        if self.exact_width is None or len(text) <= self.exact_width or len(terms) < 3:
            return text
        half = (self.exact_width - 7) // 2
        head, tail = [terms[0]], [terms[-1]]
        for term in terms[1:-1]:  # whole terms from the front while they fit half the room
            if len(" + ".join(head + [term])) > half:
                break
            head.append(term)
        for term in reversed(terms[len(head):-1]):
            if len(" + ".join([term] + tail)) > half:
                break
            tail.insert(0, term)
        if len(head) + len(tail) >= len(terms):
            return text
        return f"{' + '.join(head)} + ... + {' + '.join(tail)}"


WIDE = Layout()
NARROW_BELOW = 72  # columns


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


def format_table(cells: list[list[str]], indent: str = "  ") -> str:
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    lines = []
    for n, row in enumerate(cells):
        lines.append(indent + "  ".join(c.rjust(w) if i in (0, 1) else c.ljust(w)
                                        for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip())
        if n == 0:
            lines.append(indent + "  ".join("-" * w for w in widths))
    return "\n".join(lines)


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
    tables = {
        "dcg": [f"{dcg}: the ranking as given{cut}", _rows_block(sol.rows, sol.gain, layout),
                f"  {dcg} = {with_value(layout.exact(sol.dcg.text), num(sol.dcg, 15))}"],
        "idcg": [f"{idcg}: {pool}: {_grades(sol.ideal_order)}", _rows_block(sol.ideal_rows, sol.gain, layout),
                 f"  {idcg} = {with_value(layout.exact(sol.idcg.text), num(sol.idcg, 15))}"],
    }
    if only in tables:
        return "\n".join(head + tables[only])
    lines = [*head, *tables["dcg"], "", *tables["idcg"], ""]
    if sol.ndcg_note:
        lines.append(f"{ndcg} = 0. {sol.ndcg_note}")
    else:
        lines.append(f"{ndcg} = {dcg} / {idcg} = {num(sol.dcg, 10)} / {num(sol.idcg, 10)}")
        pad = " " * len(ndcg)
        shown = sol.ndcg.text
        if layout.exact_width is not None and len(shown) > layout.exact_width:  # elide each side
            half = replace(layout, exact_width=max(24, layout.exact_width // 2 - 4))
            shown = f"({half.exact(sol.dcg.text)}) / ({half.exact(sol.idcg.text)})"
        lines.append(f"{pad} = {shown}")
        lines.append(f"{pad} = {num(sol.ndcg, 15)}")
    return "\n".join(lines)


def quantity_steps(problem: Problem, metric: str) -> str:
    """One line for a gain ratio, a discount, a contribution or a discount ratio."""
    value = metric_value(problem, metric)
    shown = with_value(value.text, num(value, 6))
    if metric == "gain_ratio":
        a, b = problem.relevance
        return (f"gain({a}) / gain({b}) = ({gain_text(a, problem.gain)}) / ({gain_text(b, problem.gain)})"
                f" = {shown}")
    if metric == "discount":
        i = problem.k or 1
        return f"The discount at rank {i} is log2({i} + 1) = {shown}."
    if metric == "contribution":
        i = problem.k or 1
        rel = problem.relevance[i - 1]
        d = discount(i)
        return (f"Rank {i}: rel {rel}, gain {gain_text(rel, problem.gain)}, discount "
                f"{d.symbol}{'' if d.symbol == d.text else ' = ' + d.text}, contribution "
                f"gain / discount = {shown}.")
    i, j = problem.swap or (1, 1)
    return (f"Contribution = gain / log2(rank + 1), and the gain stays the same, so it shrinks by "
            f"log2({j} + 1) / log2({i} + 1) = {shown}.")


def worked_steps(problem: Problem, metric: str, layout: Layout = WIDE, scoped: bool = False) -> str:
    """The engine's worked steps for any metric it computes (``scoped``: DCG's or IDCG's table
    alone, not the whole NDCG solution)."""
    if metric in ("dcg", "idcg", "ndcg"):
        return worked_solution(solve(problem), layout, metric if scoped and metric != "ndcg" else None)
    if metric in QUANTITIES:
        return quantity_steps(problem, metric)
    if metric == "ndcg_difference":
        a = solve(problem)
        b = solve(replace(problem, relevance=problem.versus or (), versus=None))
        diff = metric_value(problem, metric)
        return (f"Ranking A: {worked_solution(a, layout)}\n\n"
                f"Ranking B [{', '.join(map(str, b.problem.relevance))}]: same documents, same "
                f"{a.label('IDCG')}; {b.label('DCG')} = {with_value(b.dcg.text, num(b.dcg, 10))}\n"
                f"{a.label('NDCG')}(A) - {a.label('NDCG')}(B) = (DCG(A) - DCG(B)) / IDCG"
                f" = ({num(a.dcg, 10)} - {num(b.dcg, 10)}) / {num(a.idcg, 10)}\n"
                f"        = {diff.text}\n        = {num(diff, 12)}")
    if metric == "delta_ndcg":
        before, after = solve(problem), solve(swapped(problem))
        i, j = problem.swap or (0, 0)
        delta = metric_value(problem, "delta_ndcg")
        return (f"{worked_solution(before, layout)}\n\n"
                f"After swapping ranks {i} and {j}: [{', '.join(map(str, after.problem.relevance))}]\n"
                f"  {after.label('DCG')} = {with_value(after.dcg.text, num(after.dcg, 10))}\n"
                f"|delta {before.label('NDCG')}| = |DCG after - DCG before| / {before.label('IDCG')}"
                f" = |{num(after.dcg, 10)} - {num(before.dcg, 10)}| / {num(before.idcg, 10)}\n"
                f"        = {delta.text}\n        = {num(delta, 12)}")
    from drills.engine.measures import measure, worked

    return worked(measure(problem, metric))


def value_line(problem: Problem, metric: str) -> str:
    """The right value of ``metric`` in one line, for a diagnosis's "right step"."""
    if metric in QUANTITIES:
        return quantity_steps(problem, metric)
    value = metric_value(problem, metric)
    shown = with_value(value.text, num(value, 6))
    if metric in ("dcg", "idcg", "ndcg"):
        sol = solve(problem)
        if metric == "ndcg":
            return f"{sol.label('NDCG')} = {sol.label('DCG')} / {sol.label('IDCG')} = {shown}"
        return f"{sol.label(metric.upper())} = {shown}"
    if metric == "delta_ndcg":
        return f"|delta NDCG| = |DCG after - DCG before| / IDCG = {shown}"
    if metric == "ndcg_difference":
        return f"NDCG(A) - NDCG(B) = (DCG(A) - DCG(B)) / IDCG = {shown}"
    from drills.engine.measures import MEASURED, measure

    if metric in MEASURED:
        return measure(problem, metric).working
    return worked_steps(problem, metric).rstrip(".")


def worked_for(question: Question, layout: Layout = WIDE) -> str | None:
    """Worked steps for a numeric question the engine computes; None for answer-text ones."""
    if question.problem is None or not question.metric:
        return None
    # A scenario's DCG or IDCG step shows its own table, not the NDCG a later step asks for.
    return worked_steps(question.problem, question.metric, layout, scoped=question.part is not None)


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


def rows_json(rows: tuple[Row, ...]) -> list[dict[str, Any]]:
    return [
        {
            "rank": r.rank,
            "relevance": r.relevance,
            "gain": str(r.gain),
            "discount": {"exact": r.discount.text, "value": r.discount.value},
            "contribution": exact_json(r.contribution),
            "running": float(r.running),
        }
        for r in rows
    ]


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
