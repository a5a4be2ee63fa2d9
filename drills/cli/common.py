"""Small helpers shared by the command modules: one-line errors with the right exit code."""

from __future__ import annotations

import enum
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from drills.store import Store


class Exit(enum.IntEnum):
    OK = 0
    FAILED = 1  # a check failed: wrong answer, invalid pack
    USAGE = 2  # bad options or input


def fail(message: str, code: int = Exit.USAGE) -> NoReturn:
    """Print ``Error: message`` on stderr (one line) and exit with ``code``."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(int(code))


def open_store() -> Store:
    """Open the history (a bad DRILLS_HOME exits 1 with one line) and pass on its notice."""
    from drills.store import Store, StoreError

    try:
        store = Store.open()
    except StoreError as exc:
        fail(str(exc), Exit.FAILED)
    if store.notice:  # e.g. a damaged database was moved aside: say where
        click.echo(store.notice, err=True)
    return store


@contextmanager
def history_store() -> Iterator[Store]:
    """``open_store`` for a command that reads or writes and is done: closed on the way out."""
    store = open_store()
    try:
        yield store
    finally:
        store.close()


def parse_grades(text: str, what: str = "relevance") -> tuple[int, ...]:
    """``2,1,3,0`` or ``2 1 3 0`` -> (2, 1, 3, 0); a one-line error for anything else."""
    parts = [p for p in text.replace(",", " ").split() if p]
    if not parts:
        fail(f"the {what} list is empty: give grades like 2,1,3,0")
    grades: list[int] = []
    for p in parts:
        if not p.isdigit() or not p.isascii():
            kind = "negative" if p.startswith("-") else "fractional" if "." in p else "not a whole number"
            fail(f"{what} grades must be whole numbers >= 0 like 2,1,3,0; {p!r} is {kind}")
        if len(p) > 3:
            fail(f"{what} grade {p} is too large (grades are small integers such as 0-4)")
        grades.append(int(p))
    return tuple(grades)
