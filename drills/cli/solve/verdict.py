"""An answer to ``drills solve`` graded, for NDCG and every other metric alike:
``check_answer`` (the quiz's own ``check``, so the verdict and the slip named agree with
practice), ``check_json`` (``--json``'s "check") and ``echo_verdict`` (the verdict line
above the worked steps). May import grading, model and click."""

from __future__ import annotations

import sys

import click

from drills.engine.table import Layout
from drills.grading.check import check, explain
from drills.model import Question


def check_answer(problem, metric: str, answer: str, override):  # noqa: ANN001, ANN202
    """``--answer`` graded by the quiz's own ``check``, as a numeric question on ``problem``."""
    question = Question(id="solve", topic="hand-computation", kind="numeric", prompt="",
                        problem=problem, metric=metric)
    return check(question, answer, override)


def check_json(outcome, answer: str, metric: str) -> dict:  # noqa: ANN001 - an Outcome
    """``--json``'s "check": the graded answer, for every metric."""
    return {
        "input": answer,
        "metric": metric,
        "verdict": outcome.verdict,
        "exact": outcome.exact,
        "misconceptions": list(outcome.misconceptions),  # every slip giving this number
        "slip": outcome.slip,  # the one named and counted (the first), or null
        "error": outcome.error,
        "tolerance": {"absolute": outcome.tolerance.absolute,
                      "relative": outcome.tolerance.relative} if outcome.tolerance else None,
        # the tolerance accepted a slip's value, so it was narrowed: why, and to how many places
        "narrowed": outcome.narrowed,
        "decimals": outcome.decimals,
        "message": outcome.summary,
    }


def _verdict_line(outcome, style) -> tuple[str, str]:  # noqa: ANN001
    """The verdict line wrapped and coloured, and the diagnosis below it (unwrapped)."""
    head, _, rest = explain(outcome, steps=False).partition("\n")
    room = max(24, style.width - 40)  # a long exact form may not take the verdict line over
    if outcome.expected and len(outcome.expected) > room and outcome.expected in head:
        head = head.replace(outcome.expected, Layout(exact_width=room).exact(outcome.expected), 1)
    colour = {"correct": "green", "close": "yellow"}.get(outcome.verdict, "red")
    return style.paint(style.wrap(head), colour, "bold"), rest


def echo_verdict(outcome, style) -> int:  # noqa: ANN001 - an Outcome, a display.Style
    """The graded answer above the worked steps: the verdict line coloured, then the diagnosis;
    the number of lines printed."""
    head, rest = _verdict_line(outcome, style)
    click.echo(head, color=style.color)
    text = head + ("\n" + style.wrap(rest) if rest else "")
    if rest:
        click.echo(style.wrap(rest))
    click.echo("")
    return text.count("\n") + 2


def echo_verdict_again(outcome, style, printed: int) -> None:  # noqa: ANN001
    """On a terminal, when ``printed`` lines scrolled the verdict away, say it again last:
    the final screen always holds the verdict."""
    from drills.cli.style import screen_rows  # lazy: only on a terminal

    if sys.stdout.isatty() and printed >= screen_rows() - 1:
        head, rest = _verdict_line(outcome, style)
        click.echo("")
        click.echo(head, color=style.color)
        named = [line for line in rest.splitlines() if line.strip()
                 and not line.startswith("Accepted [")][:1]  # the slip named, or "no known slip"
        if named:
            click.echo(style.wrap(named[0]))
