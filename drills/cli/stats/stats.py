"""``drills stats``: progress at a glance, or ``--json`` for scripts.

Kept light on imports (no sympy, no prompt_toolkit): it must start and answer in well
under a second on a 100,000-answer history.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import click

from drills.cli.common import echo_paged, fail, history_store
from drills.safetext import json_text, visible

SPARKS = "▁▂▃▄▅▆▇█"
ASCII_SPARKS = "_.-=+*#@"
ACTIVITY_SPARKS = "▁▂▃▄▅▆▇█"
ACTIVITY_ASCII = ":-=+*#%@"
BAR_WIDTH = 20
LABEL_WIDTH = 20
REPORT_WIDTH = 60  # the text report fits this (a topic name over LABEL_WIDTH widens its row)
GOOD, FAIR = 0.8, 0.5  # accuracy shown green from GOOD, yellow from FAIR, red below

Paint = Callable[..., str]


def _plain(text: str, *names: str) -> str:
    return text


def painter(color: bool) -> Paint:
    """``Style.paint`` when colour is on (bold headers, accuracy in green/yellow/red), else
    text as is. The terminal UI's module is imported only then: piped stats stay light."""
    if not color:
        return _plain
    from drills.display import Style

    return Style(color=True).paint


def accuracy_color(accuracy: float) -> str:
    return "green" if accuracy >= GOOD else "yellow" if accuracy >= FAIR else "red"


def _unicode_ok() -> bool:
    """Block characters only when the terminal's encoding can show them."""
    encoding = getattr(sys.stdout, "encoding", None) or "ascii"
    try:
        "█░▁".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def bar(fraction: float, width: int = BAR_WIDTH, unicode: bool = True) -> str:
    full = max(0, min(width, round(fraction * width)))
    on, off = ("█", "░") if unicode else ("#", ".")
    return on * full + off * (width - full)


def sparkline(values: list[float], unicode: bool = True) -> str:
    chars = SPARKS if unicode else ASCII_SPARKS
    top = len(chars) - 1
    return "".join(chars[max(0, min(top, round(v * top)))] for v in values)


def _pct(x: float) -> str:
    return f"{round(100 * x):3d}%"


def _titles() -> dict[str, str]:
    """Misconception titles from the diagnosis catalog; ids alone if it is unavailable."""
    try:
        from drills.grading.diagnose import CATALOG
    except Exception:  # noqa: BLE001 - titles are a nicety; stats must still print
        return {}
    return {key: getattr(m, "title", key) for key, m in CATALOG.items()}


def _table(title: str, groups: dict[str, dict[str, Any]], unicode: bool,
           paint: Paint = _plain, ordered: bool = False) -> list[str]:
    """A bold title, then one row per group (most answers first unless ``ordered``)."""
    lines = [paint(title, "bold")]
    items = list(groups.items()) if ordered else sorted(
        groups.items(), key=lambda kv: (-kv[1]["attempts"], kv[0]))
    for key, g in items:
        shade = accuracy_color(g["accuracy"])
        lines.append(f"  {visible(key):<{LABEL_WIDTH}} "
                     f"{paint(bar(g['accuracy'], unicode=unicode), shade)} "
                     f"{paint(_pct(g['accuracy']), shade)}  {g['correct']}/{g['attempts']}")
    return lines


def activity_line(days: list[dict[str, Any]], unicode: bool = True) -> str:
    """One mark a day, oldest first: ``·`` (``.``) for none, else a block scaled to the
    busiest day; then the days practised and the answers."""
    top = max((d["attempts"] for d in days), default=0)
    marks, none = (ACTIVITY_SPARKS, "·") if unicode else (ACTIVITY_ASCII, ".")
    line = "".join(none if not d["attempts"] else
                   marks[max(0, min(len(marks) - 1, round(d["attempts"] / top * (len(marks) - 1))))]
                   for d in days)
    active = sum(1 for d in days if d["attempts"])
    total = sum(d["attempts"] for d in days)
    return (f"{line}  {active} day{'' if active == 1 else 's'}, "
            f"{total:,} answer{'' if total == 1 else 's'}")


def _consistent(data: dict[str, Any]) -> str:
    """``, 3 of them consistent``: scenario steps right from the learner's own earlier
    (wrong) numbers, counted as correct."""
    n = data.get("verdicts", {}).get("consistent", 0)
    return f", {n:,} of them consistent" if n else ""


def render(data: dict[str, Any], unicode: bool = True, now: datetime | None = None,
           paint: Paint = _plain) -> str:
    """The text report for a non-empty history; ``paint`` colours it (see ``painter``)."""
    from drills.cli.review.review import human_when

    s = "" if data["sessions"] == 1 else "s"
    a = "" if data["attempts"] == 1 else "s"
    lines = [paint(f"{data['attempts']:,} answer{a} in {data['sessions']:,} session{s}: ", "bold")
             + f"{data['correct']:,} correct "
             + paint(f"({round(100 * data['accuracy'])}%)", accuracy_color(data["accuracy"]))
             + _consistent(data)]
    if data["mean_seconds"] is not None:
        lines.append(f"Average time per answer: {data['mean_seconds']:.1f} s")
    streak = data["streak"]
    d = "" if streak["days"] == 1 else "s"
    lines.append(f"Streak: {streak['days']} day{d} of practice in a row; "
                 f"{streak['correct']} correct answer{'' if streak['correct'] == 1 else 's'} "
                 "in a row")
    lines.append("")
    lines += _table("Accuracy by topic", data["by_topic"], unicode, paint)
    lines.append("")
    lines += _table("Accuracy by kind", data["by_kind"], unicode, paint)
    if data.get("by_difficulty"):
        lines.append("")
        lines += _table("Accuracy by difficulty", data["by_difficulty"], unicode, paint, ordered=True)
        if data.get("no_difficulty"):
            n = data["no_difficulty"]
            lines.append(f"  ({n:,} earlier answer{' has' if n == 1 else 's have'} "
                         "no difficulty recorded)")
    trend = data["trend"]
    if trend:
        values = [t["accuracy"] for t in trend]
        lines += ["", paint(f"Accuracy per session, last {len(trend)} "
                            f"session{'' if len(trend) == 1 else 's'} (oldest first):", "bold"),
                  f"  {sparkline(values, unicode)}  {round(100 * values[0])}% -> "
                  + paint(f"{round(100 * values[-1])}%", accuracy_color(values[-1]))]
    if data.get("activity"):
        lines += ["", paint(f"Activity, last {len(data['activity'])} days "
                            "(one mark a day, today last):", "bold"),
                  f"  {activity_line(data['activity'], unicode)}"]
    titles = _titles()
    if data["misconceptions"]:
        lines += ["", paint("Top wrong formulas", "bold")]
        for m, n in list(data["misconceptions"].items())[:5]:
            title = titles.get(m)
            lines.append(f"  {n:>5}x  {visible(m)}" + (f": {title}" if title else ""))
    nxt = data["practise_next"]
    if nxt["topics"] or nxt["misconceptions"]:
        lines += ["", paint("Practise next", "bold")]
        for t in nxt["topics"][:3]:
            lines.append(f"  - {visible(t['topic'])}: {round(100 * t['accuracy'])}% correct in "
                         f"{t['attempts']} recent answer{'' if t['attempts'] == 1 else 's'}")
        for m in nxt["misconceptions"][:3]:
            where = visible(", ".join(m["topics"][:3]))
            fix = titles.get(m["id"], visible(m["id"]))
            line = f"  - avoid {fix} ({m['count']}x" + (f", in {where})" if where else ")")
            lines += textwrap.wrap(line, REPORT_WIDTH, subsequent_indent="    ",
                                   break_on_hyphens=False) or [line]
    rv = data.get("review") or {"cards": 0}  # stats --from has none: schedules are per machine
    if rv["cards"]:
        lines.append("")
        if rv["due"]:
            lines.append(f"Review: {rv['due']} item{'' if rv['due'] == 1 else 's'} due now: "
                         "run `drills review`")
        elif rv["next_due"]:
            when = datetime.fromisoformat(rv["next_due"])
            lines.append(f"Review: nothing due; next {human_when(when, now)}")
    return "\n".join(lines)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--from", "sources", metavar="EXPORT.json", multiple=True,
              type=click.Path(dir_okay=True, path_type=str),
              help="Read these history exports (drills history export --format json) "
                   "instead of your history; repeat for several.")
@click.option("--by", "by", type=click.Choice(["learner"]), default=None,
              help="With --from: one row per learner (the name each export carries).")
def stats(as_json: bool, sources: tuple[str, ...], by: str | None) -> None:
    """Show your progress: accuracy by topic and kind, trend, streaks, slips to practise.

    \b
    With --from, the report is over the exports given (an instructor's class report:
    add --by learner for one row per learner, with accuracy by topic and the most
    frequent slips); your own history is not opened.
    """
    if by is not None and not sources:
        fail("--by learner reads exports: give them with --from EXPORT.json")
    if sources:
        from drills.cli.stats.class_report import report_from

        report_from(list(sources), by, as_json)
        return
    from drills.store.progress import stats as compute

    now = datetime.now(timezone.utc)
    with history_store(readonly=True) as store:
        data = compute(store, now)
    if as_json:
        click.echo(json_text(data, indent=2, sort_keys=True))
        return
    if not data["attempts"]:
        click.echo("No answers recorded yet. Run `drills` to start a practice session; "
                   "your progress will show up here.")
        return
    from drills.display import use_color

    color = use_color(sys.stdout)  # click.echo would strip the codes off a pipe unless told
    echo_paged(render(data, unicode=_unicode_ok(), now=now, paint=painter(color)), color=color)
