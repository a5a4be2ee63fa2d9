"""``drills stats``: progress at a glance, or ``--json`` for scripts.

Kept light on imports (no sympy, no prompt_toolkit): it must start and answer in well
under a second on a 100,000-answer history.
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from typing import Any

import click

from drills.cli.common import history_store
from drills.core.safetext import json_text, visible

SPARKS = "▁▂▃▄▅▆▇█"
ASCII_SPARKS = "_.-=+*#@"
BAR_WIDTH = 20
LABEL_WIDTH = 20


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
        from drills.core.diagnose import CATALOG
    except Exception:  # noqa: BLE001 - titles are a nicety; stats must still print
        return {}
    return {key: getattr(m, "title", key) for key, m in CATALOG.items()}


def _table(title: str, groups: dict[str, dict[str, Any]], unicode: bool) -> list[str]:
    lines = [title]
    for key, g in sorted(groups.items(), key=lambda kv: (-kv[1]["attempts"], kv[0])):
        lines.append(f"  {visible(key):<{LABEL_WIDTH}} {bar(g['accuracy'], unicode=unicode)} "
                     f"{_pct(g['accuracy'])}  {g['correct']}/{g['attempts']}")
    return lines


def render(data: dict[str, Any], unicode: bool = True, now: datetime | None = None) -> str:
    """The text report for a non-empty history."""
    from drills.cli.review import human_when

    s = "" if data["sessions"] == 1 else "s"
    a = "" if data["attempts"] == 1 else "s"
    lines = [f"{data['attempts']:,} answer{a} in {data['sessions']:,} session{s}: "
             f"{data['correct']:,} correct ({round(100 * data['accuracy'])}%)"]
    if data["mean_seconds"] is not None:
        lines.append(f"Average time per answer: {data['mean_seconds']:.1f} s")
    streak = data["streak"]
    d = "" if streak["days"] == 1 else "s"
    lines.append(f"Streak: {streak['days']} day{d} of practice in a row; "
                 f"{streak['correct']} correct answer{'' if streak['correct'] == 1 else 's'} "
                 "in a row")
    lines.append("")
    lines += _table("Accuracy by topic", data["by_topic"], unicode)
    lines.append("")
    lines += _table("Accuracy by kind", data["by_kind"], unicode)
    trend = data["trend"]
    if trend:
        values = [t["accuracy"] for t in trend]
        lines += ["", f"Trend, last {len(trend)} session{'' if len(trend) == 1 else 's'}: "
                      f"{sparkline(values, unicode)}  "
                      f"{round(100 * values[0])}% -> {round(100 * values[-1])}%"]
    titles = _titles()
    if data["misconceptions"]:
        lines += ["", "Top wrong formulas"]
        for m, n in list(data["misconceptions"].items())[:5]:
            title = titles.get(m)
            lines.append(f"  {n:>5}x  {visible(m)}" + (f": {title}" if title else ""))
    nxt = data["practise_next"]
    if nxt["topics"] or nxt["misconceptions"]:
        lines += ["", "Practise next"]
        for t in nxt["topics"][:3]:
            lines.append(f"  - {visible(t['topic'])}: {round(100 * t['accuracy'])}% correct in "
                         f"{t['attempts']} recent answer{'' if t['attempts'] == 1 else 's'}")
        for m in nxt["misconceptions"][:3]:
            where = visible(", ".join(m["topics"][:3]))
            fix = titles.get(m["id"], visible(m["id"]))
            lines.append(f"  - avoid {fix} ({m['count']}x" + (f", in {where})" if where else ")"))
    rv = data["review"]
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
def stats(as_json: bool) -> None:
    """Show your progress: accuracy by topic and kind, trend, streaks, slips to practise."""
    from drills.store.stats import stats as compute

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
    click.echo(render(data, unicode=_unicode_ok(), now=now))
