"""Benchmark: ``drills stats`` on a 1,000,000-answer history, timed as a whole process.

The target is under 0.5 s per run (median of 5), start-up included (issue 25, point 4):
the stats path does its aggregation in SQL and imports neither sympy nor prompt_toolkit.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TOPICS = ("hand-computation", "gain-and-discount", "normalization", "binary-vs-graded",
          "ndcg-vs-mrr", "conventions", "lambdarank")
KINDS = ("numeric", "generated", "choice", "concept")
SLIPS = ("linear_gain", "log2_rank", "ideal_unsorted", "ideal_not_truncated", "inverted_ratio")
VERDICT_WEIGHTS = {"correct": 70, "close": 8, "wrong": 17, "skipped": 3, "timeout": 2}


def build_history(home: Path, n: int = 100_000, per_session: int = 200, seed: int = 7) -> float:
    """Fill ``home`` with ``n`` attempts over ~200 days; returns the seconds it took.

    The rows are the Store's own (``attempt_row``), written with one executemany per
    5,000 answers in one transaction (a 1,000,000-answer history: about a minute).
    """
    from drills.store import Attempt, Store
    from drills.store.cards import update_review
    from drills.store.database import INSERT_ATTEMPT, attempt_row

    rng = random.Random(seed)
    verdicts, weights = zip(*VERDICT_WEIGHTS.items(), strict=True)
    start = time.perf_counter()
    store = Store.open(home)
    conn = store.conn
    conn.execute("PRAGMA synchronous = OFF")  # bulk fixture: no fsync
    now = datetime.now(timezone.utc)
    sessions = max(1, n // per_session)
    last: dict[str, Attempt] = {}
    rows: list[tuple] = []
    try:
        ids = [store.start_session("practice", s, {"count": per_session}) for s in range(sessions)]
        conn.execute("BEGIN")
        for s, sid in enumerate(ids):
            when = now - timedelta(days=(sessions - s) * 200 / sessions)
            for i in range(per_session if s < sessions - 1 else n - per_session * s):
                kind = rng.choice(KINDS)
                verdict = rng.choices(verdicts, weights)[0]
                slips = (rng.choice(SLIPS),) if verdict == "wrong" and rng.random() < 0.5 else ()
                generated = kind == "generated"
                a = Attempt(f"q{rng.randrange(300)}", rng.choice(TOPICS), kind, verdict,
                            "0.8", "13/16", 0.8125, slips, round(rng.uniform(2, 60), 2),
                            generator="ndcg_at_k" if generated else None,
                            params={"n": 5} if generated else None,
                            answered_at=when + timedelta(seconds=20 * i))
                rows.append(attempt_row(sid, a))
                last[a.question_id if not a.generator else f"{a.generator}:{a.topic}"] = a
            if len(rows) >= 5000 or s == sessions - 1:
                conn.executemany(INSERT_ATTEMPT, rows)
                rows.clear()
        conn.executemany("UPDATE sessions SET ended_at = started_at, score = 0, total = ?, report = '{}' "
                         "WHERE id = ?", [(per_session, sid) for sid in ids])
        conn.execute("COMMIT")
        for a in last.values():  # one review card per item, as the real history would have
            update_review(store, a)
    finally:
        store.close()
    return time.perf_counter() - start


def bench_stats_100k(n: int = 1_000_000, runs: int = 5) -> dict:
    """Build an ``n``-attempt history in a temp DRILLS_HOME and time ``drills stats``."""
    from bench.common import PY, bench_env, process_median
    from drills.store import Store
    from drills.store.progress import stats

    with tempfile.TemporaryDirectory(prefix="drills-bench-") as tmp:
        home = Path(tmp) / "home"
        build = build_history(home, n)
        store = Store.open(home)
        try:
            t = time.perf_counter()
            data = stats(store)
            query = time.perf_counter() - t
        finally:
            store.close()
        assert data["attempts"] == n, data["attempts"]
        env = bench_env(str(home))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        text = process_median([PY, "-m", "drills", "stats"], runs, env)
        as_json = process_median([PY, "-m", "drills", "stats", "--json"], runs, env)
        startup = process_median([PY, "-m", "drills", "--version"], runs, env)
        db_mb = (home / "drills.db").stat().st_size / 1e6
    return {
        "name": f"stats_{n // 1000}k",
        "median_s": text,
        "target_s": 0.5,
        "note": (f"drills stats, whole process, {n:,} attempts ({db_mb:.0f} MB db); "
                 f"--json {as_json * 1e3:.0f} ms; SQL {query * 1e3:.0f} ms; "
                 f"bare start-up {startup * 1e3:.0f} ms; build {build:.1f} s"),
        "attempts": n,
        "stats_json_median_s": as_json,
        "stats_query_s": query,
        "startup_median_s": startup,
        "build_s": build,
    }


if __name__ == "__main__":
    import json

    print(json.dumps(bench_stats_100k(), indent=2))
