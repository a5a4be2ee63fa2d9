"""The coding round's runner: the learner's function runs in its own process, and every
way it can go wrong ends in a one-line verdict within the limits, with nothing left running."""

from __future__ import annotations

import math
import os
import sys
import time

import pytest

from drills.runner import STATUSES, CaseResult, Limits, RunResult, run_function
from drills.runner import process as runner_process

FAST = Limits(wall_seconds=2.0, cpu_seconds=1.0)
SLACK = 1.5  # seconds past the wall clock a loaded 2-core machine may need to kill and reap


def _live_members(pgid: int) -> list[int]:
    """Processes of the group still alive (zombies waiting for init to reap them are dead)."""
    if not os.path.isdir("/proc"):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        return [pgid]
    alive = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] not in "ZX":
                alive.append(int(name))
    return alive


def _gone(pgid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within  # SIGKILL is delivered asynchronously
    while _live_members(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.fixture(autouse=True)
def no_processes_left(monkeypatch):
    """Every group the runner started is dead when the test ends."""
    groups: list[int] = []
    kill = runner_process._kill_group

    def spy(pgid: int) -> None:
        groups.append(pgid)
        kill(pgid)

    monkeypatch.setattr(runner_process, "_kill_group", spy)
    yield groups
    for pgid in groups:
        assert _gone(pgid), f"processes of group {pgid} survived: {_live_members(pgid)}"


def run(source: str, cases: list, function: str = "f", limits: Limits = FAST) -> RunResult:
    result = run_function(source, function, cases, limits)
    assert result.status in STATUSES
    assert "\n" not in result.message
    assert all("\n" not in (c.error or "") for c in result.cases)
    return result


NDCG = """
import math

def ndcg_at_k(rels, k):
    dcg = sum((2 ** r - 1) / math.log2(i + 2) for i, r in enumerate(rels[:k]))
    ideal = sorted(rels, reverse=True)
    idcg = sum((2 ** r - 1) / math.log2(i + 2) for i, r in enumerate(ideal[:k]))
    return dcg / idcg if idcg else 0.0
"""


def test_a_correct_function_runs_on_every_case_in_order():
    cases = [[[(i * 7 + j) % 4 for j in range(10)], 1 + i % 10] for i in range(50)]
    result = run(NDCG, cases, "ndcg_at_k")
    namespace: dict = {}
    exec(NDCG, namespace)
    assert result.status == "ok" and result.message == "Ran all 50 cases"
    assert [c.value for c in result.cases] == [namespace["ndcg_at_k"](*c) for c in cases]
    assert all(c.error is None for c in result.cases)
    assert 0 < result.seconds < FAST.wall_seconds


def test_an_exception_in_one_case_is_named_with_its_line_and_the_others_still_run():
    source = "def f(x):\n    y = 1\n    return y / x\n"
    result = run(source, [[2], [0], [4]])
    assert result.status == "ok"
    assert result.cases[0] == CaseResult(0.5, None)
    assert result.cases[1] == CaseResult(None, "ZeroDivisionError: division by zero "
                                               "(solution.py, line 3)")
    assert result.cases[2] == CaseResult(0.25, None)
    assert "1 gave no number (case 2: ZeroDivisionError" in result.message


def test_the_line_is_the_learners_even_when_a_library_raised():
    source = "import math\n\ndef f(x):\n    return math.sqrt(x)\n"
    assert run(source, [[-1]]).cases[0].error == "ValueError: math domain error (solution.py, line 4)"


def test_a_call_with_the_wrong_arguments_is_a_case_error():
    error = run("def f(x):\n    return x\n", [[1, 2]]).cases[0].error
    assert error is not None and error.startswith("TypeError: f() takes 1 positional argument")


@pytest.mark.parametrize("returned, error", [
    ("[1.0]", "returned a list, expected a number"),
    ("'0.5'", "returned a str, expected a number"),
    ("None", "returned None, expected a number (is a return statement missing?)"),
    ("True", "returned a bool (True), expected a number"),
    ("float('nan')", "returned nan, expected a number"),
    ("float('inf')", "returned inf, expected a finite number"),
    ("10 ** 400", "returned an int too large for a float"),
    ("1j", "returned a complex, expected a number"),
])
def test_a_value_that_is_not_a_finite_number_is_a_case_error(returned, error):
    result = run(f"def f():\n    return {returned}\n", [[]])
    assert result.status == "ok" and result.cases == (CaseResult(None, error),)


def test_ints_fractions_and_decimals_are_numbers():
    source = ("from decimal import Decimal\nfrom fractions import Fraction\n\ndef f(x):\n"
              "    return [x, Fraction(1, 3), Decimal('0.25')][x]\n")
    assert [c.value for c in run(source, [[0], [1], [2]]).cases] == [0.0, 1 / 3, 0.25]


def test_a_syntax_error_gives_its_line():
    result = run("def f(x):\n    return x\n\ndef g(:\n    pass\n", [[1]])
    assert result.status == "syntax" and result.cases == ()
    assert result.message.startswith("SyntaxError: ")
    assert result.message.endswith("(solution.py, line 4)")


def test_an_indentation_error_is_a_syntax_verdict():
    result = run("def f(x):\nreturn x\n", [[1]])
    assert result.status == "syntax"
    assert result.message.startswith("IndentationError: ")


def test_a_missing_function_lists_what_the_file_defines():
    result = run("def dcg(x):\n    return x\n", [[1]], function="ndcg")
    assert result.status == "missing"
    assert result.message == "solution.py defines no function named ndcg (it defines: dcg)"
    result = run("ndcg = 0.5\n", [[1]], function="ndcg")
    assert (result.status, result.message) == ("missing",
                                               "ndcg in solution.py is a float, not a function")


def test_an_exception_at_module_level_is_an_import_verdict():
    result = run("import math\nx = undefined_name\n\ndef f():\n    return 1\n", [[]])
    assert result.status == "import"
    assert result.message == ("NameError: name 'undefined_name' is not defined "
                              "(solution.py, line 2, at module level)")
    assert run("import no_such_module_here\n", [[]]).message.startswith(
        "ModuleNotFoundError: No module named 'no_such_module_here'")


def test_an_infinite_loop_ends_with_cpu_or_timeout_within_the_limits():
    start = time.monotonic()
    result = run("def f():\n    while True:\n        pass\n", [[]])
    elapsed = time.monotonic() - start
    assert result.status in ("cpu", "timeout"), result
    assert "on case 1 (of 1)" in result.message and "an infinite loop?" in result.message
    assert elapsed < FAST.wall_seconds + SLACK


def test_a_hanging_case_is_named_by_its_index_and_the_cases_before_it_are_kept():
    source = "import time\ndef f(x):\n    if x == 3:\n        time.sleep(100)\n    return x\n"
    start = time.monotonic()
    result = run(source, [[1], [2], [3], [4]], limits=Limits(wall_seconds=3.0, cpu_seconds=1.0,
                                                             case_seconds=1.0))
    assert time.monotonic() - start < 1.0 + SLACK + 1.0
    assert result.status == "timeout"
    assert result.message == ("Timed out after 1 s on case 3 (of 4) (the limit for one case): it "
                              "was waiting, not computing (a sleep()?)")
    assert result.cases == (CaseResult(1.0, None), CaseResult(2.0, None))


def test_a_loop_at_module_level_times_out_while_loading():
    result = run("while True:\n    pass\n", [[]], limits=Limits(wall_seconds=1.0, cpu_seconds=1))
    assert result.status in ("cpu", "timeout")
    assert "while loading solution.py" in result.message


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS does not enforce RLIMIT_AS")
def test_a_ten_gigabyte_allocation_is_a_memory_verdict():
    start = time.monotonic()
    result = run("def f(x):\n    return len(bytearray(10 ** 10))\n", [[1], [2]])
    assert result.status == "memory"
    assert result.message == ("Ran out of memory on case 1 (of 2), over the 1 GiB limit: "
                              "MemoryError (solution.py, line 2)")
    assert time.monotonic() - start < FAST.wall_seconds


def test_a_fork_loop_is_refused_at_the_process_cap_and_leaves_nothing_running(no_processes_left):
    source = ("import os\n\ndef f():\n    print(os.getpgid(0), flush=True)\n"
              "    while True:\n        os.fork()\n")
    start = time.monotonic()
    result = run(source, [[], []])
    assert time.monotonic() - start < FAST.wall_seconds + SLACK
    assert result.status == "ok"
    error = result.cases[0].error or ""
    assert error.startswith("BlockingIOError: [Errno 11] process limit reached: your code may "
                            "start 16 processes (a fork loop?)")
    assert error.endswith("(solution.py, line 6)")
    pgid = int(result.output.split()[0])
    assert pgid in no_processes_left and _gone(pgid)


def test_a_fork_loop_that_swallows_the_refusal_still_ends_within_the_limits():
    source = ("import os\n\ndef f():\n    while True:\n        try:\n            os.fork()\n"
              "        except OSError:\n            pass\n")
    start = time.monotonic()
    result = run(source, [[]])
    assert time.monotonic() - start < FAST.wall_seconds + SLACK
    assert result.status in ("cpu", "timeout")


def test_a_gigabyte_of_print_is_an_output_verdict_and_fast():
    source = "def f():\n    for _ in range(10 ** 6):\n        print('x' * 1000)\n"
    start = time.monotonic()
    result = run(source, [[]])
    assert time.monotonic() - start < 1.0
    assert result.status == "output"
    assert result.message == "Printed more than 1 MiB on case 1 (of 1): print() in a loop?"
    assert len(result.output) < 5000 and "bytes not shown" in result.output


def test_output_is_kept_for_display_head_and_tail():
    source = "def f():\n    for i in range(20000):\n        print(i)\n    return 1\n"
    result = run(source, [[]])
    assert result.status == "ok" and result.cases == (CaseResult(1.0, None),)
    assert result.output.startswith("0\n1\n2\n") and result.output.endswith("19999\n")
    assert "bytes not shown" in result.output and len(result.output) < 5000


@pytest.mark.parametrize("call, message", [
    ("sys.exit(0)", "Called sys.exit(0) on case 2 (of 2): return the value instead"),
    ("sys.exit('bye')", "Called sys.exit('bye') on case 2 (of 2): return the value instead"),
    ("os._exit(3)", "Exited with status 3 on case 2 (of 2) (os._exit?): return the value instead"),
    ("os.kill(os.getpid(), 11)", "Killed by SIGSEGV on case 2 (of 2) (a very deep recursion?)"),
])
def test_exiting_from_the_function_is_an_exit_verdict(call, message):
    source = f"import os, sys\n\ndef f(x):\n    if x:\n        {call}\n    return 1\n"
    result = run(source, [[0], [1]])
    assert (result.status, result.message) == ("exit", message)
    assert result.cases == (CaseResult(1.0, None),)


def test_sys_exit_at_module_level_is_an_exit_verdict():
    result = run("import sys\nsys.exit(2)\n", [[]])
    assert (result.status, result.message) == (
        "exit", "Called sys.exit(2) while loading solution.py: return the value instead")


def test_printed_result_lines_cannot_forge_results():
    source = ("import os\n\ndef f(x):\n"
              "    print('{\"t\": \"case\", \"v\": 1.0}')\n"
              "    print('{\"t\": \"done\"}', flush=True)\n"
              "    os.write(1, b'{\"t\": \"case\", \"v\": 2.0}\\n')\n"
              "    os.write(2, b'{\"t\": \"done\"}\\n')\n"
              "    return 0.25\n")
    result = run(source, [[1], [2]])
    assert result.status == "ok"
    assert result.cases == (CaseResult(0.25, None), CaseResult(0.25, None))
    assert result.output.count('{"t": "done"}') == 4


def test_numpy_imports_and_its_scalars_are_numbers():
    pytest.importorskip("numpy")
    source = ("import numpy as np\n\ndef f(kind):\n"
              "    return {'f64': np.float64(0.5), 'f32': np.float32(0.25), 'i64': np.int64(3),\n"
              "            '0d': np.array(1.5), 'bool': np.bool_(True), 'arr': np.zeros(2),\n"
              "            'mean': np.mean([1, 2])}[kind]\n")
    result = run(source, [["f64"], ["f32"], ["i64"], ["0d"], ["bool"], ["arr"], ["mean"]])
    assert result.status == "ok", result
    assert [c.value for c in result.cases] == [0.5, 0.25, 3.0, 1.5, None, None, 1.5]
    assert result.cases[4].error in ("returned a numpy.bool (True), expected a number",
                                     "returned a numpy.bool_ (True), expected a number")
    assert result.cases[5].error == "returned a numpy.ndarray, expected a number"


def test_a_function_that_mutates_its_input_does_not_change_other_cases():
    source = "def f(xs):\n    xs.append(100)\n    xs.sort()\n    return xs[0] + len(xs)\n"
    same = [3, 1, 2]
    result = run(source, [[same], [same], [same]])
    assert [c.value for c in result.cases] == [5.0, 5.0, 5.0]
    assert same == [3, 1, 2]


def test_a_grandchild_holding_the_pipes_does_not_hang_the_parent(no_processes_left):
    source = ("import os, subprocess, time\n\ndef f():\n"
              "    print(os.getpgid(0), flush=True)\n"
              "    subprocess.Popen(['sleep', '60'])\n"
              "    if os.fork() == 0:\n"
              "        time.sleep(60)\n"
              "    return 1\n")
    start = time.monotonic()
    result = run(source, [[]])
    assert time.monotonic() - start < FAST.wall_seconds
    assert result.status == "ok" and result.cases == (CaseResult(1.0, None),)
    assert _gone(int(result.output.split()[0]))


def test_the_code_runs_isolated_in_a_temp_dir_with_a_minimal_environment():
    source = ("import os, sys\n\ndef f():\n"
              "    print(os.getcwd() == os.environ['HOME'], sorted(os.environ), sys.flags.isolated)\n"
              "    print(os.listdir('.'), sys.argv, flush=True)\n"
              "    with open('scratch.txt', 'w') as handle:\n"
              "        handle.write('x')\n"
              "    input()\n")
    result = run(source, [[]])
    assert result.cases[0].error == "EOFError: EOF when reading a line (solution.py, line 8)"
    first, second = result.output.splitlines()[:2]
    assert first.startswith("True ") and first.endswith(" 1")
    assert "DRILLS_HOME" not in first and "'OPENBLAS_NUM_THREADS'" in first
    assert second == "[] ['solution.py']"
    cwd = run("import os\ndef f():\n    print(os.getcwd())\n", [[]]).output.strip()
    assert os.path.basename(cwd).startswith("drills-run-") and not os.path.exists(cwd)


def test_a_file_past_the_size_limit_is_a_case_error():
    source = "def f():\n    with open('big', 'wb') as h:\n        h.write(b'x' * (2 << 20))\n"
    error = run(source, [[]]).cases[0].error or ""
    assert error.startswith("OSError: [Errno 27] File too large")


def test_ctrl_c_in_the_parent_kills_the_group(monkeypatch, no_processes_left):
    real = runner_process.select.select
    start = time.monotonic()

    def interrupted(read, write, error, timeout):
        if time.monotonic() - start > 0.3:  # the child is asleep in the learner's code
            raise KeyboardInterrupt
        return real(read, write, error, min(timeout, 0.05))

    monkeypatch.setattr(runner_process.select, "select", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_function("import time\ndef f():\n    time.sleep(60)\n", "f", [[]], FAST)
    assert len(no_processes_left) == 1


def test_an_interpreter_that_cannot_start_is_a_crashed_verdict():
    result = run_function("def f():\n    return 1\n", "f", [[]], FAST,
                          python="/nonexistent/python3")
    assert result.status == "crashed" and "/nonexistent/python3" in result.message


def test_cases_must_be_json_and_limits_positive():
    with pytest.raises(TypeError):
        run_function("def f(x):\n    return 1\n", "f", [[object()]], FAST)
    with pytest.raises(ValueError):
        Limits(wall_seconds=0)
    assert math.isclose(Limits().cpu_seconds, 2.0) and Limits().processes == 16
