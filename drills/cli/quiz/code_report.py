"""A graded ``drills code`` check as text: the verdict and its diagnosis first, then the long
part (the first failed case worked, what the interviewer probes, the other failed cases,
what the function printed), all wrapped to the terminal's width; on a terminal, when that
scrolled the verdict away, the verdict, the first failed case and the slip are said again
last, as ``drills solve --answer`` does (``cli.solve.verdict.echo_verdict_again``), so the
final screen always holds them. An ``Error:`` (no compile, no import, an exit) is its line
alone: no case was graded, so no worked case follows.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from drills.cli.style import screen_rows, wrap_width
from drills.coding.grade import case_text
from drills.coding.text import code_lines
from drills.display import Style, use_color
from drills.engine.table import NARROW_BELOW, Layout
from drills.grading.check import explain
from drills.safetext import visible

OTHER_CASES = 5  # failed cases listed after the first one (--json lists every case)
PRINTED_LINES = 10  # lines of the function's output shown (--json has up to 4 KiB)


def style_now() -> Style:
    """Colour when stdout is a colour terminal; the terminal's width (pipes: unwrapped)."""
    return Style(color=use_color(sys.stdout), width=wrap_width())


def layout_for(style: Style) -> Layout:
    """The worked case's tables for this width: values only under 72 columns, 12 ranks."""
    return Layout(narrow=style.width < NARROW_BELOW, max_rows=12,
                  exact_width=min(120, max(40, style.width - 20)))


def _head(outcome: Any, style: Style) -> tuple[str, list[str]]:
    """The verdict line, painted, and the lines below it (first failed case, diagnosis)."""
    head, _, rest = explain(outcome, steps=False).partition("\n")
    colour = "green" if outcome.verdict == "correct" else "red"
    return style.paint(style.wrap(head), colour, "bold"), [line for line in rest.splitlines() if line]


def echo_task(question: Any) -> None:
    """The question as practice shows it: its prompt re-flowed to the width, then its
    signature and examples verbatim (indentation is meaning)."""
    style = style_now()
    click.echo(style.wrap(style.reflow(question.prompt)))
    for line in code_lines(question):
        click.echo(visible(line))


class Printer:
    """click.echo that counts the screen lines it printed."""

    def __init__(self, style: Style) -> None:
        self.style, self.lines = style, 0

    def echo(self, text: str = "", *, wrap: bool = True) -> None:
        shown = self.style.wrap(text) if wrap and text else text
        click.echo(shown, color=self.style.color)
        self.lines += shown.count("\n") + 1


def echo_check(question: Any, result: Any, outcome: Any, style: Style, note: str = "") -> None:
    """The whole text of one check (``note``: a line under the verdict, e.g. examples only)."""
    out = Printer(style)
    head, rest = _head(outcome, style)
    out.echo(head, wrap=False)
    for line in rest:
        out.echo(line)
    if note:
        out.echo(note)
    if result.verdict != "error" and outcome.steps:
        out.echo()
        out.echo(outcome.steps)
    if result.verdict != "error" and question.prose:
        out.echo()
        out.echo(style.reflow(question.prose))
    failed = [c for c in result.cases if not c.ok and c.error != "not run"]
    if len(failed) > 1:
        out.echo()
        out.echo(f"Other failed cases ({len(failed) - 1}):")
        for c in failed[1:OTHER_CASES + 1]:
            out.echo("  " + case_text(c))
        if len(failed) > OTHER_CASES + 1:
            out.echo(f"  ... and {len(failed) - OTHER_CASES - 1} more (--json lists every case)")
    printed = result.output.strip().splitlines()
    if printed:
        out.echo()
        more = len(printed) - PRINTED_LINES
        out.echo("Your function printed" + (f" ({more} more lines in --json):" if more > 0 else ":"))
        for line in printed[:PRINTED_LINES]:
            out.echo(line)
    _again(head, rest, note, style, out.lines)


def _again(head: str, rest: list[str], note: str, style: Style, printed: int) -> None:
    """On a terminal, when ``printed`` lines scrolled the verdict away, say it again last."""
    if not sys.stdout.isatty() or printed < screen_rows() - 1:
        return
    click.echo("")
    click.echo(head, color=style.color)
    first = [line for line in rest if line.startswith("First failed case:")][:1]
    slip = [line for line in rest if not line.startswith(("First failed case:", "Diagnosis: "))][:1]
    for line in [*first, *slip, *([note] if note else [])]:
        click.echo(style.wrap(line))
