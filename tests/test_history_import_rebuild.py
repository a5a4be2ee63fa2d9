"""A large import into a smaller history drops the attempts' indexes and builds them again
after the INSERT, in the same transaction (issue 25, point 4: 100,000 answers under 2 s). The
history must come out the same as answer-by-index inserts make it: the same rows, the same
indexes (names and SQL), a sound database; and a merge that fails leaves every index."""

from __future__ import annotations

import sqlite3

import pytest

from drills.store import merge as merge_mod
from tests.test_history_sync import export_file, import_files, make_history, table

INDEXES = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'attempts' ORDER BY name"
ROWS = ("SELECT question_id, topic, kind, verdict, given, expected, expected_value, misconceptions, "
        "seconds, answered_at, uid, overridden, difficulty, scenario, step FROM attempts ORDER BY id")


def _history(tmp_path, monkeypatch, rebuild_at: int, name: str):
    statements = _traced(monkeypatch)
    source = tmp_path / "source"
    if not source.exists():
        make_history(source, "a")
        make_history(source, "b", start=100)
    export = export_file(source, tmp_path / "export.json")
    monkeypatch.setattr(merge_mod, "REBUILD_AT", rebuild_at)
    home = tmp_path / name
    home.mkdir()
    result = import_files(home, export)
    assert result.exit_code == 0, result.output
    drops = sum(s.startswith("DROP INDEX") for s in statements)
    assert drops == (len(table(home, INDEXES)) if rebuild_at == 1 else 0)
    return home, source


def test_rebuilt_indexes_give_the_same_history(tmp_path, monkeypatch):
    rebuilt, source = _history(tmp_path, monkeypatch, 1, "rebuilt")  # 10 answers into none: rebuilt
    inserted, _ = _history(tmp_path, monkeypatch, 10**9, "inserted")  # never rebuilt
    assert table(rebuilt, ROWS) == table(inserted, ROWS) == table(source, ROWS)
    assert table(rebuilt, INDEXES) == table(inserted, INDEXES)
    names = {n for n, _sql in table(rebuilt, INDEXES)}
    assert {"attempts_uid", "attempts_summary", "attempts_misconceptions_by_kind"} <= names
    assert table(rebuilt, "PRAGMA integrity_check") == [("ok",)]
    # the rebuilt indexes are used and hold every row: a covering scan counts them all
    assert table(rebuilt, "SELECT count(*) FROM attempts INDEXED BY attempts_summary") == [(10,)]
    assert table(rebuilt, "SELECT count(*) FROM attempts INDEXED BY attempts_misconceptions_by_kind "
                          "WHERE misconceptions != '[]'") == table(source, "SELECT count(*) FROM attempts "
                                                                           "WHERE misconceptions != '[]'")
    # a second import of the same file adds nothing (the uid index is back and checked)
    again = import_files(rebuilt, tmp_path / "export.json")
    assert again.exit_code == 0 and "10 attempts" not in again.stdout


def test_a_history_holding_more_answers_is_not_rebuilt(tmp_path, monkeypatch):
    home = tmp_path / "big"
    make_history(home, "c")  # 5 answers here already
    make_history(home, "d", start=200)
    source = tmp_path / "source"
    make_history(source, "e", start=300)  # 5 new ones: fewer than the 10 here
    export = export_file(source, tmp_path / "e.json")
    monkeypatch.setattr(merge_mod, "REBUILD_AT", 1)
    statements = _traced(monkeypatch)
    assert import_files(home, export).exit_code == 0
    assert statements and not any(s.startswith("DROP INDEX") for s in statements)
    assert table(home, "SELECT count(*) FROM attempts") == [(15,)]


def _traced(monkeypatch) -> list[str]:
    """The SQL _insert_rows runs, as SQLite traces it."""
    statements: list[str] = []
    real = merge_mod._insert_rows

    def spy(conn, rows):
        conn.set_trace_callback(statements.append)
        try:
            real(conn, rows)
        finally:
            conn.set_trace_callback(None)

    monkeypatch.setattr(merge_mod, "_insert_rows", spy)
    return statements


def test_a_failed_merge_leaves_every_index(tmp_path, monkeypatch):
    source = tmp_path / "source"
    make_history(source, "f")
    export = export_file(source, tmp_path / "f.json")
    home = tmp_path / "home"
    make_history(home, "g", start=500)  # create the database and its indexes
    with sqlite3.connect(home / "drills.db") as conn:
        conn.execute("DELETE FROM attempts")
    before = table(home, INDEXES)
    monkeypatch.setattr(merge_mod, "REBUILD_AT", 1)

    def broken(conn, rows):  # fails after the indexes were dropped and the rows inserted
        real_insert(conn, rows)
        raise ValueError("disk trouble")

    real_insert = merge_mod._insert_rows
    monkeypatch.setattr(merge_mod, "_insert_rows", broken)
    result = import_files(home, export)
    assert result.exit_code == 1 and "nothing of it merged" in result.stdout
    monkeypatch.undo()
    assert table(home, INDEXES) == before
    assert table(home, "SELECT count(*) FROM attempts") == [(0,)]
    assert table(home, "PRAGMA integrity_check") == [("ok",)]


@pytest.mark.parametrize("name", ['odd"name', "plain"])
def test_index_names_are_quoted(tmp_path, name):
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE attempts (a, b)")
    conn.execute('CREATE INDEX "{}" ON attempts(b)'.format(name.replace('"', '""')))
    rows = [(i, -i) for i in range(3)]
    original = conn.execute(INDEXES).fetchall()
    saved_write = merge_mod._write
    try:
        merge_mod._write = lambda conn, rows: conn.executemany("INSERT INTO attempts VALUES (?, ?)", rows)
        old = merge_mod.REBUILD_AT
        merge_mod.REBUILD_AT = 1
        merge_mod._insert_rows(conn, rows)
    finally:
        merge_mod._write = saved_write
        merge_mod.REBUILD_AT = old
    assert conn.execute(INDEXES).fetchall() == original
    assert conn.execute("SELECT count(*) FROM attempts").fetchone() == (3,)
