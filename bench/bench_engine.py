"""Engine benchmarks: `drills solve` on a 1,000-document list, and per-call time on 10 documents."""

from __future__ import annotations

import random

from bench.common import PY, call_median, process_median


def bench_engine() -> list[dict]:
    from drills.engine.metrics.ndcg import ndcg_solution
    from drills.engine.problem import Problem

    rng = random.Random(1)
    big = ",".join(str(rng.randint(0, 4)) for _ in range(1000))
    whole = process_median([PY, "-m", "drills", "solve", big])
    whole_json = process_median([PY, "-m", "drills", "solve", big, "--json"])
    small = Problem(tuple(rng.randint(0, 4) for _ in range(10)))

    def cold() -> float:  # ndcg_solution() caches solutions; time the computation, not the lookup
        ndcg_solution.cache_clear()
        return ndcg_solution(small).ndcg.value

    per_call = call_median(cold)
    cached = call_median(lambda: ndcg_solution(small).ndcg.value)

    from drills.grading.check import check, explain
    from drills.model import Question

    question = Question(id="bench", topic="hand-computation", kind="numeric", prompt="",
                        problem=small, metric="ndcg")

    def grade_one() -> str:  # what the quiz does for one wrong answer, from a cold cache
        ndcg_solution.cache_clear()
        return explain(check(question, "0.5"), steps=True)

    graded = call_median(grade_one)
    return [
        {"name": "drills solve, 1,000-document list (whole process)", "median_s": whole, "target_s": 2.0},
        {"name": "drills solve --json, 1,000-document list (whole process)", "median_s": whole_json,
         "target_s": 2.0},
        {"name": "engine solve + NDCG value, 10-document list (per call)", "median_s": per_call,
         "note": f"cache off; a repeated call (cached) {cached * 1e6:.1f} µs",
         "target_s": None},
        {"name": "grade a wrong NDCG answer: verdict, 16 slips, worked steps (10 docs)",
         "median_s": graded, "target_s": None},
    ]
