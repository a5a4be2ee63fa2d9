"""The interpreter of the coding round (issue 24, point 1): numpy comes with drills but drills
never imports it; `--python PATH` and `[code] python = PATH` run the learner's code under
their own Python 3.10+, checked at start."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.paths import packs_dir

HERE = Path(__file__).parent / "fixtures" / "code"
QID = "mini.ndcg-at-k"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def mini(drills_home):
    packs_dir().mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "mini.yaml", packs_dir() / "mini.yaml")
    return drills_home


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def solution(tmp_path: Path, text: str) -> str:
    path = tmp_path / "solution.py"
    path.write_text(text, encoding="utf-8")
    return str(path)


def fake_python(tmp_path: Path, answer: str) -> str:
    path = tmp_path / "fakepython"
    path.write_text(f"#!/bin/sh\necho '{answer}'\n", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


CORRECT = ("import math, sys\n\ndef ndcg_at_k(relevance, k):\n"
           "    print(sys.executable)\n"
           "    dcg = sum((2 ** r - 1) / math.log2(i + 2) for i, r in enumerate(relevance[:k]))\n"
           "    ideal = sorted(relevance, reverse=True)\n"
           "    idcg = sum((2 ** r - 1) / math.log2(i + 2) for i, r in enumerate(ideal[:k]))\n"
           "    return dcg / idcg if idcg else 0.0\n")


@pytest.mark.parametrize("answer, why", [
    (None, "No such file or directory"),
    ("(2, 7)", "it is Python 2.7"),
    ("hello", "it could not run `import sys; print(tuple(sys.version_info[:2]))`"),
])
def test_a_python_that_is_not_310_is_refused_at_start(mini, tmp_path, answer, why):
    assert run("code", "check", solution(tmp_path, CORRECT), "--question", QID, "--python",
               "no-such-python-issue24").output.strip() == (
        "Error: no-such-python-issue24 is not a Python 3.10+: no such program")
    python = fake_python(tmp_path, answer) if answer else str(tmp_path / "nonexistent")
    res = run("code", "check", solution(tmp_path, CORRECT), "--question", QID, "--python", python)
    assert res.exit_code == 2
    assert res.output.strip() == f"Error: {python} is not a Python 3.10+: {why}"


def test_python_runs_the_code_under_that_interpreter(mini, tmp_path):
    link = tmp_path / "mypython"
    link.symlink_to(sys.executable)
    res = run("code", "check", solution(tmp_path, CORRECT), "--question", QID, "--python",
              str(link), "--json")
    assert res.exit_code == 0, res.output
    assert str(link) in res.output  # the function printed sys.executable


def test_config_code_python_is_used_and_checked(mini, tmp_path):
    config = Path(mini) / "config.toml"
    bad = fake_python(tmp_path, "(3, 9)")
    config.write_text(f'[code]\npython = "{bad}"\n', encoding="utf-8")
    res = run("code", "check", solution(tmp_path, CORRECT), "--question", QID)
    assert res.exit_code == 2
    assert res.output.strip() == (f"Error: [code] python = {bad} is not a Python 3.10+: it is "
                                  "Python 3.9")
    link = tmp_path / "configured"
    link.symlink_to(sys.executable)
    config.write_text(f'[code]\npython = "{link}"\n', encoding="utf-8")
    res = run("code", "check", solution(tmp_path, CORRECT), "--question", QID, "--json")
    assert res.exit_code == 0 and str(link) in res.output
    # the command line wins over the file
    res = run("code", "check", solution(tmp_path, CORRECT), "--question", QID, "--json",
              "--python", sys.executable)
    assert res.exit_code == 0 and str(link) not in res.output


def test_a_missing_module_under_your_python_names_it(mini, tmp_path):
    path = solution(tmp_path, "import nosuchlib_issue24\n\ndef ndcg_at_k(relevance, k):\n"
                              "    return 1\n")
    link = tmp_path / "mypython"
    link.symlink_to(sys.executable)
    res = run("code", "check", path, "--question", QID, "--python", str(link))
    text = " ".join(res.output.split())
    assert res.exit_code == 1
    assert f"The runner offers what {link} can import" in text
    res = run("code", "check", path, "--question", QID)
    text = " ".join(res.output.split())
    assert "--python PATH" in text and "[code] python" in text


def test_numpy_is_a_pinned_dependency():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"numpy>=1.26,<3",' in text


def _imports_numpy(args: list[str], stdin: str, home: Path) -> bool:
    script = ("import atexit, os, sys\n"
              "atexit.register(lambda: os.write(2, b'NUMPY=%d' % ('numpy' in sys.modules)))\n"
              "from drills.cli import main\nsys.argv = ['drills', *sys.argv[1:]]\nmain()\n")
    env = {**os.environ, "DRILLS_HOME": str(home), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-c", script, *args], input=stdin, env=env,
                          capture_output=True, text=True, timeout=120)
    assert "NUMPY=" in done.stderr, done.stderr
    return "NUMPY=1" in done.stderr


def test_drills_itself_never_imports_numpy(tmp_path):
    pytest.importorskip("numpy")  # meaningful only where the runner could import it
    assert not _imports_numpy(["--version"], "", tmp_path)
    assert not _imports_numpy(["practice", "--count", "1"], ":quit\n", tmp_path)
