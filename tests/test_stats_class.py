"""``drills stats --from EXPORT.json... [--by learner] [--json]`` (issue 16): the instructor's
view. The exports here are written by hand, and every expected number is counted in this file
from the same rows (``ROWS``), not taken from drills' own output."""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.store import Attempt, Store

T0 = datetime(2026, 11, 2, 8, 0, tzinfo=timezone.utc)
RIGHT = {"correct", "consistent"}  # a consistent scenario step counts as right

# learner -> file -> answers (topic, verdict, misconceptions); bob's "both" answer is in his
# laptop's and his desktop's export (synced), and must count once.
ROWS: dict[str, dict[str, list[tuple[str, str, tuple[str, ...]]]]] = {
    "alice": {"alice.json": [
        ("ndcg", "correct", ()), ("ndcg", "correct", ()), ("ndcg", "wrong", ("linear_gain",)),
        ("ndcg", "consistent", ()), ("mrr", "close", ()), ("mrr", "correct", ())]},
    "bob": {"bob-laptop.json": [
        ("ndcg", "wrong", ("linear_gain",)), ("ndcg", "wrong", ("linear_gain", "log2_rank")),
        ("err", "timeout", ())],
        "bob-desktop.json": [("ndcg", "wrong", ("log2_rank",)), ("err", "skipped", ()),
                             ("ndcg", "correct", ())]},
}
SHARED = ("ndcg", "correct", ())  # bob's answer in both of his files
LEGACY = [("precision", "correct", ()), ("precision", "wrong", ("log2_rank",))]  # carol.json


def _row(i: int, topic: str, verdict: str, slips: tuple[str, ...], session: str,
         uid: str | None = None) -> dict:
    return {"attempt_id": i + 1, "session_id": 1, "answered_at": (T0 + timedelta(minutes=i)
                                                                   ).isoformat(),
            "question_id": f"{topic}-{i}", "topic": topic, "kind": "numeric", "generator": None,
            "verdict": verdict, "given": "1", "expected": "1", "expected_value": 1.0,
            "misconceptions": list(slips), "seconds": 3.0, "self_grade": None, "params": None,
            "difficulty": "easy", "scenario": None, "step": None,
            "uid": uid or uuid.uuid4().hex, "session_uid": session}


def _write(path: Path, learner: str | None, rows: list[tuple], shared: str | None = None) -> Path:
    session = uuid.uuid4().hex
    answers = [_row(i, *r, session) for i, r in enumerate(rows)]
    if shared is not None:
        answers.append(_row(len(rows), *SHARED, session, uid=shared))
    path.write_text(json.dumps({
        "drills_export": 1, "learner": learner, "exported_at": T0.isoformat(),
        "attempts": answers, "review_cards": [],
        "sessions": [{"uid": session, "id": 1, "mode": "practice", "seed": 1, "options": {},
                      "started_at": T0.isoformat(), "ended_at": None, "score": None,
                      "total": None, "report": None}]}))
    return path


@pytest.fixture
def exports(tmp_path) -> list[Path]:
    shared = uuid.uuid4().hex
    files = [_write(tmp_path / "alice.json", "alice", ROWS["alice"]["alice.json"])]
    for name, rows in ROWS["bob"].items():
        files.append(_write(tmp_path / name, "bob", rows, shared=shared))
    legacy = tmp_path / "carol.json"  # the bare list an older drills wrote: no learner, no uids
    legacy.write_text(json.dumps([{k: v for k, v in _row(i, *r, "").items()
                                   if k not in ("uid", "session_uid")}
                                  for i, r in enumerate(LEGACY)]))
    return [*files, legacy]


def expected_rows() -> dict[str, list[tuple[str, str, tuple[str, ...]]]]:
    """Each learner's answers, each counted once."""
    out = {"alice": list(ROWS["alice"]["alice.json"]),
           "bob": [r for rows in ROWS["bob"].values() for r in rows] + [SHARED],
           "carol": list(LEGACY)}
    return out


def tally(rows: list[tuple[str, str, tuple[str, ...]]]) -> dict:
    right = sum(v in RIGHT for _, v, _ in rows)
    topics: dict[str, list[int]] = {}
    for topic, verdict, _ in rows:
        t = topics.setdefault(topic, [0, 0])
        t[0] += 1
        t[1] += verdict in RIGHT
    return {"attempts": len(rows), "correct": right, "accuracy": round(right / len(rows), 4),
            "by_topic": {t: (n, c, round(c / n, 4)) for t, (n, c) in topics.items()},
            # one answer, one slip: a numeric answer counts its first (primary) id only
            "slips": Counter(ms[0] for _, _, ms in rows if ms)}


def stats_from(files: list[Path], *extra: str, env: dict | None = None):
    args = ["stats"]
    for f in files:
        args += ["--from", str(f)]
    return CliRunner(env=env or {}).invoke(cli, args + list(extra))


def test_by_learner_json_has_each_learners_numbers(exports):
    result = stats_from(exports, "--by", "learner", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    want = expected_rows()
    assert [e["learner"] for e in data["learners"]] == ["alice", "bob", "carol"]
    for entry in data["learners"]:
        t = tally(want[entry["learner"]])
        assert (entry["attempts"], entry["correct"]) == (t["attempts"], t["correct"])
        assert entry["accuracy"] == pytest.approx(t["accuracy"])
        assert {k: (v["attempts"], v["correct"], v["accuracy"])
                for k, v in entry["by_topic"].items()} == t["by_topic"]
        assert entry["misconceptions"] == dict(t["slips"])
        ranked = sorted(t["slips"].items(), key=lambda kv: (-kv[1], kv[0]))
        assert [(s["id"], s["count"]) for s in entry["slips"]] == ranked
    assert [e["files"] for e in data["learners"]] == [
        [str(exports[0])], [str(exports[1]), str(exports[2])], [str(exports[3])]]
    everyone = [r for rows in want.values() for r in rows]
    assert (data["attempts"], data["correct"]) == (len(everyone),
                                                   sum(v in RIGHT for _, v, _ in everyone))
    assert data["accuracy"] == pytest.approx(round(data["correct"] / data["attempts"], 4))


def test_bob_in_numbers():
    """The fixture's arithmetic, spelled out once: bob answered 7 (one of them in both files),
    2 right; alice 6, 4 right (one of them consistent)."""
    t = tally(expected_rows()["bob"])
    assert (t["attempts"], t["correct"], t["slips"]) == (7, 2, Counter(linear_gain=2,
                                                                       log2_rank=1))
    assert tally(expected_rows()["alice"])["accuracy"] == round(4 / 6, 4)


def test_without_by_it_is_the_usual_stats_over_every_file(exports):
    result = stats_from(exports, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    everyone = tally([r for rows in expected_rows().values() for r in rows])
    assert (data["attempts"], data["correct"]) == (everyone["attempts"], everyone["correct"])
    assert {k: (v["attempts"], v["correct"], v["accuracy"])
            for k, v in data["by_topic"].items()} == everyone["by_topic"]
    assert data["misconceptions"] == dict(everyone["slips"])
    assert data["verdicts"]["consistent"] == 1 and data["sessions"] == 4
    assert data["learners"] == ["alice", "bob", "carol"] and len(data["files"]) == 4
    assert "review" not in data  # a review schedule belongs to one machine
    text = stats_from(exports)
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith("From 4 exports (alice, bob, carol):\n"
                                  f"{everyone['attempts']} answers in 4 sessions: "
                                  f"{everyone['correct']} correct")
    assert "Review:" not in text.stdout


@pytest.mark.parametrize("width", [60, 80])
def test_by_learner_text_has_one_row_per_learner_and_fits(exports, width):
    result = stats_from(exports, "--by", "learner", env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= width, result.stdout
    want = expected_rows()
    assert lines[0] == (f"Class report: 3 learners, {sum(map(len, want.values()))} answers "
                        "from 4 exports")
    head = lines.index(next(line for line in lines if line.startswith("LEARNER")))
    table = lines[head + 1:head + 4]
    for row, name in zip(table, ("alice", "bob", "carol"), strict=True):
        t = tally(want[name])
        top = sorted(t["slips"].items(), key=lambda kv: (-kv[1], kv[0]))[0]  # ties: by id
        pattern = rf"{name}\s+{t['attempts']}\s+{round(100 * t['accuracy'])}%\s+{top[1]}x {top[0]}"
        assert re.fullmatch(pattern, row), row
    for name in ("alice", "bob", "carol"):
        t = tally(want[name])
        assert f"{name}: {round(100 * t['accuracy'])}% correct of {t['attempts']} answers" in lines
        for topic, (n, c, _) in t["by_topic"].items():
            assert any(re.fullmatch(rf"  {topic}\s+\S+\s+{round(100 * c / n)}%  {c}/{n}", line)
                       for line in lines), topic


def test_the_local_history_is_never_opened(exports, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    junk = b"not a database, and must stay exactly as it is" * 100
    (home / "drills.db").write_bytes(junk)
    result = stats_from(exports, "--by", "learner", env={"DRILLS_HOME": str(home)})
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert sorted(p.name for p in home.iterdir()) == ["drills.db"]
    assert (home / "drills.db").read_bytes() == junk
    missing = tmp_path / "nowhere"
    assert stats_from(exports, env={"DRILLS_HOME": str(missing)}).exit_code == 0
    assert not missing.exists()


def test_an_export_written_by_drills_is_read(tmp_path):
    home = tmp_path / "h"
    with Store.open(home) as s:
        sid = s.start_session("mock", 4, {})
        for i, verdict in enumerate(("correct", "wrong", "correct")):
            s.record_attempt(sid, Attempt(f"q{i}", "ndcg", "numeric", verdict, "1", "1", 1.0,
                                          (), 2.0))
    (home / "config.toml").write_text('[profile]\nlearner = "dana"\n')
    out = tmp_path / "dana.json"
    env = {"DRILLS_HOME": str(home)}
    assert CliRunner(env=env).invoke(
        cli, ["history", "export", "--format", "json", "-o", str(out)]).exit_code == 0
    data = json.loads(stats_from([out, out], "--by", "learner", "--json").stdout)
    (dana,) = data["learners"]
    assert (dana["learner"], dana["attempts"], dana["correct"]) == ("dana", 3, 2)


@pytest.mark.parametrize("content,says", [
    ("attempt_id,session_id,answered_at\n1,1,x\n", "is the CSV export"),
    ("{not json", "not JSON"),
    ('{"attempts": []}', 'without "drills_export"'),
])
def test_a_file_that_is_not_an_export_is_one_line(exports, tmp_path, content, says):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    for extra in ((), ("--by", "learner")):
        result = stats_from([exports[0], bad], *extra)
        assert result.exit_code == 2, result.output
        assert result.stdout == "" and result.stderr.count("\n") == 1
        assert result.stderr.startswith("Error: ") and says in result.stderr


def test_by_needs_from():
    result = CliRunner().invoke(cli, ["stats", "--by", "learner"])
    assert result.exit_code == 2
    assert result.stderr == ("Error: --by learner reads exports: give them with --from "
                             "EXPORT.json\n")


def test_a_damaged_row_is_left_out_and_said(tmp_path):
    path = _write(tmp_path / "erin.json", "erin",
                  [("ndcg", "correct", ()), ("ndcg", "wrong", ()), ("ndcg", "correct", ())])
    data = json.loads(path.read_text())
    data["attempts"][1]["verdict"] = "amazing"
    path.write_text(json.dumps(data))
    result = stats_from([path], "--by", "learner", "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(f"Left out 1 damaged row of {path} ")
    (erin,) = json.loads(result.stdout)["learners"]
    assert (erin["attempts"], erin["correct"], erin["accuracy"]) == (2, 2, 1.0)


def test_an_empty_export_says_so(tmp_path):
    path = _write(tmp_path / "new.json", "fred", [])
    result = stats_from([path], "--by", "learner")
    assert result.exit_code == 0 and result.stdout == "No answers in 1 export.\n"
