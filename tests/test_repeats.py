"""Questions of the last sessions are left for later (issue 23, point 5), and a first session
really starts easy (point 6): through practice, mock and resume, with pipe input.

A plan stays a function of its seed and the recent questions as of its first run: a seed
used before gives that session's questions again, and a resume rebuilds the same plan."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli

SIX = """\
pack:
  name: six-test
  version: "1.0.0"
  description: Six fixed questions whose answer is 1.
questions:
""" + "".join(f"""  - id: six-{n}
    topic: six
    kind: numeric
    difficulty: {"easy" if n <= 2 else "medium" if n <= 4 else "hard"}
    prompt: "MARK-{n}: grades [1]; exponential gain. DCG@1?"
    problem: {{relevance: [1], k: 1, gain: exponential}}
    metric: dcg
""" for n in range(1, 7))
ALL_SIX = {f"six-{n}" for n in range(1, 7)}


@pytest.fixture
def six(tmp_path, drills_home) -> str:
    path = tmp_path / "six.yaml"
    path.write_text(SIX, encoding="utf-8")
    return str(path)


def run(*args: str, input: str = ""):
    result = CliRunner().invoke(cli, list(args), input=input)
    assert result.exit_code == 0, result.output
    return result


def sessions(drills_home: Path) -> list[tuple[int, str, list[str], dict]]:
    """(id, mode, question ids asked in order, options) of every session."""
    with sqlite3.connect(drills_home / "drills.db") as db:
        rows = db.execute("SELECT id, mode, options FROM sessions ORDER BY id").fetchall()
        return [(sid, mode, [q for (q,) in db.execute(
            "SELECT question_id FROM attempts WHERE session_id = ? ORDER BY id", (sid,))],
            json.loads(options)) for sid, mode, options in rows]


def test_the_next_session_leaves_the_last_ones_questions_for_later(six, drills_home):
    first = run("practice", "--pack", six, "--count", "4", input=":skip\n" * 4)
    assert "answered in your last sessions" not in first.output
    asked1 = sessions(drills_home)[0][2]
    assert len(set(asked1)) == 4
    second = run("practice", "--pack", six, "--count", "4", input=":skip\n" * 4)
    asked2 = sessions(drills_home)[1][2]
    fresh = ALL_SIX - set(asked1)
    assert asked2[:2] and set(asked2[:2]) == fresh  # the two never asked come first
    assert set(asked2[2:]) <= set(asked1)  # then the pool ran out: two came back
    assert ("2 of these 4 questions were answered in your last sessions: too few others match "
            "these options, so they came back.") in " ".join(second.output.split())
    # said right under the summary
    tail = second.output.split("Session over.")[1]
    assert "answered in your last sessions" in tail


def test_a_mock_after_practice_asks_other_questions_of_the_bank(drills_home):
    """The issue: the same question in a mock five minutes after practice, and in two mocks."""
    run("practice", "--count", "10", input=":skip\n" * 10)
    run("mock", "--count", "8", input=":skip\n" * 8)
    run("mock", "--count", "8", input=":skip\n" * 8)
    with sqlite3.connect(drills_home / "drills.db") as db:  # generated ones may come back
        practised, mock1, mock2 = ({q for (q,) in db.execute(
            "SELECT DISTINCT coalesce(scenario, question_id) FROM attempts WHERE session_id = ? "
            "AND generator IS NULL", (sid,))} for sid in (1, 2, 3))
    assert practised and mock1 and mock2
    assert not practised & mock1
    assert not (practised | mock1) & mock2


def test_a_seed_used_before_gives_that_sessions_questions_again(six, drills_home):
    run("practice", "--pack", six, "--count", "3", input=":skip\n" * 3)
    first = run("practice", "--pack", six, "--count", "3", "--seed", "21", input=":skip\n" * 3)
    run("practice", "--pack", six, "--count", "3", input=":skip\n" * 3)
    again = run("practice", "--pack", six, "--count", "3", "--seed", "21", input=":skip\n" * 3)
    rows = sessions(drills_home)
    assert rows[3][2] == rows[1][2]  # the same questions, in the same order
    assert rows[3][3]["recent"] == rows[1][3]["recent"] == sorted(set(rows[0][2]))
    assert first.output.count("MARK-") == again.output.count("MARK-")


def test_a_resume_rebuilds_the_plan_made_with_the_recent_questions(six, drills_home):
    run("practice", "--pack", six, "--count", "3", input=":skip\n" * 3)
    run("practice", "--pack", six, "--count", "4", input=":skip\n:quit\n")
    (_, _, asked1, _), (sid, _, asked2, options) = sessions(drills_home)
    assert options["recent"] == sorted(set(asked1))
    assert set(options["plan"][:3]) == ALL_SIX - set(asked1)  # the fresh three first
    resumed = run("practice", "--resume", input=":skip\n" * 3)
    assert f"Resuming session {sid}" in resumed.output
    rows = sessions(drills_home)
    assert len(rows) == 2 and rows[1][2] == options["plan"]  # one session, the whole plan
    assert ("1 of these 4 questions was answered in your last sessions"
            in " ".join(resumed.output.split()))


def test_generated_questions_never_count_as_repeats(drills_home):
    """Each draw of a generated question is new: two sessions of only generated questions
    repeat templates without a note."""
    args = ("practice", "--count", "3", "--topic", "hand-computation", "--difficulty", "medium")
    run(*args, input=":skip\n" * 3)
    second = run(*args, input=":skip\n" * 3)
    asked = [ids for _s, _m, ids, _o in sessions(drills_home)]
    assert len(asked) == 2
    assert "answered in your last sessions" not in second.output


# --- the first session starts easy ---------------------------------------------------------------

def difficulties(drills_home: Path, sid: int) -> list[str]:
    with sqlite3.connect(drills_home / "drills.db") as db:
        return [d for (d,) in db.execute(
            "SELECT difficulty FROM attempts WHERE session_id = ? ORDER BY id", (sid,))]


@pytest.mark.parametrize("attempt", range(3))
def test_the_first_session_really_starts_easy(drills_home, monkeypatch, attempt):
    """The first session on a terminal (the welcome): half of its 10 questions easy, asked
    first, then medium, then hard. Whatever seed is drawn (three runs)."""
    import drills.cli.quiz.practice as practice

    monkeypatch.setattr(practice, "is_terminal", lambda: True)  # the welcome; input stays piped
    result = run("practice", "--topic", "significance", input=":skip\n" * 12)
    assert "This first session starts with the easy questions." in result.output
    levels = difficulties(drills_home, 1)
    assert len(levels) == 10
    assert levels[:5] == ["easy"] * 5
    order = {"easy": 0, "medium": 1, "hard": 2}
    assert [order[d] for d in levels] == sorted(order[d] for d in levels)
    assert sessions(drills_home)[0][3]["ramp"] == "easy-first"


def test_a_first_session_resumed_is_the_same_easy_first_plan(drills_home, monkeypatch):
    import drills.cli.quiz.practice as practice

    monkeypatch.setattr(practice, "is_terminal", lambda: True)
    run("practice", "--topic", "significance", "--count", "6", input=":skip\n:skip\n:quit\n")
    monkeypatch.setattr(practice, "is_terminal", lambda: False)
    plan = sessions(drills_home)[0][3]["plan"]
    result = run("practice", "--resume", input=":skip\n" * 4)
    assert "Resuming session 1" in result.output
    ((_, _, asked, _),) = sessions(drills_home)
    assert asked == plan
    assert difficulties(drills_home, 1)[:3] == ["easy"] * 3


def test_recent_questions_are_those_of_the_last_sessions_or_the_last_day(drills_home):
    from datetime import datetime, timedelta, timezone

    from drills.store import Attempt, Store
    from drills.store.progress import recent_questions

    now = datetime.now(timezone.utc)

    def att(qid: str, days: float, **kw) -> Attempt:
        return Attempt(qid, "t", "numeric", "correct", "1", "1", 1.0, (), 1.0,
                       answered_at=now - timedelta(days=days), **kw)

    with Store.open() as s:
        for qid, days in (("a", 5), ("b", 4), ("c", 3), ("d", 2)):
            s.record_attempts(s.start_session("practice", 1, {}), [att(qid, days)], review=False)
        s.record_attempts(s.start_session("mock", 2, {}), [
            att("e", 0.5), att("gen-x", 0.5, generator="dcg_at_k"),
            att("scen-1#1", 0.5, scenario="scen-1", step=1)], review=False)
        s.start_session("practice", 3, {})  # no answer: not one of the last sessions
        assert recent_questions(s, now) == {"c", "d", "e", "scen-1"}  # the last 3 sessions
        assert recent_questions(s, now, sessions=1) == {"e", "scen-1"}
        assert recent_questions(s, now, sessions=1, hours=24 * 4.5) == {"b", "c", "d", "e", "scen-1"}
