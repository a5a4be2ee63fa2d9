"""Damage inside the database: found mid-command, repaired from every row still readable.

The damaged databases here are real: 3,000 attempts with long answers and a review card
each, then pages overwritten with garbage (found with the ``dbstat`` table), so that
``PRAGMA quick_check`` and full scans fail with "database disk image is malformed".
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

import drills.store.home as home_mod
import drills.store.salvage as salvage_mod
from drills.cli import cli
from drills.store import Attempt, Store, StoreError
from drills.store.connection import configure, connect
from drills.store.progress import stats

OLD = datetime(2020, 1, 1, tzinfo=timezone.utc)  # every card is due long ago
N = 3000
NOTICE = re.compile(r"The history database was damaged \(database disk image is malformed\); "
                    r"the damaged file was kept as (\S+)\. ([\d,]+) of ([\d,]+) rows were "
                    r"recovered into a fresh database\.")


def att(i: int, **kw) -> Attempt:
    base = dict(question_id=f"q{i}", topic="normalization", kind="numeric",
                verdict="wrong" if i % 3 else "correct", given="x" * 300, expected="13/16",
                expected_value=0.8125, misconceptions=("log2_rank",) if i % 2 else (),
                seconds=3.0, answered_at=OLD)
    base.update(kw)
    return Attempt(**base)


def build(home: Path, n: int = N) -> Path:
    with Store.open(home) as s:
        sid = s.start_session("practice", 1, {})
        s.record_attempts(sid, [att(i) for i in range(n)])
        s.end_session(sid, 0, n, {})
        s.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return home / "drills.db"


def leaves(db: Path, name: str) -> list[int]:
    """The leaf pages of one b-tree, in key order."""
    with sqlite3.connect(db) as conn:
        return [p for (p,) in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path",
            (name,))]


def overwrite(db: Path, pages: list[int]) -> None:
    with sqlite3.connect(db) as conn:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    with open(db, "r+b") as f:
        for page in pages:
            f.seek((page - 1) * size)
            f.write(b"\xa5" * size)


def damage(db: Path) -> None:
    """A middle leaf of the attempts and review_cards tables, and the last leaf of the
    answered_at index, which every new answer and the stats streak touch."""
    pages = []
    for name, which in (("attempts", "middle"), ("review_cards", "middle"),
                        ("attempts_answered_at", "last")):
        found = leaves(db, name)
        assert len(found) >= 3, name
        pages.append(found[len(found) // 2] if which == "middle" else found[-1])
    overwrite(db, pages)
    with sqlite3.connect(db) as conn, pytest.raises(sqlite3.DatabaseError, match="malformed"):
        conn.execute("PRAGMA quick_check").fetchall()


@pytest.fixture
def damaged(drills_home: Path) -> Path:
    db = build(drills_home)
    damage(db)
    return db


def cli_run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input)


def notice_of(result) -> tuple[Path, int, int]:
    """The one notice line on stderr: where the damaged file went, rows kept, rows in all."""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    m = NOTICE.fullmatch(lines[0])
    assert m, lines[0]
    kept, total = (int(x.replace(",", "")) for x in m.group(2, 3))
    return Path(m.group(1)), kept, total


def check_repaired(db: Path, aside: Path, kept: int, total: int) -> None:
    assert aside.is_file() and aside.name.startswith("drills.db.corrupt-")
    with sqlite3.connect(aside) as conn, pytest.raises(sqlite3.DatabaseError, match="malformed"):
        conn.execute("PRAGMA quick_check").fetchall()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # 1 session + 3,000 attempts + 3,000 cards; a bad leaf of long answers costs a few rows
    assert total == 1 + 2 * N
    assert total - 60 < kept < total


# --- the commands go on ---------------------------------------------------------------------

def test_stats_repairs_and_reports(damaged):
    result = cli_run("stats", "--json")
    assert result.exit_code == 0, result.output
    aside, kept, total = notice_of(result)
    check_repaired(damaged, aside, kept, total)
    data = json.loads(result.stdout)
    assert N - 30 < data["attempts"] < N and data["review"]["cards"] < N
    again = cli_run("stats", "--json")  # repaired for good: no notice the second time
    assert again.exit_code == 0 and again.stderr == "" and json.loads(again.stdout) == data


def test_export_goes_on_after_the_damage_without_repeating_rows(damaged):
    result = cli_run("history", "export")
    assert result.exit_code == 0, result.output
    aside, kept, total = notice_of(result)
    check_repaired(damaged, aside, kept, total)
    ids = [int(r["attempt_id"]) for r in csv.DictReader(io.StringIO(result.stdout))]
    assert ids == sorted(set(ids)) and ids[0] == 1 and ids[-1] == N
    assert N - 30 < len(ids) < N
    with sqlite3.connect(damaged) as conn:
        assert conn.execute("SELECT count(*) FROM attempts").fetchone()[0] == len(ids)


def test_export_to_a_file_repairs_too(damaged, tmp_path):
    out = tmp_path / "out.json"
    result = cli_run("history", "export", "--format", "json", "-o", str(out))
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and NOTICE.fullmatch(lines[0]) and lines[1].startswith("Exported ")
    data = json.loads(out.read_text())["attempts"]
    assert f"Exported {len(data):,} answers" in lines[1] or f"Exported {len(data)} answers" in lines[1]


def test_review_list_repairs_and_lists(damaged):
    result = cli_run("review", "--list", "--count", "3")
    assert result.exit_code == 0, result.output
    aside, kept, total = notice_of(result)
    check_repaired(damaged, aside, kept, total)
    assert "due for review" in result.stdout


def test_practice_saves_its_answers_into_the_repaired_database(damaged):
    before = cli_run("history", "export")  # a read repairs; then damage it again for practice
    kept_before = len(before.stdout.splitlines()) - 1
    damage(damaged)
    result = cli_run("practice", "--count", "2", "--seed", "1", "--pack", "ndcg-hand-computation",
                     input="0.5\n0.5\n")  # two ordinary questions, not a scenario's steps
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and "Session over." in result.stdout
    aside, kept, total = notice_of(result)
    assert aside.is_file()
    later = cli_run("stats", "--json")
    assert later.exit_code == 0 and later.stderr == ""
    data = json.loads(later.stdout)
    assert data["sessions"] == 2 and data["trend"][-1]["attempts"] == 2
    assert kept_before - 30 < data["attempts"] - 2 <= kept_before


# --- the Store: one mechanism for reads and writes ------------------------------------------

def test_a_write_that_meets_damage_is_retried_once_on_the_repaired_database(drills_home):
    db = build(drills_home, 1500)
    store = Store.open(drills_home)
    try:
        sid = store.start_session("mock", 7, {"count": 3})
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        overwrite(db, leaves(db, "sessions") + leaves(db, "attempts_answered_at")[-1:])
        store.conn.close()  # drop the page cache, which still holds the good pages
        store.conn = connect(db)
        configure(store.conn)
        seen: list[str] = []
        store.notify = seen.append
        store.record_attempt(sid, att(9999, answered_at=None))
        store.end_session(sid, 1, 1, {})
        assert len(seen) == 1 and NOTICE.fullmatch(seen[0])
        conn = store.conn
        # the session row was on the damaged page: put back from what this Store wrote
        assert conn.execute("SELECT mode, seed, options, score FROM sessions WHERE id = ?",
                            (sid,)).fetchone() == ("mock", 7, '{"count": 3}', 1)
        # the first session's row was lost too; its attempts keep a stand-in
        assert conn.execute("SELECT options FROM sessions WHERE id = 1").fetchone() == (
            '{"recovered": true}',)
        assert conn.execute("SELECT count(*) FROM attempts WHERE question_id = 'q9999'"
                            ).fetchone() == (1,)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        store.close()


def test_damage_that_cannot_be_repaired_is_one_store_error_for_a_writer(damaged, monkeypatch):
    from drills.store import salvage as salvage_mod

    def no_room(path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(salvage_mod, "copy_aside", no_room)
    with Store.open(damaged.parent) as s:
        with pytest.raises(StoreError) as err:
            s.record_attempt(1, att(N + 1, answered_at=None))
    message = str(err.value)
    assert "\n" not in message and "is damaged (database disk image is malformed)" in message
    assert "cannot keep a copy: No space left on device" in message
    assert not [p for p in damaged.parent.iterdir() if ".corrupt-" in p.name]


def test_a_read_only_command_shows_what_it_can_read_when_it_cannot_repair(damaged, monkeypatch):
    from drills.store import salvage as salvage_mod

    def read_only(path):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(salvage_mod, "copy_aside", read_only)
    before = damaged.read_bytes()
    result = cli_run("stats", "--json")
    assert result.exit_code == 0, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"The history database {damaged} is damaged (database disk image is "
                           "malformed) and could not be repaired (cannot keep a copy: Permission "
                           "denied); showing the ")
    assert N - 30 < json.loads(result.stdout)["attempts"] < N
    assert damaged.read_bytes() == before  # untouched


def test_salvage_steps_over_many_bad_pages(tmp_path):
    from drills.store import salvage as salvage_mod

    db = build(tmp_path / "h", 2000)
    found = leaves(db, "attempts")
    overwrite(db, found[3:6] + found[20:21] + found[-1:])
    src = sqlite3.connect(db)
    mem, kept = salvage_mod.fresh_copy(src)
    ids = [r for (r,) in mem.execute("SELECT id FROM attempts ORDER BY id")]
    assert ids[0] == 1 and len(ids) < 2000
    assert kept.total == 1 + 2 * 2000 and kept.kept == 1 + len(ids) + 2000
    # every readable leaf's rows are there: the lost ids are exactly the bad leaves' ones
    assert len(ids) > 2000 - 5 * 12
    src.close()
    mem.close()


def test_stats_on_a_damaged_store_object(damaged):
    with Store.open(damaged.parent) as s:
        data = stats(s)
        assert len(s.notices) == 1 and NOTICE.fullmatch(s.notices[0])
        assert N - 30 < data["attempts"] < N


# --- rows whose fields are damaged: left out and counted, never a traceback -------------------

@pytest.fixture
def spoiled(drills_home: Path) -> Path:
    """11 answers (tests.test_stats_cli's history) with three damaged fields, 6 cards due
    long ago, and three cards whose due is not a date."""
    from tests.test_stats_cli import att as stats_att

    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        for i in range(11):
            s.record_attempt(sid, stats_att(question_id=f"n{i}", verdict="wrong",
                                            misconceptions=("log2_rank",),
                                            generator="dcg_at_k" if i == 6 else None,
                                            params={"rel": [3, 2]} if i == 6 else None))
    db = drills_home / "drills.db"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE attempts SET misconceptions = '{bad' WHERE id = 2")
        conn.execute("""UPDATE attempts SET misconceptions = '"log2_rank"' WHERE id = 4""")
        conn.execute("UPDATE attempts SET params = 'not json' WHERE id = 7")
        conn.execute("UPDATE review_cards SET due = '2020-01-01T00:00:00.000000+00:00'")
        for key, due in (("q:n1", "0"), ("q:n3", "2020-02-30T00:00:00.000000+00:00"),
                         ("q:n5", "soon")):
            conn.execute("UPDATE review_cards SET due = ? WHERE item_key = ?", (due, key))
    return db


LEFT_OUT = ("Left out {} with a damaged field (misconceptions or params that are not JSON, "
            "a due date that is not a date).")


def test_stats_leaves_out_damaged_fields_and_counts_them(spoiled):
    result = cli_run("stats", "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == LEFT_OUT.format("2 answers and 3 review cards") + "\n"
    data = json.loads(result.stdout)
    assert data["attempts"] == 11 and data["misconceptions"] == {"log2_rank": 9}
    # their questions (n1...) are in no pack: due, not counted as due (drills.cli.due_now)
    assert data["review"]["cards"] == 8 and data["review"]["due"] == 0
    assert data["review"]["due_no_longer_in_a_pack"] == 8
    text = cli_run("stats")
    assert text.exit_code == 0 and "11 answers" in text.stdout


def test_export_leaves_out_damaged_rows_and_counts_them(spoiled):
    result = cli_run("history", "export", "--format", "json")
    assert result.exit_code == 0, result.output
    # the JSON export carries the review cards too: the 3 with a damaged due are left out
    assert result.stderr == LEFT_OUT.format("3 answers and 3 review cards") + "\n"
    ids = [row["attempt_id"] for row in json.loads(result.stdout)["attempts"]]
    assert ids == [1, 3, 5, 6, 8, 9, 10, 11]


def test_review_leaves_out_cards_whose_due_is_not_a_date(spoiled):
    result = cli_run("review", "--list", "--count", "20")
    assert result.exit_code == 0, result.output
    assert result.stderr == LEFT_OUT.format("3 review cards") + "\n"
    assert result.stdout.startswith("Nothing due for review in your packs; 8 due items no longer "
                                    "in any pack")
    for key in ("q:n1", "q:n3", "q:n5"):
        assert f"{key}:" not in result.stdout


def test_review_scheduling_skips_them_and_rebuilds_the_card_on_an_answer(spoiled):
    from drills.store.cards import due_cards, due_items, next_due

    with Store.open() as s:
        later = datetime(2030, 1, 1, tzinfo=timezone.utc)
        assert len(due_cards(s, later)) == 8 and "q:n1" not in due_items(s, later)
        assert next_due(s) == datetime(2020, 1, 1, tzinfo=timezone.utc)
        assert s.skipped == {"review_cards": {2, 4, 6}}
        s.record_attempt(1, att(1, question_id="n1", answered_at=None))
        assert "q:n1" in due_items(s, later)


def test_the_stores_own_recover_salvages_and_puts_back_its_session(damaged):
    # The recovery lives in the Store (drills.store.database): salvage only rebuilds
    # connections, so it is called here directly, as a read or a write meeting damage would.
    with Store.open(damaged.parent) as s:
        sid = s.start_session("practice", 2, {"from": "test"})
        s.recover(sqlite3.DatabaseError("database disk image is malformed"))
        (notice,) = s.notices
        m = NOTICE.fullmatch(notice)
        assert m, notice
        kept, total = (int(x.replace(",", "")) for x in m.group(2, 3))
        check_repaired(damaged, Path(m.group(1)), kept - 1, total - 1)  # less the new session
        assert s.conn.execute("SELECT mode, seed FROM sessions WHERE id = ?", (sid,)
                              ).fetchone() == ("practice", 2)
        s.record_attempt(sid, att(N + 1, answered_at=None))  # the repaired file takes answers


def test_salvage_and_home_need_no_store():
    # one way inside drills.store: the Store imports salvage and home, never the reverse
    for module in (home_mod, salvage_mod):
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "drills.store.database" not in imported and "drills.store" not in imported
    assert not hasattr(salvage_mod, "recover")


# --- damage found where the database is opened (issue 26, point 3) ----------------------------

def _older_schema(db: Path) -> None:
    """Take the database back to before migration 006, so opening it migrates: the new
    index reads every attempt and meets the damage at open."""
    with sqlite3.connect(db) as conn:
        conn.execute("DROP INDEX attempts_misconceptions_by_kind")
        conn.execute("ALTER TABLE attempts DROP COLUMN overridden")
        conn.execute("DELETE FROM migrations WHERE name = '006_attempt_overridden'")
    with sqlite3.connect(db) as conn:
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def test_a_database_damaged_at_open_keeps_its_readable_rows(drills_home):
    db = build(drills_home)
    _older_schema(db)
    middle = leaves(db, "attempts")
    overwrite(db, [middle[len(middle) // 2]])
    with Store.open(drills_home) as s:  # the migration meets the damage: moved, salvaged
        assert s.notice is not None
        m = NOTICE.fullmatch(s.notice)
        assert m, s.notice
        kept, total = (int(x.replace(",", "")) for x in m.group(2, 3))
        assert total - 60 < kept < total == 1 + 2 * N
        count = s.conn.execute("SELECT count(*) FROM attempts").fetchone()[0]
        assert N - 60 < count < N
        assert s.conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
        assert s.conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    aside = Path(m.group(1))
    assert aside.is_file() and aside.name.startswith("drills.db.corrupt-")
    result = cli_run("stats", "--json")  # the next command: a clean, migrated history
    assert result.exit_code == 0 and result.stderr == ""
    assert json.loads(result.stdout)["attempts"] == count
