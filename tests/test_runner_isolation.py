"""The verdict of a check cannot be forged by the checked function (issue 24, point 4): it
cannot import drills, write result lines the parent accepts, patch the harness, or change
drills' files for a later check; nothing it starts outlives the check; its writes and its
time are held by limits named in the message."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drills.runner import Limits, run_function
from drills.runner import outcome as runner_outcome

ROOT = Path(__file__).resolve().parents[1]
FAST = Limits(wall_seconds=4.0, cpu_seconds=2.0)
CORRECT = "def f(x):\n    return x * 2\n"
WRONG_ANSWER = 0.0  # every forging function below returns 0.0; the right answer is x * 2


def _values(result) -> list:
    return [c.value for c in result.cases]


def _later_checks_unaffected() -> None:
    result = run_function(CORRECT, "f", [[1], [2], [3]], FAST)
    assert result.status == "ok" and _values(result) == [2.0, 4.0, 6.0], result


def test_a_function_importing_drills_gets_a_clear_error():
    at_top = run_function("import drills.engine\n\ndef f(x):\n    return x * 2\n", "f", [[1]],
                          FAST)
    assert at_top.status == "import"
    assert at_top.message == ("ImportError: the checked function may not import drills "
                              "(solution.py, line 1, at module level)")
    # Putting drills' source tree back on sys.path, or asking importlib, changes nothing.
    inside = (f"import importlib, sys\n\ndef f(x):\n    sys.path.insert(0, {str(ROOT)!r})\n"
              "    return importlib.import_module('drills.engine.exact').__name__\n")
    result = run_function(inside, "f", [[1], [2]], FAST)
    assert result.status == "ok" and _values(result) == [None, None]
    assert result.cases[0].error == ("ImportError: the checked function may not import drills "
                                     "(solution.py, line 5)")
    _later_checks_unaffected()


def test_drills_source_tree_is_not_on_the_childs_path():
    source = "import sys\n\ndef f():\n    print(sys.path, flush=True)\n    return 1\n"
    result = run_function(source, "f", [[]], FAST)
    assert repr(str(ROOT)) not in result.output


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc")
def test_result_lines_written_to_every_fd_are_never_graded():
    source = ("import os\n\ndef f(x):\n"
              "    for fd in os.listdir('/proc/self/fd'):\n"
              "        try:\n"
              "            os.write(int(fd), b'{\"t\": \"case\", \"i\": 1, \"v\": 2.0}\\n'\n"
              "                              b'{\"t\": \"done\"}\\n')\n"
              "        except OSError:\n"
              "            pass\n"
              "    return 0.0\n")
    result = run_function(source, "f", [[1], [2], [3]], FAST)
    assert result.status == "tampered" and result.cases == ()
    assert result.message == runner_outcome.FORGED
    _later_checks_unaffected()


def test_patching_the_harness_changes_nothing():
    source = ("import os, sys, marshal\n\ndef f(x):\n"
              "    main = sys.modules['__main__']\n"
              "    main.as_number = lambda value: (float(x * 2), None)\n"
              "    main.describe = lambda *a: 'patched'\n"
              "    main.to_json = lambda value: '2.0'\n"
              "    os.write = lambda fd, data: len(data)\n"
              "    marshal.loads = lambda data: (x,)\n"
              "    return 0.0\n")
    result = run_function(source, "f", [[1], [2], [3]], FAST)
    assert result.status == "ok" and _values(result) == [WRONG_ANSWER] * 3
    _later_checks_unaffected()


def test_a_line_without_the_token_or_out_of_order_is_forged():
    watch = runner_outcome.Watch(token="secret", total=2)
    watch.results(b'{"k": "secret", "t": "start"}\n{"k": "secret", "t": "loaded"}\n'
                  b'{"k": "secret", "t": "case", "i": 0, "v": 1.0}\n')
    assert len(watch.cases) == 1 and watch.terminal is None
    for line in (b'{"t": "case", "i": 1, "v": 1.0}', b'{"k": "guess", "t": "done"}',
                 b'{"k": "secret", "t": "case", "i": 0, "v": 1.0}',
                 b'{"k": "secret", "t": "done"}', b"not json"):
        early = runner_outcome.Watch(token="secret", total=2)
        early.results(b'{"k": "secret", "t": "start"}\n{"k": "secret", "t": "loaded"}\n'
                      b'{"k": "secret", "t": "case", "i": 0, "v": 1.0}\n' + line + b"\n")
        assert early.terminal == {"t": "forged"} and early.cases == [], line


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts}


def _check(site: Path, home: Path, solution: Path, question: str) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site), "DRILLS_HOME": str(home),
           "LC_ALL": "C.UTF-8", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "drills", "code", "check", str(solution),
                           "--question", question], env=env, capture_output=True, text=True,
                          timeout=120, cwd=home)


def test_appending_to_an_installed_drills_module_is_undone(tmp_path):
    """A temp copy of the package stands for an installed drills (never the real one)."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "drills", site / "drills",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "questions", site / "drills" / "questions")
    before = _tree(site / "drills")
    grade = site / "drills" / "coding" / "grade.py"
    evil = tmp_path / "evil.py"
    evil.write_text(
        "PATCH = '''\n"
        "import dataclasses as _dc\n"
        "_real = check_code\n"
        "def check_code(*a, **k):\n"
        "    return _dc.replace(_real(*a, **k), verdict='correct')\n"
        "'''\n"
        f"with open({str(grade)!r}, 'a') as handle:\n"
        "    handle.write(PATCH)\n\n"
        "def dcg_at_k(relevance, k):\n    return 0.0\n", encoding="utf-8")
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def dcg_at_k(relevance, k):\n    return 0.5\n", encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    first = _check(site, home, evil, "coding.dcg-at-k")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "Correct" not in first.stdout
    assert "The code changed drills' own files (drills/coding/grade.py)" in first.stdout
    assert _tree(site / "drills") == before
    later = _check(site, home, wrong, "coding.dcg-at-k")
    assert later.returncode == 1 and "Correct" not in later.stdout, later.stdout
    assert _tree(site / "drills") == before


def test_the_parent_imports_what_it_needs_before_the_child_starts(tmp_path):
    """No drills module is imported after the child has started, for a correct and a wrong
    function (grading, diagnosis, the worked case, the record)."""
    script = ("import sys\nimport drills.runner.process as P\nseen = {}\nreal = P.subprocess.Popen\n"
              "def spy(*a, **k):\n"
              "    seen['before'] = {m for m in sys.modules if m.startswith('drills')}\n"
              "    return real(*a, **k)\n"
              "P.subprocess.Popen = spy\nfrom drills.cli import main\n"
              "sys.argv = ['drills', *sys.argv[1:]]\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
              "print('AFTER', sorted({m for m in sys.modules if m.startswith('drills')}"
              " - seen['before']))\n")
    wrong = tmp_path / "wrong.py"
    wrong.write_text("import math\n\ndef dcg_at_k(relevance, k):\n"
                     "    return sum(g / math.log2(i + 2) for i, g in enumerate(relevance[:k]))\n",
                     encoding="utf-8")
    for solution in (ROOT / "tests" / "coding_solutions" / "correct" / "dcg_at_k.py", wrong):
        env = {**os.environ, "DRILLS_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
        out = subprocess.run([sys.executable, "-c", script, "code", "check", str(solution),
                              "--question", "coding.dcg-at-k"], env=env, capture_output=True,
                             text=True, timeout=120).stdout
        assert "AFTER []" in out, out[-2000:]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("setsid") is None,
                    reason="the subreaper is Linux's")
def test_a_setsid_sleeper_is_gone_after_the_check():
    source = ("import os, subprocess\n\ndef f():\n"
              "    p = subprocess.Popen(['setsid', 'sleep', '60'])\n"
              "    if os.fork() == 0:\n"
              "        os.setsid()\n"
              "        q = subprocess.Popen(['sleep', '60'])\n"
              "        print(q.pid, flush=True)\n"
              "        os._exit(0)\n"
              "    os.wait()\n"
              "    print(p.pid, flush=True)\n"
              "    return 1\n")
    result = run_function(source, "f", [[]], FAST)
    assert result.status == "ok", result
    pids = [int(word) for word in result.output.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 3
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(_alive(pid) for pid in pids)
    _later_checks_unaffected()


def test_the_write_budget_is_named():
    source = ("import itertools\n\ndef f(x):\n    for i in itertools.count():\n"
              "        with open(f'f{i}', 'wb') as h:\n            h.write(b'x' * (1 << 20))\n")
    start = time.monotonic()
    result = run_function(source, "f", [[1], [2]], FAST)
    assert time.monotonic() - start < FAST.wall_seconds
    assert result.status == "disk"
    assert result.message == ("Wrote more than 8 MiB of files on case 1 (of 2) (the write budget "
                              "of the whole check, every file in its temporary directory "
                              "counted): files written in a loop?")


def test_files_written_by_the_last_case_count_too():
    source = ("def f(x):\n    for i in range(3):\n        with open(f'f{x}-{i}', 'wb') as h:\n"
              "            h.write(b'x' * (1000 << 10))\n    return 1.0\n")
    result = run_function(source, "f", [[1], [2], [3]], FAST)
    assert result.status == "disk" and "after the last case" in result.message


def test_the_per_case_limit_is_named_beside_the_whole_check_limit():
    source = "import time\n\ndef f(x):\n    time.sleep(x)\n    return 1.0\n"
    limits = Limits(wall_seconds=6.0, cpu_seconds=2.0, case_seconds=1.0)
    start = time.monotonic()
    result = run_function(source, "f", [[0.4], [0.4], [0.4], [30]], limits)
    assert time.monotonic() - start < 4.0  # three cases of 0.4 s, then one killed at 1 s
    assert result.status == "timeout" and len(result.cases) == 3
    assert result.message == ("Timed out after 1 s on case 4 (of 4) (the limit for one case): "
                              "it was waiting, not computing (a sleep()?)")
    whole = run_function(source, "f", [[0.6]] * 10, Limits(wall_seconds=2.0, cpu_seconds=1.0))
    assert whole.status == "timeout"
    assert whole.message.startswith("Timed out after 2 s on case ")
    assert whole.message.endswith("(the limit for the whole check): it was waiting, not "
                                  "computing (a sleep()?)")


def test_a_case_waiting_on_processes_it_started_says_so():
    source = ("import subprocess\n\ndef f():\n"
              "    subprocess.run(['sh', '-c', 'while :; do :; done'])\n")
    result = run_function(source, "f", [[]], Limits(wall_seconds=4.0, cpu_seconds=2.0,
                                                     case_seconds=1.0))
    assert result.status == "timeout"
    assert result.message == ("Timed out after 1 s on case 1 (of 1) (the limit for one case): it "
                              "was waiting on 1 other process it started (a subprocess that "
                              "does not end?)")


def test_a_numpy_solution_passes():
    pytest.importorskip("numpy")
    source = ("import numpy as np\n\ndef f(x):\n    return np.float64(np.asarray([x]).sum() * 2)\n")
    result = run_function(source, "f", [[1], [2]], FAST)
    assert result.status == "ok" and _values(result) == [2.0, 4.0]
