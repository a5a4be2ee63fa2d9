"""Timing helpers for the benchmarks: medians of whole-process runs and of in-process calls."""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def bench_env(home: str | None = None) -> dict[str, str]:
    """The environment of a bench run: a fresh DRILLS_HOME (deleted when the bench exits)."""
    env = dict(os.environ)
    env["DRILLS_HOME"] = home or _scratch("drills-bench-")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users run with .pyc files, as pip writes them
    return env


def neutral_folder() -> str:
    """An empty folder to launch from (deleted when the bench exits). ``python -m`` and
    ``python -c`` put the working folder first on sys.path, so every import made looks there
    first: from a crowded /tmp (thousands of entries) a launch was 10-15 ms slower."""
    return _scratch("drills-cwd-")


def _scratch(prefix: str) -> str:
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, True)
    return folder


def process_median(argv: Sequence[str], runs: int = 5, env: dict[str, str] | None = None,
                   warmup: int = 1) -> float:
    """Median wall time of running ``argv`` to completion, in seconds."""
    env = env or bench_env()
    times = []
    for i in range(warmup + runs):
        start = time.perf_counter()
        subprocess.run(list(argv), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        if i >= warmup:
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def call_median(fn: Callable[[], object], runs: int = 7, inner: int = 100) -> float:
    """Median per-call time of ``fn`` in seconds (each run averages ``inner`` calls)."""
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times)


PY = sys.executable


def take_option(argv: list[str], flag: str = "--this") -> str | None:
    """Remove ``flag VALUE`` from ``argv`` and return VALUE (None when not given)."""
    if flag not in argv:
        return None
    at = argv.index(flag)
    value = argv[at + 1]
    del argv[at:at + 2]
    return value


def is_tree(path: object) -> bool:
    """A drills checkout or an unpacked wheel: a folder holding drills/__main__.py; says so
    on stderr when it is not."""
    if (Path(str(path)) / "drills" / "__main__.py").is_file():
        return True
    print(f"{path} is not a drills checkout (no drills/__main__.py)", file=sys.stderr)
    return False
