"""Start-up: launch `drills practice` in a pty until the first question is on screen.

The target is relative, so it holds on slow and fast machines alike: at most 0.30x the
time of ``python -c "import sympy"`` measured in the same run (the quiz shows its first
question before sympy is imported and warms sympy up in the background afterwards).
"""

from __future__ import annotations

import functools
import statistics
import subprocess
import time

from bench.common import PY, bench_env, neutral_folder

RATIO_TARGET = 0.30  # issue 25: at most 0.30x `import sympy` warm (0.35x before it), a config file present
CONFIG = """\
[practice]
count = 3
feedback = "brief"

[display]
color = "never"
width = 90
"""
FIRST_QUESTION = "Question 1/"
_NEUTRAL = functools.cache(neutral_folder)  # one empty folder for every launch of a bench run


def _first_question_seconds(env: dict[str, str]) -> tuple[float, float]:
    """(launch -> first question visible, launch -> the prompt ready for typing)."""
    import pexpect

    start = time.perf_counter()
    # run from a neutral folder: `python -m` puts the current one first on sys.path, so a
    # run from a checkout would import that checkout, whatever PYTHONPATH names; an empty
    # one, as import sympy's (a crowded one slows every import: bench.common.neutral_folder)
    child = pexpect.spawn(PY, ["-m", "drills", "practice", "--seed", "1", "--count", "3"],
                          env=env, encoding="utf-8", dimensions=(24, 80), timeout=30,
                          cwd=_NEUTRAL())
    try:
        child.expect_exact(FIRST_QUESTION)
        shown = time.perf_counter() - start
        while child.expect_exact(["\x1b[6n", "answer>"]) == 0:  # answer the cursor-position request
            child.send("\x1b[1;1R")
        return shown, time.perf_counter() - start
    finally:
        child.terminate(force=True)
        child.close()


def _sympy_seconds(env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([PY, "-c", "import sympy"], env=env, check=True, cwd=_NEUTRAL())
    return time.perf_counter() - start


def bench_startup(runs: int = 7) -> dict:
    """Median launch-to-first-question vs median `import sympy`, interleaved run by run."""
    env = bench_env()
    env.update(TERM="xterm", NO_COLOR="1")
    from pathlib import Path

    home = Path(env["DRILLS_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(CONFIG, encoding="utf-8")  # read at every start
    _first_question_seconds(env)  # warm the OS caches and the db once
    _sympy_seconds(env)
    quiz, prompt, sympy = [], [], []
    for _ in range(max(5, runs)):
        shown, ready = _first_question_seconds(env)
        quiz.append(shown)
        prompt.append(ready)
        sympy.append(_sympy_seconds(env))
    quiz_median, sympy_median = statistics.median(quiz), statistics.median(sympy)
    ratio = quiz_median / sympy_median
    return {
        "name": "drills practice: launch to first question (pty, config.toml)",
        "median_s": quiz_median,
        "target_s": RATIO_TARGET * sympy_median,
        "sympy_median_s": sympy_median,
        "prompt_median_s": statistics.median(prompt),
        "ratio": ratio,
        "note": f"python -c 'import sympy' median {sympy_median:.3f} s; ratio {ratio:.2f} "
                f"(target <= {RATIO_TARGET}); prompt ready after {statistics.median(prompt):.3f} s",
    }


if __name__ == "__main__":
    print(bench_startup())
