"""The learner-code boundary for the coding round.

``run_function(source, function, cases)`` runs the learner's function on every case in one
separate ``python -I`` process under limits (CPU, memory, processes, file size, output, a
wall clock that kills the whole process group) and returns a RunResult: a status, a
one-line message, each finished case's number or error, and the capped output. Nothing in
drills imports the learner's file. The runner does not know the expected answers.
"""

from __future__ import annotations

from drills.runner.process import run_function
from drills.runner.results import STATUSES, CaseResult, Limits, RunResult

__all__ = ["STATUSES", "CaseResult", "Limits", "RunResult", "run_function"]
