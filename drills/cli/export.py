"""``drills export``: the question packs in other tools' formats (thin over drills.publish.anki)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click

from drills.cli.catalog import check_topics, load_questions
from drills.cli.completion import complete_packs, complete_topics
from drills.cli.errors import Exit, fail
from drills.cli.options import check_seed
from drills.cli.style import echo_prose
from drills.model import Question
from drills.publish.anki import (
    FALLBACK_TIMESTAMP,
    MAX_VARIANTS,
    ExportError,
    notes,
    summary,
    write_package,
)
from drills.safetext import plural, visible


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def export() -> None:
    """Export the question packs for other tools (Anki)."""


@export.command(short_help="Write an Anki deck (.apkg): a deck per pack, sub-decks by topic.")
@click.option("--pack", "packs", multiple=True, metavar="P", shell_complete=complete_packs,
              help="Only pack P: a pack name (see `drills packs list`) or a pack file or folder "
                   "(repeatable). Default: every pack.")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC", shell_complete=complete_topics,
              help="Only this topic (repeatable).")
@click.option("--variants", type=int, default=3, show_default=True, metavar="N",
              help="Notes per generated question or generated scenario, each a seeded variant (1-20).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the generated variants: the same seed gives the same notes.")
@click.option("-o", "--output", required=True, metavar="FILE.apkg",
              help="The Anki package to write: a file is replaced whole (a symlink's target, "
                   "through the link); a FIFO or device is written to.")
def anki(packs: tuple[str, ...], topics: tuple[str, ...], variants: int, seed: int,
         output: str) -> None:
    """Write an Anki deck (.apkg) of the questions: one deck per pack, sub-decks by topic.

    \b
    Examples:
      drills export anki -o drills.apkg
      drills export anki --pack ndcg-hand-computation --variants 5 -o ndcg.apkg
      drills export anki --topic lambdarank --topic conventions -o interview.apkg
    One note per question (a note per variant for generated questions, a note per
    step for scenarios). Notes keep their identity across exports: import a newer
    export into Anki and edited questions are updated, not duplicated. The same
    packs and options write the same bytes.
    """
    if not output:
        fail("-o needs a file name")
    if not 1 <= variants <= MAX_VARIANTS:
        fail(f"--variants must be from 1 to {MAX_VARIANTS}, got {variants}")
    check_seed(seed)
    questions = load_questions(packs)  # coding questions too: a deck holds the whole bank
    check_topics(topics, questions)
    chosen = [q for q in questions if not topics or q.topic in topics]
    if not chosen:
        fail("no questions to export in these packs", Exit.FAILED)
    on_terminal = sys.stderr.isatty()  # a second or more: say what is happening
    if on_terminal:
        echo_prose(f"export: building the notes of {plural(len(chosen), 'question')} ...", err=True)
    try:
        items = notes(chosen, seed=seed, variants=variants)
    except ExportError as exc:
        fail(str(exc), Exit.FAILED)
    shown = visible(click.format_filename(output))
    if on_terminal:
        echo_prose(f"export: writing {plural(len(items), 'note')} to {shown} ...", err=True)
    try:
        write_package(items, output, timestamp=_timestamp(chosen))
    except OSError as exc:
        fail(f"cannot write {shown}: {exc.strerror or exc}", Exit.FAILED)
    echo_prose(summary(shown, items), err=True)


def _timestamp(questions: Sequence[Question]) -> int:
    """When the newest exported pack file was last changed.

    Anki updates a note on import only when the package's copy is newer than its own, and
    genanki stamps every note with one time: this one is later after any edit of a pack
    file, yet the same on a rerun, so the same packs and options give the same bytes.
    """
    times = []
    for path in {q.source.path for q in questions}:
        try:
            times.append(int(os.stat(path).st_mtime))
        except (OSError, ValueError):
            continue
    return max(times, default=FALLBACK_TIMESTAMP)
