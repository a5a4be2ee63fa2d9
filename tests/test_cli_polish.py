"""The command line as a newcomer meets it: help that is not cut, did-you-mean, docs, grade lists."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from drills.cli import COMMANDS, SHORT_HELP, cli


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_every_command_has_a_one_line_help_that_is_not_cut():
    assert set(SHORT_HELP) == set(COMMANDS)
    out = run("--help").stdout
    for name, line in SHORT_HELP.items():
        assert f"  {name}" in out and line in out
    assert "..." not in out.split("Commands:")[1]


@pytest.mark.parametrize(("typed", "meant"), [("prac", "practice"), ("stast", "stats"),
                                              ("genrate", "generate"), ("pack", "packs")])
def test_a_mistyped_command_gets_did_you_mean(typed, meant):
    result = run(typed)
    assert result.exit_code == 2
    assert f"No such command {typed!r}. Did you mean {meant!r}?" in result.stderr


def test_docs_lists_and_prints_the_pages():
    listing = run("docs")
    assert listing.exit_code == 0 and "answers " in listing.stdout and "quiz " in listing.stdout
    page = run("docs", "answers")
    assert page.exit_code == 0 and page.stdout.startswith("# ")
    wrong = run("docs", "answer")
    assert wrong.exit_code == 2 and "did you mean 'answers'?" in wrong.stderr


@pytest.mark.parametrize("grades", [["[2,1,3,0]"], ["[2, 1, 3, 0]"], ["[2,", "1,", "3,", "0]"],
                                    ["2", "1", "3", "0"]])
def test_solve_takes_the_list_as_prompts_print_it(grades):
    result = run("solve", *grades, "--json")
    assert result.exit_code == 0, result.output
    assert '  "relevance": [2, 1, 3, 0],\n' in result.stdout  # one line (drills.cli.solve.jsonout)


@pytest.mark.parametrize("grades", ["2,,3", "2,1,", ",2"])
def test_an_empty_place_in_a_grade_list_is_an_error(grades):
    result = run("solve", grades)
    assert result.exit_code == 2 and "empty place between commas" in result.stderr


def test_the_vs_mrr_pack_name_has_no_doubled_prefix():
    out = run("packs", "list").stdout
    assert "ndcg-vs-mrr" in out and "ndcg-ndcg-" not in out


def test_fewer_matching_questions_than_count_is_said_at_the_start(tmp_path):
    from tests.test_pty import TINY_PACK

    pack = tmp_path / "tiny.yaml"
    pack.write_text(TINY_PACK, encoding="utf-8")
    result = CliRunner().invoke(cli, ["practice", "--pack", str(pack), "--topic", "tiny-hand",
                                      "--difficulty", "easy", "--count", "5"], input=":q\n")
    first = result.stdout.splitlines()[0]
    assert first == "Only 1 easy tiny-hand question matches (--count 5); asking 1."


def test_resume_with_nothing_to_resume_is_one_line():
    result = run("practice", "--resume")
    assert result.exit_code == 1 and result.stderr.startswith("Error: nothing to resume")


def test_resume_after_a_piped_session_stopped_early(tmp_path):
    first = CliRunner().invoke(cli, ["practice", "--seed", "3", "--count", "3"], input=":skip\n")
    assert "`drills practice --resume` goes on from there" in first.stdout
    again = CliRunner().invoke(cli, ["practice", "--resume"], input=":skip\n:skip\n")
    assert "at question 2 of 3" in again.stdout and "Question 3/3" in again.stdout
    assert "Question 1/3" not in again.stdout


def test_generate_generator_keeps_only_that_generators_questions():
    import json as _json

    result = run("generate", "--generator", "swap-delta", "--count", "4", "--seed", "2", "--json")
    items = _json.loads(result.stdout)
    assert len(items) == 4 and {item["generator"] for item in items} == {"swap-delta"}
    bad = run("generate", "--generator", "nope")
    assert bad.exit_code == 2 and "unknown generator 'nope'" in bad.stderr


def test_solve_verdict_in_colour_only_when_asked():
    coloured = run("--color", "always", "solve", "2,1,3,0", "--answer", "0.76").stdout
    assert coloured.startswith("\x1b[32;1mCorrect") or coloured.startswith("\x1b[1;32mCorrect")
    wrong = run("--color", "always", "solve", "2,1,3,0", "--answer", "0.5").stdout
    assert wrong.startswith("\x1b[31;1mWrong")
    assert "\x1b[" not in run("solve", "2,1,3,0", "--answer", "0.76").stdout
