"""``drills packs lint`` says what it is doing on a terminal (issue 23, point 6): loading,
checking, and a count of the items checked every two seconds, on stderr and wrapped to the
terminal; piped, stderr holds none of it and stdout only the report."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from tests.test_pty import Term

ROOT = Path(__file__).resolve().parents[1]
PACK = str(ROOT / "questions" / "conventions.yaml")


def test_piped_lint_prints_no_progress():
    result = CliRunner().invoke(cli, ["packs", "lint", PACK, "--seeds", "2"])
    assert result.exit_code in (0, 1), result.output
    assert "lint:" not in result.stderr and "lint:" not in result.stdout
    assert " checked in " in result.stdout.splitlines()[-1]


def test_lint_on_a_terminal_says_what_it_is_doing(drills_home):
    pytest.importorskip("pexpect")
    t = Term(["packs", "lint", PACK, "--seeds", "2"], drills_home, dimensions=(24, 60))
    t.expect("lint: loading 1 path ...")
    t.expect("lint: checking")
    t.expect("generated x 2 seeds")
    t.expect(" checked in ")
    t.expect_eof()
    lines = t.seen.replace("\r", "").splitlines()
    assert len([line for line in lines if line.startswith("lint:")]) >= 2
    assert max(len(line) for line in lines) <= 60  # progress and report wrapped to the terminal


def test_a_long_lint_counts_the_items_checked(monkeypatch):
    """Every PROGRESS_EVERY seconds the linter reports; on a terminal it is echoed, piped not."""
    import drills.authoring.lint as linter
    import drills.cli.packs.lint as lint_cli

    monkeypatch.setattr(linter, "PROGRESS_EVERY", -1.0)  # a report after every item
    seen: list[str] = []
    monkeypatch.setattr(lint_cli, "echo_prose", lambda text, err=False: seen.append(text))
    monkeypatch.setattr(lint_cli, "_on_terminal", lambda: True)
    result = CliRunner().invoke(cli, ["packs", "lint", PACK, "--seeds", "2"])
    assert result.exit_code in (0, 1), result.output
    counts = [line for line in seen if line.endswith(" items checked")]
    # 16 questions, 2 of them generated: 14 + 2 x 2 seeds = 18 items
    assert counts and all(line.startswith("lint: ") and "/18 " in line for line in counts), seen
    done = [int(line.split()[1].split("/")[0]) for line in counts]
    assert done == sorted(done) and done[-1] <= 18
