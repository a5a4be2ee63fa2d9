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
