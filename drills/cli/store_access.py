"""The history store opened for a command: a bad DRILLS_HOME or damage that cannot be
repaired is one line and exit 1, and the store's notices (a damaged database moved aside or
repaired) go to stderr. May import store and cli.errors."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from drills.cli.errors import Exit, fail
from drills.store import Store, StoreError


def open_store(readonly: bool = False) -> Store:
    """Open the history (a bad DRILLS_HOME exits 1 with one line); its notices go to stderr.

    Notices (a damaged database moved aside or repaired mid-command: where, and how many
    rows were kept) are printed as one line each, now and whenever one comes later.
    ``readonly``: for a command that only reads (no write access needed, nothing created).
    """
    try:
        store = Store.open(readonly=readonly, waiting=_say_waiting)
    except StoreError as exc:
        fail(str(exc), Exit.FAILED)
    for text in store.notices:
        click.echo(text, err=True)
    store.notices.clear()
    store.notify = lambda text: click.echo(text, err=True)
    return store


def _say_waiting() -> None:
    click.echo("waiting for the history: another drills is writing to it (up to 2 minutes)...",
               err=True)


@contextmanager
def history_store(readonly: bool = False) -> Iterator[Store]:
    """``open_store`` for a command that reads or writes and is done: closed on the way out.

    A StoreError in the block (damage that could not be repaired, a locked database) is
    one line and exit 1; rows left out for a damaged field are counted in one notice.
    """
    store = open_store(readonly=readonly)
    try:
        yield store
    except StoreError as exc:
        fail(str(exc), Exit.FAILED)
    finally:
        store.close()
    if store.skipped:
        from drills.store.fields import skipped_notice  # lazy: rarely needed, not at start-up

        click.echo(skipped_notice(store.skipped), err=True)
