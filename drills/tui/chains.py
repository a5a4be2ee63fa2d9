"""The mock report's view of scenarios: each scenario's time as one row, and each scenario as
a chain of steps (step, verdict: correct / consistent / wrong ..., the first slip). Pure strings,
drawn by ``drills.tui.render.report``; this module imports nothing of the renderer."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from drills.display import clock_text
from drills.safetext import visible


def number(r: Any) -> int:
    """The 1-based number of the planned item a record belongs to (a scenario's steps share one)."""
    return (r.item if r.item >= 0 else r.index) + 1


def _groups(records: Sequence[Any]) -> Iterator[list[Any]]:
    """Records grouped by planned item, in order."""
    group: list[Any] = []
    for r in records:
        if group and number(group[0]) != number(r):
            yield group
            group = []
        group.append(r)
    if group:
        yield group


def time_lines(records: Sequence[Any]) -> list[str]:
    """One row per question; a scenario's row adds up its steps' time against its shared limit."""
    lines = []
    groups = list(_groups(records))
    width = max([22] + [len(_label(g[0])) for g in groups])
    for group in groups:
        r = group[0]
        limit = f" of {clock_text(r.limit)}" if r.limit else ""
        if r.question.part is None:
            would = f" (would have been {r.would_have})" if r.would_have else ""
            lines.append(visible(f"  {number(r):>2}. {r.question.topic:<{width}} "
                                 f"{clock_text(r.seconds):>5}{limit}  {r.verdict}{would}"))
            continue
        seconds = 0.0
        for x in group:  # the steps after the one whose time ran out were never shown
            seconds += x.seconds
            if x.verdict == "timeout":
                break
        right = sum(x.verdict in ("correct", "consistent") for x in group)
        lines.append(visible(f"  {number(r):>2}. {_label(r):<{width}} {clock_text(seconds):>5}{limit}  "
                             f"{right}/{r.question.part.of} steps right"))
    return lines


def _label(r: Any) -> str:
    """The topic column of a time row: a scenario says it is one."""
    return f"scenario, {r.question.topic}" if r.question.part is not None else r.question.topic


def chain_lines(records: Sequence[Any], style: Any) -> list[str]:
    """``Scenarios``: each as its chain of steps, the first slip named once."""
    lines: list[str] = []
    for group in _groups(records):
        part = group[0].question.part
        if part is None:
            continue
        if not lines:
            lines += ["", style.paint("Scenarios", "bold")]
        lines.append(visible(f"  Q{number(group[0])} {part.scenario}"))
        slip = None
        width = min(20, max(len(r.question.part.name) for r in group))
        for r in group:
            p = r.question.part
            mark = {"consistent": " (follows from your earlier numbers)"}.get(r.verdict, "")
            if r.would_have:
                mark = f" (would have been {r.would_have})"
            if r.misconceptions and slip is None:
                slip = (p.step, r.misconceptions[0])
            lines.append(visible(f"    {p.step}. {p.name:<{width}}  {r.verdict}{mark}"))
        if len(group) < part.of:
            lines.append(f"    (stopped after step {len(group)} of {part.of})")
        if slip is not None:
            lines.append(visible(f"    first slip: {slip[1]} at step {slip[0]}"))
    return lines
