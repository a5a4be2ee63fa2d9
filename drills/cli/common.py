"""Small helpers shared by the command modules: one-line errors with the right exit code."""

from __future__ import annotations

import enum
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn

import click

from drills.safetext import plural  # noqa: F401 - the commands' plural, kept importable here

if TYPE_CHECKING:
    from drills.model import Tolerance
    from drills.store import Store


class Exit(enum.IntEnum):
    OK = 0
    FAILED = 1  # a check failed: wrong answer, invalid pack
    USAGE = 2  # bad options or input


def fail(message: str, code: int = Exit.USAGE) -> NoReturn:
    """Print ``Error: message`` on stderr (one line) and exit with ``code``."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(int(code))


MAX_COUNT = 1000  # questions per session or worksheet
MAX_SEED = 2**63 - 1  # seeds are stored in SQLite INTEGER columns
MAX_MINUTES = 24 * 60


def check_count(count: int) -> None:
    if count < 1:
        fail(f"--count must be at least 1, got {count}")
    if count > MAX_COUNT:
        fail(f"--count must be at most {MAX_COUNT}, got {count}")


def pick_seed(seed: int | None) -> int:
    """The given seed, or a fresh one that the session or sheet then prints for a rerun."""
    import random

    return seed if seed is not None else random.SystemRandom().randrange(1, 1_000_000)


def check_seed(seed: int | None) -> None:
    if seed is not None and not 0 <= seed <= MAX_SEED:
        fail(f"--seed must be a whole number from 0 to {MAX_SEED}, got {seed}")


def check_difficulty(difficulty: str | None) -> None:
    from drills.model import DIFFICULTIES

    if difficulty is not None and difficulty not in DIFFICULTIES:
        fail(f"unknown difficulty {difficulty!r} (difficulties: {', '.join(DIFFICULTIES)})")


def check_seconds(name: str, value: float | None, most: float) -> None:
    """A positive, finite duration no longer than ``most`` (inf and nan are refused)."""
    if value is not None and not 0 < value <= most:
        fail(f"{name} must be a positive number no larger than {most:g}, got {value:g}")


def tolerance_option(text: str | None) -> Tolerance | None:
    """``--tolerance TOL`` read, or a one-line usage error saying what is accepted."""
    if text is None:
        return None
    from drills.grading.check import ToleranceError, parse_tolerance

    try:
        return parse_tolerance(text)
    except ToleranceError as exc:
        fail(str(exc))


def open_store(readonly: bool = False) -> Store:
    """Open the history (a bad DRILLS_HOME exits 1 with one line); its notices go to stderr.

    Notices (a damaged database moved aside or repaired mid-command: where, and how many
    rows were kept) are printed as one line each, now and whenever one comes later.
    ``readonly``: for a command that only reads (no write access needed, nothing created).
    """
    from drills.store import Store, StoreError

    try:
        store = Store.open(readonly=readonly)
    except StoreError as exc:
        fail(str(exc), Exit.FAILED)
    for text in store.notices:
        click.echo(text, err=True)
    store.notices.clear()
    store.notify = lambda text: click.echo(text, err=True)
    return store


@contextmanager
def history_store(readonly: bool = False) -> Iterator[Store]:
    """``open_store`` for a command that reads or writes and is done: closed on the way out.

    A StoreError in the block (damage that could not be repaired, a locked database) is
    one line and exit 1; rows left out for a damaged field are counted in one notice.
    """
    from drills.store import StoreError
    from drills.store.fields import skipped_notice

    store = open_store(readonly=readonly)
    try:
        yield store
    except StoreError as exc:
        fail(str(exc), Exit.FAILED)
    finally:
        store.close()
    if store.skipped:
        click.echo(skipped_notice(store.skipped), err=True)


def parse_grades(text: str, what: str = "relevance") -> tuple[int, ...]:
    """``2,1,3,0``, ``2 1 3 0`` or ``[2, 1, 3, 0]`` (as prompts show it) -> (2, 1, 3, 0).

    Anything else is a one-line error: ``2,,3`` names the empty place instead of
    silently dropping a grade.
    """
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    pieces = [p.strip() for p in body.split(",")] if "," in body else body.split()
    if any(not p for p in pieces) and "," in body:
        fail(f"the {what} list {text.strip()!r} has an empty place between commas; "
             "give every grade, like 2,1,3,0")
    parts = [q for p in pieces for q in p.split()]
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


def silence_stdout() -> None:
    """Standard output is gone (a closed pipe): point it at /dev/null so nothing more fails there."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def echo_paged(text: str, color: bool | None = None) -> None:
    """Print ``text``; on a terminal, through the pager when it is taller than the screen."""
    if sys.stdout.isatty():
        from drills.tui.pager import make_pager, terminal_rows

        if make_pager(terminal_rows)(text):
            return
    click.echo(text, color=color)
