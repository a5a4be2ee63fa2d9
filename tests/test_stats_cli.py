"""``drills stats`` and ``drills history export`` through the command line."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import COMMANDS, cli
from drills.cli.stats.report import sparkline
from drills.cli.style import bar
from drills.store import Attempt, Store
from drills.store.history_export import COLUMNS

ROOT = Path(__file__).resolve().parent.parent


def att(**kw) -> Attempt:
    base = dict(question_id="q1", topic="normalization", kind="numeric", verdict="correct",
                given="0.8", expected="13/16", expected_value=0.8125, misconceptions=(),
                seconds=4.0)
    base.update(kw)
    return Attempt(**base)


@pytest.fixture
def history(drills_home):
    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        for i in range(6):
            s.record_attempt(sid, att(question_id=f"n{i}", verdict="wrong" if i % 2 else "correct",
                                      misconceptions=("log2_rank",) if i % 2 else ()))
        for i in range(4):
            s.record_attempt(sid, att(question_id=f"g{i}", topic="hand-computation",
                                      kind="generated", generator="dcg_at_k",
                                      params={"rel": [3, 2, 1]}, verdict="wrong",
                                      misconceptions=("linear_gain",)))
        s.end_session(sid, 3, 10, {})
        sid2 = s.start_session("mock", 2, {})
        s.record_attempt(sid2, att(question_id="c1", kind="concept", self_grade="good",
                                   given=None, expected=None, expected_value=None))
    return drills_home


def test_commands_are_registered_with_help():
    for name in ("stats", "history", "review"):
        assert name in COMMANDS
        result = CliRunner().invoke(cli, [name, "--help"])
        assert result.exit_code == 0 and "Usage:" in result.output
    assert CliRunner().invoke(cli, ["history", "export", "--help"]).exit_code == 0


def test_stats_empty_is_friendly():
    result = CliRunner().invoke(cli, ["stats"])
    assert result.exit_code == 0
    assert result.output.startswith("No answers recorded yet.")


def test_stats_json_empty_is_valid():
    result = CliRunner().invoke(cli, ["stats", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.output)["attempts"] == 0


def test_stats_json_keys(history):
    result = CliRunner().invoke(cli, ["stats", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {"attempts", "correct", "sessions", "by_topic", "by_kind", "misconceptions", "trend",
            "mean_seconds", "streak", "practise_next", "review"} <= set(data)
    assert data["attempts"] == 11 and data["correct"] == 4 and data["sessions"] == 2
    assert data["by_topic"]["hand-computation"]["attempts"] == 4
    assert data["by_topic"]["normalization"]["correct"] == 4
    assert data["by_kind"]["generated"] == {"attempts": 4, "correct": 0, "accuracy": 0.0,
                                            "mean_seconds": 4.0}
    assert data["misconceptions"] == {"linear_gain": 4, "log2_rank": 3}
    assert [t["session_id"] for t in data["trend"]] == [1, 2]
    assert data["streak"] == {"days": 1, "correct": 1}
    assert data["practise_next"]["topics"][0]["topic"] == "hand-computation"
    assert data["practise_next"]["misconceptions"][0]["id"] == "linear_gain"
    assert data["review"]["cards"] == 8  # 6 + 1 fixed questions, 1 generated skill


def test_stats_text(history):
    result = CliRunner().invoke(cli, ["stats"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("11 answers in 2 sessions: 4 correct (36%)")
    assert "Accuracy by topic" in out and "Accuracy by kind" in out
    assert "hand-computation" in out and "█" in out
    assert "Accuracy per session, last 2 sessions (oldest first):" in out
    assert "Top wrong formulas" in out and "linear_gain" in out
    assert "Practise next" in out
    assert "drills review" in out
    assert "\x1b[" not in out  # no colour codes


def test_bars_and_sparklines():
    assert bar(0.5, 10) == "█████░░░░░"
    assert bar(1.2, 4) == "████" and bar(-1, 4) == "░░░░"
    assert bar(0.25, 4, unicode=False) == "#..."
    assert sparkline([0.0, 0.5, 1.0]) == "▁▅█"
    assert sparkline([0.0, 1.0], unicode=False) == "_@"


def test_stats_unwritable_home_is_a_one_line_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("DRILLS_HOME", str(blocker / "home"))
    result = CliRunner().invoke(cli, ["stats"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: cannot create the drills directory")


def test_stats_reports_a_recovered_database(drills_home):
    drills_home.mkdir(parents=True)
    (drills_home / "drills.db").write_bytes(b"garbage" * 500)
    result = CliRunner().invoke(cli, ["stats"])
    assert result.exit_code == 0
    assert "the damaged file was kept as" in result.output and ".corrupt-" in result.output
    assert "Nothing in it could be read, so a fresh one was started." in result.output


def test_stats_process_does_not_import_sympy_or_prompt_toolkit(history):
    code = ("import sys, runpy; sys.argv = ['drills', 'stats']\n"
            "try:\n    runpy.run_module('drills', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('sympy', 'prompt_toolkit', 'fsrs')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


# --- export -----------------------------------------------------------------------------

def test_export_csv_to_stdout(history):
    result = CliRunner().invoke(cli, ["history", "export", "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert len(rows) == 11 and tuple(rows[0]) == COLUMNS
    gen = rows[6]
    assert gen["generator"] == "dcg_at_k" and json.loads(gen["params"]) == {"rel": [3, 2, 1]}
    assert gen["misconceptions"] == "linear_gain"
    assert rows[-1]["self_grade"] == "good" and rows[-1]["given"] == ""
    datetime.fromisoformat(rows[0]["answered_at"]).astimezone(timezone.utc)


def test_export_json_to_file(history, tmp_path):
    target = tmp_path / "out.json"
    result = CliRunner().invoke(cli, ["history", "export", "--format", "json", "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert "Exported 11 answers" in result.output
    data = json.loads(target.read_text(encoding="utf-8"))["attempts"]
    assert len(data) == 11 and all(tuple(d) == COLUMNS for d in data)
    assert data[1]["misconceptions"] == ["log2_rank"] and data[0]["params"] is None
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.json")] == []


def test_export_csv_default_and_empty(tmp_path):
    target = tmp_path / "out.csv"
    result = CliRunner().invoke(cli, ["history", "export", "--output", str(target)])
    assert result.exit_code == 0
    assert target.read_text().splitlines() == [",".join(COLUMNS)]


def test_export_to_missing_directory_is_an_error(history, tmp_path):
    result = CliRunner().invoke(cli, ["history", "export", "-o", str(tmp_path / "no" / "x.csv")])
    assert result.exit_code != 0
    assert "Traceback" not in result.output


# --- read-only commands: no write access needed, nothing created -----------------------------

@pytest.mark.parametrize("args,says", [
    (["stats"], "No answers recorded yet"),
    (["stats", "--json"], '"attempts": 0'),
    (["history", "export"], ",".join(COLUMNS)),
    (["review", "--list"], "Nothing is due. No reviews are scheduled yet"),
])
def test_reading_an_empty_history_creates_nothing(drills_home, args, says):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert says in result.stdout and result.stderr == ""
    assert not drills_home.exists()


def test_reading_an_empty_home_creates_no_database(drills_home):
    drills_home.mkdir()
    assert CliRunner().invoke(cli, ["stats"]).exit_code == 0
    assert list(drills_home.iterdir()) == []


def test_read_only_commands_never_take_the_write_lock(history, monkeypatch):
    # Root ignores file modes, so a read-only file is simulated: any write lock fails as
    # SQLite fails on one; opening for stats, export and review --list must not need it.
    import drills.store.database as store_database

    def refuse(conn):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(store_database, "check_writable", refuse)
    for args in (["stats"], ["history", "export"], ["review", "--list"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, (args, result.output)
        assert result.stderr == ""
    assert "11 answers in 2 sessions" in CliRunner().invoke(cli, ["stats"]).stdout


def test_the_read_only_store_is_opened_read_only(history):
    with Store.open(readonly=True) as s:
        assert s.readonly and not s.memory
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            s.conn.execute("DELETE FROM attempts")
    with Store.open() as s:
        assert s.conn.execute("SELECT count(*) FROM attempts").fetchone() == (11,)


def test_a_read_only_folder_without_a_wal_is_read_immutable(history, monkeypatch):
    # In a read-only folder SQLite cannot create the -shm a WAL database needs, even for
    # mode=ro (SQLITE_READONLY_DIRECTORY); simulated, since root may create it anyway.
    from drills.store import connection, home

    opened = []
    real = connection.connect

    def connect(path, *, readonly=False, immutable=False):
        opened.append((readonly, immutable))
        if readonly and not immutable:
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real(path, readonly=readonly, immutable=immutable)

    monkeypatch.setattr(home, "connect", connect)
    result = CliRunner().invoke(cli, ["stats", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["attempts"] == 11
    assert opened == [(True, False), (True, True)]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root ignores file modes (the simulated tests above cover it)")
def test_a_read_only_home_for_real(history):
    db = history / "drills.db"
    db.chmod(0o444)
    history.chmod(0o555)
    try:
        for args in (["stats"], ["history", "export"], ["review", "--list"]):
            result = CliRunner().invoke(cli, args)
            assert result.exit_code == 0, (args, result.output)
    finally:
        history.chmod(0o755)
        db.chmod(0o644)


# --- a bad DRILLS_HOME is said in words ------------------------------------------------------

@pytest.mark.parametrize("args", [["stats"], ["history", "export"], ["practice", "--count", "1"]])
def test_a_symlink_loop_home_is_named(tmp_path, monkeypatch, args):
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    monkeypatch.setenv("DRILLS_HOME", str(loop))
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert result.output == (f"Error: DRILLS_HOME {loop} is a symbolic link loop "
                             "(set DRILLS_HOME to a writable directory)\n")


@pytest.mark.parametrize("args", [["stats"], ["review", "--list"], ["practice", "--count", "1"]])
def test_a_home_that_is_a_file_is_named(tmp_path, monkeypatch, args):
    home = tmp_path / "home.txt"
    home.write_text("x")
    monkeypatch.setenv("DRILLS_HOME", str(home))
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert result.output == (f"Error: DRILLS_HOME {home} is a file, not a directory "
                             "(set DRILLS_HOME to a writable directory)\n")


def test_a_dangling_symlink_home_is_named(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.symlink_to(tmp_path / "gone")
    monkeypatch.setenv("DRILLS_HOME", str(home))
    result = CliRunner().invoke(cli, ["practice", "--count", "1"])
    assert result.exit_code == 1
    assert result.output == (f"Error: DRILLS_HOME {home} is a symbolic link to {tmp_path / 'gone'}, "
                             "which does not exist (set DRILLS_HOME to a writable directory)\n")


def test_json_output_escapes_c1_and_bidi_controls(drills_home):
    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        s.record_attempt(sid, att(given="a\u202eb\x9bc", topic="t\u2066x",
                                  generator="g", params={"note": "\u202e"}))
    for args in (["stats", "--json"], ["history", "export", "--format", "json"],
                 ["history", "export"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        assert not any(ch in result.stdout for ch in "\u202e\x9b\u2066"), args
    data = json.loads(CliRunner().invoke(cli, ["history", "export", "--format", "json"]).stdout
                      )["attempts"]
    assert data[0]["given"] == "a\u202eb\x9bc" and data[0]["params"] == {"note": "\u202e"}
    assert "t\u2066x" in json.loads(CliRunner().invoke(cli, ["stats", "--json"]).stdout)["by_topic"]


def test_text_from_the_history_is_shown_not_sent(capsys):
    from drills.cli.review import review as review_cli
    from drills.cli.stats.report import render
    from drills.store.schedule import DueNow

    g = {"attempts": 3, "correct": 0, "accuracy": 0.0, "mean_seconds": 1.0}
    data = {"attempts": 3, "sessions": 1, "correct": 0, "accuracy": 0.0, "mean_seconds": 1.0,
            "streak": {"days": 1, "correct": 0}, "by_topic": {"t\x1b]52;c;x\x07": g},
            "by_kind": {"numeric": g}, "trend": [], "misconceptions": {"m\x1b[2J": 3},
            "practise_next": {"topics": [{"topic": "t\x1b]52;c;x\x07", "accuracy": 0.0,
                                          "attempts": 3}],
                              "misconceptions": [{"id": "m\x1b[2J", "count": 3,
                                                  "topics": ["t\u202e"]}]},
            "review": {"cards": 0, "due": 0, "next_due": None}}
    text = render(data, unicode=False)
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "t^[]52;c;x^G" in text and "m^[[2J" in text
    now = datetime.now(timezone.utc)
    review_cli._list(DueNow([], [("q:\x1b[2Jgone", now)], [], None, 0), 5, now, [])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "q:^[[2Jgone: no longer in any pack" in out


# --- activity, difficulty, colour -----------------------------------------------------------

def test_stats_activity_per_local_day(drills_home):
    from datetime import timedelta

    now = datetime.now(timezone.utc)
    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        for ago in (0, 2, 2, 2, 40):
            s.record_attempt(sid, att(answered_at=now - timedelta(days=ago)))
    data = json.loads(CliRunner().invoke(cli, ["stats", "--json"]).stdout)
    activity = data["activity"]
    assert len(activity) == 30
    days = [datetime.fromisoformat(d["date"]).date() for d in activity]
    assert days[-1] == now.astimezone().date()
    assert all(b - a == timedelta(days=1) for a, b in zip(days[:-1], days[1:], strict=True))
    counts = {d["date"]: d["attempts"] for d in activity}
    assert counts[now.astimezone().date().isoformat()] == 1
    assert counts[(now - timedelta(days=2)).astimezone().date().isoformat()] == 3
    assert sum(counts.values()) == 4  # the answer 40 days ago is outside the window
    lines = CliRunner().invoke(cli, ["stats"]).stdout.splitlines()
    at = lines.index("Activity, last 30 days (one mark a day, today last):")
    marks, _, totals = lines[at + 1].strip().partition("  ")
    assert len(marks) == 30 and marks.count("·") == 28
    assert marks[-1] == "▃" and marks[-3] == "█"  # 1 and 3 answers, scaled to the busiest day
    assert totals == "2 days, 4 answers"
    assert max(len(line) for line in lines[at:at + 2]) <= 60


def test_stats_split_by_difficulty(drills_home):
    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        for verdict, difficulty in (("correct", "hard"), ("wrong", "hard"), ("correct", "easy"),
                                    ("correct", "easy"), ("wrong", None)):
            s.record_attempt(sid, att(verdict=verdict, difficulty=difficulty, seconds=2.0))
    data = json.loads(CliRunner().invoke(cli, ["stats", "--json"]).stdout)
    assert list(data["by_difficulty"]) == ["easy", "hard"]
    assert data["by_difficulty"]["hard"] == {"attempts": 2, "correct": 1, "accuracy": 0.5,
                                             "mean_seconds": 2.0}
    assert data["by_difficulty"]["easy"]["accuracy"] == 1.0
    assert data["no_difficulty"] == 1
    out = CliRunner().invoke(cli, ["stats"]).stdout
    block = out.split("Accuracy by difficulty\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split()[0] for line in block[:2]] == ["easy", "hard"]
    assert block[0].endswith("100%  2/2") and block[1].endswith(" 50%  1/2")
    assert block[2] == "  (1 earlier answer has no difficulty recorded)"


def test_stats_without_recorded_difficulty_has_no_difficulty_section(history):
    assert "Accuracy by difficulty" not in CliRunner().invoke(cli, ["stats"]).stdout


def test_stats_colour_only_when_asked_or_on_a_terminal(history, monkeypatch):
    import re

    colored = CliRunner().invoke(cli, ["--color", "always", "stats"]).stdout
    assert "\x1b[1mAccuracy by topic\x1b[0m" in colored
    # normalization 4/7 = 57%: yellow; hand-computation 0/4: red; kind concept 1/1: green
    assert re.search(r"normalization +\x1b\[33m█+░+\x1b\[0m \x1b\[33m 57%\x1b\[0m", colored)
    assert re.search(r"hand-computation +\x1b\[31m░+\x1b\[0m \x1b\[31m  0%\x1b\[0m", colored)
    assert re.search(r"concept +\x1b\[32m█+\x1b\[0m \x1b\[32m100%\x1b\[0m", colored)
    codes = set(re.findall(r"\x1b\[[0-9;]*m", colored))
    assert codes <= {"\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[33m"}
    plain = CliRunner().invoke(cli, ["stats"]).stdout  # CliRunner's stdout is a pipe
    assert "\x1b" not in plain
    assert re.sub(r"\x1b\[[0-9;]*m", "", colored) == plain
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[1m" in CliRunner().invoke(cli, ["stats"]).stdout
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b" not in CliRunner().invoke(cli, ["stats"]).stdout
    assert "\x1b" not in CliRunner().invoke(cli, ["--color", "never", "stats"]).stdout


def test_piped_stats_process_has_no_colour(history):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")}
    out = subprocess.run([sys.executable, "-m", "drills", "stats"], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("11 answers in 2 sessions") and "\x1b" not in out
    forced = subprocess.run([sys.executable, "-m", "drills", "--color", "always", "stats"],
                            cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    assert "\x1b[1mAccuracy by topic\x1b[0m" in forced
