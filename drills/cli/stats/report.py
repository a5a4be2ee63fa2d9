"""The text of ``drills stats``: the progress report over a stats dict (one history, or the
exports of ``--from`` merged), with sparklines for the trend and the days practised.

May import cli.style and safetext; the commands import it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from drills.cli.style import (
    Paint,
    accuracy_color,
    fill,
    human_when,
    plain,
    slip_titles,
    table,
)
from drills.safetext import visible

SPARKS = "▁▂▃▄▅▆▇█"
ASCII_SPARKS = "_.-=+*#@"
ACTIVITY_SPARKS = "▁▂▃▄▅▆▇█"
ACTIVITY_ASCII = ":-=+*#%@"
TOP = 5  # the most frequent wrong formulas, and wrong beliefs, listed
REPORT_WIDTH = 60  # the text report fits this (a topic name over LABEL_WIDTH widens its row)
# and a narrower terminal: its prose is wrapped to the width, never a word broken


def sparkline(values: list[float], unicode: bool = True) -> str:
    chars = SPARKS if unicode else ASCII_SPARKS
    top = len(chars) - 1
    return "".join(chars[max(0, min(top, round(v * top)))] for v in values)


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


def _to_practise(what: str, item: dict[str, Any], width: int) -> list[str]:
    """``  - avoid <slip> (3x, in ndcg, err)``, wrapped to the report's width."""
    where = visible(", ".join(item["topics"][:3]))
    line = f"  - {what} ({item['count']}x" + (f", in {where})" if where else ")")
    return fill([(line, ())], width)


def headline(data: dict[str, Any], width: int = REPORT_WIDTH, paint: Paint = plain) -> list[str]:
    """``11 answers in 3 sessions: 7 correct (64%)``: the report's first line, the one said
    again last when the report scrolled it away."""
    s = "" if data["sessions"] == 1 else "s"
    a = "" if data["attempts"] == 1 else "s"
    return fill([(f"{data['attempts']:,} answer{a} in {data['sessions']:,} session{s}: ", ("bold",)),
                 (f"{data['correct']:,} correct ", ()),
                 (f"({round(100 * data['accuracy'])}%)", (accuracy_color(data["accuracy"]),)),
                 (_consistent(data), ())], width, paint, hang=2)


def render(data: dict[str, Any], unicode: bool = True, now: datetime | None = None,
           paint: Paint = plain, width: int = REPORT_WIDTH) -> str:
    """The text report for a non-empty history, its prose wrapped to ``width``; ``paint``
    colours it (see ``painter``)."""
    def say(text: str, *names: str, hang: int = 2) -> list[str]:
        return fill([(text, names)], width, paint, hang)

    lines = headline(data, width, paint)
    if data["mean_seconds"] is not None:
        lines.append(f"Average time per answer: {data['mean_seconds']:.1f} s")
    streak = data["streak"]
    d = "" if streak["days"] == 1 else "s"
    lines += say(f"Streak: {streak['days']} day{d} of practice in a row; "
                 f"{streak['correct']} correct answer{'' if streak['correct'] == 1 else 's'} "
                 "in a row")
    lines.append("")
    lines += table("Accuracy by topic", data["by_topic"], unicode, paint)
    lines.append("")
    lines += table("Accuracy by kind", data["by_kind"], unicode, paint)
    if data.get("by_difficulty"):
        lines.append("")
        lines += table("Accuracy by difficulty", data["by_difficulty"], unicode, paint, ordered=True)
        if data.get("no_difficulty"):
            n = data["no_difficulty"]
            lines += say(f"  ({n:,} earlier answer{' has' if n == 1 else 's have'} "
                         "no difficulty recorded)", hang=3)
    trend = data["trend"]
    if trend:
        values = [t["accuracy"] for t in trend]
        lines += ["", *say(f"Accuracy per session, last {len(trend)} "
                           f"session{'' if len(trend) == 1 else 's'} (oldest first):", "bold"),
                  f"  {sparkline(values, unicode)}  {round(100 * values[0])}% -> "
                  + paint(f"{round(100 * values[-1])}%", accuracy_color(values[-1]))]
    if data.get("activity"):
        lines += ["", *say(f"Activity, last {len(data['activity'])} days "
                           "(one mark a day, today last):", "bold"),
                  *say(f"  {activity_line(data['activity'], unicode)}", hang=4)]
    titles = slip_titles()
    if data["misconceptions"]:
        lines += ["", paint("Top wrong formulas", "bold")]
        for m, n in list(data["misconceptions"].items())[:TOP]:
            title = titles.get(m)
            lines += say(f"  {n:>5}x  {visible(m)}" + (f": {title}" if title else ""), hang=10)
    if data.get("wrong_beliefs"):
        lines += ["", paint("Top wrong beliefs", "bold")]
        for m, n in list(data["wrong_beliefs"].items())[:TOP]:
            lines += say(f"  {n:>5}x  {visible(m)}", hang=10)
    nxt = data["practise_next"]
    beliefs = nxt.get("wrong_beliefs", [])
    if nxt["topics"] or nxt["misconceptions"] or beliefs:
        lines += ["", paint("Practise next", "bold")]
        for t in nxt["topics"][:3]:
            lines += say(f"  - {visible(t['topic'])}: {round(100 * t['accuracy'])}% correct in "
                         f"{t['attempts']} recent answer{'' if t['attempts'] == 1 else 's'}", hang=4)
        for m in nxt["misconceptions"][:3]:
            lines += _to_practise("avoid " + titles.get(m["id"], visible(m["id"])), m, width)
        for m in beliefs[:3]:
            lines += _to_practise(f"rethink the belief {visible(m['id'])}", m, width)
    rv = data.get("review") or {"cards": 0}  # stats --from has none: schedules are per machine
    if rv["cards"]:
        lines.append("")
        apart = [f"{n} more {what}" for n, what in (
            (rv.get("due_no_longer_in_a_pack", 0), "no longer in any pack"),
            (rv.get("due_imported_not_here", 0), "from imported history, in no pack here")) if n]
        if rv["due"]:  # due as `drills review` counts it; what no pack asks is named apart
            lines += say(f"Review: {rv['due']} item{'' if rv['due'] == 1 else 's'} due now: "
                         "run `drills review`" + (f" ({'; '.join(apart)}, skipped)" if apart else ""))
        elif apart:
            lines += say(f"Review: nothing due in your packs ({'; '.join(apart)}, skipped; "
                         "`drills review --list` shows them)")
        elif rv["next_due"]:
            when = datetime.fromisoformat(rv["next_due"])
            lines += say(f"Review: nothing due; next {human_when(when, now)}")
    return "\n".join(lines)
