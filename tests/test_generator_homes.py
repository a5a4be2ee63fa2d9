"""Generators are imported when drawn: the registry's table of homes is complete and right,
and the first question's process imports no generator module its plan does not use."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from drills.generators.registry import HOMES, MODULES

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "drills" / "generators"


def _registered_in_source() -> dict[str, str]:
    """Each generator name, read from the ``@register(NAME, ...)`` calls of the sources (a
    string, or a module-level constant holding one)."""
    found: dict[str, str] = {}
    for path in sorted(FOLDER.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                     and isinstance(n.value, ast.Constant) for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "register" and node.args:
                first = node.args[0]
                name = first.value if isinstance(first, ast.Constant) else constants[first.id]
                found[name] = path.stem
    return found


def test_the_table_of_homes_names_every_generator_and_its_module():
    from_source = _registered_in_source()
    assert len(from_source) >= 29
    assert HOMES == from_source
    assert set(MODULES) == set(from_source.values())


def test_every_registered_generator_lives_where_the_table_says():
    code = ("from drills.generators import REGISTRY\n"
            "print('\\n'.join(f'{n} {g.make.__module__}' for n, g in REGISTRY.items()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    pairs = dict(line.split() for line in out.stdout.splitlines())
    assert pairs == {n: f"drills.generators.{m}" for n, m in HOMES.items()}


def test_looking_up_one_generator_imports_its_module_only():
    code = (
        "import sys\n"
        "from drills.generators import REGISTRY\n"
        "from drills.generators.instantiate import instantiate, item_rng\n"
        "from drills.model import Question\n"
        "t = Question(id='t', topic='hand-computation', kind='generated', prompt='t',"
        " generator='ndcg-hand')\n"
        "assert instantiate(t, item_rng(1, 0, 't')).kind == 'numeric'\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('drills.generators.'))))\n"
        f"assert 'no-such' not in REGISTRY and len(REGISTRY) == {len(HOMES)}\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.split())
    assert "drills.generators.ranking" in loaded
    assert not loaded & {f"drills.generators.{m}" for m in MODULES if m != "ranking"}


def test_the_first_question_imports_only_the_generators_its_plan_draws(drills_home):
    """A built-in NDCG template (generator ndcg-hand, in ranking.py) asked alone, warm cache."""
    drills_home.mkdir(parents=True)
    env = dict(os.environ, DRILLS_HOME=str(drills_home), DRILLS_DEBUG_IMPORTS="1",
               PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "drills", "practice", "--seed", "1",
            "--question", "hand-gen-ndcg-small"]
    for _ in range(2):  # the first run parses and caches the packs (which draws every generator)
        proc = subprocess.run(argv, input="", capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("[debug] generator modules"))
    loaded = set(line.split(":", 1)[1].split())
    assert "ranking" in loaded
    assert not loaded & (set(MODULES) - {"ranking"}), line
