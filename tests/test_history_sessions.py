"""``drills history list`` and ``drills history show``: sessions and report cards again."""

from __future__ import annotations

import json
import re
import shlex
import sys
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.store import Attempt, Store
from tests.test_stats_cli import history  # noqa: F401 - the fixture: two sessions, 10 + 1 answers


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def local(text: str) -> str:
    return datetime.fromisoformat(text).astimezone().strftime("%Y-%m-%d %H:%M")


def started(session_id: int) -> str:
    with Store.open(readonly=True) as s:
        return s.conn.execute("SELECT started_at FROM sessions WHERE id = ?",
                              (session_id,)).fetchone()[0]


@pytest.mark.usefixtures("history")
def test_history_list_newest_first():
    result = run("history", "list")
    assert result.exit_code == 0, result.output
    head, *rows = result.stdout.splitlines()
    assert head.split() == ["ID", "WHEN", "(local)", "MODE", "SCORE", "SEED"]
    assert rows[0].split() == ["2", *local(started(2)).split(), "mock", "1/1", "2", "(not", "ended)"]
    assert rows[1].split() == ["1", *local(started(1)).split(), "practice", "3/10", "1"]
    assert len(rows) == 2


@pytest.mark.usefixtures("history")
def test_history_list_json_and_limit():
    data = json.loads(run("history", "list", "--json").stdout)
    assert [s["id"] for s in data] == [2, 1]
    assert {k: data[1][k] for k in ("mode", "seed", "answered", "correct", "score", "total")} == {
        "mode": "practice", "seed": 1, "answered": 10, "correct": 3, "score": 3, "total": 10}
    assert data[0]["ended_at"] is None and data[1]["ended_at"] is not None
    assert datetime.fromisoformat(data[0]["started_at"]).tzinfo == timezone.utc
    lines = run("history", "list", "--limit", "1").stdout.splitlines()
    assert len(lines) == 3 and lines[1].split()[0] == "2"
    assert lines[2] == "Showing the 1 most recent of 2 sessions; --limit N shows more."
    assert [s["id"] for s in json.loads(run("history", "list", "--json", "--limit", "1").stdout)] == [2]
    assert run("history", "list", "--limit", "0").exit_code == 2


def test_history_list_empty():
    result = run("history", "list")
    assert result.exit_code == 0
    assert result.stdout == "No sessions recorded yet. Run `drills` to start a practice session.\n"
    assert json.loads(run("history", "list", "--json").stdout) == []


@pytest.mark.usefixtures("history")
def test_history_show_is_the_report_card_again():
    result = run("history", "show", "1")
    assert result.exit_code == 0, result.output
    out = result.stdout
    lines = out.splitlines()
    assert lines[0] == f"Session 1 · practice · {local(started(1))} · seed 1"
    assert lines[1] == "Score: 3/10 correct (7 wrong); 0:40 answering."
    sections = [line for line in lines if line and not line.startswith(" ") and line[0].isupper()]
    assert sections[2:] == ["Score by topic", "Time per question", "Wrong formulas you used",
                            "What to review next", "Answers"]
    assert "  hand-computation       0/4" in lines and "  normalization          3/6" in lines
    assert "   7. hand-computation        0:04  wrong" in lines
    assert any(re.fullmatch(r"  linear_gain x4: .+", line) for line in lines)
    assert "  - hand-computation" in lines and "  - misconception linear_gain" in lines
    answers = lines[lines.index("Answers") + 1:]
    assert answers[0] == "   1. n0 (normalization): correct"
    assert answers[1:3] == ["      you answered: 0.8", "      the answer: 13/16 = 0.8125"]
    assert answers[3] == "   2. n1 (normalization): wrong"
    assert answers[6] == "      diagnosis: log2_rank"
    assert "\x1b" not in out


@pytest.mark.usefixtures("history")
def test_history_show_a_self_graded_answer_and_a_session_that_never_ended():
    out = run("history", "show", "2").stdout
    assert "Not ended: drills stopped before its summary" in out
    assert "   1. c1 (normalization): correct, self-graded good" in out
    assert "      you answered: (nothing)" in out


@pytest.mark.usefixtures("history")
def test_history_show_an_unknown_session_is_one_line_and_exit_2():
    for args in (["history", "show", "99"], ["history", "show", "0"],
                 ["history", "show", str(2**64)]):  # past SQLite's INTEGER: no session, no traceback
        result = run(*args)
        assert result.exit_code == 2
        assert result.output == ("Error: no session " + args[-1] + " in the history; "
                                 "`drills history list` shows the sessions\n")
    result = CliRunner().invoke(cli, ["history", "show", "7"])  # no history at all
    assert result.exit_code == 2 and result.output.startswith("Error: no session 7")


@pytest.mark.usefixtures("history")
def test_history_show_pages_when_taller_than_the_terminal(tmp_path, monkeypatch):
    import drills.cli.history.history as history_cli
    import drills.tui.pager as pager

    paged = tmp_path / "paged.txt"
    script = f"import sys; open({str(paged)!r}, 'w').write(sys.stdin.read())"
    monkeypatch.setenv("PAGER", shlex.join([sys.executable, "-c", script]))
    monkeypatch.setattr(history_cli, "_on_terminal", lambda: True)
    monkeypatch.setattr(pager, "terminal_rows", lambda: 20)
    result = run("history", "show", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert paged.read_text().startswith("Session 1 · practice")
    paged.unlink()
    monkeypatch.setattr(pager, "terminal_rows", lambda: 500)  # it fits: printed as is
    result = run("history", "show", "1")
    assert result.stdout.startswith("Session 1 · practice") and not paged.exists()
    monkeypatch.setattr(history_cli, "_on_terminal", lambda: False)  # piped: never paged
    monkeypatch.setattr(pager, "terminal_rows", lambda: 20)
    assert run("history", "show", "1").stdout.startswith("Session 1") and not paged.exists()


def test_history_text_is_shown_not_sent(drills_home):
    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        s.record_attempt(sid, Attempt("q\x1b[2J", "t\u202e", "numeric", "wrong", "a\x1b]52;c;x\x07",
                                      "1", 1.0, ("m\x1b[31m",), 2.0))
    out = run("history", "show", str(sid)).stdout
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert "q^[[2J (t<U+202E>): wrong" in out and "you answered: a^[]52;c;x^G" in out
    assert "m^[[31m" in out


@pytest.mark.usefixtures("history")
def test_history_colour_only_when_asked():
    colored = run("--color", "always", "history", "show", "1").stdout
    assert "\x1b[1mScore by topic\x1b[0m" in colored and "\x1b[31mwrong\x1b[0m" in colored
    assert "\x1b[1m" in run("--color", "always", "history", "list").stdout
    assert "\x1b" not in run("history", "show", "1").stdout
    assert "\x1b" not in run("history", "list").stdout


def test_history_show_survives_damaged_fields(drills_home):
    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        s.record_attempt(sid, Attempt("q1", "t", "numeric", "wrong", "1", "2", 2.0, ("x",), 3.0))
        s.conn.execute("UPDATE attempts SET seconds = 'slow', misconceptions = '{bad'")
        s.conn.execute("UPDATE sessions SET started_at = 'yesterday', options = '[1'")
    result = run("history", "show", str(sid))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Session 1 · practice · yesterday · seed 1")
    assert re.search(r"^   1\. t +0:00  wrong$", result.stdout, re.M)
    assert "Left out 1 answer with a damaged field" in result.stderr
    assert run("history", "list").exit_code == 0
