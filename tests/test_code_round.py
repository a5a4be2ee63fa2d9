"""Issue 23, point 4: the coding round outside practice. `drills code ID` and `drills code
check` record their attempts as practice does; with no editor the function is typed ending
with `:end`; `--examples` runs the visible examples alone and records nothing; syntax,
import and exit errors say `Error:` with their message alone; `--json` carries what the
function printed, made safe and capped. All through the real runner (a separate process).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.paths import packs_dir

HERE = Path(__file__).parent / "fixtures" / "code"
GOOD = (HERE / "ndcg_good.py").read_text(encoding="utf-8")
LINEAR = (HERE / "ndcg_linear.py").read_text(encoding="utf-8")
QID = "mini.ndcg-at-k"
# mini.yaml: 1 visible example, `count: 20` hidden cases (its `include` edges among them)
EXAMPLES, HIDDEN = 1, 20


@pytest.fixture
def mini(drills_home):
    target = packs_dir()
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "mini.yaml", target / "mini.yaml")
    return target / "mini.yaml"


@pytest.fixture
def no_editor(monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input)


def solution(tmp_path: Path, text: str, name: str = "solution.py") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def attempts() -> list[dict]:
    res = run("history", "export", "--format", "json")
    assert res.exit_code == 0, res.output
    return json.loads(res.output)["attempts"]


def sessions() -> list[dict]:
    return json.loads(run("history", "export", "--format", "json").output)["sessions"]


# 1. recorded like practice ------------------------------------------------------------


def test_three_checks_are_three_code_attempts_in_stats(mini, tmp_path, monkeypatch):
    wrong = solution(tmp_path, LINEAR, "wrong.py")
    assert run("code", "check", wrong, "--question", QID).exit_code == 1
    assert run("code", "check", wrong, "--question", QID, "--json").exit_code == 1
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\ncp {HERE / 'ndcg_good.py'} \"$1\"\n")
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    assert run("code", QID).exit_code == 0

    rows = attempts()
    assert [(r["question_id"], r["kind"], r["verdict"]) for r in rows] == [
        (QID, "code", "wrong"), (QID, "code", "wrong"), (QID, "code", "correct")]
    assert rows[0]["misconceptions"] == ["linear_gain"]
    assert rows[2]["given"] == GOOD  # what the editor wrote, as practice keeps a typed answer
    stats = json.loads(run("stats", "--json").output)
    assert stats["by_kind"]["code"]["attempts"] == 3
    assert stats["by_kind"]["code"]["correct"] == 1
    listed = sessions()
    assert [s["mode"] for s in listed] == ["code", "code", "code"]  # one row per check, ended
    assert all(s["ended_at"] for s in listed)
    assert [s["score"] for s in listed] == [0, 0, 1]


def test_a_code_session_is_not_offered_to_practice_resume(mini, tmp_path):
    run("code", "check", solution(tmp_path, LINEAR), "--question", QID)
    res = run("practice", "--resume")
    assert "nothing to resume" in res.output


def test_a_history_that_cannot_be_written_still_shows_the_verdict(mini, tmp_path, monkeypatch):
    from drills.store import Store, StoreError

    def broken(self, *args, **kwargs):
        raise StoreError("disk full (a test)")

    monkeypatch.setattr(Store, "record_attempt", broken)
    monkeypatch.setattr("drills.cli.quiz.recorder.RETRY_DELAY", 0)
    res = CliRunner().invoke(cli, ["code", "check", solution(tmp_path, GOOD), "--question", QID])
    assert res.exit_code == 1  # correct, but not saved: a script can see it
    assert res.stdout.startswith("Correct: all 21 cases passed")
    assert "Not saved" in res.stderr and "disk full (a test)" in res.stderr
    assert json.loads(res.stderr.splitlines()[1])["id"] == QID  # the answer, printed


# 2. typed when no editor is set -----------------------------------------------------


def test_no_editor_types_the_function_ending_with_end(mini, no_editor):
    res = run("code", QID, input=f"{GOOD}:end\n")
    assert res.exit_code == 0, res.output
    assert "No editor set" in res.output and ":end" in res.output
    assert "def ndcg_at_k(relevance: list[int], k: int) -> float:" in res.output  # the task shown
    assert "Correct: all 21 cases passed." in res.output
    rows = attempts()
    assert [(r["kind"], r["verdict"]) for r in rows] == [("code", "correct")]
    assert rows[0]["given"] == GOOD


def test_a_typed_wrong_function_names_its_slip_and_is_recorded(mini, no_editor):
    res = run("code", QID, input=f"{LINEAR}:END\n")
    assert res.exit_code == 1
    assert re.search(r"^Wrong: \d+ of 21 cases passed\.$", res.output, re.M), res.output
    assert "Diagnosis: linear_gain" in res.output
    assert [r["misconceptions"] for r in attempts()] == [["linear_gain"]]


@pytest.mark.parametrize("typed", [":quit\n", "", ":end\n", "def ndcg_at_k(relevance, k):\n:q\n"])
def test_quit_or_nothing_typed_checks_and_records_nothing(mini, no_editor, typed):
    res = run("code", QID, input=typed)
    assert res.exit_code == 0, res.output
    assert "nothing to check" in res.output and "cases passed" not in res.output
    assert attempts() == []


# 3. --examples: LeetCode's Run, not Submit ---------------------------------------------


def test_examples_run_only_the_visible_examples_and_record_nothing(mini, tmp_path):
    path = solution(tmp_path, LINEAR)
    res = run("code", "check", path, "--question", QID, "--examples")
    assert res.exit_code == 1
    assert f"Wrong: 0 of {EXAMPLES} example" in res.output
    assert "nothing was recorded" in res.output
    assert f"not the {HIDDEN} hidden cases" in res.output
    data = json.loads(run("code", "check", path, "--question", QID, "--examples", "--json").output)
    assert data["passed"] + data["failed"] == EXAMPLES
    assert data["cases"][0]["input"] == {"relevance": [3, 2, 3, 0, 1, 2], "k": 6}
    assert data["examples_only"] is True and data["recorded"] is False
    good = run("code", "check", solution(tmp_path, GOOD, "good.py"), "--question", QID, "--examples")
    assert good.exit_code == 0 and good.output.startswith("Correct: the 1 example passed.")
    assert attempts() == []
    full = json.loads(run("code", "check", path, "--question", QID, "--json").output)
    assert full["passed"] + full["failed"] == EXAMPLES + HIDDEN
    assert full["examples_only"] is False and full["recorded"] is True


# 4. errors say Error:, with their message alone ------------------------------------------


@pytest.mark.parametrize("source,message", [
    ("def ndcg_at_k(relevance, k)\n    return 1\n", "Error: SyntaxError: expected ':' (solution.py, line 1)."),
    ("import sys\nsys.exit(3)\n\ndef ndcg_at_k(relevance, k):\n    return 1\n",
     "Error: Called sys.exit(3) while loading solution.py"),
    ("def ndcg_at_k(relevance, k):\n    import os\n    os._exit(4)\n",
     "Error: Exited with status 4 on case 1 (of 21)"),
    ("def ndcg(relevance, k):\n    return 1\n", "Error: solution.py defines no function named ndcg_at_k"),
])
def test_errors_are_one_error_line_without_a_worked_case(mini, tmp_path, source, message):
    path = solution(tmp_path, source)
    res = run("code", "check", path, "--question", QID)
    assert res.exit_code == 1
    assert res.output.startswith(message), res.output
    assert "Wrong:" not in res.output
    for unasked in ("worked", "rank  rel", "First failed case", "cases passed", "interviewer"):
        assert unasked not in res.output, res.output
    data = json.loads(run("code", "check", path, "--question", QID, "--json").output)
    assert data["verdict"] == "error"
    assert [r["verdict"] for r in attempts()] == ["wrong", "wrong"]  # recorded as a miss


def test_a_missing_module_says_what_the_runner_offers(mini, tmp_path):
    path = solution(tmp_path, "import nosuchlib_issue23\n\ndef ndcg_at_k(relevance, k):\n    return 1\n")
    res = run("code", "check", path, "--question", QID)
    assert res.exit_code == 1
    text = " ".join(res.output.split())
    assert text.startswith("Error: ModuleNotFoundError: No module named 'nosuchlib_issue23'")
    assert "standard library" in text and "drills' own environment" in text
    # truthful about numpy: the runner is this interpreter, isolated (-I: no user site)
    has_numpy = importlib.util.find_spec("numpy") is not None
    assert ("numpy" in text.split("installed there")[0]) == has_numpy, text
    data = json.loads(run("code", "check", path, "--question", QID, "--json").output)
    assert data["verdict"] == "error" and "standard library" in data["message"]


def test_a_module_missing_inside_the_function_also_says_what_the_runner_offers(mini, tmp_path):
    path = solution(tmp_path, "def ndcg_at_k(relevance, k):\n    import nosuchlib_issue23\n")
    res = run("code", "check", path, "--question", QID)
    assert res.exit_code == 1 and res.output.startswith("Wrong: 0 of 21 cases passed.")
    assert "ModuleNotFoundError" in res.output
    assert "standard library" in " ".join(res.output.split())


# 5. --json carries what the function printed ----------------------------------------------


def test_json_carries_the_output_made_safe(mini, tmp_path):
    path = solution(tmp_path, 'def ndcg_at_k(relevance, k):\n    print("\\x1b]52;c;x\\x07k is", k)\n'
                              '    return 0.5\n')
    data = json.loads(run("code", "check", path, "--question", QID, "--json").output)
    assert data["output"].splitlines()[0] == "^[]52;c;x^Gk is 6"  # the first case: k = 6
    assert len(data["output"].splitlines()) == EXAMPLES + HIDDEN  # one line per case
    assert "\x1b" not in data["output"] and "\x07" not in data["output"]
    res = run("code", "check", path, "--question", QID)
    assert "Your function printed (11 more lines in --json):" in res.output
    assert "\x1b" not in res.output and "^[]52;c;x^Gk is 6" in res.output


def test_json_output_is_capped_with_a_note(mini, tmp_path):
    path = solution(tmp_path, 'def ndcg_at_k(relevance, k):\n    print("x" * 999)\n    return 0.5\n')
    data = json.loads(run("code", "check", path, "--question", QID, "--json").output)
    printed = 1000 * (EXAMPLES + HIDDEN)  # 999 x and a newline per case
    note = re.search(r"\[\.\.\. ([\d,]+) (bytes|characters) not shown \.\.\.\]", data["output"])
    assert note is not None, data["output"][:200]
    assert len(data["output"]) <= 4096 + len(note.group(0)) + 2
    assert len(data["output"]) - len(note.group(0)) + int(note.group(1).replace(",", "")) - 2 == printed
    assert data["output"].startswith("x" * 999 + "\n")


def test_nothing_printed_is_an_empty_output(mini, tmp_path):
    data = json.loads(run("code", "check", solution(tmp_path, GOOD), "--question", QID, "--json").output)
    assert data["output"] == "" and data["verdict"] == "correct"


# the list, wrapped to the reader's width ----------------------------------------------------


@pytest.mark.parametrize("columns", [60, 80])
def test_the_list_is_wrapped_to_the_width_without_breaking_words(drills_home, columns):
    res = CliRunner(env={"COLUMNS": str(columns)}).invoke(cli, ["code"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert max(len(line) for line in lines) < columns
    words = " ".join(res.output.split())
    assert "def mean_average_precision(queries: list[list[int]]) -> float:" in words
    assert "--question ID` grades a file" in words
