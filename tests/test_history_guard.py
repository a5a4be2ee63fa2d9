"""``history_target``: no output file may be written over the history database."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from drills.store import Store
from drills.store.guard import history_target


@pytest.fixture
def db(drills_home: Path) -> Path:
    with Store.open() as s:
        s.start_session("practice", 1, {})
    return drills_home / "drills.db"


@pytest.mark.parametrize("name", ["drills.db", "drills.db-wal", "drills.db-shm"])
def test_the_history_files_by_name(drills_home, name):
    # -wal and -shm need not exist: SQLite creates them on the next open
    assert history_target(drills_home / name) == drills_home / name
    assert history_target(str(drills_home / name)) == drills_home / name


def test_other_files_are_not_history(drills_home, tmp_path):
    assert history_target(tmp_path / "out.csv") is None
    assert history_target(drills_home / "drills.db.corrupt-20260101T000000Z") is None
    assert history_target(drills_home / "packs" / "drills.db") is None
    assert history_target("") is None


def test_a_relative_name_and_dot_dot(db, monkeypatch):
    monkeypatch.chdir(db.parent)
    assert history_target("drills.db") == db
    assert history_target(f"../{db.parent.name}/./drills.db") == db


def test_through_a_symlink_to_the_file_or_the_home(db, tmp_path):
    link = tmp_path / "link.csv"
    link.symlink_to(db)
    assert history_target(link) == db
    wal_link = tmp_path / "wal.csv"
    wal_link.symlink_to(db.parent / "drills.db-wal")  # dangling until SQLite makes it
    assert history_target(wal_link) == db.parent / "drills.db-wal"
    home_link = tmp_path / "homelink"
    home_link.symlink_to(db.parent, target_is_directory=True)
    assert history_target(home_link / "drills.db") == db


def test_a_home_reached_through_a_symlink(db, tmp_path):
    alias = tmp_path / "alias"
    alias.symlink_to(db.parent, target_is_directory=True)
    assert history_target(db, home=alias) == alias / "drills.db"


def test_a_hard_link(db, tmp_path):
    hard = tmp_path / "hard.csv"
    os.link(db, hard)
    assert history_target(hard) == db


def test_a_descriptor_open_on_the_database(db):
    if not Path("/dev/fd").is_dir():
        pytest.skip("no /dev/fd")
    with open(db, "rb") as f:
        assert history_target(f"/dev/fd/{f.fileno()}") == db


# --- drills history export -o: refused before anything is written ---------------------

def _export(*args: str):
    from click.testing import CliRunner

    from drills.cli import cli

    return CliRunner().invoke(cli, ["history", "export", *args])


def _refused(result, target: Path) -> None:
    assert result.exit_code == 2, result.output
    assert result.output == (f"Error: refusing to write over the history database {target}; "
                             "choose another file\n")


@pytest.mark.parametrize("name", ["drills.db", "drills.db-wal", "drills.db-shm"])
def test_export_refuses_the_history_files(db, name):
    before = db.read_bytes()
    _refused(_export("-o", str(db.parent / name)), db.parent / name)
    assert db.read_bytes() == before
    with Store.open() as s:
        assert s.conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1


def test_export_refuses_a_symlink_and_a_hard_link_to_the_database(db, tmp_path):
    link = tmp_path / "link.csv"
    link.symlink_to(db)
    hard = tmp_path / "hard.csv"
    os.link(db, hard)
    before = db.read_bytes()
    _refused(_export("--format", "json", "-o", str(link)), db)
    _refused(_export("-o", str(hard)), db)
    assert link.is_symlink() and db.read_bytes() == before and hard.read_bytes() == before


def test_export_refuses_the_database_before_it_exists(drills_home):
    drills_home.mkdir()
    _refused(_export("-o", str(drills_home / "drills.db")), drills_home / "drills.db")
    assert sorted(p.name for p in drills_home.iterdir()) == []
