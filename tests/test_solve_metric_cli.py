"""`drills solve --metric` for the metrics beyond NDCG: worked steps, --json, --answer, bad input.

Expected values come from tests/metrics_reference.py and tests/cascade_reference.py (naive
implementations of the definitions), not from the engine.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from drills.cli import cli

from . import cascade_reference as cref
from . import metrics_reference as ref

B, POOL = (1, 0, 1, 1, 0), (1, 1, 1, 1, 0)


def run(*args: str):
    return CliRunner().invoke(cli, ["solve", *args])


def csv(grades) -> str:
    return ",".join(map(str, grades))


@pytest.mark.parametrize("metric,extra,expected", [
    ("ap", (), ref.ap(B, judged=POOL)),
    ("ap", ("--denominator", "retrieved"), ref.ap(B, judged=POOL, convention="retrieved")),
    ("ap", ("--k", "3", "--denominator", "min_k_R"), ref.ap(B, 3, judged=POOL, convention="min_k_R")),
    ("precision", ("--k", "3"), ref.precision(B, 3)),
    ("precision", ("--k", "10"), ref.precision(B, 10)),
    ("recall", ("--k", "3"), ref.recall(B, 3, judged=POOL)),
    ("rprec", (), ref.r_precision(B, judged=POOL)),
    ("hit", ("--k", "1"), ref.hit(B, 1)),
    ("rr", (), ref.rr(B)),
])
def test_binary_metric_json_has_a_key_named_after_it(metric, extra, expected):
    res = run(csv(B), "--judged", csv(POOL), "--metric", metric, *extra, "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert Fraction(data[metric]["exact"]) == expected
    assert data[metric]["value"] == pytest.approx(float(expected))
    assert data["metric"] == metric


def test_graded_threshold_and_cascade_metrics():
    g = (2, 1, 3, 0)
    data = json.loads(run(csv(g), "--metric", "ap", "--threshold", "2", "--json").output)
    assert Fraction(data["ap"]["exact"]) == ref.ap(g, threshold=2)
    data = json.loads(run(csv(g), "--metric", "err", "--k", "4", "--json").output)
    assert Fraction(data["err"]["exact"]) == cref.err(g, 4)
    data = json.loads(run(csv(g), "--metric", "rbp", "--persistence", "0.5", "--json").output)
    value, residual = cref.rbp(g, Fraction(1, 2))
    assert Fraction(data["rbp"]["exact"]) == value
    assert Fraction(data["rbp"]["residual"]["exact"]) == residual
    # the NDCG keys stay beside the new one
    assert data["ndcg"]["value"] == pytest.approx(0.7591919243, abs=1e-9)


def test_worked_text_shows_the_table_and_the_equation():
    res = run(csv(B), "--judged", csv(POOL), "--metric", "ap")
    assert res.exit_code == 0, res.output
    assert "R = 4" in res.output
    assert "AP = (1 + 2/3 + 3/4) / 4 = 29/48" in res.output
    assert "in AP" in res.output


def test_answer_graded_with_the_metric():
    ok = run(csv(B), "--judged", csv(POOL), "--metric", "ap", "--answer", "29/48")
    assert ok.exit_code == 0 and ok.output.startswith("Correct")
    wrong = run(csv(B), "--judged", csv(POOL), "--metric", "ap", "--answer", "0.8056", "--json")
    assert wrong.exit_code == 1
    check = json.loads(wrong.output)["check"]
    assert check["verdict"] == "wrong" and check["metric"] == "ap"


@pytest.mark.parametrize("args,message", [
    (("1,0", "--metric", "ndcg", "--threshold", "2"), "for the other metrics"),
    (("1,0", "--metric", "ap", "--persistence", "0.5"), "RBP's"),
    (("1,0", "--metric", "rr", "--denominator", "retrieved"), "AP's"),
    (("1,0", "--metric", "ap", "--max-grade", "3"), "ERR and RBP"),
    (("1,0", "--metric", "err", "--threshold", "2"), "grades themselves"),
    (("1,0", "--metric", "rprec", "--k", "2"), "drop --k"),
    (("1,0", "--metric", "rbp", "--persistence", "1.5"), "strictly between 0 and 1"),
    (("1,2", "--judged", "1", "--metric", "ap"), "missing: 2"),
    (("--metric", "ap"), "give the relevance grades"),
    (("1,0", "--qrels", "q.txt"), "not both"),
    (("--qrels", "q.txt"), "go together"),
    (("1,0", "--query", "301"), "go with --qrels"),
])
def test_bad_combinations_are_usage_errors(args, message):
    res = run(*args)
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert "Traceback" not in res.output


def test_min_k_r_without_k_takes_the_lists_length_and_says_so():
    """Issue 23: one document of grade 4 ranked, R = 7 in the pool: min(k, R) with k = 1."""
    res = CliRunner().invoke(cli, ["solve", "4", "--judged", "4,4,1,2,1,1,2", "--metric", "ap",
                                   "--denominator", "min_k_R"])
    assert res.exit_code == 0, res.output
    assert "AP = (1) / 1 = 1" in res.output and "k = the list's length, 1" in res.output
    as_json = json.loads(CliRunner().invoke(cli, ["solve", "4", "--judged", "4,4,1,2,1,1,2", "--metric",
                                                  "ap", "--denominator", "min_k_R", "--json"]).output)
    assert as_json["ap"]["value"] == 1.0


def test_gain_with_a_metric_that_has_none_is_a_usage_error():
    for metric, says in (("ap", "--threshold"), ("err", "2^g_max"), ("precision", "--threshold")):
        res = CliRunner().invoke(cli, ["solve", "1,3,2,2,0", "--gain", "linear", "--metric", metric])
        assert res.exit_code == 2 and "--gain is NDCG's" in res.output and says in res.output
