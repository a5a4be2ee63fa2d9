"""History across machines (issue 16): stable uids (migration 005), the self-describing JSON
export, ``drills history import`` (idempotent, two-way, foreign files, damaged rows, sessions,
review cards later-wins) and the learner's name in the config file."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.store import Attempt, Store
from drills.store import history_import as exchange
from drills.store import migrations as mig
from drills.store.history_export import COLUMNS

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
UID = re.compile(r"[0-9a-f]{32}")
LINE = re.compile(r"Imported from (.+): (\d+) attempts? \((\d+) already present\), (\d+) "
                  r"sessions?( \((\d+) updated\))?, (\d+) review cards? updated"
                  r"(; (\d+) damaged rows? skipped)?")


def att(question_id: str, minutes: int, verdict: str = "correct", **kw) -> Attempt:
    base = dict(topic="normalization", kind="numeric", given="0.8", expected="13/16",
                expected_value=0.8125, misconceptions=(), seconds=4.0)
    base.update(kw)
    return Attempt(question_id, verdict=verdict, answered_at=T0 + timedelta(minutes=minutes),
                   **base)


def run(home: Path, *args: str):
    return CliRunner(env={"DRILLS_HOME": str(home)}).invoke(cli, list(args))


def make_history(home: Path, tag: str, start: int = 0, *, end: bool = True) -> None:
    """Two sessions of answers on questions ``<tag>0..``: three, then two (one wrong)."""
    with Store.open(home) as s:
        for n, (count, seed) in enumerate(((3, 1), (2, 2))):
            sid = s.start_session("practice", seed, {"count": count})
            for i in range(count):
                s.record_attempt(sid, att(f"{tag}{n}{i}", start + 10 * n + i,
                                          "wrong" if (n, i) == (1, 1) else "correct",
                                          misconceptions=("linear_gain",) if (n, i) == (1, 1)
                                          else ()))
            if end:
                s.end_session(sid, count, count, {"review": []})


def export_file(home: Path, target: Path) -> Path:
    result = run(home, "history", "export", "--format", "json", "-o", str(target))
    assert result.exit_code == 0, result.output
    return target


def import_files(home: Path, *files: Path):
    return run(home, "history", "import", *map(str, files))


def counts(result) -> tuple[int, ...]:
    """(added, present, sessions, sessions updated, cards, damaged) from the report line."""
    m = LINE.fullmatch(result.stdout.strip())
    assert m, result.stdout
    return tuple(int(g or 0) for g in m.group(2, 3, 4, 6, 7, 9))


def table(home: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(home / "drills.db") as conn:
        return conn.execute(sql).fetchall()


def uids(home: Path) -> set[str]:
    return {u for (u,) in table(home, "SELECT uid FROM attempts")}


def attempts_by_session(home: Path) -> set[tuple[str, str]]:
    return set(table(home, "SELECT a.uid, s.uid FROM attempts a JOIN sessions s "
                           "ON s.id = a.session_id"))


# --- A. stable ids --------------------------------------------------------------------------

def _old_database(home: Path, monkeypatch) -> None:
    """A history written before 005_attempt_uid: two sessions, three answers."""
    with monkeypatch.context() as m:
        m.setattr(mig, "MIGRATIONS", [s for s in mig.MIGRATIONS if s[0] < "005_attempt_uid"])
        with Store.open(home) as s:
            for sid in (1, 2):
                s.conn.execute("INSERT INTO sessions(id, mode, seed, options, started_at) "
                               "VALUES (?, 'practice', 1, '{}', ?)", (sid, f"2026-11-0{sid}T10:00"
                                                                      ":00.000000+00:00"))
            for sid in (1, 1, 2):
                s.conn.execute("INSERT INTO attempts(session_id, question_id, topic, kind, "
                               "verdict, answered_at) VALUES (?, 'q', 't', 'numeric', "
                               "'correct', '2026-11-01T10:00:01.000000+00:00')", (sid,))
    columns = {row[1] for row in table(home, "PRAGMA table_info(attempts)")}
    assert "uid" not in columns


def test_the_migration_fills_a_unique_uid_for_every_old_row(tmp_path, monkeypatch):
    home = tmp_path / "old"
    _old_database(home, monkeypatch)
    with Store.open(home) as s:
        assert mig.pending(s.conn) == []
        attempt_uids = [u for (u,) in s.conn.execute("SELECT uid FROM attempts ORDER BY id")]
        session_uids = [u for (u,) in s.conn.execute("SELECT uid FROM sessions ORDER BY id")]
        for found in (attempt_uids, session_uids):
            assert all(UID.fullmatch(u) for u in found) and len(set(found)) == len(found)
            assert all(u[12] == "4" and u[16] in "89ab" for u in found)  # UUID4's version bits
        with pytest.raises(sqlite3.IntegrityError):
            s.conn.execute("UPDATE attempts SET uid = ? WHERE id = 2", (attempt_uids[0],))
        with pytest.raises(sqlite3.IntegrityError):
            s.conn.execute("UPDATE sessions SET uid = ? WHERE id = 2", (session_uids[0],))
        s.record_attempt(1, att("new", 5))
        new = s.conn.execute("SELECT uid FROM attempts WHERE question_id = 'new'").fetchone()[0]
    assert UID.fullmatch(new) and new not in attempt_uids
    indexes = {name for (name,) in table(home, "SELECT name FROM sqlite_master "
                                              "WHERE type = 'index'")}
    assert {"attempts_uid", "sessions_uid"} <= indexes


def test_every_new_answer_and_session_gets_its_own_uid(tmp_path):
    home = tmp_path / "h"
    with Store.open(home) as s:
        sid = s.start_session("mock", 3, {})
        s.record_attempt(sid, att("a", 1))
        s.record_attempts(sid, [att("b", 2), att("c", 3)])
    found = uids(home)
    assert len(found) == 3 and all(UID.fullmatch(u) for u in found)
    (session,) = table(home, "SELECT uid FROM sessions")
    assert UID.fullmatch(session[0])


def test_the_export_is_self_describing_with_uids_at_the_end(tmp_path):
    home = tmp_path / "a"
    make_history(home, "a")
    (home / "config.toml").write_text('[profile]\nlearner = "Ada  Lovelace"\n')
    data = json.loads(export_file(home, tmp_path / "a.json").read_text())
    assert data["drills_export"] == 1 and data["learner"] == "Ada Lovelace"
    assert data["attempt_columns"] == list(COLUMNS)
    assert COLUMNS[-3:] == ("uid", "session_uid", "overridden")
    datetime.fromisoformat(data["exported_at"])
    assert [tuple(row) for row in data["attempts"]] == [COLUMNS] * 5
    assert {row["uid"] for row in data["attempts"]} == uids(home)
    sessions = {s["uid"]: s for s in data["sessions"]}
    assert {(row["uid"], row["session_uid"]) for row in data["attempts"]} == \
        attempts_by_session(home)
    assert [(s["mode"], s["seed"], s["score"]) for s in data["sessions"]] == [
        ("practice", 1, 3), ("practice", 2, 2)]
    assert all(s["ended_at"] and s["report"] == {"review": []} for s in sessions.values())
    cards = {c["item_key"]: c for c in data["review_cards"]}
    assert set(cards) == {f"q:a{n}{i}" for n, i in ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1))}
    stored = dict(table(home, "SELECT item_key, card FROM review_cards"))
    assert all(json.loads(stored[k]) == c["card"] for k, c in cards.items())
    csv_head = run(home, "history", "export").stdout.splitlines()[0]
    assert csv_head.endswith(",scenario,step,uid,session_uid,overridden")


def test_the_learner_defaults_to_the_login_name(tmp_path, monkeypatch):
    import getpass

    from drills import config

    monkeypatch.setattr(getpass, "getuser", lambda: "grace")
    assert config.learner(config.Settings()) == "grace"
    assert config.learner(config.parse('[profile]\nlearner = "  "\n')) == "grace"

    def nobody() -> str:
        raise KeyError("getpwuid(): uid not found: 4242")

    monkeypatch.setattr(getpass, "getuser", nobody)
    assert config.learner(config.Settings()) == "learner"
    home = tmp_path / "h"
    make_history(home, "h")
    monkeypatch.setattr(getpass, "getuser", lambda: "grace")
    assert json.loads(export_file(home, tmp_path / "h.json").read_text())["learner"] == "grace"
    shown = run(home, "config").stdout
    assert "[profile]" in shown and "learner       grace (the login name)   (default)" in shown
    with pytest.raises(config.ConfigError, match=r"\[profile\] learner must be a string"):
        config.parse("[profile]\nlearner = 3\n")


# --- B. import -----------------------------------------------------------------------------

def test_importing_the_same_file_twice_adds_nothing(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    make_history(a, "a")
    make_history(b, "b", start=100)
    file = export_file(a, tmp_path / "a.json")
    first = import_files(b, file)
    assert first.exit_code == 0, first.output
    assert first.stdout == (f"Imported from {file}: 5 attempts (0 already present), 2 sessions, "
                            "5 review cards updated\n")
    before = table(b, "SELECT * FROM attempts ORDER BY id")
    again = import_files(b, file)
    assert again.exit_code == 0 and counts(again) == (0, 5, 0, 0, 0, 0)
    assert table(b, "SELECT * FROM attempts ORDER BY id") == before
    assert len(table(b, "SELECT id FROM sessions")) == 4
    own = export_file(b, tmp_path / "b.json")  # its own export: everything is already there
    assert counts(import_files(b, own)) == (0, 10, 0, 0, 0, 0)


def test_a_two_way_merge_leaves_both_with_the_same_answers(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    make_history(a, "a")
    make_history(b, "b", start=100)
    file_a, file_b = export_file(a, tmp_path / "a.json"), export_file(b, tmp_path / "b.json")
    assert uids(a).isdisjoint(uids(b))
    assert counts(import_files(b, file_a))[:3] == (5, 0, 2)
    assert counts(import_files(a, file_b))[:3] == (5, 0, 2)
    assert uids(a) == uids(b) and len(uids(a)) == 10
    assert attempts_by_session(a) == attempts_by_session(b)  # each answer in its own session
    sessions = "SELECT uid, mode, seed, started_at, ended_at, score, total FROM sessions"
    assert set(table(a, sessions)) == set(table(b, sessions))
    cards = "SELECT item_key, card, due, reviews, updated_at FROM review_cards"
    assert set(table(a, cards)) == set(table(b, cards))
    # and once merged, each machine's export adds nothing to the other
    assert counts(import_files(a, export_file(b, tmp_path / "b2.json")))[:3] == (0, 10, 0)


def test_imported_sessions_keep_their_fields_and_answers(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    make_history(a, "a", end=False)  # exported while both sessions were still open
    make_history(b, "b", start=100)
    import_files(b, export_file(a, tmp_path / "a1.json"))
    rows = table(b, "SELECT id, mode, seed, options, ended_at FROM sessions ORDER BY id")
    assert [(r[1], r[2], r[4]) for r in rows[2:]] == [("practice", 1, None), ("practice", 2, None)]
    assert all(json.loads(r[3])["imported"] is True for r in rows[2:])
    shown = run(b, "history", "show", str(rows[2][0])).stdout
    assert all(f"a0{i}" in shown for i in range(3)) and "b00" not in shown
    listed = run(b, "history", "list").stdout
    assert listed.count("(imported, not ended)") == 2
    with Store.open(a) as s:  # the sessions end on machine A; the next import brings the ends
        for sid in (1, 2):
            s.end_session(sid, 1, 3, {"review": ["x"]})
    again = import_files(b, export_file(a, tmp_path / "a2.json"))
    assert counts(again) == (0, 5, 0, 2, 0, 0)
    ends = table(b, "SELECT ended_at, score, total, report FROM sessions WHERE id > 2")
    assert all(e[0] and e[1:3] == (1, 3) and json.loads(e[3]) == {"review": ["x"]} for e in ends)


def test_resume_never_offers_another_machines_session(tmp_path):
    from drills.cli.quiz.flow import last_unfinished

    a, b = tmp_path / "a", tmp_path / "b"
    with Store.open(a) as s:
        sid = s.start_session("practice", 7, {"count": 5})
        s.record_attempt(sid, att("a", 1))
    make_history(b, "b", start=100)
    import_files(b, export_file(a, tmp_path / "a.json"))
    with Store.open(a) as s:
        assert last_unfinished(s) is not None  # on its own machine it can be resumed
    with Store.open(b) as s:
        assert last_unfinished(s) is None


def _card_at(home: Path, minutes: int, verdict: str) -> None:
    with Store.open(home) as s:
        sid = s.start_session("practice", 1, {})
        s.record_attempt(sid, att("shared", minutes, verdict))


def test_review_cards_take_the_later_review(tmp_path):
    early, late = tmp_path / "early", tmp_path / "late"
    _card_at(early, 0, "wrong")
    _card_at(late, 60, "correct")
    card = "SELECT card, due, reviews, updated_at FROM review_cards WHERE item_key = 'q:shared'"
    later = table(late, card)
    assert table(early, card) != later
    assert counts(import_files(early, export_file(late, tmp_path / "late.json")))[4] == 1
    assert table(early, card) == later  # the card text byte for byte as fsrs wrote it
    assert counts(import_files(late, export_file(early, tmp_path / "early.json")))[4] == 0
    assert table(late, card) == later
    assert json.loads(later[0][0])["last_review"].startswith("2026-11-20T10:00")


def test_the_older_bare_list_export_is_imported_once(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    make_history(a, "a")
    rows = json.loads(export_file(a, tmp_path / "a.json").read_text())["attempts"]
    legacy = tmp_path / "legacy.json"
    legacy.write_text(json.dumps([{k: r[k] for k in COLUMNS[:18]} for r in rows]))
    assert counts(import_files(b, legacy)) == (5, 0, 2, 0, 0, 0)
    assert counts(import_files(b, legacy)) == (0, 5, 0, 0, 0, 0)
    assert sorted(q for (q,) in table(b, "SELECT question_id FROM attempts")) == \
        ["a00", "a01", "a02", "a10", "a11"]
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    assert counts(import_files(b, empty)) == (0, 0, 0, 0, 0, 0)


# --- foreign files and damaged rows -------------------------------------------------------------

def _foreign(tmp_path: Path, kind: str) -> tuple[Path, str]:
    path = tmp_path / f"{kind}.json"
    if kind == "text":
        path.write_text("these are my notes, not an export\n")
        return path, "not JSON at line 1 column 1"
    if kind == "csv":
        home = tmp_path / "csv-home"
        make_history(home, "c")
        path.write_text(run(home, "history", "export").stdout)
        return path, "is the CSV export"
    if kind == "binary":
        path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
        return path, "a binary file"
    if kind == "latin1":
        path.write_bytes('{"learner": "Jos\xe9"}'.encode("latin-1"))
        return path, "not UTF-8 text"
    if kind == "object":
        path.write_text('{"answers": []}')
        return path, 'without "drills_export"'
    if kind == "numbers":
        path.write_text("[1, 2, 3]")
        return path, "a JSON list, but not of answers"
    if kind == "scalar":
        path.write_text('"drills"')
        return path, "JSON a string, not an object"
    if kind == "newer":
        path.write_text('{"drills_export": 2, "attempts": []}')
        return path, "written by a newer drills (export format 2)"
    if kind == "attempts-not-a-list":
        path.write_text('{"drills_export": 1, "attempts": {"a": 1}}')
        return path, "attempts is not a list"
    if kind == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000)
        return path, "nested too deep"
    if kind == "huge":
        with open(path, "wb") as f:  # sparse: no disk needed
            f.truncate(exchange.MAX_BYTES + 1)
        return path, "larger than 128 MB"
    if kind == "folder":
        path.mkdir()
        return path, "is a folder"
    if kind == "missing":
        return path, "cannot read"
    raise AssertionError(kind)


FOREIGN = ["text", "csv", "binary", "latin1", "object", "numbers", "scalar", "newer",
           "attempts-not-a-list", "deep", "huge", "folder", "missing"]


@pytest.mark.parametrize("kind", FOREIGN)
def test_a_file_that_is_not_an_export_is_one_line_and_writes_nothing(tmp_path, kind):
    home = tmp_path / "b"
    make_history(home, "b")
    other = tmp_path / "other"
    make_history(other, "o")
    good = export_file(other, tmp_path / "other.json")  # before the bad one: not merged either
    before = {t: table(home, f"SELECT * FROM {t}") for t in ("attempts", "sessions", "review_cards")}
    path, says = _foreign(tmp_path, kind)
    result = import_files(home, good, path)
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("Error: ") and says in result.stderr, result.stderr
    assert "Traceback" not in result.output
    assert {t: table(home, f"SELECT * FROM {t}") for t in before} == before


def test_a_bad_file_creates_no_history(tmp_path):
    home = tmp_path / "none"
    path, _ = _foreign(tmp_path, "text")
    assert import_files(home, path).exit_code == 2
    assert not home.exists()
    assert run(home, "history", "import").exit_code == 2  # FILE is required


def test_damaged_rows_are_skipped_and_counted(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    make_history(a, "a")
    data = json.loads(export_file(a, tmp_path / "a.json").read_text())
    rows = data["attempts"]
    del rows[0]["topic"]  # a missing field
    rows[1]["seconds"] = "fast"  # a wrong type
    rows[2]["verdict"] = "brilliant"  # an unknown verdict
    data["attempts"].append("not an answer")
    data["attempts"].append({**rows[3], "uid": "not-a-uid"})
    data["attempts"].append({**rows[3], "uid": "f" * 32, "session_uid": "0" * 32})  # no session
    data["review_cards"][0]["card"] = "{broken"
    data["review_cards"][1]["due"] = "tomorrow"
    data["sessions"].append({"uid": "e" * 32, "mode": "party", "started_at": T0.isoformat()})
    spoiled = tmp_path / "spoiled.json"
    spoiled.write_text(json.dumps(data))
    result = import_files(b, spoiled)
    assert result.exit_code == 1, result.output  # merged, but not everything: a check failed
    assert counts(result) == (2, 0, 2, 0, 3, 9)
    assert result.stdout.rstrip().endswith("; 9 damaged rows skipped")
    assert {q for (q,) in table(b, "SELECT question_id FROM attempts")} == {"a10", "a11"}
    with Store.open(b) as s:  # the answers that came in are whole
        s.record_attempt(1, att("after", 500))


def test_an_export_with_a_control_character_in_its_name_is_named_visibly(tmp_path):
    home = tmp_path / "b"
    path = tmp_path / "bad\x1b[31mname.json"
    path.write_text("nope")
    result = import_files(home, path)
    assert result.exit_code == 2 and "\x1b" not in result.stderr


def test_import_help_says_what_merges_how():
    result = CliRunner().invoke(cli, ["history", "import", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "same uid" in text and "later review wins" in text and "twice adds nothing" in text


def _legacy_of(export: Path, target: Path) -> Path:
    """The bare list an older drills wrote for the same answers: no uids."""
    rows = json.loads(export.read_text())["attempts"]
    target.write_text(json.dumps([{k: v for k, v in r.items() if k not in ("uid", "session_uid")}
                                  for r in rows]))
    return target


def test_an_older_export_of_the_same_answers_adds_nothing_in_either_order(tmp_path):
    """Its uids come from the rows' content, the migration gave the same rows random ones:
    the same answers (question, verdict, seconds, time to the microsecond) are not stored twice."""
    a = tmp_path / "a"
    make_history(a, "a")
    new = export_file(a, tmp_path / "a.json")
    old = _legacy_of(new, tmp_path / "old.json")
    assert counts(import_files(a, old))[:2] == (0, 5)  # into the machine it came from
    b = tmp_path / "b"
    assert counts(import_files(b, old))[:2] == (5, 0)
    assert counts(import_files(b, new))[:2] == (0, 5)  # the same answers under their new uids
    assert len(uids(b)) == 5


def test_impossible_rows_and_a_uid_given_twice_are_damaged(tmp_path):
    a = tmp_path / "a"
    make_history(a, "a")
    data = json.loads(export_file(a, tmp_path / "a.json").read_text())
    rows = data["attempts"]
    rows[0]["seconds"] = 1e308  # longer than any session drills runs
    rows[1]["answered_at"] = "9999-12-31T23:59:59+00:00"  # from the future
    rows[3]["uid"] = rows[2]["uid"]  # two answers claiming one uid: the second is not trusted
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    added, present, sessions, _, _, damaged = counts(import_files(tmp_path / "b", path))
    assert (added, present, sessions, damaged) == (2, 0, 2, 3)


def test_history_list_puts_imported_older_sessions_by_their_own_time(tmp_path):
    """Imported sessions get new local ids: listed by id, an older machine's sessions looked newest."""
    a, b = tmp_path / "a", tmp_path / "b"
    make_history(a, "a", start=0)  # sessions at T0 and T0 + 10 min
    make_history(b, "b", start=100)  # later ones
    import_files(b, export_file(a, tmp_path / "a.json"))
    listed = json.loads(run(b, "history", "list", "--json").output)
    starts = [s["started_at"] for s in listed]
    assert len(listed) == 4 and starts == sorted(starts, reverse=True)
    assert [s["id"] for s in listed][:2] == [2, 1]  # b's own sessions, the newest, come first
