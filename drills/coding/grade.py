"""Grade a learner's function on hidden cases chosen by the exact engine, and name its slip.

The function is run by ``drills.runner`` in a separate, limited process (passed in as
``run``, so this module starts no process itself and stays testable). Each case is passed
or failed against the engine's exact value within the task's tolerance. Then the outputs
over all cases are compared with every known slip's values on the same cases (the slip
registry of the diagnosis): a slip whose values match every number the function returned,
and that explains at least one failed case, is named. An exception on an edge case is
named with the edge ("ZeroDivisionError when every grade is 0").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from drills.coding.task import (
    EDGES,
    CodeTask,
    HiddenCase,
    describe_call,
    hidden_cases,
    problem_for,
)
from drills.engine.exact import Exact, decimal_text
from drills.engine.metrics.registry import metric_value, worked_steps
from drills.engine.problem import ProblemError
from drills.engine.table import Layout
from drills.grading.check import Outcome
from drills.grading.slips import SLIPS, Case
from drills.model import Question

CODE_VERDICTS = ("correct", "wrong", "error", "timeout")
TIMEOUT_STATUSES = ("timeout", "cpu")


@dataclass(frozen=True)
class CaseReport:
    """One case: the call, the engine's exact value, what the function returned."""

    call: dict[str, Any]
    expected: Exact | None  # None: the engine rejects this call (never for drawn cases)
    got: float | None
    ok: bool
    error: str | None = None  # the function raised, returned a non-number, or never ran
    edge: str | None = None
    visible: bool = False  # one of the question's examples

    def to_json(self) -> dict[str, Any]:
        return {"input": self.call,
                "expected": None if self.expected is None else {"exact": self.expected.text,
                                                                "value": self.expected.value},
                "got": self.got, "ok": self.ok, "error": self.error}


@dataclass(frozen=True)
class CodeResult:
    """The outcome of one check: per case, the verdict, the named slip, the runner's message."""

    verdict: str  # correct | wrong | error | timeout
    cases: tuple[CaseReport, ...]
    misconceptions: tuple[str, ...]
    explanations: tuple[str, ...]
    message: str  # one line: "47 of 50 cases passed" / the runner's message
    output: str = ""  # what the function printed (capped by the runner)
    seconds: float = 0.0

    @property
    def passed(self) -> int:
        return sum(1 for c in self.cases if c.ok)

    @property
    def failed(self) -> int:
        return len(self.cases) - self.passed

    @property
    def first_failure(self) -> CaseReport | None:
        return next((c for c in self.cases if not c.ok), None)

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "failed": self.failed,
                "cases": [c.to_json() for c in self.cases],
                "misconceptions": list(self.misconceptions), "verdict": self.verdict,
                "message": self.message}


Runner = Callable[[str, str, Sequence[Sequence[Any]]], Any]


def all_cases(question: Question) -> list[HiddenCase]:
    """The visible examples, then the hidden cases (deterministic for the question id)."""
    task: CodeTask = question.task
    visible = [HiddenCase(tuple(call), None) for call in task.examples]
    return visible + list(hidden_cases(task, question.id))


def _close(got: float, exact: Exact, tolerance: float) -> bool:
    want = exact.value
    return abs(got - want) <= max(1e-9, tolerance * abs(want))


def check_code(question: Question, source: str, run: Runner) -> CodeResult:
    """Run ``source``'s ``question.function`` on every case and grade it."""
    task: CodeTask = question.task
    cases = all_cases(question)
    result = run(source, question.function or "", [list(c.call) for c in cases])
    reports: list[CaseReport] = []
    for n, case in enumerate(cases):
        call = describe_call(task, case.call)
        try:
            expected: Exact | None = metric_value(problem_for(task, case.call), task.metric)
        except (ProblemError, ZeroDivisionError):
            expected = None
        visible = n < len(task.examples)
        if n >= len(result.cases):
            reports.append(CaseReport(call, expected, None, False, "not run", case.edge, visible))
            continue
        ran = result.cases[n]
        ok = ran.error is None and ran.value is not None and expected is not None and _close(
            ran.value, expected, task.tolerance)
        reports.append(CaseReport(call, expected, ran.value, ok, ran.error, case.edge, visible))
    if result.status != "ok":
        verdict = "timeout" if result.status in TIMEOUT_STATUSES else "error"
        return CodeResult(verdict, tuple(reports), (), (), result.message, result.output, result.seconds)
    ids, explanations = _diagnose(question, cases, reports)
    failed = sum(1 for r in reports if not r.ok)
    verdict = "correct" if not failed else "wrong"
    message = (f"all {len(reports)} cases passed" if not failed
               else f"{len(reports) - failed} of {len(reports)} cases passed")
    return CodeResult(verdict, tuple(reports), ids, explanations, message, result.output,
                      result.seconds)


def _diagnose(question: Question, cases: list[HiddenCase], reports: list[CaseReport]
              ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The slips whose values match every number returned, and the exceptions on edge cases."""

    task: CodeTask = question.task
    if all(r.ok for r in reports):
        return (), ()
    notes: list[str] = []
    for case, report in zip(cases, reports, strict=True):
        if report.error and report.error != "not run":
            where = f" when {EDGES[case.edge]}" if case.edge else ""
            why = ""
            if case.edge == "all_zero" and task.metric in ("ndcg", "idcg", "delta_ndcg"):
                why = ": IDCG = 0, and drills (like scikit-learn, ranx and trec_eval) scores NDCG 0 there"
            notes.append(f"{report.error.split(' (solution.py')[0]}{where}{why}.")
            break
    if _crashes_at_rank_one(task, reports):
        notes.append("log2_rank: every case raised ZeroDivisionError, whatever the grades: with ranks "
                     "counted from 1, a discount of log2(i) is log2(1) = 0 at rank 1. The discount is "
                     "log2(i + 1).")
        return ("log2_rank",), tuple(notes)
    valued = [(c, r) for c, r in zip(cases, reports, strict=True) if r.got is not None and r.error is None]
    wrong = [(c, r) for c, r in valued if not r.ok]
    ids: list[str] = []
    if wrong:
        for slip in SLIPS.values():
            if _explains(slip, Case, task, valued):
                ids.append(slip.id)
                notes.append(f"{slip.id}: {slip.describe(task.metric)}")
    return tuple(ids), tuple(notes)


def _crashes_at_rank_one(task: CodeTask, reports: list[CaseReport]) -> bool:
    """log2(i) with 1-based i divides by log2(1) = 0 on every case: all raise ZeroDivisionError,
    including cases with relevant documents (an all-zero list alone is another story)."""
    if task.metric not in ("ndcg", "dcg", "idcg", "delta_ndcg") or len(reports) < 2:
        return False
    errors = [r.error or "" for r in reports]
    return all(e.startswith("ZeroDivisionError") for e in errors) and any(
        r.edge != "all_zero" for r in reports)


def _explains(slip: Any, case_type: Any, task: CodeTask, valued: list[tuple[HiddenCase, CaseReport]]
              ) -> bool:
    differs = False
    for case, report in valued:
        problem = problem_for(task, case.call)
        sc = case_type(problem, task.metric)
        if not slip.applies(sc):
            return False
        try:
            value = slip.value(sc)
        except (ProblemError, ZeroDivisionError, ValueError):
            return False
        if value is None:  # the slip changes nothing here (every relevant document retrieved, ...)
            value = report.expected
        if value is None or report.got is None or not _close(report.got, value, task.tolerance):
            return False
        differs = differs or not report.ok
    return differs


def case_text(report: CaseReport) -> str:
    """One line for a failed case: the call, the exact expected value, what came back."""
    args = ", ".join(f"{k}={_short(v)}" for k, v in report.call.items())
    if report.expected is None:
        want = "(not computable)"
    else:
        value = decimal_text(report.expected.decimal(), 10)
        exact = report.expected.text
        want = value if len(exact) > 60 or exact == value else f"{exact} = {value}"
    got = report.error or repr(report.got)
    edge = f" [{EDGES[report.edge]}]" if report.edge else ""
    return f"{args}{edge}: expected {want}, got {got}"


def outcome_of(question: Question, source: str, result: CodeResult) -> Any:
    """The quiz's Outcome for a code answer: verdict line, failed case, slip, worked steps.

    An error or a timeout is recorded as wrong (the store's verdicts); its message says which.
    """

    first = result.first_failure
    end = "" if result.message.endswith((".", "?", "!")) else "."
    lines = [f"{'Correct' if result.verdict == 'correct' else 'Wrong'}: {result.message}{end}"]
    if result.verdict in ("error", "timeout") and result.cases:
        lines.append(f"{result.passed} of {len(result.cases)} cases passed before it stopped.")
    if first is not None and first.error != "not run":
        lines.append(f"First failed case: {case_text(first)}")
    steps = None
    if first is not None and first.expected is not None:
        task: CodeTask = question.task
        index = list(result.cases).index(first)
        problem = problem_for(task, all_cases(question)[index].call)
        layout = Layout(max_rows=12, exact_width=120)  # a 500-document case stays readable
        steps = f"The first failed case, worked:\n{worked_steps(problem, task.metric, layout)}"
    expected = first.expected.text if first is not None and first.expected is not None else ""
    return Outcome(question, source, "correct" if result.verdict == "correct" else "wrong",
                   "\n".join(lines), expected,
                   expected_value=first.expected.value if first is not None and first.expected else None,
                   misconceptions=result.misconceptions, diagnosis=result.explanations, steps=steps)


def _short(value: Any, most: int = 12) -> str:
    """A long list as its first and last items and its length (--json has it whole)."""
    if isinstance(value, list) and len(value) > most:
        head = ", ".join(_short(v) for v in value[:8])
        return f"[{head}, ..., {_short(value[-1])}] ({len(value)} items)"
    if isinstance(value, list):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    return repr(value)
