"""Engine benchmarks: `drills solve` on 1,000- and 10,000-document lists (the latter against
`drills --version`, measured side by side), per-call time on 10 and 1,000 documents, and
grading a wrong answer on 1,000 documents (issue 25: under 50 ms)."""

from __future__ import annotations

import random
import statistics
import subprocess
import time

from bench.common import PY, bench_env, call_median, process_median


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
    version, long_solve = side_by_side([[PY, "-m", "drills", "--version"],
                                        [PY, "-m", "drills", "solve", *long_list(10_000)]])
    long_calls = per_call_1000()
    huge = long_list(100_000)  # `drills solve $(cat grades.txt)`: separate words, as a shell passes them
    huge_ndcg = process_median([PY, "-m", "drills", "solve", *huge], runs=3)
    huge_ap = process_median([PY, "-m", "drills", "solve", *huge, "--metric", "ap"], runs=3)

    from drills.grading.check import check, explain
    from drills.model import Question

    question = Question(id="bench", topic="hand-computation", kind="numeric", prompt="",
                        problem=small, metric="ndcg")

    def grade_one() -> str:  # what the quiz does for one wrong answer, from a cold cache
        ndcg_solution.cache_clear()
        return explain(check(question, "0.5"), steps=True)

    graded = call_median(grade_one)
    wrong_1000 = grade_wrong_1000()
    return [
        {"name": "drills solve, 1,000-document list (whole process)", "median_s": whole, "target_s": 2.0},
        {"name": "drills solve --json, 1,000-document list (whole process)", "median_s": whole_json,
         "target_s": 2.0},
        {"name": "engine solve + NDCG value, 10-document list (per call)", "median_s": per_call,
         "note": f"cache off; a repeated call (cached) {cached * 1e6:.1f} µs",
         "target_s": None},
        {"name": "grade a wrong NDCG answer: verdict, 16 slips, worked steps (10 docs)",
         "median_s": graded, "target_s": None},
        {"name": "drills solve, 10,000-document list, NDCG (whole process)", "median_s": long_solve,
         "note": f"{long_solve / version:.2f}x `drills --version` ({version:.3f} s), side by side",
         "target_s": 3 * version},
        {"name": "drills solve, 100,000-document list, NDCG (whole process)", "median_s": huge_ndcg,
         "target_s": None},
        {"name": "drills solve, 100,000-document list, AP (whole process)", "median_s": huge_ap,
         "target_s": None},
        *({"name": f"engine {metric} value, 1,000-document list (per call, cache off)", "median_s": t,
           "target_s": None} for metric, t in long_calls.items()),
        {"name": "grade a wrong NDCG answer on 1,000 documents (in process, cache off)",
         "median_s": wrong_1000, "target_s": 0.05},
        *({"name": f"grade a wrong {m.upper()} answer on 1,000 documents (in process, cache off)",
           "median_s": grade_wrong_1000(m), "target_s": 0.05} for m in ("err", "rbp", "ap")),
    ]


def long_list(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [str(rng.randint(0, 4)) for _ in range(n)]


def side_by_side(argvs: list[list[str]], runs: int = 7) -> list[float]:
    """Median wall times of several commands run in turn (interleaved), so a loaded machine
    slows each alike."""
    env = bench_env()
    times: list[list[float]] = [[] for _ in argvs]
    for i in range(runs + 1):
        for argv, out in zip(argvs, times, strict=True):
            start = time.perf_counter()
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            if i:
                out.append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def _clear() -> None:
    from drills.engine.metrics.ndcg import ndcg_solution
    from drills.engine.metrics.rational import _result
    from drills.grading import diagnose, narrowing

    ndcg_solution.cache_clear()
    _result.cache_clear()
    diagnose._all_values.cache_clear()
    narrowing.narrowing.cache_clear()


def per_call_1000() -> dict[str, float]:
    from drills.engine.metrics.registry import metric_value
    from drills.engine.problem import Problem

    problem = Problem(tuple(map(int, long_list(1000, seed=2))))

    def once(metric: str) -> float:
        _clear()
        return metric_value(problem, metric).value

    return {metric: call_median(lambda m=metric: once(m), runs=5, inner=5)
            for metric in ("ndcg", "err", "ap", "rbp")}


def grade_wrong_1000(metric: str = "ndcg") -> float:
    """`drills solve <1,000 grades> --answer 0.5` in process: the verdict, the narrowing, the
    diagnosis (every slip's value), from cold caches."""
    from drills.engine.problem import Problem
    from drills.grading.check import check
    from drills.model import Question

    question = Question(id="bench", topic="hand-computation", kind="numeric", prompt="",
                        problem=Problem(tuple(map(int, long_list(1000, seed=3)))), metric=metric)

    def once() -> str:
        _clear()
        return check(question, "0.5").verdict

    return call_median(once, runs=5, inner=3)
