"""A huge paste at the answer prompt: refused with its length, in time proportional to its size.

Before the cap a 1 MB bracketed paste took over 240 s and a 100 kB typed stream 45 s
(prompt_toolkit re-scanned the whole paste for its end mark on every chunk, and handled
each typed character as a key press). Target: refused within 1 s of the paste.
"""

from __future__ import annotations

import statistics
import time

from bench.common import PY, bench_env

TARGET_S = 1.0


def _refused_after(env: dict[str, str], data: str) -> float:
    import pexpect

    child = pexpect.spawn(PY, ["-m", "drills", "practice", "--seed", "1", "--count", "1",
                               "--pack", "ndcg-hand-computation"],
                          env=env, encoding="utf-8", dimensions=(24, 80), timeout=120)
    try:
        while child.expect_exact(["\x1b[6n", "answer>"]) == 0:
            child.send("\x1b[1;1R")
        start = time.perf_counter()
        child.send(data)
        while child.expect_exact(["\x1b[6n", "answer too long"]) == 0:
            child.send("\x1b[1;1R")
        return time.perf_counter() - start
    finally:
        child.terminate(force=True)
        child.close()


def bench_input(runs: int = 5) -> list[dict]:
    env = bench_env()
    env.update(TERM="xterm", NO_COLOR="1")
    paste = "\x1b[200~" + "7" * 1_000_000 + "\x1b[201~\r"
    typed = "7" * 100_000 + "\r"
    rows = []
    for name, data in (("1 MB bracketed paste at the prompt: refused after", paste),
                       ("100 kB typed stream at the prompt: refused after", typed)):
        times = [_refused_after(env, data) for _ in range(runs)]
        rows.append({"name": name, "median_s": statistics.median(times), "target_s": TARGET_S})
    return rows


if __name__ == "__main__":
    print(bench_input())
