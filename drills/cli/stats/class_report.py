"""``drills stats --from EXPORT.json... [--by learner]``: stats over exports, a class report.

The exports are read (a file that is not one: one line, exit 2) and merged in memory by
drills.store.classroom; the local history is never opened. Without ``--by`` the report is
the usual ``drills stats`` over every answer in the files; with ``--by learner`` it is one
row per learner, then each learner's accuracy by topic, most frequent slips and wrong
beliefs, drawn to fit 60 columns.
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from typing import Any

import click

from drills import display
from drills.cli.errors import fail
from drills.cli.stats.report import REPORT_WIDTH, headline, render
from drills.cli.style import (
    Paint,
    accuracy_color,
    echo_paged,
    fill,
    painter,
    pct,
    report_width,
    slip_titles,
    table,
    unicode_ok,
)
from drills.safetext import json_text, plural, shorten, visible
from drills.store.classroom import by_learner, union_stats
from drills.store.connection import parse_utc
from drills.store.history_import import ExportError, read_export

NAME_WIDTH = 20
MIN_WIDTH, MAX_WIDTH = 40, 100


def report_from(sources: list[str], by: str | None, as_json: bool) -> None:
    """Read ``sources`` and print the report (``by`` "learner" or None) as text or JSON."""
    try:
        exports = [read_export(name) for name in sources]
    except ExportError as exc:
        fail(str(exc))
    now = datetime.now(timezone.utc)
    data, damaged = (by_learner if by == "learner" else union_stats)(exports, now)
    for name, n in damaged.items():
        click.echo(f"Left out {plural(n, 'damaged row')} of {visible(name)} (a missing field, "
                   "a wrong type, an unknown verdict).", err=True)
    if as_json:
        click.echo(json_text(data, indent=2, sort_keys=True))
        return
    if not data["attempts"]:
        click.echo(f"No answers in {plural(len(sources), 'export')}.")
        return
    color = display.use_color(sys.stdout)
    paint, unicode = painter(color), unicode_ok()
    if by == "learner":
        text = class_text(data, _width(), unicode, paint)
        last = text.split("\n", 1)[0]  # the class's totals
    else:
        who = ", ".join(visible(name) for name in data["learners"])
        width = report_width(REPORT_WIDTH)
        head = fill([(f"From {plural(len(data['files']), 'export')} ({shorten(who, 60)}):", ())], width)
        text = "\n".join(head) + "\n" + render(data, unicode=unicode, now=now, paint=paint, width=width)
        last = "\n".join(headline(data, width, paint))
    echo_paged(text, color=color, last=last)


def _width() -> int:
    columns = display.terminal_size().columns
    return max(MIN_WIDTH, min(columns, display.CURRENT.width or MAX_WIDTH))


def _top_slip(learner: dict[str, Any]) -> str:
    slips = learner["slips"]
    return f"{slips[0]['count']}x {visible(slips[0]['id'])}" if slips else "-"


def summary_lines(data: dict[str, Any], width: int, paint: Paint) -> list[str]:
    """The class table: one row per learner (answers, accuracy, most frequent slip)."""
    names = [visible(entry["learner"]) for entry in data["learners"]]
    name_w = max(7, min(NAME_WIDTH, max(len(n) for n in names)))
    slip_w = max(8, width - name_w - 2 - 7 - 2 - 7 - 2)
    lines = [paint(f"{'LEARNER':<{name_w}}  {'ANSWERS':>7}  {'CORRECT':>7}  TOP SLIP", "bold")]
    for name, entry in zip(names, data["learners"], strict=True):
        right = (" " * 3 + paint(pct(entry["accuracy"]), accuracy_color(entry["accuracy"]))
                 if entry["attempts"] else f"{'-':>7}")
        lines.append(f"{shorten(name, name_w):<{name_w}}  {entry['attempts']:>7,}  {right}  "
                     f"{shorten(_top_slip(entry), slip_w)}")
    return lines


def learner_lines(entry: dict[str, Any], width: int, unicode: bool, paint: Paint,
                  titles: dict[str, str]) -> list[str]:
    """One learner: a heading, accuracy by topic, the most frequent slips and wrong beliefs."""
    n = entry["attempts"]
    name = shorten(visible(entry["learner"]), max(NAME_WIDTH, width - 32))
    rest = f": {plural(n, 'answer')}"
    if n:
        correct = paint(f"{round(100 * entry['accuracy'])}% correct",
                        accuracy_color(entry["accuracy"]))
        rest = f": {correct} of {plural(n, 'answer')}"
    lines = [paint(name, "bold") + rest]
    when = f", the last on {_day(entry['last_answer'])}" if entry["last_answer"] else ""
    lines.append(f"  {plural(entry['sessions'], 'session')}{when}")
    if entry["by_topic"]:
        lines += table("", entry["by_topic"], unicode, paint)[1:]
    if entry["slips"]:
        lines.append("  Most frequent slips:")
        for slip in entry["slips"][:3]:
            title = titles.get(slip["id"])
            text = f"{slip['count']:>5}x  {visible(slip['id'])}" + (f": {title}" if title else "")
            lines.append(shorten(text, width - 2))
    beliefs = list(entry.get("wrong_beliefs", {}).items())[:3]
    if beliefs:
        lines.append("  Most frequent wrong beliefs:")
        lines += [shorten(f"{n:>5}x  {visible(m)}", width - 2) for m, n in beliefs]
    return lines


def _day(text: str) -> str:
    """A stored UTC time as the local calendar day it fell on."""
    try:
        return parse_utc(text).astimezone().strftime("%Y-%m-%d")
    except (TypeError, ValueError, OverflowError):
        return visible(str(text))


def class_text(data: dict[str, Any], width: int, unicode: bool = True,
               paint: Paint = lambda text, *names: text) -> str:
    """The class report: a line of totals, the table, then each learner in turn."""
    learners = data["learners"]
    lines = [paint(f"Class report: {plural(len(learners), 'learner')}, "
                   f"{plural(data['attempts'], 'answer')} from "
                   f"{plural(len(data['files']), 'export')}", "bold"), ""]
    lines += summary_lines(data, width, paint)
    titles = slip_titles()
    for entry in learners:
        lines.append("")
        lines += learner_lines(entry, width, unicode, paint, titles)
    return "\n".join(lines)
