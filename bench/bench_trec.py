"""TREC benchmark (issue 25): ``drills solve --qrels --run``, 6 measures, whole process, beside
pytrec_eval and trec_eval on the same files, runs interleaved, medians and max RSS.

pytrec_eval is never a drills dependency: give its Python with DRILLS_BENCH_PYTREC (default
/tmp/benchvenv/bin/python, a venv with ``pip install pytrec_eval`` or ``pytrec-eval-terrier``),
and trec_eval built from usnistgov/trec_eval with DRILLS_BENCH_TREC_EVAL (default
/tmp/trec_eval_src/trec_eval). A tool that is missing is named in the note, not timed.
The files come from ``bench/trec_files.py`` (about 100 judged documents per query).
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.common import PY, bench_env
from bench.trec_files import one_line_pair, write_pair

DEPTH = 1000
MEASURES = ("map", "ndcg", "ndcg_cut.10", "P.10", "recall.100", "recip_rank")
PYTREC_NAMES = {"map", "ndcg", "ndcg_cut_10", "P_10", "recall_100", "recip_rank"}
FILES = Path(tempfile.gettempdir()) / "drills-bench-trec"
_PYTREC = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
ev = pytrec_eval.RelevanceEvaluator(qrels, {measures!r})
res = ev.evaluate(run)
names = sorted(next(iter(res.values())))
for name in names:
    print(name, sum(q[name] for q in res.values()) / len(res))
"""


def write_files(folder: Path, seed: int = 12, queries: int = 50,
                depth: int = DEPTH) -> tuple[Path, Path]:
    """A seeded qrels (graded 0-3, about 1 in 8 retrieved documents relevant, plus relevant
    documents never retrieved) and run (``depth`` documents per query, some tied scores)."""
    rng = random.Random(seed)
    qrels_lines, run_lines = [], []
    for q in range(1, queries + 1):
        qid = str(400 + q)
        for rank in range(1, depth + 1):
            docno = f"D{q:03d}-{rng.randrange(10**6):06d}-{rank:04d}"
            score = round(100 - rank * 0.09 + rng.random() * 0.5, 2)  # 2 places: some ties
            run_lines.append(f"{qid} Q0 {docno} {rank} {score} bench")
            if rng.random() < 0.3:  # judged
                grade = rng.choices((0, 1, 2, 3), (60, 25, 10, 5))[0]
                qrels_lines.append(f"{qid} 0 {docno} {grade}")
        for extra in range(rng.randrange(20, 80)):  # judged, never retrieved
            qrels_lines.append(f"{qid} 0 X{q:03d}-{extra:04d} {rng.choice((0, 1, 1, 2, 3))}")
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    qrels.write_text("\n".join(qrels_lines) + "\n", encoding="utf-8")
    run.write_text("\n".join(run_lines) + "\n", encoding="utf-8")
    return qrels, run


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and max RSS (MB) of one run of ``argv`` to completion."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{argv[:3]} exited {proc.returncode}")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def tools(qrels: Path, run: Path) -> dict[str, list[str] | str]:
    """name -> argv, or -> why it is not timed."""
    drills = [PY, "-m", "drills", "solve", "--qrels", str(qrels), "--run", str(run)]
    for name in MEASURES:
        drills += ["-m", name]
    out: dict[str, list[str] | str] = {"drills": drills}
    python = os.environ.get("DRILLS_BENCH_PYTREC", "/tmp/benchvenv/bin/python")
    if os.path.exists(python) and subprocess.run([python, "-c", "import pytrec_eval"],
                                                 capture_output=True).returncode == 0:
        out["pytrec_eval"] = [python, "-c", _PYTREC.format(measures=PYTREC_NAMES), str(qrels), str(run)]
    else:
        out["pytrec_eval"] = f"pytrec_eval not found ({python}; set DRILLS_BENCH_PYTREC)"
    binary = os.environ.get("DRILLS_BENCH_TREC_EVAL", "/tmp/trec_eval_src/trec_eval")
    if os.access(binary, os.X_OK):
        out["trec_eval"] = [binary, *(a for m in MEASURES for a in ("-m", m)), str(qrels), str(run)]
    else:
        out["trec_eval"] = f"trec_eval not built ({binary}; set DRILLS_BENCH_TREC_EVAL)"
    return out


def side_by_side(qrels: Path, run: Path, runs: int) -> dict[str, tuple[float, float] | str]:
    """Each tool ``runs`` times, interleaved (after one warm-up round): median s, max RSS MB."""
    env = bench_env()
    argvs = tools(qrels, run)
    times: dict[str, list[float]] = {k: [] for k, v in argvs.items() if isinstance(v, list)}
    rss: dict[str, float] = dict.fromkeys(times, 0.0)
    for i in range(runs + 1):
        for name in times:
            seconds, mb = timed(argvs[name], env)  # type: ignore[arg-type]
            if i:
                times[name].append(seconds)
                rss[name] = max(rss[name], mb)
    out: dict[str, tuple[float, float] | str] = {k: v for k, v in argvs.items() if isinstance(v, str)}
    out.update({k: (statistics.median(v), rss[k]) for k, v in times.items()})
    return out


def _row(queries: int, runs: int) -> dict:
    qrels, run = FILES / f"qrels-{queries}x{DEPTH}.txt", FILES / f"run-{queries}x{DEPTH}.txt"
    if not run.exists():
        write_pair(FILES, queries, DEPTH)
    got = side_by_side(qrels, run, runs)
    ours, ours_rss = got["drills"]  # type: ignore[misc]
    parts, target = [f"drills max RSS {ours_rss:,.0f} MB"], None
    for name in ("pytrec_eval", "trec_eval"):
        value = got[name]
        if isinstance(value, str):
            parts.append(value)
            continue
        seconds, mb = value
        parts.append(f"{name} {seconds:.2f} s (drills {ours / seconds:.2f}x), {mb:,.0f} MB")
        if name == "pytrec_eval":
            target = seconds
            parts.append(f"RSS target (at most pytrec_eval's): {'ok' if ours_rss <= mb else 'NO'}")
    return {"name": f"drills solve --qrels --run, {queries:,} queries x {DEPTH:,} documents, "
                    f"{len(MEASURES)} measures (whole process; target: at most pytrec_eval)",
            "median_s": ours, "target_s": target, "note": "; ".join(parts)}


def _one_line_row(runs: int = 3) -> dict:
    qrels, run = FILES / "qrels-100000x1.txt", FILES / "run-100000x1.txt"
    if not run.exists():
        one_line_pair(FILES)
    argv = tools(qrels, run)["drills"]
    env = bench_env()
    timed(argv, env)  # type: ignore[arg-type]
    results = [timed(argv, env) for _ in range(runs)]  # type: ignore[arg-type]
    rss = max(mb for _, mb in results)
    return {"name": "drills solve --qrels --run, 100,000 one-line queries, 6 measures "
                    "(whole process; target 5 s and 300 MB)",
            "median_s": statistics.median(s for s, _ in results), "target_s": 5.0,
            "note": f"max RSS {rss:,.0f} MB: {'ok' if rss <= 300 else 'NO'} (target 300 MB)"}


def bench_trec() -> list[dict]:
    return [_row(500, runs=5), _row(5000, runs=3), _one_line_row()]
