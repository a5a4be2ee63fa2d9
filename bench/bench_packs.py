"""Pack benchmark: a 10,000-question pack loaded and validated, whole `drills packs validate` process."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from bench.common import PY, bench_env, process_median


def write_big_pack(path: Path, n: int = 10_000) -> Path:
    """A compact pack mixing every kind, n questions."""
    lines = ['pack: {name: bench-pack, version: "1.0.0", description: ten thousand questions}',
             "questions:"]
    for i in range(n):
        kind = i % 4
        if kind == 0:
            lines.append(f'- {{id: q{i}, topic: hand-computation, kind: numeric, prompt: "NDCG@3 of [2, 1, 3, 0]?", '
                         f"problem: {{relevance: [2, 1, 3, 0], judged: [3, 2, 1, 0], k: 3}}, metric: ndcg}}")
        elif kind == 1:
            lines.append(f'- {{id: q{i}, topic: gain-and-discount, kind: numeric, prompt: "Gain ratio rel 4 / rel 3?", '
                         f'answer: "15/7"}}')
        elif kind == 2:
            lines.append(f'- {{id: q{i}, topic: conventions, kind: choice, prompt: "IDCG = 0 in sklearn?", '
                         f'options: [{{text: "0", correct: true}}, {{text: "1"}}]}}')
        else:
            lines.append(f'- {{id: q{i}, topic: normalization, kind: concept, prompt: "Why divide by IDCG?", '
                         f'model_answer: "To compare queries.", key_points: [comparable across queries]}}')
    path.write_text("\n".join(lines) + "\n")
    return path


def bench_packs() -> list[dict]:
    folder = Path(tempfile.mkdtemp(prefix="drills-bench-packs-"))
    pack = write_big_pack(folder / "big.yaml")
    validate = process_median([PY, "-m", "drills", "packs", "validate", str(pack)])
    used = bench_env()  # a home where drills has run: the built-in packs are in the pack cache
    Path(used["DRILLS_HOME"]).mkdir(parents=True, exist_ok=True)
    subprocess.run([PY, "-m", "drills", "packs", "list"], env=used, stdout=subprocess.DEVNULL, check=True)
    cached = process_median([PY, "-m", "drills", "packs", "validate", str(pack)], env=used)
    baseline = process_median([PY, "-m", "drills", "--version"])
    return [
        {"name": "drills packs validate, 10,000-question pack (whole process)", "median_s": validate,
         "target_s": 1.0, "note": f"{pack.stat().st_size // 1024} KiB file, empty DRILLS_HOME (issue 25: under 1 s)"},
        {"name": "drills packs validate, the same, built-in packs cached", "median_s": cached,
         "target_s": 1.0, "note": "a home where drills has run (or an installed wheel: the bank prebuilt)"},
        {"name": "drills --version (interpreter + click baseline)", "median_s": baseline, "target_s": None},
    ]
