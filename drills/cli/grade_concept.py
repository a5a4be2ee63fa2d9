"""What ``drills grade`` prints: a concept answer's grade (verdict, points with the words
that made them, wrong beliefs with their corrections) or a checked answer (the quiz's
``check``, in ``drills solve --answer --json``'s shape). Returns the verdict."""

from __future__ import annotations

import sys

import click

from drills.cli.errors import fail
from drills.display import Style, display_width, use_color
from drills.grading.concept.grade import grade_concept
from drills.model import Question
from drills.safetext import json_text
from drills.tui.conceptcard import concept_card


def _style() -> Style:
    return Style(color=use_color(sys.stdout), width=display_width())


def report_concept(q: Question, ident: str, answer: str, as_json: bool) -> str:
    if q.rubric is None:
        fail(f"{ident} has no rubric (key points with `required:`, misconceptions): it cannot be "
             "graded automatically; see docs/packs.md")
    grade = grade_concept(q.rubric, answer)
    if as_json:
        click.echo(json_text({"id": ident, "kind": "concept", **grade.as_json()}, indent=2))
    else:
        style = _style()
        click.echo(concept_card(grade, style, rated=True), color=style.color)
    return grade.verdict


def report_checked(q: Question, ident: str, answer: str, as_json: bool) -> str:
    from drills.cli.solve.verdict import check_json, echo_verdict  # deferred: sympy
    from drills.grading.check import check

    outcome = check(q, answer.strip(), None)
    if not outcome.counted:
        fail(f"not an answer: {outcome.summary}")
    if as_json:
        metric = q.metric or ("choice" if q.kind == "choice" else "answer")
        click.echo(json_text({"id": ident, "kind": q.kind, "check": check_json(outcome, answer, metric)},
                             indent=2))
    else:
        echo_verdict(outcome, _style())
    return outcome.verdict
