"""The pure core: math, parsing, diagnosis, generators, packs and the session state
machine import no terminal or storage library and do no terminal I/O (principle 7)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PURE = ["drills/engine", "drills/answers", "drills/model.py", "drills/grading", "drills/trec",
        "drills/coding", "drills/generators", "drills/quiz", "drills/authoring", "drills/packs",
        "drills/safetext.py"]
FORBIDDEN = {"click", "prompt_toolkit", "sqlite3", "fsrs"}


def _modules() -> list[str]:
    names = []
    for entry in PURE:
        path = ROOT / entry
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for f in files:
            parts = f.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_importing_the_pure_core_loads_no_terminal_or_storage_library():
    code = (
        "import importlib, json, sys\n"
        f"for name in {_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True, timeout=120).stdout
    loaded = set(json.loads(out))
    assert "drills" in loaded
    assert not FORBIDDEN & loaded


def test_the_pure_core_does_no_terminal_io():
    for entry in PURE:
        path = ROOT / entry
        for f in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            tree = ast.parse(f.read_text(encoding="utf-8"))
            calls = {n.func.id for n in ast.walk(tree)
                     if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            assert not {"print", "input"} & calls, f
