"""The same import files through this tree and another checkout of drills (the code before
a change to ``drills history import``): the same output, exit code and database, row for
row (sessions, answers, review cards, the schema). Opt-in, as it needs the other tree:

    git worktree add /tmp/before <commit>
    DRILLS_AB_TREE=/tmp/before python -m pytest tests/test_history_import_ab.py

The files mix sound answers of every shape (misconceptions, params, scenario steps,
self-grades, overrides, times in other offsets, runs of plain answers between others)
with damaged rows of every kind, duplicates, answers without their session, damaged
sessions and cards; they are imported into an empty history, twice, after part of them,
after a legacy (uid-less) export, and next to a file that is not an export."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

OTHER = os.environ.get("DRILLS_AB_TREE", "")
HERE = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not OTHER, reason="set DRILLS_AB_TREE to another drills checkout")

ODD: dict[str, list[Any]] = {  # sound and damaged values, NaN and Infinity as markers
    "uid": ["A" * 32, "abc", 7, None, "g" * 32],
    "seconds": [0, 7, -1, -0.5, "@NAN@", "@INF@", True, "3", None, 10**400, 2**63, 86400.0, 86401],
    "misconceptions": [["a"] * 101, [""], ["x" * 201], [3], "log2_rank", None, ["m1", "m2"]],
    "params": [{"x": "@NAN@"}, [], "p", {"big": "x" * 70_000}, {"b": 1, "a": [1.5, None, "é"]}, {}],
    "step": [1, 0, -3, 10_000, 10_001, True, 2.0, "2"],
    "overridden": [True, 0, 1, "false", None],
    "question_id": ["", "x" * 100_001, 3, None, "ünï"],
    "topic": ["", None, ["t"]],
    "kind": ["", None, 1.5],
    "verdict": ["consistent", "partial", "bogus", "", None, 1, "timeout"],
    "given": ["", None, 5, "x" * 100_001],
    "expected": [None, False],
    "expected_value": [None, 1, "@NAN@", True, "0.5", 10**400, -(2**63), 0.1 + 0.2, -0.0],
    "generator": ["ndcg_at_k", "", 3],
    "self_grade": ["again", "", "meh", 2],
    "difficulty": ["hard", "", "extreme", 1],
    "scenario": ["", "scene", 5],
    "answered_at": ["2026-01-02T03:04:05+00:00", "2026-01-02T04:04:05.5+01:00", "2026-01-02 03:04:05",
                    "2026-01-02T03:04:05Z", "2026-01-02", "2099-01-01T00:00:00+00:00",
                    "0001-01-01T00:00:00+01:00", "nope", 5, None, "x" * 100,
                    "2026-01-02T03:04:05.123456-05:30"],
    "session_uid": [None, 5, "missing-session"],
}
GOOD: dict[str, list[Any]] = {
    "misconceptions": [["m1"], ["b", "a"]], "params": [{"n": 5, "k": [1, 2.5]}, {}],
    "self_grade": ["again", "good"], "difficulty": ["easy", "hard"], "overridden": [True],
    "generator": ["ndcg_at_k", ""], "given": [None, ""], "expected_value": [None, 3, 2**62],
    "seconds": [0, 5, 0.1 + 0.2], "answered_at": ["2026-01-02T04:04:05.5+01:00", "2026-01-02"],
}


class Files:
    def __init__(self, folder: Path) -> None:
        self.rnd, self.folder = random.Random(25), folder
        self.sessions = [self.uid() for _ in range(5)]

    def uid(self) -> str:
        return f"{self.rnd.getrandbits(128):032x}"

    def sound(self, i: int, sessions: list[str]) -> dict[str, Any]:
        return {"attempt_id": i, "session_id": 1, "question_id": f"q{i % 50}",
                "answered_at": f"2026-01-{1 + i % 28:02d}T{i % 24:02d}:{i * 7 % 60:02d}:"
                               f"{i * 13 % 60:02d}.{i:06d}+00:00",
                "topic": "hand-computation", "kind": "numeric", "generator": None,
                "verdict": ("correct", "wrong", "close")[i % 3], "given": "0.5", "expected": "1/2",
                "expected_value": 0.5, "misconceptions": [], "seconds": 3.0 + i % 7,
                "self_grade": None, "params": None, "difficulty": None, "scenario": None,
                "step": None, "uid": self.uid(), "session_uid": sessions[i % len(sessions)],
                "overridden": False}

    def mixed(self, n: int) -> list[Any]:
        rnd, rows = self.rnd, []
        for i in range(n):
            row = self.sound(i, self.sessions)
            for key, values in GOOD.items():
                if rnd.random() < 0.3:
                    row[key] = rnd.choice(values)
            if rnd.random() < 0.5:
                for key in rnd.sample(sorted(ODD), rnd.randint(1, 3)):
                    row[key] = rnd.choice(ODD[key])
            if rnd.random() < 0.05:
                row.pop(rnd.choice(sorted(row)))
            if rnd.random() < 0.3:
                row["scenario"], row["step"] = "sc", rnd.randint(1, 4)
            rows.append(row)
        rows += [dict(rnd.choice(rows)) for _ in range(n // 50)] + ["not a row", None, [1, 2]]
        rnd.shuffle(rows)
        return rows

    def runs(self, n: int) -> list[dict[str, Any]]:
        """Runs of plain answers of every length between runs of answers that are not."""
        rows: list[dict[str, Any]] = []
        while len(rows) < n:
            length, odd = self.rnd.choice([1, 5, 31, 32, 33, 200]), self.rnd.random() < 0.5
            for _ in range(length):
                row = self.sound(len(rows), self.sessions[:3])
                if odd:
                    key = self.rnd.choice(sorted(GOOD))
                    row[key] = self.rnd.choice(GOOD[key])
                rows.append(row)
        return rows

    def session_rows(self) -> list[Any]:
        s = self.sessions

        def one(uid: str, **kw: Any) -> dict[str, Any]:
            return {"uid": uid, "id": 1, "mode": "practice", "seed": 3, "options": {"a": 1},
                    "started_at": "2026-01-01T00:00:00+00:00", "ended_at": None, "score": None,
                    "total": None, "report": None, **kw}

        return [one(s[0]), one(s[1], ended_at="2026-01-03T00:00:00+00:00", score=3, total=5,
                                report={"x": [1, 2]}),
                one(s[2], started_at="2026-01-01T05:00:00+02:00", mode="mock"),
                one(s[3], mode="bogus"), one(s[4], seed=-1), "junk",
                one(s[0], started_at="2025-01-01T00:00:00+00:00")]

    @staticmethod
    def cards() -> list[Any]:
        card = {"card_id": 1, "state": 2, "step": None, "stability": 3.2, "difficulty": 5.1,
                "due": "2026-01-05T00:00:00+00:00", "last_review": "2026-01-01T00:00:00+00:00"}
        due, at = "2026-01-05T00:00:00+00:00", "2026-01-01T00:00:00+00:00"
        return [{"item_key": "q:q1", "card": card, "due": due, "reviews": 2, "updated_at": at},
                {"item_key": "q:q2", "card": dict(card, stability=2e6), "due": due, "reviews": 2,
                 "updated_at": at},
                {"item_key": "q:q1", "card": card, "due": "2026-01-06T00:00:00+00:00",
                 "reviews": 3, "updated_at": "2026-01-02T00:00:00+00:00"},
                {"item_key": "", "card": card, "due": "x", "reviews": 1, "updated_at": "y"}, 5]

    def write(self, name: str, data: Any) -> Path:
        path = self.folder / name
        path.write_text(json.dumps(data).replace('"@NAN@"', "NaN").replace('"@INF@"', "Infinity"))
        return path


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    f = Files(tmp_path_factory.mktemp("ab-files"))
    export = {"drills_export": 1, "sessions": f.session_rows(), "review_cards": f.cards()}
    big = f.mixed(12_000)
    legacy = [{k: v for k, v in r.items() if k not in ("uid", "session_uid")}
              for r in f.mixed(300) if isinstance(r, dict)]
    for i, row in enumerate(legacy):
        if not str(row.get("answered_at")).startswith("2026-01") and i % 5:
            row["answered_at"] = f.sound(i, f.sessions)["answered_at"]
        for key in ("attempt_id", "session_id", "answered_at", "question_id", "verdict"):
            row.setdefault(key, None)
    return {
        "small": f.write("small.json", {**export, "learner": "a  b", "attempts": f.mixed(600)}),
        "big": f.write("big.json", {**export, "attempts": big}),
        "part": f.write("part.json", {"drills_export": 1, "attempts": big[:2000],
                                      "sessions": f.session_rows()[:2]}),
        "runs": f.write("runs.json", {**export, "attempts": f.runs(15_000)}),
        "legacy": f.write("legacy.json", legacy),
        "broken": f.write("broken.json", {"drills_export": 1, "attempts": "no"}),
    }


CASES = {
    "small": [["small"]], "small twice": [["small"], ["small"]], "big": [["big"]],
    "part then big": [["part"], ["big"]], "big and small": [["big", "small"]],
    "runs": [["runs"]], "small then runs": [["small"], ["runs"]], "legacy": [["legacy"]],
    "legacy then small": [["legacy"], ["small"]], "legacy twice": [["legacy"], ["legacy"]],
    "small and broken": [["small", "broken"]],
}


def _imported(tree: Path, home: Path, steps: list[list[str]], files: dict[str, Path]) -> Any:
    outs = []
    for names in steps:
        done = subprocess.run(
            [sys.executable, "-m", "drills", "history", "import", *(str(files[n]) for n in names)],
            env={**os.environ, "DRILLS_HOME": str(home), "PYTHONPATH": str(tree)}, cwd=tree,
            capture_output=True, text=True)
        outs.append((done.returncode, done.stdout.replace(str(files["small"].parent), "F"),
                     done.stderr.replace(str(files["small"].parent), "F")))
    if not (home / "drills.db").exists():
        return outs, None
    with sqlite3.connect(home / "drills.db") as conn:
        tables = {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
                  for t in ("sessions", "attempts", "review_cards")}
        tables["schema"] = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master "
                                        "ORDER BY name").fetchall()
        tables["integrity"] = conn.execute("PRAGMA integrity_check").fetchall()
    conn.close()
    return outs, tables


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_same_history_as_the_other_tree(case, files, tmp_path):
    mine = _imported(HERE, tmp_path / "mine", CASES[case], files)
    theirs = _imported(Path(OTHER).resolve(), tmp_path / "theirs", CASES[case], files)
    assert mine[0] == theirs[0]
    assert "Traceback" not in repr(mine[0])
    assert mine[1] == theirs[1]
    if case in ("big", "runs", "legacy"):  # the files are not all damage
        assert mine[1] is not None and len(mine[1]["attempts"]) > 150
