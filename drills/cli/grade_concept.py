"""What ``drills grade`` prints: a concept answer's grade (verdict, points with the words
that made them, wrong beliefs with their corrections) or a checked answer (the quiz's
``check``, in ``drills solve --answer --json``'s shape). Returns the verdict.

On a terminal the text is wrapped to its width (at most 100) and, when it is taller than
the screen, the verdict (and the slip named) is said again last; piped, lines are not
wrapped."""

from __future__ import annotations

import sys

import click

from drills.cli.errors import fail
from drills.cli.style import taller_than_screen, wrap_width
from drills.display import Style, use_color
from drills.grading.concept.grade import grade_concept
from drills.grading.reveal import verdict_line
from drills.model import Question
from drills.safetext import json_text
from drills.tui.conceptcard import COLORS, concept_card


def _style() -> Style:
    return Style(color=use_color(sys.stdout), width=wrap_width())


def report_concept(q: Question, ident: str, answer: str, as_json: bool) -> str:
    if q.rubric is None:
        fail(f"{ident} has no rubric (key points with `required:`, misconceptions): it cannot be "
             "graded automatically; see docs/packs.md")
    grade = grade_concept(q.rubric, answer)
    if as_json:
        click.echo(json_text({"id": ident, "kind": "concept", **grade.as_json()}, indent=2))
    else:
        style = _style()
        card = concept_card(grade, style, rated=True)
        click.echo(card, color=style.color)
        if taller_than_screen(card):  # a screen under the card's 12 lines: the verdict again
            click.echo("")
            click.echo(style.paint(style.wrap(verdict_line(grade)), COLORS.get(grade.verdict, "red"),
                                   "bold"), color=style.color)
    return grade.verdict


def report_checked(q: Question, ident: str, answer: str, as_json: bool) -> str:
    from drills.cli.solve.verdict import (  # deferred: sympy
        check_json,
        echo_verdict,
        echo_verdict_again,
    )
    from drills.grading.check import check  # deferred: the grader imports sympy

    outcome = check(q, answer.strip(), None)
    if not outcome.counted:
        fail(f"not an answer: {outcome.summary}")
    if as_json:
        metric = q.metric or ("choice" if q.kind == "choice" else "answer")
        click.echo(json_text({"id": ident, "kind": q.kind, "check": check_json(outcome, answer, metric)},
                             indent=2))
    else:
        style = _style()
        echo_verdict_again(outcome, style, echo_verdict(outcome, style))
    return outcome.verdict
