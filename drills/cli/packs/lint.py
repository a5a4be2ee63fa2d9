"""``drills packs lint PATH...``: load the packs, run drills.authoring.lint over them, report.

The bank takes a second or more: on a terminal, stderr says what is happening (loading,
checking, then a count of the items checked every two seconds); piped, only the report."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

import click

from drills.authoring.lint import lint_questions
from drills.cli.errors import Exit, fail
from drills.cli.packs.packs import check_exist
from drills.cli.style import echo_prose, fill, wrap_width
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


def _on_terminal() -> bool:
    """Progress goes to stderr only when a person reads it there."""
    return sys.stderr.isatty()


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
                the packs given); two questions with the same problem (unless
                one is variant_of the other); a pack whose correct option is
                the longest in over 40% of its choice questions
      warnings: generated items with fewer than 2 distinguishable wrong-formula slips;
                a correct option over 1.5x the longest wrong one, absolutes only
                in wrong options
    Exit codes: 0 no errors, 1 errors found, 2 bad usage.
    """
    if not 1 <= seeds <= MAX_SEEDS:
        fail(f"--seeds must be from 1 to {MAX_SEEDS:,}, got {seeds}")
    check_exist(paths)
    on_terminal = _on_terminal()
    if on_terminal:
        echo_prose(f"lint: loading {plural(len(paths), 'path')} ...", err=True)
    questions, pack_errors = _load(paths)
    generated = sum(bool(q.generator) for q in questions)  # drawn scenarios too
    if on_terminal:
        echo_prose(f"lint: checking {plural(len(questions), 'question')} ({generated} generated x "
                   f"{plural(seeds, 'seed')}) ...", err=True)
    start = time.monotonic()
    report = lint_questions(questions, seeds,
                            progress=(lambda line: echo_prose(line, err=True)) if on_terminal else None)
    report.errors[:0] = pack_errors
    width = wrap_width()  # a terminal's (never a word broken); a pipe gets one line each
    for line in report.errors:  # file names and pack text: controls shown
        click.echo("\n".join(fill([(f"error: {shown(line)}", ())], width, hang=2)))
    for line in report.warnings:
        click.echo("\n".join(fill([(f"warning: {shown(line)}", ())], width, hang=2)))
    echo_prose(f"{plural(len(report.errors), 'error')}, {plural(len(report.warnings), 'warning')}: "
               f"{plural(len(questions), 'question')} ({generated} generated x "
               f"{plural(seeds, 'seed')}), {plural(report.items, 'item')} checked "
               f"in {time.monotonic() - start:.1f}s")
    sys.exit(int(Exit.FAILED if report.errors else Exit.OK))
