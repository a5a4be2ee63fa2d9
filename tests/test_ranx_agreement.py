"""The engine against ranx 0.3.21 where the conventions match, on 200 seeded random cases.

ranx is too heavy to install for the tests (numba, pandas, ir-datasets, ...), so its values
were recorded once by tests/fixtures/ranx/make_values.py, which imports nothing from drills.
Each case is a ranking of graded documents (scores strictly descending) plus judged relevant
documents that were never retrieved.

Conventions: ranx's map and map@k divide by R (drills' default "R"); precision@k divides by
k; recall@k and r-precision by R; "-l2" is a relevance threshold of 2; ndcg is linear-gain and
ndcg_burges 2^rel - 1, both with the ideal from every judged document; rbp.P uses the raw
grades where drills rescales them by g_max, so ranx's rbp is g_max times drills'.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from drills.engine.metrics.registry import measure, metric_value
from drills.engine.problem import Problem

DATA = json.loads((Path(__file__).parent / "fixtures" / "ranx" / "values.json").read_text())
CASES = DATA["cases"]


def ours(case: dict, name: str) -> float:
    ranking = tuple(case["ranking"])
    pool = tuple(g for g in ranking if g > 0) + tuple(case["missed"])
    base, _, level = name.partition("-l")
    threshold = int(level) if level else 1
    metric, _, cut = base.partition("@")
    k = int(cut) if cut else None
    if metric.startswith("rbp."):
        p = Fraction(int(metric[4:]), 10)
        result = measure(Problem(ranking, pool, persistence=p), "rbp")
        return float(result.exact * result.max_grade)  # ranx: raw grades
    if metric.startswith("ndcg"):
        gain = "exponential" if metric == "ndcg_burges" else "linear"
        full_pool = pool + tuple(g for g in ranking if g == 0)
        return metric_value(Problem(ranking, full_pool, k, gain), "ndcg").value
    name_of = {"map": "ap", "precision": "precision", "recall": "recall", "r-precision": "rprec",
               "mrr": "rr", "hit_rate": "hit"}[metric]
    return metric_value(Problem(ranking, pool, k, threshold=threshold), name_of).value


@pytest.mark.parametrize("name", DATA["metrics"])
def test_every_case_agrees_with_ranx(name):
    misses = [(case["ranking"], case["missed"], case["ranx"][name], ours(case, name))
              for case in CASES if abs(case["ranx"][name] - ours(case, name)) > 1e-9]
    assert not misses, misses[:3]
