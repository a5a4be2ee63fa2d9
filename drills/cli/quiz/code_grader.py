"""The code grader of the quiz and of ``drills code check``: the learner's function runs in a
separate, limited process (``drills.runner``) on hidden cases chosen by the exact engine
(``drills.coding.grade``); nothing the learner writes is imported into drills.

A ``ModuleNotFoundError`` (at module level or inside the function) is followed by what the
runner offers (``drills.runner.offers``): which libraries the code can import there.

Everything the parent needs after a check is imported before the child starts (``preload``;
tests/test_runner_isolation.py checks it), so nothing the child writes to drills' files can
reach this check; ``drills.runner`` puts back drills' files the child changed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import replace
from typing import Any

import click

from drills.coding.grade import check_code, outcome_of
from drills.runner import RunResult, run_function
from drills.runner.offers import offered

MISSING = "ModuleNotFoundError"
VERSION_CODE = "import sys; print(tuple(sys.version_info[:2]))"
CHOSEN = "drills.code.interpreter"  # click's ctx.meta: --python, else [code] python
CHECKED: dict[tuple[str, str], str] = {}  # interpreters that answered 3.10+


class PythonError(ValueError):
    """The interpreter asked for cannot run the learner's code (one line)."""


def checked_python(path: str, where: str = "") -> str:
    """``path`` made absolute (a bare name is looked up on PATH) once it has answered
    ``sys.version_info`` with 3.10 or later; PythonError otherwise. No shell, a timeout."""
    found = shutil.which(path) if os.sep not in path else os.path.abspath(os.path.expanduser(path))
    shown = f"{where}{path}"
    if not found:
        raise PythonError(f"{shown} is not a Python 3.10+: no such program")
    try:
        done = subprocess.run([found, "-c", VERSION_CODE], capture_output=True, text=True,
                              timeout=15, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise PythonError(f"{shown} is not a Python 3.10+: it did not answer in 15 s") from None
    except OSError as exc:
        raise PythonError(f"{shown} is not a Python 3.10+: {exc.strerror or exc}") from None
    match = re.fullmatch(r"\((\d+), (\d+)\)", done.stdout.strip())
    if done.returncode != 0 or match is None:
        raise PythonError(f"{shown} is not a Python 3.10+: it could not run "
                          f"`{VERSION_CODE}`")
    version = (int(match.group(1)), int(match.group(2)))
    if version < (3, 10):
        raise PythonError(f"{shown} is not a Python 3.10+: it is Python {version[0]}.{version[1]}")
    return found


def choose_python(path: str | None) -> str | None:
    """Run the learner's code under ``path`` (--python); None: [code] python, else drills'
    own. Kept for this command (click's context); PythonError when it is not a Python 3.10+."""
    ctx = click.get_current_context(silent=True)
    if path is None:
        settings = ctx.meta.get("drills.settings") if ctx is not None else None
        configured = settings.get("code", "python") if settings is not None else None
        chosen = _checked(configured, "[code] python = ") if configured else None
    else:
        chosen = _checked(path, "")
    if ctx is not None:
        ctx.meta[CHOSEN] = chosen
    return chosen


def _checked(path: str, where: str) -> str:
    if (path, where) not in CHECKED:
        CHECKED[path, where] = checked_python(path, where)
    return CHECKED[path, where]


def interpreter() -> str | None:
    """The interpreter of the learner's code in this command: None for drills' own."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and CHOSEN in ctx.meta:
        return ctx.meta[CHOSEN]
    return choose_python(None)


def preload() -> None:
    """Import now what the parent uses after a check (the worked case, the record, the
    review card): the child cannot reach a module drills has already imported."""
    import drills.grading.solution  # noqa: F401  lazy: only for a check, before the child
    import drills.store.cards  # noqa: F401  lazy: as above (fsrs)
    import drills.store.fields  # noqa: F401  lazy: as above
    import drills.store.undo  # noqa: F401  lazy: as above


def run(source: str, function: str, cases: Any) -> Any:
    """The runner with its default limits and the chosen interpreter (a seam for tests)."""
    preload()
    try:
        python = interpreter()
    except PythonError as exc:
        return RunResult("crashed", str(exc), (), "", 0.0)
    return run_function(source, function, cases, python=python)


def check_source(question: Any, source: str, examples_only: bool = False) -> Any:
    """Grade ``source`` for a code question: a CodeResult (``examples_only``: on the visible
    examples alone)."""
    return with_offer(check_code(question, source, run, examples_only))


def with_offer(result: Any) -> Any:
    """``result`` with what the runner offers said after a ModuleNotFoundError."""
    if MISSING in result.message:
        return replace(result, message=f"{result.message.rstrip('.')}. {offered(_current())}")
    if any((c.error or "").startswith(MISSING) for c in result.cases):
        return replace(result, explanations=(*result.explanations, offered(_current())))
    return result


def _current() -> str | None:
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(CHOSEN) if ctx is not None else None


def grade(question: Any, source: str) -> Any:
    """The quiz's code grader (Session(code_grader=...)): an Outcome."""
    return outcome_of(question, source, check_source(question, source))
