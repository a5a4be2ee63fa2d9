"""Loading the questions a command works on: one function, so practice, mock and generate agree.

``--pack P`` names a pack (``ndcg-lambdarank``) or a pack file or folder. Without it every
discoverable pack is used; with it, only the packs named, so a pack you just wrote is the
one you practise.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from drills.cli.errors import fail
from drills.model import Question
from drills.packs import discover
from drills.packs.errors import shown
from drills.packs.load import resolved


def load_questions(pack_args: Sequence[str], topics: Sequence[str] | None = None) -> list[Question]:
    """The questions of the chosen packs; broken packs cost one stderr line each.

    ``topics`` given (practice, mock, worksheets): coding questions, which need an editor
    and a few minutes each, come only when asked for, by a pack named with --pack or their
    topic named with --topic; a plain ``drills`` session stays quick.
    """
    questions = _load(pack_args)
    if topics is None or pack_args:
        return questions
    return [q for q in questions if q.kind != "code" or q.topic in topics]


def _load(pack_args: Sequence[str]) -> list[Question]:
    paths = [Path(p) for p in pack_args if Path(p).exists()]
    catalog = discover(paths)
    for error in catalog.errors:  # PackError's str shows a file name's or pack's control characters
        click.echo(f"skipped: {error}", err=True)
    for notice in catalog.notices:
        click.echo(f"note: {notice}", err=True)
    if not pack_args:
        return list(catalog.questions)
    chosen: set[str] = set()
    for arg in pack_args:
        path = Path(arg)
        if path.exists():  # a broken pack file was reported above and is skipped
            root = resolved(path)
            places = {i.name: resolved(Path(i.path)) for i in catalog.packs}
            chosen |= {name for name, where in places.items()
                       if root is not None and where is not None and (where == root or root in where.parents)}
        else:
            names = {i.name for i in catalog.packs if i.name == arg}
            if not names:
                known = ", ".join(sorted(i.name for i in catalog.packs)) or "none"
                fail(f"unknown pack {shown(arg)!r}: give a pack name or a pack file or folder (packs: {known})")
            chosen |= names
    if not chosen:
        fail(f"no pack could be loaded from {shown(', '.join(pack_args))} (see above, or run `drills packs validate`)")
    return [q for q in catalog.questions if q.pack in chosen]


def check_topics(topics: Sequence[str], questions: Sequence[Question]) -> None:
    """A one-line error for a topic that no loaded question has."""
    known = sorted({q.topic for q in questions})
    for t in topics:
        if t not in known:
            fail(f"unknown topic {t!r} (topics: {', '.join(known)})")
