"""Bare ``drills`` is practice, with practice's options (issue 23): ``drills --seed 11``."""

from __future__ import annotations

from click.testing import CliRunner

from drills.cli import cli


def run(*args: str, input: str = ":quit\n"):
    return CliRunner().invoke(cli, list(args), input=input)


def test_practice_options_work_without_the_command_name():
    bare = run("--seed", "11", "--count", "2")
    named = run("practice", "--seed", "11", "--count", "2")
    assert bare.exit_code == named.exit_code == 0, bare.output
    assert "Question 1/2" in bare.stdout
    first = [line for line in bare.stdout.splitlines() if line.startswith("Question 1/2")]
    assert first == [line for line in named.stdout.splitlines() if line.startswith("Question 1/2")]


def test_the_groups_own_options_still_come_first():
    assert run("--color", "never", "--seed", "11", "--count", "1").exit_code == 0
    assert run("--version").stdout.startswith("drills, version")
    assert "Commands" in run("--help").stdout


def test_an_unknown_option_is_a_usage_error_naming_it():
    res = run("--bogus")
    assert res.exit_code == 2 and "No such option '--bogus'" in res.output
