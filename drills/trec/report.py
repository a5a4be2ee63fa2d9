"""An evaluation of TREC files as text and JSON: trec_eval's lines, the worked solution of one
query with its docnos, and the JSON object of ``drills solve --qrels --run --json``.

Pure: strings and dicts out. Every docno and qid from a file is shown through ``visible``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from drills.engine.exact import decimal_text, fraction_text
from drills.engine.metrics import binary as bm
from drills.engine.metrics import cascade as cm
from drills.engine.metrics import ndcg_text
from drills.engine.metrics.ndcg import ndcg_solution
from drills.engine.problem import Problem, ProblemError
from drills.engine.table import Layout, short_numbers
from drills.safetext import plural, visible
from drills.trec.evaluate import Evaluation, NdcgResult, QueryEvaluation
from drills.trec.names import Measure
from drills.trec.stream import Streamed

DOCNO_WIDTH = 20  # a longer docno is cut in the middle in tables (not with --all)
JSON_EXACT_LIMIT = 2000  # longer exact NDCG forms are cut in the middle in JSON (not with --all)
FRACTION_WIDTH = 14  # longer fractions in a table cell are shown as decimals (not with --all)
UNJUDGED, NEGATIVE = "*", "~"


@dataclass(frozen=True)
class View:
    """How a worked query is shown: rows per table, the width for exact forms (None: whole),
    docnos whole or cut, and the narrow NDCG table (values, not formulas)."""

    max_rows: int = 12
    exact_width: int | None = 60
    whole_docnos: bool = False
    narrow: bool = True
    width: int | None = 80  # prose and equations wrapped to it (None: not wrapped)


def trec_line(name: str, qid: str, value: float) -> str:
    """One line as ``trec_eval -q`` prints it: name padded to 22, tab, qid, tab, %6.4f."""
    return f"{name:<22}\t{visible(qid)}\t{value:6.4f}"


def trec_lines(ev: Evaluation) -> list[str]:
    """Every query's measures, then the means (qid ``all``), in trec_eval -q's layout."""
    lines = [trec_line(m.name, q.qid, q.values[m.name].value) for q in ev.queries for m in ev.measures]
    lines += [trec_line(m.name, "all", ev.mean[m.name]) for m in ev.measures]
    return lines


def stream_lines(ev: Streamed) -> Iterator[str]:
    """``trec_lines`` of a streamed evaluation, one at a time: every query's measures, then
    the means."""
    names = [f"{m.name:<22}\t" for m in ev.measures]
    for qid, values in ev.rows:
        shown = visible(qid)
        for name, value in zip(names, values, strict=True):
            yield f"{name}{shown}\t{value:6.4f}"
    for m in ev.measures:
        yield trec_line(m.name, "all", ev.mean[m.name])


def _json_exact(result: Any, text: str, whole: bool) -> tuple[str | None, bool]:
    if result is None and not text:  # past the engine's limits: the float only
        return None, False
    if whole or len(text) <= JSON_EXACT_LIMIT or not isinstance(result, NdcgResult):
        return text, False
    half = Layout(exact_width=JSON_EXACT_LIMIT // 2 - 8)
    return f"({half.exact(result.dcg.text)}) / ({half.exact(result.idcg.text)})", True


def json_data(ev: Evaluation, whole: bool = False) -> dict[str, Any]:
    """``{"queries": {qid: {name: {"exact", "value"}}}, "mean": {name: {"value"}}, "notes"}``."""
    cut = False
    queries: dict[str, Any] = {}
    for q in ev.queries:
        entry = {}
        for m in ev.measures:
            v = q.values[m.name]
            exact, elided = _json_exact(v.result, v.exact, whole)
            cut |= elided
            entry[m.name] = {"exact": exact, "value": v.value}
        queries[q.qid] = entry
    notes = list(ev.notes)
    if cut:
        notes.append(f"exact NDCG forms longer than {JSON_EXACT_LIMIT:,} characters are cut in the "
                     "middle (' + ... + '); --all keeps them whole")
    return {"queries": queries, "mean": {m.name: {"value": ev.mean[m.name]} for m in ev.measures},
            "threshold": ev.threshold, "notes": notes}


def fit(text: str, view: View) -> str:
    """An exact form or equation as shown: long sums cut between terms, huge numbers as
    ``123456...[215 digits]`` (whole when ``view.exact_width`` is None)."""
    if view.exact_width is None:
        return text
    return short_numbers(Layout(exact_width=view.exact_width).exact(text))


def _docno(q: QueryEvaluation, rank: int, view: View) -> str:
    docno = visible(q.docnos[rank - 1]) if view.whole_docnos else _cut(q.docnos[rank - 1])
    grade = q.judged[rank - 1]
    return docno + (UNJUDGED if grade is None else NEGATIVE if grade < 0 else "")


def _cut(docno: str) -> str:
    shown = visible(docno)
    if len(shown) <= DOCNO_WIDTH:
        return shown
    return shown[:10] + "..." + shown[-(DOCNO_WIDTH - 13):]


def _format(cells: list[list[str]], indent: str = "  ") -> str:
    """A table: numbers right-aligned, text left-aligned, a rule under the header."""
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    numeric = [all(re.fullmatch(r"[-0-9./]*", row[i]) for row in cells[1:]) for i in range(len(widths))]
    out = []
    for n, row in enumerate(cells):
        out.append(indent + "  ".join(c.rjust(w) if numeric[i] else c.ljust(w)
                                      for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip())
        if n == 0:
            out.append(indent + "  ".join("-" * w for w in widths))
    return "\n".join(out)


class Pre(str):
    """Preformatted text (a table): never re-wrapped."""


def _table(cells: list[list[str]], q: QueryEvaluation, view: View, total: int,
           docnos: bool = True) -> list[str]:
    """``cells`` (header first, rank in column 0) with a docno column after the rank, a ``...``
    row where ranks are skipped, and a line saying what was left out."""
    head = [cells[0][0], "docno", *cells[0][1:]] if docnos else list(cells[0])
    out, last, rounded = [head], 0, False
    for row in cells[1:]:
        rank = int(row[0])
        if rank > last + 1:
            out.append(["..."] + [""] * (len(head) - 1))
        if view.exact_width is not None and any(len(c) > FRACTION_WIDTH for c in row):
            row = [_decimal(c) for c in row]
            rounded = True
        out.append([row[0], _docno(q, rank, view), *row[1:]] if docnos else row)
        last = rank
    if last < total:
        out.append(["..."] + [""] * (len(head) - 1))
    text: list[str] = [Pre(_format(out))]
    hidden = total - (len(cells) - 1)
    if hidden:
        shown = {int(row[0]) for row in cells[1:]}
        relevant = sum(1 for r in range(1, total + 1)
                       if r not in shown and docnos and q.grades[r - 1] > 0)
        also = f", {relevant:,} of them with a grade above 0" if relevant else ""
        text.append(f"  ({hidden:,} of {total:,} ranks not shown{also}; --all shows every row)")
    if rounded:
        text.append(f"  (fractions longer than {FRACTION_WIDTH} characters are shown as 6-digit "
                    "decimals; --all shows them whole)")
    return text


def _decimal(cell: str) -> str:
    """A long fraction cell as a 6-significant-digit decimal (other cells unchanged)."""
    import decimal


    m = re.fullmatch(r"(\d+)/(\d+)", cell)
    if len(cell) <= FRACTION_WIDTH or m is None:
        return cell
    ctx = decimal.Context(prec=30)
    return decimal_text(ctx.divide(decimal.Decimal(m.group(1)), decimal.Decimal(m.group(2))), 6)


def _shown(rows: tuple[Any, ...], q: QueryEvaluation | None, view: View,
           threshold: int = 1) -> tuple[Any, ...]:
    """The rows a table shows: all when they fit; else the first few ranks, then the ranks of
    relevant documents (grade >= threshold), then the next ranks, ``view.max_rows`` in all."""
    if len(rows) <= view.max_rows:
        return rows
    room = max(1, view.max_rows - 1)
    chosen = set(range(min(5, room)))
    if q is not None:
        for i, row in enumerate(rows):
            if len(chosen) >= room:
                break
            if q.grades[row.rank - 1] >= threshold:
                chosen.add(i)
    i = 0
    while len(chosen) < room:
        chosen.add(i)
        i += 1
    return tuple(rows[i] for i in sorted(chosen))


def _binary_block(q: QueryEvaluation, m: Measure, result: Any, view: View) -> list[str]:

    rows, total = _shown(result.rows, q, view, result.threshold), len(result.rows)
    first = next((r.rank for r in result.rows if r.relevant), None)
    if result.metric == "rr" and first is not None and first <= view.max_rows:
        rows, total = result.rows[:first], first  # the ranks below the first hit do not count
    lines = [f"  relevant iff grade >= {result.threshold}; R = {result.relevant_total:,} "
             "(judged, retrieved or not)"]
    if rows:
        lines += _table(bm.table(replace(result, rows=rows)), q, view, total)
    lines.append("  " + fit(result.working, view))
    return lines


def _cascade_block(q: QueryEvaluation, m: Measure, result: Any, view: View) -> list[str]:

    rows = _shown(result.rows, q, view)
    what = ("the query's top judged grade" if q.positives else "no judged document is relevant")
    lines = [f"  g_max = {result.max_grade} ({what})"]
    if rows:
        cells = cm.table(replace(result, rows=rows))
        if len(cells[0]) == len(SHORT[result.metric]):  # the formulas are in the title line
            cells[0] = list(SHORT[result.metric])
        lines += _table(cells, q, view, len(result.rows))
    lines.append("  " + fit(result.working, view))
    return lines


def _ndcg_block(q: QueryEvaluation, m: Measure, result: NdcgResult, view: View) -> list[str]:

    zeros = sum(1 for g in q.grades if g == 0)
    pool = q.positives + (0,) * zeros  # ranked non-relevant documents change no IDCG
    cut = f"both cut at rank {m.k}" if m.k is not None else "DCG over the whole ranking, IDCG over every judged document"
    lines = [f"  gain = grade (trec_eval), discount = log2(rank + 1); {cut}"]
    try:
        sol = ndcg_solution(Problem(q.grades, pool, m.k, "linear"))
    except ProblemError as exc:
        lines.append(f"  (no worked table: {exc})")
        sol = None
    layout = Layout(narrow=view.narrow, exact_width=view.exact_width)
    label, dcg, idcg = result.label, result.label[1:], "I" + result.label[1:]
    if sol is not None:
        rows = _shown(sol.rows, q, view)
        lines += [f"  {dcg}: the ranking",
                  *_table(ndcg_text.table(rows, "linear", layout), q, view, len(sol.rows))]
    lines.append(f"  {dcg} = {fit(result.dcg.text, view)} = {result.dcg_value:.6f}")
    counts = ", ".join(f"{g} (x{n:,})" for g, n in sorted(Counter(q.positives).items(), reverse=True))
    ideal = f"the judged grades best first: {counts or 'none above 0'}"
    lines.append(f"  {idcg}: {ideal}" + (f", cut at {m.k}" if m.k is not None else ""))
    if sol is not None and view.max_rows > 12:
        ideal_rows = tuple(r for r in sol.ideal_rows if r.relevance > 0)
        if ideal_rows:
            lines += _table(ndcg_text.table(_shown(ideal_rows, None, view), "linear", layout),
                            q, view, len(ideal_rows), docnos=False)
    lines.append(f"  {idcg} = {fit(result.idcg.text, view)} = {result.idcg_value:.6f}")
    if result.idcg.is_zero:
        lines.append(f"  {label} = 0: {idcg} is 0 (no judged document is relevant), as trec_eval "
                     "scores it")
    else:
        lines.append(f"  {label} = {dcg} / {idcg} = {result.dcg_value:.6f} / {result.idcg_value:.6f}")
    return lines


SHORT = {"err": ("rank", "grade", "R_i", "reach", "R_i*reach/rank", "ERR@rank"),
         "rbp": ("rank", "grade", "r_i", "weight", "r_i*weight", "RBP@rank")}
TITLES = {"map": "AP, over R (trec_eval map)", "map_cut": "AP@{k}, over R (trec_eval map_cut)",
          "P": "precision at {k}", "recall": "recall at {k}", "Rprec": "R-precision",
          "recip_rank": "reciprocal rank of the first relevant document",
          "ndcg": "NDCG, uncut", "ndcg_cut": "NDCG@{k}", "success": "success at {k} (hit)",
          "err": "ERR@{k}: R_i = (2^g - 1) / 2^g_max, reach = prod of (1 - R_j) above",
          "rbp": "RBP, p = {p}: r_i = g / g_max, weight = (1 - p) p^(rank - 1)"}


def worked_query(ev: Evaluation, q: QueryEvaluation, view: View, qrels: str, run: str) -> str:
    """The worked solution of every measure on one query, with docnos in the tables."""
    from decimal import Decimal


    unjudged = sum(1 for g in q.judged if g is None)
    negative = sum(1 for g in q.judged if g is not None and g < 0)
    head = [f"Query {visible(q.qid)}: {plural(len(q.docnos), 'document')} in {visible(run)}, ranked by score "
            "descending, ties by docno descending (the rank column is not read)"
            + (f"; {q.ties:,} share a score" if q.ties else "") + ".",
            f"{visible(qrels)} judges {plural(q.judged_count, 'document')} for it; "
            f"{len(q.positives):,} {'has' if len(q.positives) == 1 else 'have'} a grade above 0."]
    if unjudged or negative:
        marks = []
        if unjudged:
            marks.append(f"{UNJUDGED} not in the qrels ({unjudged:,} ranked): unjudged, grade 0")
        if negative:
            marks.append(f"{NEGATIVE} negative grade ({negative:,} ranked): in the pool, unjudged, grade 0")
        head.append("Docno marks: " + "; ".join(marks) + ".")
    blocks = [_wrap(head, view.width)]
    for m in ev.measures:
        v = q.values[m.name]
        title = TITLES[m.family].format(k=m.k, p=fraction_text(m.persistence))
        if m.family in ("ndcg", "ndcg_cut"):
            body = _ndcg_block(q, m, v.result, view)
        elif m.family in ("err", "rbp"):
            body = _cascade_block(q, m, v.result, view)
        else:
            body = _binary_block(q, m, v.result, view)
        value = decimal_text(Decimal(repr(v.value)), 6)
        blocks.append(_wrap([f"{m.name}: {title}", *body, f"  {m.name} = {value}"], view.width))
    return "\n\n".join(blocks)


def _wrap(lines: list[str], width: int | None) -> str:
    """Prose and equations wrapped to ``width`` with a hanging indent; tables (``Pre``) as
    they are; every line made visible (no control character reaches the terminal)."""
    import textwrap

    out = []
    for line in lines:
        if isinstance(line, Pre) or width is None or len(line) <= width:
            out.append(line)
            continue
        lead = " " * (len(line) - len(line.lstrip()))
        glued = line.strip().replace(" digits]", "\xa0digits]")  # never split "[64 digits]"
        out.extend(w.replace("\xa0", " ") for w in textwrap.wrap(
            glued, width, initial_indent=lead, subsequent_indent=lead + "    ",
            break_on_hyphens=False))
    return visible("\n".join(out))
