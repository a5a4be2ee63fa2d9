"""``drills stats`` and ``drills history export`` through the command line."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import COMMANDS, cli
from drills.cli.stats import bar, sparkline
from drills.store import Attempt, Store
from drills.store.export import COLUMNS

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
    assert "Trend, last 2 sessions" in out
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
    assert "moved to" in result.output and ".corrupt-" in result.output


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
    data = json.loads(target.read_text(encoding="utf-8"))
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
