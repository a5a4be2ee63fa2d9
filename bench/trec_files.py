"""Synthetic TREC files for the benchmarks: ``python -m bench.trec_files FOLDER QUERIES [DEPTH]``.

``write_pair`` writes a seeded qrels and run: ``depth`` documents per query (scores with two
decimals, so some tie and trec_eval's docno order decides), about ``judged`` judgements per
query (most of them on retrieved documents, the rest never retrieved), grades 0-3 with
about 40% above 0. ``one_line_pair``: many queries of one run line and one judgement each.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path


def write_pair(folder: Path, queries: int, depth: int = 1000, judged: int = 100,
               seed: int = 25) -> tuple[Path, Path]:
    rng = random.Random(seed)
    rand, choice = rng.random, rng.choices
    folder.mkdir(parents=True, exist_ok=True)
    qrels, run = folder / f"qrels-{queries}x{depth}.txt", folder / f"run-{queries}x{depth}.txt"
    share = 0.8 * judged / depth  # 80% of the judgements on retrieved documents
    with open(qrels, "w", encoding="utf-8") as fq, open(run, "w", encoding="utf-8") as fr:
        for q in range(1, queries + 1):
            qid = str(1000 + q)
            run_lines, qrels_lines = [], []
            grades = choice((0, 1, 2, 3), (60, 25, 10, 5), k=depth + judged)
            for rank in range(1, depth + 1):
                docno = f"D{q}-{int(rand() * 1e6):06d}-{rank}"
                score = 100 - rank * 0.09 + rand() * 0.5
                run_lines.append(f"{qid} Q0 {docno} {rank} {score:.2f} bench\n")
                if rand() < share:
                    qrels_lines.append(f"{qid} 0 {docno} {grades[rank]}\n")
            for extra in range(judged - len(qrels_lines)):  # judged, never retrieved
                qrels_lines.append(f"{qid} 0 X{q}-{extra} {grades[depth + extra % judged]}\n")
            fr.writelines(run_lines)
            fq.writelines(qrels_lines)
    return qrels, run


def one_line_pair(folder: Path, queries: int = 100_000, seed: int = 26) -> tuple[Path, Path]:
    """``queries`` queries, each with one ranked document and one judgement (relevant or not)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    qrels, run = folder / f"qrels-{queries}x1.txt", folder / f"run-{queries}x1.txt"
    with open(qrels, "w", encoding="utf-8") as fq, open(run, "w", encoding="utf-8") as fr:
        for q in range(1, queries + 1):
            fr.write(f"q{q} Q0 d{q} 1 {rng.random():.4f} one\n")
            fq.write(f"q{q} 0 d{q if rng.random() < 0.7 else -q} {rng.randrange(0, 3)}\n")
    return qrels, run


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) not in (2, 3):
        print(__doc__.splitlines()[0], file=sys.stderr)
        sys.exit(2)
    print(*write_pair(Path(args[0]), int(args[1]), *(int(a) for a in args[2:])))
