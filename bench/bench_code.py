"""`drills code check` on 50 hidden cases, whole process: start-up, the pack, the engine's
expected values, one runner process (with its isolation: the bootstrap's copy, the token,
the subreaper's sweep, the write budget), grading (target 0.5 s); plain Python and numpy."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from bench.bench_runner import NDCG, NDCG_NUMPY
from bench.common import bench_env, process_median

PACK = """\
pack:
  name: bench-code
  version: "1"
questions:
  - id: bench.ndcg-at-k
    topic: coding
    kind: code
    prompt: "Implement NDCG@k (exponential gain, log2(i + 1) discount, 0.0 when IDCG is 0)."
    function: ndcg_at_k
    signature: "def ndcg_at_k(relevance: list[int], k: int) -> float:"
    task: {metric: ndcg, args: [relevance, k]}
    cases: {count: 50, include: [k_past_end, k_one, all_zero, single, ties]}
"""


def bench_code() -> list[dict]:
    home = tempfile.mkdtemp(prefix="drills-bench-code-")
    (Path(home) / "packs").mkdir()
    (Path(home) / "packs" / "bench.yaml").write_text(PACK, encoding="utf-8")
    env = bench_env(home)
    rows = []
    for name, source, note in (
            ("drills code check, 50 hidden cases (whole process)", NDCG,
             "a correct NDCG@k in plain Python; one runner process, the pack cached"),
            ("drills code check, 50 hidden cases, a numpy solution (whole process)", NDCG_NUMPY,
             "a correct NDCG@k with numpy (a dependency); most of the difference is import numpy")):
        solution = Path(home) / "ndcg.py"
        solution.write_text(source, encoding="utf-8")
        argv = [sys.executable, "-m", "drills", "code", "check", str(solution), "--question",
                "bench.ndcg-at-k"]
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)  # correct: exit 0
        rows.append({"name": name, "median_s": process_median(argv, runs=7, env=env),
                     "target_s": 0.5, "note": note})
    return rows
