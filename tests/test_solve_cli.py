"""`drills solve`: worked solutions, --json, --answer grading and bad input."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli

L = 1 / math.log2(3)


def run(*args: str):
    return CliRunner().invoke(cli, ["solve", *args], env={"COLUMNS": None})  # piped: never re-wrapped


def test_json_worked_example():
    res = run("2,1,3,0", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["dcg"]["value"] == pytest.approx(7.130929753571458, abs=1e-12)
    assert data["idcg"]["value"] == pytest.approx(9.392789260714371, abs=1e-12)
    assert data["ndcg"]["value"] == pytest.approx(0.759191924319732, abs=1e-12)
    assert data["dcg"]["exact"] == "13/2 + 1/log2(3)"
    assert data["k"] is None and data["gain"] == "exponential"  # no cut-off asked
    assert data["cutoff"].startswith("no cut-off")
    assert [row["relevance"] for row in data["rows"]] == [2, 1, 3, 0]
    assert data["rows"][1]["contribution"]["value"] == pytest.approx(L)
    assert data["ideal_order"] == [3, 2, 1, 0]


def test_linear_gain_and_k():
    assert json.loads(run("2,1,3,0", "--gain", "linear", "--json").output)["ndcg"]["value"] == pytest.approx(
        0.867503492569437, abs=1e-12)
    assert json.loads(run("2,1,3,0", "--k", "2", "--json").output)["ndcg"]["value"] == pytest.approx(
        0.408300, abs=1e-6)


def test_judged_pool_with_unretrieved_documents():
    # ranked [1, 0], but a grade-3 document was judged and not retrieved: IDCG uses it
    data = json.loads(run("1,0", "--judged", "3,1,0", "--json").output)
    assert data["idcg"]["value"] == pytest.approx(7 + 1 * L, abs=1e-12)
    assert data["ndcg"]["value"] == pytest.approx(1 / (7 + L), abs=1e-12)


def test_text_output_has_tables_and_division():
    res = run("2,1,3,0")
    assert res.exit_code == 0
    out = res.output
    assert "DCG = 13/2 + 1/log2(3) = 7.13092975357146" in out
    assert "IDCG = 15/2 + 3/log2(3)" in out
    assert "0.759191924319732" in out
    assert "log2(3) = 1.5850" in out


def test_all_zero_says_why():
    res = run("0,0,0")
    assert res.exit_code == 0
    assert "NDCG = 0" in res.output and "IDCG@k is 0" in res.output
    assert json.loads(run("0,0,0", "--json").output)["ndcg"]["value"] == 0


@pytest.mark.parametrize("args,needle", [
    (["a,b"], "'a' is not a whole number"),
    (["2,-1"], "'-1' is negative"),
    (["1.5,2"], "'1.5' is fractional"),
    ([","], "empty"),
    (["2,1", "--k", "0"], "k must be at least 1"),
    (["2,1", "--judged", "1,0"], "missing from it: 2"),
    (["2,1", "--answer", "0.5", "--tolerance", "abc"], "cannot read tolerance"),
])
def test_bad_input_one_line_exit_2(args, needle):
    res = run(*args)
    assert res.exit_code == 2, res.output
    assert needle in res.output
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)


@pytest.mark.parametrize("answer,code,verdict,ids", [
    ("0.76", 0, "correct", []),
    ("0.759", 0, "correct", []),
    ("76%", 0, "correct", []),
    ("(13+2/log2(3))/(15+6/log2(3))", 0, "correct", []),
    ("0.75", 1, "close", []),
    ("0.8675", 1, "wrong", ["linear_gain"]),
    ("1", 1, "wrong", ["ideal_unsorted", "ideal_sorted_in_place"]),  # the same number (issue 24)
])
def test_answer_ndcg(answer, code, verdict, ids):
    res = run("2,1,3,0", "--judged", "3,2,1,0", "--answer", answer, "--json")
    assert res.exit_code == code, res.output
    check = json.loads(res.output)["check"]
    assert check["verdict"] == verdict
    assert check["misconceptions"] == ids
    assert check["input"] == answer and check["metric"] == "ndcg"


def test_exact_answer_is_reported_exact():
    res = run("2,1,3,0", "--answer", "(13+2/log2(3))/(15+6/log2(3))", "--json")
    check = json.loads(res.output)["check"]
    assert check["exact"] is True
    assert abs(check["error"]) < 1e-12
    assert json.loads(run("2,1,3,0", "--answer", "0.76", "--json").output)["check"]["exact"] is False


@pytest.mark.parametrize("answer,code,ids", [("7.13", 0, []), ("7.1", 0, []), ("7.2", 1, []),
                                             ("10.29", 1, ["natural_log"])])
def test_answer_dcg(answer, code, ids):
    res = run("2,1,3,0", "--metric", "dcg", "--answer", answer, "--json")
    assert res.exit_code == code
    assert json.loads(res.output)["check"]["misconceptions"] == ids


@pytest.mark.parametrize("payload", ["__import__('os').system('touch pwned')", "9**9**9**9", "10^10^10",
                                     "factorial(10**9)", "1" * 100_000])
def test_hostile_answers_are_invalid(payload, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = run("2,1,3,0", "--answer", payload, "--json")
    assert res.exit_code == 2
    assert json.loads(res.output)["check"]["verdict"] == "invalid"
    assert not (tmp_path / "pwned").exists()


def test_text_answer_output_names_the_mistake():
    res = run("2,1,3,0", "--answer", "0.8675")
    assert res.exit_code == 1
    assert "linear_gain" in res.output
    assert "2^2 - 1 = 3" in res.output  # the right step from the engine's own rows
    assert "Accepted [0.754192, 0.764191]" in res.output


def test_unreadable_text_answer_is_a_one_line_usage_error():
    res = run("2,1,3,0", "--answer", "sin(3)")
    assert res.exit_code == 2
    assert res.stdout == ""  # no worked solution after a usage error
    assert res.stderr.startswith("Error: could not read 'sin(3)': unknown function 'sin'")
    assert res.stderr.count("\n") == 1


def test_tolerance_is_checked_without_answer_too():
    res = run("2,1", "--tolerance", "abc")
    assert res.exit_code == 2 and "cannot read tolerance 'abc'" in res.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["solve", "2,1"], ["--help"], ["generate", "--count", "2", "--seed", "1"]])
def test_a_full_disk_on_stdout_is_one_line_not_a_traceback(args, tmp_path):
    env = {**os.environ, "DRILLS_HOME": str(tmp_path)}
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "drills", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=env, timeout=60)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "Error: cannot write the output: No space left on device"


def test_a_number_is_not_written_twice():
    out = run("0,0,0").output
    assert "DCG = 0\n" in out and "= 0 = 0" not in out
    same = run("2,1,3,0", "--answer", "(13/2 + 1/log2(3)) / (15/2 + 3/log2(3))").output
    assert same.startswith("Correct, and exact: (13/2 + 1/log2(3)) / (15/2 + 3/log2(3)) = 0.759191924")
    assert "equals" not in same.splitlines()[0]
    other = run("2,1,3,0", "--answer", "(13 + 2/log2(3)) / (15 + 6/log2(3))").output
    assert "equals (13/2 + 1/log2(3)) / (15/2 + 3/log2(3))" in other.splitlines()[0]


def test_grades_as_separate_arguments_and_unknown_options():
    spaced = json.loads(run("2", "1", "3", "0", "--json").output)
    assert spaced["ndcg"]["value"] == pytest.approx(0.759191924319732, abs=1e-12)
    res = run("--kk", "3", "2,1")
    assert res.exit_code == 2 and res.stderr == "Error: no such option: --kk (see drills solve --help)\n"


def test_no_cut_off_is_uncut_ndcg():
    # ranked [2, 2, 2], pool [3, 2, 2, 2, 0], no --k: DCG over the ranking, IDCG over the
    # whole pool (trec_eval's and ranx's ndcg). By hand: DCG = 3 + 3/log2(3) + 3/2,
    # IDCG = 7 + 3/log2(3) + 3/2 + 3/log2(5) + 0.
    data = json.loads(run("2,2,2", "--judged", "3,2,2,2,0", "--json").output)
    dcg = 3 + 3 * L + 3 / 2
    idcg = 7 + 3 * L + 3 / 2 + 3 / math.log2(5)
    assert data["ndcg"]["value"] == pytest.approx(dcg / idcg, abs=1e-12)
    assert round(data["ndcg"]["value"], 6) == 0.547102
    assert data["idcg"]["value"] == pytest.approx(idcg, abs=1e-12)
    assert data["ideal_order"] == [3, 2, 2, 2, 0]
    assert data["k"] is None and "whole judged pool (5 documents)" in data["cutoff"]
    text = run("2,2,2", "--judged", "3,2,2,2,0").output
    assert text.splitlines()[0].endswith(
        "no cut-off: DCG over the whole ranking (3 documents), IDCG over the whole judged pool "
        "(5 documents), as trec_eval's and ranx's ndcg")
    # the whole-pool answer is correct, not a slip
    res = run("2,2,2", "--judged", "3,2,2,2,0", "--answer", "0.5471", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["check"]["verdict"] == "correct"


def test_with_k_both_sides_are_cut():
    data = json.loads(run("2,2,2", "--judged", "3,2,2,2,0", "--k", "3", "--json").output)
    dcg = 3 + 3 * L + 3 / 2
    idcg3 = 7 + 3 * L + 3 / 2  # the ideal cut at 3
    assert data["ndcg"]["value"] == pytest.approx(dcg / idcg3, abs=1e-12)
    assert data["k"] == 3 and data["cutoff"] == "k = 3: DCG and IDCG are both cut at rank 3"
    assert "IDCG@3: judged grades sorted best first, cut at 3" in run(
        "2,2,2", "--judged", "3,2,2,2,0", "--k", "3").output


def test_json_check_says_when_the_interval_was_narrowed():
    data = json.loads(run("2,1,3,0", "--judged", "3,2,1,0", "--k", "2", "--answer", "0.408", "--json").output)
    check = data["check"]
    assert check["verdict"] == "correct" and check["decimals"] == 3
    assert check["narrowed"] == "0.4118 would be the 1/i discount"
    assert check["tolerance"] == {"absolute": 0.0005, "relative": 0.0}
    plain = json.loads(run("2,1,3,0", "--answer", "0.76", "--json").output)["check"]
    assert plain["narrowed"] is None and plain["decimals"] is None
