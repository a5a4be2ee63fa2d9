"""Writers wait for each other (issue 26, point 4): a session started while another drills
holds the write lock (an import) says it waits, waits, and then runs; past the limit it is
one line that names the lock, never the wrong hint about DRILLS_HOME."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from drills.store import Store, StoreError
from drills.store import home as homes


def _hold_lock(db, seconds: float, ready: threading.Event) -> None:
    conn = sqlite3.connect(db, isolation_level=None, timeout=30)
    conn.execute("BEGIN IMMEDIATE")
    ready.set()
    time.sleep(seconds)
    conn.execute("ROLLBACK")
    conn.close()


def test_a_store_opened_during_another_write_waits_then_opens(drills_home):
    Store.open(drills_home).close()
    ready = threading.Event()
    holder = threading.Thread(target=_hold_lock, args=(drills_home / "drills.db", 1.5, ready))
    holder.start()
    ready.wait(10)
    said: list[float] = []
    start = time.monotonic()
    with Store.open(drills_home, waiting=lambda: said.append(time.monotonic() - start)) as s:
        waited = time.monotonic() - start
        sid = s.start_session("practice", 1, {})
        assert sid == 1
    holder.join()
    assert len(said) == 1 and said[0] < waited  # said once, before the wait was over
    assert waited >= 1.0


def test_past_the_limit_it_is_one_line_without_the_drills_home_hint(drills_home, monkeypatch):
    Store.open(drills_home).close()
    monkeypatch.setattr(homes, "WAIT_LIMIT_S", 0.5)
    ready = threading.Event()
    holder = threading.Thread(target=_hold_lock, args=(drills_home / "drills.db", 3.0, ready))
    holder.start()
    ready.wait(10)
    monkeypatch.setattr("drills.store.connection.BUSY_TIMEOUT_MS", 200)
    monkeypatch.setattr("drills.store.database.BUSY_TIMEOUT_MS", 200)
    try:
        with pytest.raises(StoreError) as err:
            Store.open(drills_home)
    finally:
        holder.join()
    message = str(err.value)
    assert "stayed locked" in message and "another drills" in message
    assert "DRILLS_HOME" not in message and "\n" not in message


def test_practice_says_it_waits(drills_home):
    from click.testing import CliRunner

    from drills.cli import cli

    Store.open(drills_home).close()
    ready = threading.Event()
    holder = threading.Thread(target=_hold_lock, args=(drills_home / "drills.db", 1.0, ready))
    holder.start()
    ready.wait(10)
    got = CliRunner().invoke(cli, ["practice", "--count", "1", "--seed", "1"], input=":q\n")
    holder.join()
    assert "waiting for the history: another drills is writing" in got.stderr
    assert got.exit_code == 0, got.output
