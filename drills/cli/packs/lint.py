"""``drills packs lint PATH...``: load the packs, run drills.authoring.lint over them, report."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

import click

from drills.authoring.lint import lint_questions
from drills.cli.errors import Exit, fail
from drills.cli.packs.packs import check_exist
from drills.model import Question
from drills.packs import check_paths
from drills.packs.errors import shown
from drills.safetext import plural


def _load(paths: Sequence[str]) -> tuple[list[Question], list[str]]:
    """The questions of the packs at ``paths`` (files or folders), and pack errors as lines.

    A pack with schema errors still yields its good questions: lint runs those too.
    """
    packs, errors = check_paths(paths)  # the same checks as `drills packs validate`
    return [q for pack in packs for q in pack.questions], [str(e) for e in errors]


MAX_SEEDS = 10_000  # about 3 minutes for the built-in bank


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--seeds", type=int, default=50, show_default=True,
              help="Seeds to instantiate every generated question with.")
def lint(paths: tuple[str, ...], seeds: int) -> None:
    """Run every question of the packs at PATH: answers must grade as correct against themselves.

    \b
    Checks, per question (generated ones over --seeds seeds):
      errors:   a reference answer that does not grade as correct through the safe
                parser; NDCG/RR outside [0, 1], DCG/IDCG below 0; a choice question
                without exactly one correct option; a ranking missing from its
                prompt; a generator that fails; a question whose text states
                another's answer to 3 or more significant digits (among all
                the packs given)
      warnings: generated items with fewer than 2 distinguishable wrong-formula slips
    Exit codes: 0 no errors, 1 errors found, 2 bad usage.
    """
    if not 1 <= seeds <= MAX_SEEDS:
        fail(f"--seeds must be from 1 to {MAX_SEEDS:,}, got {seeds}")
    check_exist(paths)
    questions, pack_errors = _load(paths)
    start = time.monotonic()
    report = lint_questions(questions, seeds, progress=lambda line: click.echo(line, err=True))
    report.errors[:0] = pack_errors
    for line in report.errors:  # file names and pack text: controls shown, one line each
        click.echo(f"error: {shown(line)}")
    for line in report.warnings:
        click.echo(f"warning: {shown(line)}")
    generated = sum(bool(q.generator) for q in questions)  # drawn scenarios too
    click.echo(f"{plural(len(report.errors), 'error')}, {plural(len(report.warnings), 'warning')}: "
               f"{plural(len(questions), 'question')} ({generated} generated x "
               f"{plural(seeds, 'seed')}), {plural(report.items, 'item')} checked "
               f"in {time.monotonic() - start:.1f}s")
    sys.exit(int(Exit.FAILED if report.errors else Exit.OK))
