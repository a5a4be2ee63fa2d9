"""Run every benchmark and print a table of medians: ``python bench/run.py [NAME...]``.

Speed is measured here, never in timed tests; the machines are noisy, so every figure
is a median of several runs.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# name -> "module:function"; each function returns a list of rows (or one row) with
# keys name, median_s, target_s (None: no target), and optionally note.
BENCHES = {
    "startup": "bench.bench_startup:bench_startup",
    "engine": "bench.bench_engine:bench_engine",
    "packs": "bench.bench_packs:bench_packs",
    "store": "bench.bench_store:bench_stats_100k",
    "input": "bench.bench_input:bench_input",
    "code": "bench.bench_code:bench_code",
    "runner": "bench.bench_runner:bench_runner",
    "trec": "bench.bench_trec:bench_trec",
    "ecosystem": "bench.bench_ecosystem:bench_ecosystem",
    "concept": "bench.bench_concept:bench_concept",
}


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__.strip().splitlines()[0])
        print(f"benchmarks: {', '.join(BENCHES)}")
        return 0
    unknown = [a for a in argv if a not in BENCHES]
    if unknown:
        print(f"unknown benchmark {unknown[0]!r} (benchmarks: {', '.join(BENCHES)})", file=sys.stderr)
        return 2
    chosen = argv or list(BENCHES)
    rows: list[dict] = []
    for name in chosen:
        module, func = BENCHES[name].split(":")
        print(f"running {name} ...", file=sys.stderr, flush=True)
        result = getattr(importlib.import_module(module), func)()
        rows.extend(result if isinstance(result, list) else [result])
    width = max(len(r["name"]) for r in rows)
    print(f"{'benchmark'.ljust(width)}  {'median':>10}  {'target':>10}  ok")
    print("-" * (width + 30))
    failed = 0
    for r in rows:
        target = r.get("target_s")
        ok = "" if target is None else ("yes" if r["median_s"] <= target else "NO")
        failed += ok == "NO"
        print(f"{r['name'].ljust(width)}  {_fmt(r['median_s']):>10}  "
              f"{(_fmt(target) if target else '-'):>10}  {ok}")
        if r.get("note"):
            print(f"{''.ljust(width)}  {r['note']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
