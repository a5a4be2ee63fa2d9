"""How the commands' text looks, shared below every command: colour (``painter``), accuracy
bars and tables, percentages, slip titles, a moment as "in 2 days (...)", the screen's size,
and printing through the pager.

May import display, safetext, grading (the slip catalog) and tui.pager (both on demand);
never a command module.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import click

from drills.display import Style, display_width, terminal_size
from drills.safetext import visible

BAR_WIDTH = 20
LABEL_WIDTH = 20
GOOD, FAIR = 0.8, 0.5  # accuracy shown green from GOOD, yellow from FAIR, red below

Paint = Callable[..., str]


def plain(text: str, *names: str) -> str:
    return text


def painter(color: bool) -> Paint:
    """``Style.paint`` when colour is on (bold headers, accuracy in green/yellow/red), else
    text as is."""
    if not color:
        return plain
    return Style(color=True).paint


def accuracy_color(accuracy: float) -> str:
    return "green" if accuracy >= GOOD else "yellow" if accuracy >= FAIR else "red"


def unicode_ok() -> bool:
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


def pct(x: float) -> str:
    return f"{round(100 * x):3d}%"


def slip_titles() -> dict[str, str]:
    """Misconception titles from the diagnosis catalog; ids alone if it is unavailable."""
    try:
        from drills.grading.diagnose import CATALOG  # lazy: the slip catalog is slow to import
    except Exception:  # noqa: BLE001 - titles are a nicety; stats must still print
        return {}
    return {key: getattr(m, "title", key) for key, m in CATALOG.items()}


def table(title: str, groups: dict[str, dict[str, Any]], unicode: bool,
          paint: Paint = plain, ordered: bool = False) -> list[str]:
    """A bold title, then one row per group (most answers first unless ``ordered``)."""
    lines = [paint(title, "bold")]
    items = list(groups.items()) if ordered else sorted(
        groups.items(), key=lambda kv: (-kv[1]["attempts"], kv[0]))
    for key, g in items:
        shade = accuracy_color(g["accuracy"])
        lines.append(f"  {visible(key):<{LABEL_WIDTH}} "
                     f"{paint(bar(g['accuracy'], unicode=unicode), shade)} "
                     f"{paint(pct(g['accuracy']), shade)}  {g['correct']}/{g['attempts']}")
    return lines


def roughly(when: datetime, now: datetime | None = None) -> str:
    """'in 2 days', '3 hours ago' or 'now': the distance from ``now``, rounded to its unit."""
    now = now or datetime.now(timezone.utc)
    seconds = (when - now).total_seconds()
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if abs(seconds) >= size:
            n = round(abs(seconds) / size)
            span = f"{n} {unit}{'' if n == 1 else 's'}"
            return f"in {span}" if seconds > 0 else f"{span} ago"
    return "now"


def human_when(when: datetime, now: datetime | None = None) -> str:
    """'in 2 days (2026-12-04 17:00 UTC)' or '3 hours ago (...)': the rough distance, then the time."""
    exact = when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"{roughly(when, now)} ({exact})"


def screen_rows() -> int:
    """The terminal's height; piped output counts as one tall screen of 66 lines (a page)."""
    return terminal_size((80, 66)).lines if sys.stdout.isatty() else 66


def wrap_width() -> int:
    """The terminal's width for prose (at most 100); piped output is not re-wrapped unless
    COLUMNS says how wide the reader is."""
    if sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit():
        return display_width()
    return 10_000


def echo_prose(text: str, err: bool = False) -> None:
    """One paragraph of prose, wrapped to the terminal's width (never wider) on a terminal;
    ``err``: on stderr, wrapped when stderr is the terminal."""
    width = (display_width() if sys.stderr.isatty() else 10_000) if err else wrap_width()
    click.echo(Style(width=width).wrap(text), err=err)


def report_width(fixed: int) -> int:
    """A report drawn to ``fixed`` columns (its documented width), narrower on a narrower
    terminal."""
    return min(fixed, display_width()) if sys.stdout.isatty() else fixed


def fill(parts: list[tuple[str, tuple[str, ...]]], width: int, paint: Paint = plain,
         hang: int = 4) -> list[str]:
    """One line of text in painted ``parts`` (text, colour names), wrapped to ``width``
    columns: continuation lines indented by ``hang``, never a word broken; the colours are
    put on after wrapping, so they never count towards the width."""
    text = "".join(part for part, _ in parts)
    spans, at = [], 0
    for part, names in parts:
        spans.append((at, at + len(part), names))
        at += len(part)
    import textwrap  # lazy: only a report that is drawn needs it

    lines = textwrap.wrap(text, max(20, width - 1), subsequent_indent=" " * hang,
                          break_long_words=False, break_on_hyphens=False) or [text]
    out, cursor = [], 0
    for i, line in enumerate(lines):
        body = line if i == 0 else line[hang:]
        start = text.find(body, cursor)
        if start < 0:  # not a piece of the text (tabs expanded): shown unpainted
            out.append(line)
            continue
        cursor = start + len(body)
        pieces = [paint(text[max(a, start):min(b, cursor)], *names)
                  for a, b, names in spans if a < cursor and b > start]
        out.append(line[: len(line) - len(body)] + "".join(pieces))
    return out


def taller_than_screen(text: str) -> bool:
    """On a terminal, would ``text`` scroll its first lines away?"""
    return sys.stdout.isatty() and text.count("\n") + 1 >= screen_rows() - 1


def echo_paged(text: str, color: bool | None = None, last: str | None = None) -> None:
    """Print ``text``; on a terminal, through the pager when it is taller than the screen.
    When it is taller and no pager could show it, ``last`` (the headline) is said again at
    the end, so the final screen holds it."""
    if sys.stdout.isatty():
        from drills.tui import pager  # lazy: subprocess, needed only on a terminal

        if pager.make_pager(pager.terminal_rows)(text):
            return
    click.echo(text, color=color)
    if last and taller_than_screen(text):
        click.echo("", color=color)
        click.echo(last, color=color)
