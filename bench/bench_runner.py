"""The coding round's runner: one check = one fresh process running every hidden case.

What `drills code check` adds on top (the CLI's own start-up) is measured by that command's
bench; this row is the runner alone: temp dir, start-up, limits, 50 calls, kill, reap.
"""

from __future__ import annotations

import random
import statistics

NDCG = """
import math

def ndcg_at_k(rels, k):
    dcg = sum((2 ** r - 1) / math.log2(i + 2) for i, r in enumerate(rels[:k]))
    ideal = sorted(rels, reverse=True)
    idcg = sum((2 ** r - 1) / math.log2(i + 2) for i, r in enumerate(ideal[:k]))
    return dcg / idcg if idcg else 0.0
"""
NDCG_NUMPY = """
import numpy as np

def ndcg_at_k(rels, k):
    rels = np.asarray(rels, dtype=float)
    discounts = 1 / np.log2(np.arange(2, len(rels) + 2))
    dcg = ((2 ** rels[:k] - 1) * discounts[:k]).sum()
    ideal = np.sort(rels)[::-1]
    idcg = ((2 ** ideal[:k] - 1) * discounts[:k]).sum()
    return dcg / idcg if idcg else 0.0
"""


def _median(source: str, cases: list, runs: int = 9) -> tuple[float, str]:
    from drills.runner import run_function

    times, status = [], ""
    for i in range(runs + 1):
        result = run_function(source, "ndcg_at_k", cases)
        status = result.status
        if i:  # the first run warms the page cache
            times.append(result.seconds)
    return statistics.median(times), status


def bench_runner() -> list[dict]:
    rng = random.Random(1)
    cases = [[[rng.randint(0, 4) for _ in range(rng.randint(5, 100))], rng.randint(1, 20)]
             for _ in range(50)]
    plain, status = _median(NDCG, cases)
    rows = [{"name": "runner: 50 cases of an NDCG@k function, one process", "median_s": plain,
             "target_s": 0.5, "note": f"status {status}; default limits"}]
    try:
        import numpy  # noqa: F401  (only to know whether the child can import it)
    except ImportError:
        return rows
    with_numpy, status = _median(NDCG_NUMPY, cases)
    rows.append({"name": "runner: the same 50 cases, the function uses numpy",
                 "median_s": with_numpy, "target_s": None,
                 "note": f"status {status}; most of it is importing numpy"})
    return rows
