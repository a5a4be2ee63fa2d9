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
    WHEN,
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
from drills.grading.diagnose import bound_line
from drills.grading.slips import SLIPS, Case
from drills.model import Question
from drills.safetext import visible

CODE_VERDICTS = ("correct", "wrong", "error", "timeout")
TIMEOUT_STATUSES = ("timeout", "cpu")
OUTPUT_CAP = 4096  # characters of printed output in --json (the first 3 KiB and the last 1 KiB)


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
    examples_only: bool = False  # only the question's visible examples ran (no hidden case)

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
                "misconceptions": list(self.misconceptions),
                "slip": self.misconceptions[0] if self.misconceptions else None,
                "verdict": self.verdict,
                "message": self.message, "output": shown_output(self.output),
                "examples_only": self.examples_only}


def shown_output(text: str, cap: int = OUTPUT_CAP) -> str:
    """What the function printed, made safe to show (controls as ``^[``, newlines kept) and
    cut to ``cap`` characters: the first three quarters and the last quarter around a note
    saying how much was left out (the runner has already cut it to a few KiB)."""
    text = visible(text)
    if len(text) <= cap + 64:  # the runner's own cut (4 KiB and its one-line note) stays as is
        return text
    head, tail = cap * 3 // 4, cap // 4
    return f"{text[:head]}\n[... {len(text) - head - tail:,} characters not shown ...]\n{text[-tail:]}"


Runner = Callable[[str, str, Sequence[Sequence[Any]]], Any]


def all_cases(question: Question, examples_only: bool = False) -> list[HiddenCase]:
    """The visible examples, then the hidden cases (deterministic for the question id);
    ``examples_only``: the visible examples alone (a run before submitting)."""
    task: CodeTask = question.task
    shown = [HiddenCase(tuple(call), None) for call in task.examples]
    return shown if examples_only else shown + list(hidden_cases(task, question.id))


def _close(got: float, exact: Exact, tolerance: float) -> bool:
    want = exact.value
    return abs(got - want) <= max(1e-9, tolerance * abs(want))


def check_code(question: Question, source: str, run: Runner, examples_only: bool = False
               ) -> CodeResult:
    """Run ``source``'s ``question.function`` on every case (``examples_only``: on the visible
    examples alone) and grade it."""
    task: CodeTask = question.task
    cases = all_cases(question, examples_only)
    result = run(source, question.function or "", [list(c.call) for c in cases])
    reports: list[CaseReport] = []
    for n, case in enumerate(cases):
        call = describe_call(task, case.call)
        try:
            expected: Exact | None = metric_value(problem_for(task, case.call), task.metric)
        except (ProblemError, ZeroDivisionError):
            expected = None
        example = n < len(task.examples)
        if n >= len(result.cases):
            reports.append(CaseReport(call, expected, None, False, "not run", case.edge, example))
            continue
        ran = result.cases[n]
        ok = ran.error is None and ran.value is not None and expected is not None and _close(
            ran.value, expected, task.tolerance)
        reports.append(CaseReport(call, expected, ran.value, ok, ran.error, case.edge, example))
    if result.status != "ok":
        verdict = "timeout" if result.status in TIMEOUT_STATUSES else "error"
        return CodeResult(verdict, tuple(reports), (), (), result.message, result.output,
                          result.seconds, examples_only)
    ids, explanations = _diagnose(question, cases, reports)
    failed = sum(1 for r in reports if not r.ok)
    verdict = "correct" if not failed else "wrong"
    message = _passed(len(reports), failed, "example" if examples_only else "case")
    return CodeResult(verdict, tuple(reports), ids, explanations, message, result.output,
                      result.seconds, examples_only)


def _passed(total: int, failed: int, noun: str) -> str:
    """``all 42 cases passed``, ``17 of 42 cases passed``, ``the 1 example passed``."""
    if not failed:
        return f"the 1 {noun} passed" if total == 1 else f"all {total} {noun}s passed"
    return f"{total - failed} of {total} {noun}{'' if total == 1 else 's'} passed"


def _diagnose(question: Question, cases: list[HiddenCase], reports: list[CaseReport]
              ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The slips whose values match every number returned, and the exceptions on edge cases."""

    task: CodeTask = question.task
    if all(r.ok for r in reports):
        return (), ()
    notes: list[str] = []
    for case, report in zip(cases, reports, strict=True):
        if report.error and report.error != "not run":
            notes.append(_error_note(task, case, report.error))
            break
    if _crashes_at_rank_one(task, reports):
        notes.append("log2_rank: every case raised ZeroDivisionError, whatever the grades: with ranks "
                     "counted from 1, a discount of log2(i) is log2(1) = 0 at rank 1. The discount is "
                     "log2(i + 1).")
        return ("log2_rank",), tuple(notes)
    valued = [(c, r) for c, r in zip(cases, reports, strict=True) if r.got is not None and r.error is None]
    wrong = [(c, r) for c, r in valued if not r.ok]
    matched = [slip for slip in SLIPS.values() if wrong and _explains(slip, Case, task, valued)]
    if matched:  # one slip explained (the primary, in registry order); the others give the same numbers
        first = matched[0]
        notes.append(f"{first.id}: {first.describe(task.metric, problem_for(task, wrong[0][0].call))}")
        if len(matched) > 1:
            others = ", ".join(f"{s.id} ({s.name})" for s in matched[1:])
            notes.append(f"Also gives these numbers on every case: {others}.")
    above = next((r.got for _, r in valued if r.got is not None and not r.ok
                  and bound_line(task.metric, r.got)), None)
    if above is not None:
        notes.append(bound_line(task.metric, above) or "")
    return tuple(s.id for s in matched), tuple(notes)


def _error_note(task: CodeTask, case: HiddenCase, error: str) -> str:
    """``ZeroDivisionError: division by zero when every grade is 0: ...``: the error without
    its place, the edge it met as a clause, one final period (an error that ends a
    sentence of its own keeps it, with the edge in parentheses)."""
    text = error.split(" (solution.py")[0].rstrip()
    why = ""
    if case.edge == "all_zero" and task.metric in ("ndcg", "idcg", "delta_ndcg"):
        why = ": IDCG = 0, and drills (like scikit-learn, ranx and trec_eval) scores NDCG 0 there"
    if not case.edge:
        return text if text.endswith((".", "!", "?")) else f"{text}."
    if text.endswith((".", "!", "?")):
        return f"{text} (when {WHEN[case.edge]}{why})."
    return f"{text}{',' if ',' in text else ''} when {WHEN[case.edge]}{why}."  # nan, expected ..., when


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


def outcome_of(question: Question, source: str, result: CodeResult,
               layout: Layout | None = None) -> Any:
    """The quiz's Outcome for a code answer: verdict line, failed case, slip, worked steps
    (laid out by ``layout``; default: 12 rows, exact forms cut at 120 characters).

    A timeout is recorded as wrong (the store's verdicts) and says so; code that does not
    compile, fails to import or exits is ``Error:`` with the runner's message alone (no
    worked case: no case was graded), recorded as wrong too.
    """

    first = result.first_failure
    end = "" if result.message.endswith((".", "?", "!")) else "."
    word = {"correct": "Correct", "error": "Error"}.get(result.verdict, "Wrong")
    lines = [f"{word}: {result.message}{end}"]
    if result.verdict == "error":
        return Outcome(question, source, "wrong", lines[0], "")
    if result.verdict == "timeout" and result.cases:
        lines.append(f"{result.passed} of {len(result.cases)} cases passed before it stopped.")
    if first is not None and first.error != "not run":
        lines.append(f"First failed case: {case_text(first)}")
    steps = None
    if first is not None and first.expected is not None:
        task: CodeTask = question.task
        index = list(result.cases).index(first)
        problem = problem_for(task, all_cases(question, result.examples_only)[index].call)
        layout = layout or Layout(max_rows=12, exact_width=120)  # a 500-document case stays readable
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
