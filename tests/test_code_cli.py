"""`drills code` and code questions in the quiz, through the real runner (a separate process).

The learner files in tests/fixtures/code are written from the definitions; the pack there
holds one code question and one find-the-bug snippet.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.paths import packs_dir

HERE = Path(__file__).parent / "fixtures" / "code"


@pytest.fixture
def mini(drills_home):
    target = packs_dir()
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "mini.yaml", target / "mini.yaml")
    return target / "mini.yaml"


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input)


def test_list_and_list_json(mini):
    res = run("code", "--list", "--json")
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in json.loads(res.output)}
    assert rows["mini.ndcg-at-k"] == {"id": "mini.ndcg-at-k", "function": "ndcg_at_k",
                                      "signature": "def ndcg_at_k(relevance: list[int], k: int) -> float:",
                                      "topic": "coding", "difficulty": "medium"}
    assert "mini.which-line" not in rows  # a snippet question is not a code question
    assert "mini.ndcg-at-k" in run("code").output


def test_check_a_correct_file_passes_every_case(mini):
    res = run("code", "check", str(HERE / "ndcg_good.py"), "--question", "mini.ndcg-at-k", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["verdict"] == "correct" and data["failed"] == 0 and data["passed"] == 21
    assert data["misconceptions"] == []
    assert data["cases"][0]["input"] == {"relevance": [3, 2, 3, 0, 1, 2], "k": 6}


def test_check_names_the_slip_and_exits_1(mini):
    res = run("code", "check", str(HERE / "ndcg_linear.py"), "--question", "mini.ndcg-at-k")
    assert res.exit_code == 1
    assert "Diagnosis: linear_gain" in res.output and "First failed case:" in res.output
    data = json.loads(run("code", "check", str(HERE / "ndcg_linear.py"), "--question",
                          "mini.ndcg-at-k", "--json").output)
    assert data["verdict"] == "wrong" and data["misconceptions"] == ["linear_gain"]


def test_runner_verdicts_reach_the_json(mini, tmp_path):
    loop = tmp_path / "loop.py"
    loop.write_text("def ndcg_at_k(relevance, k):\n    while True:\n        pass\n")
    data = json.loads(run("code", "check", str(loop), "--question", "mini.ndcg-at-k", "--json").output)
    assert data["verdict"] == "timeout" and data["passed"] == 0
    broken = tmp_path / "broken.py"
    broken.write_text("def ndcg_at_k(relevance, k)\n    return 1\n")
    res = run("code", "check", str(broken), "--question", "mini.ndcg-at-k", "--json")
    assert res.exit_code == 1 and json.loads(res.output)["verdict"] == "error"
    assert "SyntaxError" in json.loads(res.output)["message"]


@pytest.mark.parametrize("args,message", [
    (("code", "check", "nope.py", "--question", "mini.ndcg-at-k"), "no such file"),
    (("code", "check", "x.py", "--question", "mini.ndcg-at-kk"), "no code question"),
    (("code", "mini.nope"), "no code question"),
])
def test_bad_input_is_one_line_exit_2(mini, args, message):
    res = run(*args)
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output


def test_open_without_an_editor_says_where_the_file_is(mini, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    res = run("code", "mini.ndcg-at-k")
    assert res.exit_code == 0 and "No editor set" in res.output
    scaffold = (packs_dir().parent / "code" / "mini.ndcg-at-k.py").read_text()
    assert "def ndcg_at_k(relevance: list[int], k: int) -> float:" in scaffold
    assert "ndcg_at_k([3, 2, 3, 0, 1, 2], 6) -> 0.94881" in scaffold


def test_open_with_an_editor_checks_what_it_wrote(mini, monkeypatch, tmp_path):
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\ncp {HERE / 'ndcg_good.py'} \"$1\"\n")
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    res = run("code", "mini.ndcg-at-k")
    assert res.exit_code == 0, res.output
    assert res.output.startswith("Correct: all 21 cases passed")


def test_piped_practice_takes_code_ending_with_end_and_records_it(mini):
    code = (HERE / "ndcg_linear.py").read_text()
    res = run("practice", "--pack", str(mini), "--topic", "coding", "--count", "2", "--seed", "5",
              input=f"{code}:end\na\n")
    assert res.exit_code == 0, res.output
    assert "Diagnosis: linear_gain" in res.output
    assert "1 | def dcg(rel):" in res.output  # the snippet, numbered
    export = run("history", "export", "--format", "json")
    assert export.exit_code == 0, export.output
    assert [row["kind"] for row in json.loads(export.output)["attempts"]] == ["code", "choice"]


def test_code_questions_stay_out_of_a_default_session(mini):
    res = run("practice", "--count", "40", "--seed", "2", input="")
    assert "ndcg_at_k" not in res.output


def test_an_infinite_loop_gets_its_verdict_and_the_quiz_goes_on(mini):
    loop = "def ndcg_at_k(relevance, k):\n    while True:\n        pass\n"
    res = run("practice", "--pack", str(mini), "--topic", "coding", "--count", "2", "--seed", "5",
              input=f"{loop}:end\na\n")
    assert res.exit_code == 0, res.output
    assert "Wrong: " in res.output and ("CPU" in res.output or "Timed out" in res.output)
    assert "Question 2/2" in res.output  # the next question came
    assert "Score: 0/2 correct" in res.output or "Score: 1/2 correct" in res.output  # both graded


def test_a_windows_saved_file_runs_as_python_would(mini, tmp_path):
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + (HERE / "ndcg_good.py").read_bytes().replace(b"\n", b"\r\n"))
    res = run("code", "check", str(bom), "--question", "mini.ndcg-at-k")
    assert res.exit_code == 0, res.output
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + (HERE / "ndcg_good.py").read_bytes())
    assert run("code", "check", str(latin), "--question", "mini.ndcg-at-k").exit_code == 0
    junk = tmp_path / "junk.py"
    junk.write_bytes(b"\xff\xfe\x00garbage")
    res = run("code", "check", str(junk), "--question", "mini.ndcg-at-k")
    assert res.exit_code == 2 and "not UTF-8 text" in res.output


@pytest.mark.parametrize("script,message", [
    ("exit 3", "the editor exited with status 3: nothing submitted"),
    ('rm "$1"', "the editor removed"),
])
def test_an_editor_that_fails_or_removes_the_file_submits_nothing(mini, monkeypatch, tmp_path,
                                                                   script, message):
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\ncp {HERE / 'ndcg_good.py'} \"$1\"\n{script}\n")
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    res = run("code", "mini.ndcg-at-k")
    assert message in res.output and "Correct" not in res.output


def test_commands_work_in_the_middle_of_a_piped_code_answer(mini):
    code = (HERE / "ndcg_good.py").read_text()
    head, _, tail = code.partition("\n\n\n")
    res = run("practice", "--pack", str(mini), "--topic", "coding", "--count", "2", "--seed", "5",
              input=f"{head}\n:hint\n{tail}:END\na\n")
    assert res.exit_code == 0, res.output
    assert "Correct: all 21 cases passed" in res.output
