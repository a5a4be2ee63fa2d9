"""Launch to first question, this tree against another, interleaved run by run.

``python bench/ab_startup.py OTHER_TREE [RUNS] [--first-ever] [--this TREE]``: OTHER_TREE is
a checkout of drills (e.g. ``git worktree add /tmp/before <commit>``) or an unpacked wheel (a
folder holding ``drills/``). Each run launches ``drills practice`` in a pty from this tree
(or ``--this TREE``), then from the other, then ``python -c "import sympy"``, so the
machine's load falls on all three alike; prints each median, the ratio new/old and each
one's ratio to ``import sympy`` (the start-up target, bench_startup.py).

``--first-ever`` gives every launch an empty DRILLS_HOME (only its config.toml): the pack
cache and the database are built during the run, as at a newcomer's first launch.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_startup import CONFIG, _first_question_seconds, _sympy_seconds  # noqa: E402
from bench.common import bench_env, is_tree, take_option  # noqa: E402

HERE = Path(__file__).resolve().parent.parent


def fresh_home(env: dict[str, str]) -> dict[str, str]:
    """``env`` with a new, empty DRILLS_HOME holding only the bench's config.toml."""
    fresh = bench_env()
    fresh.update({k: v for k, v in env.items() if k != "DRILLS_HOME"})
    (Path(fresh["DRILLS_HOME"]) / "config.toml").write_text(CONFIG, encoding="utf-8")
    return fresh


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    first_ever = "--first-ever" in argv
    argv = [a for a in argv if a != "--first-ever"]
    given = take_option(argv)
    this = Path(given).resolve() if given else HERE
    other = Path(argv[0]).resolve()
    if not is_tree(other):
        return 2
    runs = int(argv[1]) if len(argv) > 1 else 11
    envs = {}
    for name, tree in (("this", this), ("other", other)):
        env = bench_env()
        env.update(TERM="xterm", NO_COLOR="1", PYTHONPATH=str(tree))
        home = Path(env["DRILLS_HOME"])
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(CONFIG, encoding="utf-8")
        _first_question_seconds(env)  # warm the caches, write the pack cache and the db
        envs[name] = env
    times: dict[str, list[float]] = {"this": [], "other": [], "sympy": []}
    for _ in range(runs):
        for name in ("this", "other"):
            env = fresh_home(envs[name]) if first_ever else envs[name]
            times[name].append(_first_question_seconds(env)[0])
        times["sympy"].append(_sympy_seconds(envs["this"]))
    med = {k: statistics.median(v) for k, v in times.items()}
    kind = "first-ever launch (empty DRILLS_HOME)" if first_ever else "warm launch"
    print(f"launch to first question, {kind}, medians of {runs} interleaved runs")
    print(f"  this tree  ({this}): {med['this'] * 1e3:.0f} ms  "
          f"({med['this'] / med['sympy']:.2f}x import sympy)")
    print(f"  other tree ({other}): {med['other'] * 1e3:.0f} ms  "
          f"({med['other'] / med['sympy']:.2f}x import sympy)")
    print(f"  import sympy: {med['sympy'] * 1e3:.0f} ms")
    print(f"  this / other: {med['this'] / med['other']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
