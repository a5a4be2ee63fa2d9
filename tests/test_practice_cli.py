"""`drills practice` / `drills mock` through CliRunner: option errors and the plain line mode."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from tests.test_pty import ALL_TINY, TINY_PACK

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY_PACK, encoding="utf-8")
    return path


def run(*args: str, input: str = ""):
    return CliRunner().invoke(cli, list(args), input=input)


@pytest.mark.parametrize("args,expect", [
    (["practice", "--count", "0"], "--count must be at least 1"),
    (["practice", "--topic", "nope"], "unknown topic 'nope' (topics: "),
    (["practice", "--pack", "missing.yaml"], "unknown pack 'missing.yaml'"),
    (["practice", "--difficulty", "insane"], "(difficulties: easy, medium, hard)"),
    (["practice", "--tolerance", "abc"], "cannot read tolerance 'abc'"),
    (["mock", "--minutes", "0"], "--minutes must be a positive number"),
    (["mock", "--per-question", "-5"], "--per-question must be a positive number"),
    (["mock", "--count", "0"], "--count must be at least 1"),
    (["mock", "--feedback", "later"], "(choices: end, brief, full)"),
    (["practice", "--count", "1001"], "--count must be at most 1000"),
    (["practice", "--seed", str(2**63)], "--seed must be a whole number from 0 to"),
    (["mock", "--seed", "-1"], "--seed must be a whole number from 0 to"),
    (["mock", "--minutes", "inf"], "--minutes must be a positive number no larger than 1440"),
    (["mock", "--minutes", "nan"], "--minutes must be a positive number"),
    (["mock", "--per-question", "1e308"], "--per-question must be a positive number"),
])
def test_bad_options_one_line_exit_2(args, expect):
    result = run(*args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and expect in lines[0], result.output
    assert "Question" not in result.output


def test_unknown_topic_lists_what_exists():
    line = run("practice", "--topic", "nope").output
    assert "hand-computation" in line and "conventions" in line


def test_unwritable_home_fails_before_the_first_question(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a dir")
    monkeypatch.setenv("DRILLS_HOME", str(blocker / "home"))
    result = run("practice", "--seed", "1", input="0.5\n")
    assert result.exit_code == 1
    assert len(result.output.strip().splitlines()) == 1 and "Error: " in result.output
    assert "Question" not in result.output


def test_plain_mode_answers_and_transcript(pack, tmp_path, drills_home):
    transcript = tmp_path / "run.jsonl"
    result = run("practice", "--seed", "4", "--pack", str(pack), "--topic", "tiny-hand", "--count", "1",
                 "--transcript", str(transcript), input="zero\n0.8675\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Question 1/1 · tiny-hand" in out and "Answer: a number" in out
    assert "Not counted" in out and "Diagnosis: linear_gain" in out and "IDCG@4" in out
    assert "Score: 0/1 correct (1 wrong)" in out and "--seed 4" in out
    (line,) = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert line["id"] == "tiny-ndcg" and line["verdict"] == "wrong" and line["given"] == "0.8675"
    assert line["expected"]["value"] == pytest.approx(0.759191924319732)
    assert line["expected"]["exact"] == "(13/2 + 1/log2(3)) / (15/2 + 3/log2(3))"
    assert line["misconceptions"] == ["linear_gain"] and line["seconds"] >= 0
    with sqlite3.connect(drills_home / "drills.db") as db:
        rows = db.execute("SELECT question_id, verdict FROM attempts").fetchall()
        ended = db.execute("SELECT score, total FROM sessions").fetchall()
    assert rows == [("tiny-ndcg", "wrong")] and ended == [(0, 1)]


def test_eof_ends_cleanly_with_a_summary(pack, tmp_path):
    transcript = tmp_path / "run.jsonl"
    result = run("practice", "--pack", str(pack), *ALL_TINY, "--transcript", str(transcript),
                 input=":skip\n")
    assert result.exit_code == 0, result.output
    assert "Session over." in result.output and "Answered 1 of 3" in result.output
    assert "Traceback" not in result.output
    seed = result.output.split("Seed ")[1].split(":")[0]  # no --seed: one was picked and shown
    assert seed.isdigit()
    (line,) = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert line["verdict"] == "skipped"


def test_concept_and_choice_in_plain_mode(pack, tmp_path):
    transcript = tmp_path / "run.jsonl"
    result = run("practice", "--seed", "4", "--pack", str(pack), "--topic", "tiny-why",
                 "--transcript", str(transcript), input="the ideal ranking scores 1\nhard\n")
    assert "[x] the ideal ranking scores exactly 1" in result.output
    (line,) = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert (line["kind"], line["verdict"], line["self_grade"]) == ("concept", "correct", "hard")


def test_same_seed_asks_what_plan_lists(tmp_path):
    """practice calls plan() on the same catalog as `drills generate`: same seed, same questions."""
    from drills.grading.scenario import flatten
    from drills.packs import discover
    from drills.quiz.plan import plan

    planned = plan(discover().questions, seed=11, count=6, topics=("hand-computation", "normalization"))
    expected = flatten(planned)[0]  # a scenario is asked step by step
    transcript = tmp_path / "run.jsonl"
    result = run("practice", "--seed", "11", "--count", "6", "--topic", "hand-computation",
                 "--topic", "normalization", "--transcript", str(transcript),
                 input=":skip\n" * len(expected))
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert [x["id"] for x in lines] == [q.id for q in expected]
    assert [x["prompt"] for x in lines] == [q.prompt for q in expected]
    assert all(("params" in x) == bool(q.generator) for x, q in zip(lines, expected, strict=True))


def test_mock_plain_report_card(pack, tmp_path):
    transcript = tmp_path / "mock.jsonl"
    result = run("mock", "--count", "4", "--seed", "2", "--minutes", "10",
                 "--transcript", str(transcript), input="0.5\nb\n" + ":skip\n" * 12)
    assert result.exit_code == 0, result.output
    out = result.output
    # 10 minutes shared by kind (choice 0.5, numeric 1, concept 1.5): the limits add up to 10:00
    import re

    from drills.packs import discover
    from drills.quiz.plan import mock_plan
    from drills.quiz.timing import mock_limits

    # one limit per planned question: a scenario's, shown at its first step, is shared by its steps
    shown = [int(m) * 60 + int(s) for step, m, s in re.findall(
        r"Question \d+/\d+(?: · step (\d+)/\d+)? · [^\n]*?· (\d+):(\d\d) to answer", out)
        if step in ("", "1")]
    planned = mock_limits(mock_plan(discover([]).questions, 2, 4), 10)
    assert abs(sum(planned) - 600) < 1 and len(shown) >= 3
    assert shown == [round(x) for x in planned[: len(shown)]]
    for part in ("Mock interview report", "Score by topic", "Time per question", "What to review next"):
        assert part in out
    assert len(transcript.read_text().splitlines()) >= 2


def test_first_question_before_sympy_in_the_plain_front_end(pack, drills_home):
    """A subprocess: sympy is not in sys.modules when the first question is rendered."""
    env = dict(os.environ, DRILLS_HOME=str(drills_home), DRILLS_DEBUG_IMPORTS="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "drills", "practice", "--seed", "1", "--pack", str(pack),
                           *ALL_TINY], input="", capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "[debug] sympy imported at first question: False" in proc.stdout


def test_review_hook_serves_questions_and_fresh_variants(monkeypatch):
    from drills.cli.quiz.due import run_review
    from drills.packs import discover

    templates = [q for q in discover().questions if q.kind == "generated"]
    skill = f"skill:{templates[0].generator}:{templates[0].topic}"
    # a fixed question on another topic: the first NDCG one's answer (0.6934) may be stated by
    # the variant's explanation, and a review session never holds such a pair (test_review)
    fixed = next(q for q in discover().questions if q.kind == "numeric" and q.topic == "significance")
    runner = CliRunner()
    with runner.isolation(input=":skip\n:skip\n") as streams:
        code = run_review([f"q:{fixed.id}", skill, "q:no-such-question"], 5)
    text = streams[0].getvalue().decode()
    assert code == 0 and "Question 1/2" in text and "Question 2/2" in text
    assert text.count("Skipped") == 2
    with sqlite3.connect(Path(os.environ["DRILLS_HOME"]) / "drills.db") as db:
        modes = db.execute("SELECT mode FROM sessions").fetchall()
        gens = db.execute("SELECT generator FROM attempts ORDER BY id").fetchall()
    assert modes == [("review",)] and gens[1] == (templates[0].generator,)


def test_every_command_has_help():
    for name in ("practice", "mock"):
        result = run(name, "--help")
        assert result.exit_code == 0 and "Examples" in result.output


def test_adaptive_plans_within_the_topics(tmp_path):
    transcript = tmp_path / "run.jsonl"
    result = run("practice", "--adaptive", "--seed", "9", "--count", "4", "--topic", "conventions",
                 "--topic", "lambdarank", "--transcript", str(transcript), input=":skip\n" * 4)
    assert result.exit_code == 0, result.output
    topics = {json.loads(x)["topic"] for x in transcript.read_text().splitlines()}
    assert topics <= {"conventions", "lambdarank"} and len(transcript.read_text().splitlines()) == 4


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_transcript_that_cannot_be_written_is_named_and_fails_the_run(drills_home):
    result = run("practice", "--count", "2", "--seed", "1", "--pack", "ndcg-hand-computation",
                 "--transcript", "/dev/full", input="0.5\n0.5\n")
    assert result.exit_code == 1, result.output
    assert "Error: cannot write the transcript /dev/full: No space left on device" in result.stderr
    assert "Traceback" not in result.output
    assert "Session over." in result.stdout  # the session itself went on to its summary
    from drills.store import Store

    store = Store.open(drills_home)
    try:  # and both answers are in the history
        assert store.conn.execute("SELECT count(*) FROM attempts").fetchone()[0] == 2
    finally:
        store.close()


def test_recorder_retries_then_raises_and_keeps_the_unsaved_answer(capsys, monkeypatch):
    import drills.cli.quiz.recorder as rec
    from drills.model import Question
    from drills.quiz.events import Record
    from drills.store import StoreError
    from drills.store.cards import ReviewError
    from drills.tui.output import SaveFailed

    monkeypatch.setattr(rec, "RETRY_DELAY", 0)
    failures = iter([ReviewError("the answer was saved, but the review schedule of q1 could not "
                                 "be updated: boom"),
                     StoreError("disk I/O error"), StoreError("disk I/O error"),  # answer 2: twice
                     StoreError("disk full"), None])  # answer 3: the automatic retry saves it
    saved = []

    class Store:
        def record_attempt(self, session_id, attempt):
            exc = next(failures)
            if exc is not None:
                raise exc
            saved.append(attempt.given)

    recorder = rec.Recorder(Store(), 1, None)
    q = Question(id="q1", topic="t", kind="numeric", prompt="?", answer="1")
    recorder(Record(0, q, "correct", "1", 1.0))
    with pytest.raises(SaveFailed, match="disk I/O error"):
        recorder(Record(1, q, "wrong", "2", 1.0))
    recorder(Record(2, q, "wrong", "3", 1.0))
    assert saved == ["3"]
    assert recorder.schedule_failed and recorder.failed
    assert list(recorder.unsaved) == [1] and recorder.unsaved[1]["given"] == "2"
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("Error: the answer was saved, but the review schedule of q1")
    recorder.report_unsaved()
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("Not saved: 1 answer was graded but not saved")
    assert json.loads(err[1])["given"] == "2" and json.loads(err[1])["verdict"] == "wrong"
