"""Concept answers in the commands: ``drills history show`` (partial in yellow, an overruled
verdict said so, wrong beliefs apart from wrong formulas), ``drills history export``,
``drills stats`` (Top wrong beliefs, ``wrong_beliefs`` in --json), the class report, and the
recorder that saves a quiz's answers (``overridden`` into the history and the transcript).

Expected values are counted from the rows each test records, never from drills' output.
"""

from __future__ import annotations

import csv
import io
import json
import uuid
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.cli.quiz import recorder as rec
from drills.model import Question
from drills.quiz.events import Record
from drills.store import Attempt, Store

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc)


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def att(n: int, verdict: str, misconceptions: tuple[str, ...] = (), **kw) -> Attempt:
    base = dict(question_id=f"c{n}", topic="ndcg-vs-mrr", kind="concept", given="words",
                expected="the model answer", expected_value=None, seconds=5.0,
                answered_at=T0 + timedelta(minutes=n))
    base.update(kw)
    return Attempt(verdict=verdict, misconceptions=misconceptions, **base)


@pytest.fixture
def session(drills_home):
    """One session: an overruled correct, a partial, a wrong with two beliefs, and a numeric
    slip."""
    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        s.record_attempt(sid, att(0, "correct", overridden=True))
        s.record_attempt(sid, att(1, "partial"))
        s.record_attempt(sid, att(2, "wrong", ("ndcg_single_equals_rr", "rr_uses_grades")))
        s.record_attempt(sid, att(3, "wrong", ("linear_gain",), question_id="n1",
                                  topic="gain-and-discount", kind="numeric", given="7",
                                  expected="15", expected_value=15.0))
        s.end_session(sid, 1, 4, {})
    return sid


# --- drills history show / export ---------------------------------------------------------------

def test_history_show_says_partial_and_an_overruled_verdict(session):
    result = run("history", "show", str(session))
    assert result.exit_code == 0, result.output
    out = result.stdout
    # 1 right of 4; the misses: 1 partial, 2 wrong
    assert "Score: 1/4 correct (1 partial, 2 wrong)" in out
    assert "1. c0 (ndcg-vs-mrr): correct (you overruled the grader)" in out
    assert "2. c1 (ndcg-vs-mrr): partial\n" in out
    assert out.count("you overruled the grader") == 1


def test_history_show_lists_wrong_beliefs_apart_from_wrong_formulas(session):
    out = run("history", "show", str(session)).stdout
    formulas = out.index("Wrong formulas you used")
    beliefs = out.index("Wrong beliefs you stated")
    assert "  linear_gain x1" in out[formulas:beliefs]
    assert "ndcg_single_equals_rr" not in out[formulas:beliefs]
    assert "  ndcg_single_equals_rr x1\n  rr_uses_grades x1" in out[beliefs:]
    assert "      wrong beliefs: ndcg_single_equals_rr, rr_uses_grades" in out
    assert "      diagnosis: linear_gain" in out


def test_history_show_paints_partial_yellow_like_close(session):
    out = run("--color", "always", "history", "show", str(session)).stdout
    assert "\x1b[33mpartial\x1b[0m" in out
    assert "\x1b[32mcorrect (you overruled the grader)\x1b[0m" in out
    assert "\x1b[31mwrong\x1b[0m" in out


def test_history_export_carries_overridden_in_csv_and_json(session):
    rows = list(csv.DictReader(io.StringIO(run("history", "export").stdout)))
    assert [(r["verdict"], r["overridden"]) for r in rows] == \
        [("correct", "true"), ("partial", "false"), ("wrong", "false"), ("wrong", "false")]
    data = json.loads(run("history", "export", "--format", "json").stdout)
    assert data["attempt_columns"][-1] == "overridden"
    assert [a["overridden"] for a in data["attempts"]] == [True, False, False, False]


def test_history_import_keeps_overridden(session, tmp_path):
    path = tmp_path / "mine.json"
    assert run("history", "export", "--format", "json", "-o", str(path)).exit_code == 0
    other = tmp_path / "other"
    result = CliRunner(env={"DRILLS_HOME": str(other)}).invoke(cli, ["history", "import",
                                                                     str(path)])
    assert result.exit_code == 0, result.output
    with Store.open(other) as s:
        rows = s.conn.execute("SELECT question_id, verdict, overridden FROM attempts "
                              "ORDER BY answered_at").fetchall()
    assert rows == [("c0", "correct", 1), ("c1", "partial", 0), ("c2", "wrong", 0),
                    ("n1", "wrong", 0)]


# --- drills stats ---------------------------------------------------------------------------

@pytest.fixture
def beliefs(drills_home):
    """Wrong beliefs on concept answers: b1 x4, b2 x3, b3 x2, b4 x2, b5 x1, b6 x1 (six ids:
    the report shows five); slips on numeric answers: linear_gain x2."""
    counts = {"b1": 4, "b2": 3, "b3": 2, "b4": 2, "b5": 1, "b6": 1}
    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        n = 0
        for belief, k in counts.items():
            for _ in range(k):
                s.record_attempt(sid, att(n, "wrong", (belief,)))
                n += 1
        for _ in range(2):
            s.record_attempt(sid, att(n, "wrong", ("linear_gain",), kind="numeric", expected="15",
                                      expected_value=15.0, topic="gain-and-discount"))
            n += 1
        s.record_attempt(sid, att(n, "partial"))
    return counts


def test_stats_json_has_wrong_beliefs_and_slips_apart(beliefs):
    result = run("stats", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["wrong_beliefs"] == beliefs
    assert data["misconceptions"] == {"linear_gain": 2}
    # sort_keys sorts the JSON object's keys: the ranking is the practise_next lists'
    assert [(m["id"], m["count"]) for m in data["practise_next"]["wrong_beliefs"]] == \
        [("b1", 4), ("b2", 3), ("b3", 2), ("b4", 2), ("b5", 1)]
    assert data["practise_next"]["wrong_beliefs"][0]["topics"] == ["ndcg-vs-mrr"]
    assert [m["id"] for m in data["practise_next"]["misconceptions"]] == ["linear_gain"]
    assert data["verdicts"] == {"wrong": 15, "partial": 1}  # 13 beliefs + 2 slips wrong


def test_stats_text_has_a_top_wrong_beliefs_section(beliefs):
    result = run("stats")
    assert result.exit_code == 0, result.output
    out = result.stdout
    formulas = out.index("Top wrong formulas")
    top = out.index("Top wrong beliefs")
    section = out[top:].split("\n\n")[0].splitlines()
    assert [line.split() for line in section[1:]] == [
        ["4x", "b1"], ["3x", "b2"], ["2x", "b3"], ["2x", "b4"], ["1x", "b5"]]
    assert "b1" not in out[formulas:top] and "linear_gain" in out[formulas:top]
    assert "  - rethink the belief b1 (4x, in ndcg-vs-mrr)" in out
    practise = out[out.index("Practise next"):].split("\n\n")[0].splitlines()
    assert max(len(line) for line in section + practise) <= 60  # the report's width


def test_stats_text_without_wrong_beliefs_has_no_such_section(drills_home):
    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        s.record_attempt(sid, att(0, "wrong", ("linear_gain",), kind="numeric"))
    out = run("stats").stdout
    assert "Top wrong formulas" in out and "Top wrong beliefs" not in out


def _export(path, learner: str, rows: list[tuple[str, str, list[str]]]) -> None:
    """An export written by hand: (kind, verdict, misconception ids) per answer."""
    session = uuid.uuid4().hex
    path.write_text(json.dumps({
        "drills_export": 1, "learner": learner, "review_cards": [],
        "sessions": [{"uid": session, "mode": "practice", "seed": 1, "options": {},
                      "started_at": T0.isoformat(), "ended_at": None, "score": None,
                      "total": None, "report": None}],
        "attempts": [{"uid": uuid.uuid4().hex, "session_uid": session,
                      "answered_at": (T0 + timedelta(minutes=i)).isoformat(),
                      "question_id": f"x{i}", "topic": "ndcg-vs-mrr", "kind": kind,
                      "verdict": verdict, "misconceptions": ids, "seconds": 2.0,
                      **({"overridden": True} if verdict == "correct" else {})}
                     for i, (kind, verdict, ids) in enumerate(rows)]}))


def test_class_report_counts_wrong_beliefs_per_learner(tmp_path):
    _export(tmp_path / "ada.json", "ada", [("concept", "wrong", ["b1"]),
                                           ("concept", "wrong", ["b1", "b2"]),
                                           ("concept", "partial", []),
                                           ("numeric", "wrong", ["linear_gain"]),
                                           ("concept", "correct", [])])
    files = ["--from", str(tmp_path / "ada.json")]
    data = json.loads(run("stats", *files, "--by", "learner", "--json").stdout)
    (ada,) = data["learners"]
    assert ada["wrong_beliefs"] == {"b1": 2, "b2": 1}
    assert ada["misconceptions"] == {"linear_gain": 1}
    assert [s["id"] for s in ada["slips"]] == ["linear_gain"]
    assert (ada["attempts"], ada["correct"]) == (5, 1)  # partial is a miss
    text = run("stats", *files, "--by", "learner").stdout
    assert "Most frequent wrong beliefs:\n    2x  b1\n    1x  b2" in text
    union = json.loads(run("stats", *files, "--json").stdout)
    assert union["wrong_beliefs"] == {"b1": 2, "b2": 1}
    assert union["verdicts"] == {"correct": 1, "partial": 1, "wrong": 3}


# --- the recorder ---------------------------------------------------------------------------

def _question() -> Question:
    return Question(id="c1", topic="ndcg-vs-mrr", kind="numeric", prompt="?", answer="1")


def test_the_transcript_says_overridden_only_when_true():
    q = _question()
    line = rec.transcript_line(Record(0, q, "correct", "1", 1.0, overridden=True))
    assert line["overridden"] is True and line["verdict"] == "correct"
    assert "overridden" not in rec.transcript_line(Record(1, q, "wrong", "2", 1.0))


def test_the_recorder_saves_overridden(drills_home):
    q = _question()
    bare = SimpleNamespace(index=2, item=2, question=q, verdict="partial", given="3",
                           seconds=1.0, expected="1", expected_value=None, misconceptions=(),
                           self_grade=None)  # a record without the field: not overruled
    with Store.open() as s:
        sid = s.start_session("practice", 1, {})
        recorder = rec.Recorder(s, sid, None)
        recorder(Record(0, q, "correct", "1", 1.0, overridden=True))
        recorder(Record(1, q, "wrong", "2", 1.0))
        recorder(bare)
        rows = s.conn.execute("SELECT verdict, overridden FROM attempts ORDER BY id").fetchall()
    assert rows == [("correct", 1), ("wrong", 0), ("partial", 0)]
    assert "overridden" not in rec.transcript_line(bare)
