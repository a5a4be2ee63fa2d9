"""Issue 25 point 4's commands, this tree against another, interleaved run by run.

``python bench/ab_scale.py OTHER_TREE [RUNS] [--only NAME,...] [--fixtures DIR] [--this TREE]
[--cold]``: OTHER_TREE is a checkout of drills (``git worktree add /tmp/before <commit>``).
Each run times, whole process, one command from this tree (or ``--this TREE``) then the same
from the other, so the machine's load falls on both alike; prints each median, wall and cpu
(user + system), and the ratio this/other. The commands:

- ``validate``: ``drills packs validate`` of bench_packs' 10,000-question pack (target 1 s),
  in a home where ``drills packs list`` has cached the built-in packs (``--cold``: an empty
  home, as in a source checkout's CI; an installed wheel has them prebuilt);
- ``stats``: ``drills stats`` over bench_store's 1,000,000-answer history (target 0.5 s);
- ``anki``: ``drills export anki`` of the built-in bank (target 1 s);
- ``import``: ``drills history import`` of 100,000 answers into an empty history (target 2 s).

The fixtures are built once into ``--fixtures DIR`` (default: a new temporary folder) and
reused when the folder already holds them.
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_ecosystem import _export  # noqa: E402
from bench.bench_packs import write_big_pack  # noqa: E402
from bench.bench_store import build_history  # noqa: E402
from bench.common import PY, bench_env, is_tree, take_option  # noqa: E402

HERE = Path(__file__).resolve().parent.parent
TARGETS = {"validate": 1.0, "stats": 0.5, "anki": 1.0, "import": 2.0}
STATS_ANSWERS = 1_000_000


def fixtures(folder: Path, only: list[str]) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = {"pack": folder / "big.yaml", "home": folder / "home1m", "export": folder / "export.json"}
    if "validate" in only and not out["pack"].exists():
        write_big_pack(out["pack"])
    if "stats" in only and not (out["home"] / "drills.db").exists():
        print(f"building a {STATS_ANSWERS:,}-answer history ...", file=sys.stderr, flush=True)
        print(f"  {build_history(out['home'], STATS_ANSWERS):.1f} s", file=sys.stderr)
    if "import" in only and not out["export"].exists():
        _export(bench_env(), out["export"])
    return out


def _time(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and cpu (user + system) seconds of one run: on a shared machine the cpu time
    is the steadier of the two. Run from inside the tree on PYTHONPATH: ``python -m``
    puts the working folder first on sys.path."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=env["PYTHONPATH"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def one_run(name: str, tree: Path, fx: dict[str, Path], scratch: Path) -> tuple[float, float]:
    (scratch / f"home-{tree.name}").mkdir(exist_ok=True)  # a home that exists holds the pack cache
    env = bench_env(str(scratch / f"home-{tree.name}"))
    env["PYTHONPATH"] = str(tree)
    if name == "validate":
        return _time([PY, "-m", "drills", "packs", "validate", str(fx["pack"])], env)
    if name == "stats":  # a copy per tree: each keeps its own pack cache (their formats may differ)
        home = fx["home"].with_name(f"{fx['home'].name}-{tree.name}")
        if not home.exists():
            shutil.copytree(fx["home"], home, ignore=shutil.ignore_patterns("cache"))
        env["DRILLS_HOME"] = str(home)
        return _time([PY, "-m", "drills", "stats"], env)
    if name == "anki":
        return _time([PY, "-m", "drills", "export", "anki", "-o", str(scratch / "deck.apkg")], env)
    home = Path(tempfile.mkdtemp(prefix="drills-ab-import-", dir=scratch))  # empty every time
    env["DRILLS_HOME"] = str(home)
    try:
        return _time([PY, "-m", "drills", "history", "import", str(fx["export"])], env)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    only = list(TARGETS)
    folder: Path | None = None
    this = HERE
    cold = "--cold" in argv
    argv = [a for a in argv if a != "--cold"]
    picked, given, at = take_option(argv, "--only"), take_option(argv, "--fixtures"), take_option(argv)
    only = picked.split(",") if picked else only
    folder = Path(given) if given else folder
    this = Path(at).resolve() if at else this
    other = Path(argv[0]).resolve()
    if not is_tree(other):
        return 2
    runs = int(argv[1]) if len(argv) > 1 else 7
    fx = fixtures(folder or Path(tempfile.mkdtemp(prefix="drills-ab-scale-")), only)
    scratch = Path(tempfile.mkdtemp(prefix="drills-ab-run-"))
    try:
        for name in only:
            times: dict[str, list[tuple[float, float]]] = {"this": [], "other": []}
            for tree in (this, other):  # warm-up: .pyc files, the pack cache, the page cache
                if name == "validate" and not cold:  # a user's home: quizzes have cached the bank
                    (scratch / f"home-{tree.name}").mkdir(exist_ok=True)
                    env = bench_env(str(scratch / f"home-{tree.name}"))
                    env["PYTHONPATH"] = str(tree)
                    _time([PY, "-m", "drills", "packs", "list"], env)
                one_run(name, tree, fx, scratch)
            for _ in range(runs):
                for key, tree in (("this", this), ("other", other)):
                    times[key].append(one_run(name, tree, fx, scratch))
            for i, what in ((0, "wall"), (1, "cpu ")):
                mine = statistics.median(t[i] for t in times["this"])
                theirs = statistics.median(t[i] for t in times["other"])
                print(f"{name:9} {what} this {mine:6.3f} s  other {theirs:6.3f} s  this/other {mine / theirs:.3f}  "
                      f"target {TARGETS[name]} s  (medians of {runs} interleaved runs)", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
