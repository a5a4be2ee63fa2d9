"""Issue 16's commands on the built-in bank, whole process: the Anki deck (every pack, 3
variants per generated question, a note per scenario step) and a history import of a
100,000-answer export into an empty history (issue 25: batched, one INSERT statement
for all new answers)."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from bench.common import PY, bench_env, process_median

ANSWERS = 100_000  # issue 25's target: under 2 s into an empty history


def _export(env: dict[str, str], path: Path) -> None:
    """A history of ANSWERS answers (bulk-inserted), exported as JSON to ``path``."""
    code = (
        "from drills.store import Attempt, Store\n"
        "s = Store.open()\n"
        "sid = s.start_session('practice', 1, {})\n"
        f"s.record_attempts(sid, [Attempt(f'q{{i % 300}}', 'hand-computation', 'numeric', "
        f"'correct' if i % 3 else 'wrong', '0.5', '1/2', 0.5, (), 3.0) for i in range({ANSWERS})], "
        "review=False)\n"
        "s.close()\n")
    subprocess.run([PY, "-c", code], env=env, check=True)
    subprocess.run([PY, "-m", "drills", "history", "export", "--format", "json", "-o", str(path)],
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert len(json.loads(path.read_text())["attempts"]) == ANSWERS


def bench_ecosystem() -> list[dict]:
    out = Path(tempfile.mkdtemp(prefix="drills-bench-anki-"))
    deck = process_median([PY, "-m", "drills", "export", "anki", "-o", str(out / "deck.apkg")], runs=3)
    source = bench_env()
    _export(source, out / "export.json")
    times = []
    for _ in range(3):  # into a fresh, empty history each time (a second import adds nothing)
        times.append(process_median([PY, "-m", "drills", "history", "import", str(out / "export.json")],
                                    runs=1, warmup=0, env=bench_env()))
    times.sort()
    return [
        {"name": "drills export anki, built-in bank, 3 variants (whole process)", "median_s": deck,
         "target_s": 1.0},  # issue 25
        {"name": f"drills history import, {ANSWERS:,} answers into an empty history", "median_s": times[1],
         "target_s": 2.0},
    ]
