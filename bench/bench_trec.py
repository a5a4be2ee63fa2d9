"""TREC benchmark: ``drills solve --qrels --run`` on 50 queries x 1,000 documents, 5 measures
(whole process), beside pytrec_eval on the same files when it is installed (never a dependency)."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from bench.common import PY, process_median

QUERIES = 50
DEPTH = 1000
MEASURES = ("map", "P.10", "recall.10", "ndcg", "ndcg_cut.10")
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


def write_files(folder: Path, seed: int = 12, queries: int = QUERIES,
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


def bench_trec() -> list[dict]:
    folder = Path(tempfile.mkdtemp(prefix="drills-bench-trec-"))
    qrels, run = write_files(folder)
    argv = [PY, "-m", "drills", "solve", "--qrels", str(qrels), "--run", str(run)]
    for name in MEASURES:
        argv += ["-m", name]
    ours = process_median(argv)
    ours_json = process_median([*argv, "--json"])
    default = process_median([PY, "-m", "drills", "solve", "--qrels", str(qrels), "--run", str(run)])
    note = f"--json {ours_json:.2f} s; default 9 measures {default:.2f} s; "
    try:
        import pytrec_eval  # noqa: F401
    except ImportError:
        note += "pytrec_eval not installed (pip install pytrec-eval-terrier to compare)"
    else:
        names = {"map", "P_10", "recall_10", "ndcg", "ndcg_cut_10"}
        script = _PYTREC.format(measures=names)
        theirs = process_median([PY, "-c", script, str(qrels), str(run)])
        note += f"pytrec_eval (whole process, same files and measures) {theirs:.2f} s"
    return [{"name": f"drills solve --qrels --run, {QUERIES} queries x {DEPTH:,} documents, "
                     f"{len(MEASURES)} measures (whole process)",
             "median_s": ours, "target_s": 5.0, "note": note}]
