"""A code question in a real terminal: practice opens $EDITOR on the scaffold, the function
written there is run on hidden cases, the verdict appears and the attempt is recorded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from drills.cli import cli
from tests.test_pty import Term

HERE = Path(__file__).parent / "fixtures" / "code"


def only_code_pack(home: Path) -> Path:
    text = (HERE / "mini.yaml").read_text(encoding="utf-8")
    path = home / "packs" / "mini.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text[: text.index("  - id: mini.which-line")], encoding="utf-8")
    return path


def editor_writing(tmp_path: Path, solution: str) -> Path:
    script = tmp_path / "editor.sh"
    script.write_text(f"#!/bin/sh\necho \"$1\" >> {tmp_path / 'opened'}\ncp {HERE / solution} \"$1\"\n")
    script.chmod(0o755)
    return script


def test_practice_opens_the_editor_and_grades_what_it_wrote(drills_home, tmp_path):
    pack = only_code_pack(drills_home)
    editor = editor_writing(tmp_path, "ndcg_linear.py")
    t = Term(["practice", "--pack", str(pack), "--count", "1", "--seed", "1"], drills_home,
             {"EDITOR": str(editor), "PAGER": "cat"}, dimensions=(24, 80))
    t.expect("Wrong: 0 of 21 cases passed", "Wrong:")
    t.expect("linear_gain")
    t.expect("Enter: the summary")  # the last question's miss waits: its steps one key away
    t.send("\r")
    t.expect("Retry the 1 question you missed?")
    t.send("n\r")
    assert t.close() == 0
    opened = (tmp_path / "opened").read_text().split()
    assert opened == [str(drills_home / "code" / "mini.ndcg-at-k.py")]
    rows = json.loads(CliRunner(env={"DRILLS_HOME": str(drills_home)}).invoke(
        cli, ["history", "export", "--format", "json"]).output)["attempts"]
    assert [(r["question_id"], r["kind"], r["verdict"]) for r in rows] == [
        ("mini.ndcg-at-k", "code", "wrong")]
    assert rows[0]["misconceptions"] == ["linear_gain"]


def test_edit_reopens_and_a_typed_function_ends_with_end(drills_home, tmp_path):
    pack = only_code_pack(drills_home)
    t = Term(["practice", "--pack", str(pack), "--count", "1", "--seed", "1"], drills_home,
             {"EDITOR": "", "VISUAL": "", "PAGER": "cat"}, dimensions=(24, 80))
    t.expect("answer>")
    t.send(":edit\r")
    t.expect("No editor")
    t.expect("answer>")
    for line in (HERE / "ndcg_good.py").read_text().splitlines():
        t.send(line + "\r")
    t.send(":end\r")
    t.expect("Correct: all 21 cases passed")
    t.expect("Session over.")
    assert t.close() == 0
    assert shutil.which("sh")


ROOT = Path(__file__).resolve().parent.parent
ROWS, COLS = 24, 80


def final_screen(t: Term) -> list[str]:
    import pyte

    screen = pyte.Screen(COLS, ROWS)
    pyte.Stream(screen).feed(t.seen.replace("\r\n", "\n").replace("\n", "\r\n"))
    return [line.rstrip() for line in screen.display]


def test_a_wrong_code_check_leaves_the_verdict_and_the_slip_on_the_last_screen(drills_home):
    """Issue 23, point 2: about 50 lines of worked case and failed cases scroll past at 80x24;
    the last screen still says how many of the 42 cases passed and names the slip."""
    import re

    wrong = ROOT / "tests" / "coding_solutions" / "buggy" / "linear_gain.py"
    t = Term(["code", "check", str(wrong), "--question", "coding.ndcg-at-k"], drills_home,
             dimensions=(ROWS, COLS))
    t.expect_eof()
    t.child.close()
    assert t.child.exitstatus == 1
    assert t.seen.replace("\r", "").count("\n") > ROWS  # it did scroll
    screen = final_screen(t)
    text = "\n".join(screen)
    assert re.search(r"^Wrong: \d+ of 42 cases passed\.$", text, re.M), text
    assert "linear_gain: You used the grade itself as the gain." in text, text
    assert "First failed case: relevance=[3, 2, 3, 0, 1, 2], k=6" in text, text
    assert max(len(line) for line in t.seen.replace("\r", "").splitlines()) <= COLS


def test_an_import_error_is_one_error_line_wrapped_to_the_terminal(drills_home, tmp_path):
    missing = tmp_path / "missing.py"
    missing.write_text("import nosuchlib_issue23\n\ndef ndcg_at_k(relevance, k):\n    return 1\n")
    t = Term(["code", "check", str(missing), "--question", "coding.ndcg-at-k"], drills_home,
             dimensions=(ROWS, COLS))
    t.expect_eof()
    lines = [line for line in t.seen.replace("\r", "").splitlines() if line.strip()]
    assert lines[0].startswith("Error: ModuleNotFoundError: No module named 'nosuchlib_issue23'")
    assert "standard library" in " ".join(lines)
    assert "Wrong" not in t.seen and "worked" not in t.seen
    assert max(len(line) for line in lines) <= COLS


def test_code_with_no_editor_takes_the_function_typed_at_the_terminal(drills_home):
    t = Term(["code", "coding.ndcg-at-k"], drills_home, {"EDITOR": "", "VISUAL": ""},
             dimensions=(ROWS, COLS))
    t.expect(":quit cancels")
    for line in (ROOT / "tests" / "coding_solutions" / "correct" / "ndcg_at_k.py").read_text().splitlines():
        t.send(line + "\r")
    t.send(":end\r")
    t.expect("Correct: all 42 cases passed.")
    assert t.close() == 0
    rows = json.loads(CliRunner(env={"DRILLS_HOME": str(drills_home)}).invoke(
        cli, ["history", "export", "--format", "json"]).output)["attempts"]
    assert [(r["question_id"], r["kind"], r["verdict"]) for r in rows] == [
        ("coding.ndcg-at-k", "code", "correct")]
