"""Check one answer to one question: verdict, diagnosis and worked steps, from one engine.

``check(question, text)`` is what the quiz loop, ``drills solve --answer`` and the pack
linter all call, so a verdict, its explanation and a worksheet's answer key cannot
disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from drills.engine.exact import decimal_text, with_value
from drills.grading.narrowing import narrowing_for
from drills.grading.reference import reference
from drills.grading.tolerance import grade
from drills.model import LETTERS, Question, Tolerance

DEFAULT_TOLERANCE = Tolerance()


class ToleranceError(ValueError):
    """A --tolerance value that cannot be read."""


def parse_tolerance(text: str) -> Tolerance:
    """``0.01`` (absolute), ``1%`` (relative) or both: ``0.01,1%``."""
    absolute = relative = 0.0
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or len(parts) > 2:
        raise ToleranceError(f"cannot read tolerance {text!r}: use 0.01 (absolute), 1% (relative) or 0.01,1%")
    for part in parts:
        try:
            if part.endswith("%"):
                relative = float(part[:-1]) / 100
            else:
                absolute = float(part)
        except ValueError:
            raise ToleranceError(
                f"cannot read tolerance {text!r}: use 0.01 (absolute), 1% (relative) or 0.01,1%"
            ) from None
    if not (0 <= absolute < 1e6 and 0 <= relative <= 1) or (absolute == 0 and relative == 0):
        raise ToleranceError(f"tolerance {text!r} must be positive (absolute < 1e6, relative <= 100%)")
    return Tolerance(absolute=absolute, relative=relative)


def tolerance_for(question: Question, override: Tolerance | None = None) -> Tolerance:
    """The command line wins, then the question (already merged with its pack default)."""
    return override or question.tolerance or DEFAULT_TOLERANCE


def correct_letter(question: Question) -> str:
    return next(LETTERS[i] for i, o in enumerate(question.options) if o.correct)


def correct_answer(question: Question) -> str:
    """The right option as the learner sees it: ``b) 2^rel - 1``."""
    right = correct_letter(question)
    return f"{right}) {question.options[LETTERS.index(right)].text}"


@dataclass(frozen=True)
class Outcome:
    """The result of checking one answer: everything the front ends show."""

    question: Question
    given: str
    verdict: str  # correct | close | wrong | invalid
    summary: str  # the verdict line: value, exact value, interval, error
    expected: str  # exact form (numeric) or the correct letter and text (choice)
    expected_value: float | None = None
    exact: bool = False
    error: float | None = None
    misconceptions: tuple[str, ...] = ()
    diagnosis: tuple[str, ...] = ()
    pointer: str | None = None
    tolerance: Tolerance | None = None
    # The interval was narrowed because the question's tolerance accepted a slip's value:
    # why ("0.4118 would be the 1/i discount") and the decimal places the prompt asked for.
    narrowed: str | None = None
    decimals: int | None = None
    # Worked steps computed with the outcome (a code question's first failed case), shown
    # by explain() instead of the question's own.
    steps: str | None = None

    @property
    def slip(self) -> str | None:
        """The one slip named for this answer (the others give the same number)."""
        return self.misconceptions[0] if self.misconceptions else None

    @property
    def counted(self) -> bool:
        """Invalid input is asked again, not counted as an attempt."""
        return self.verdict != "invalid"

    @property
    def correct(self) -> bool:
        return self.verdict == "correct"


def check_numeric(question: Question, text: str, override: Tolerance | None = None) -> Outcome:

    tol = tolerance_for(question, override)
    # a question built elsewhere (drills solve) or an explicit --tolerance is narrowed here
    narrowing = narrowing_for(question, tol)
    if narrowing is not None:
        tol = narrowing.tolerance
    elif override is None:
        narrowing = question.narrowing
    ref = reference(question)
    result = grade(text, ref, tol, narrowing)
    common = dict(question=question, given=text, expected=ref.text, expected_value=ref.value,
                  tolerance=tol, narrowed=narrowing.reason if narrowing else None,
                  decimals=narrowing.decimals if narrowing else None)
    if result.verdict == "invalid":
        return Outcome(verdict="invalid", summary=result.message or "could not read that answer", **common)
    ids: tuple[str, ...] = ()
    diagnosis: tuple[str, ...] = ()
    pointer = None
    if result.verdict != "correct" and question.problem is not None and question.metric and result.value is not None:
        # deferred: the diagnosis and its slips load only for a missed answer
        from drills.grading.diagnose import case_of, diagnose_case

        case = case_of(question)
        assert case is not None
        d = diagnose_case(case, result.value, tol, narrowing.before if narrowing else None, given=text)
        ids, diagnosis, pointer = tuple(d.ids), d.explanations, d.pointer
        if ids and result.verdict == "close":  # a known slip, not rounding
            result = replace(result, verdict="wrong")
    return Outcome(verdict=result.verdict, summary=result.describe(), exact=result.exact,
                   error=result.error, misconceptions=ids, diagnosis=diagnosis, pointer=pointer,
                   **common)


def check_choice(question: Question, text: str) -> Outcome:
    """Grade a letter (a, b, ...) or the full text of an option."""
    answer = text.strip().lower().rstrip(").")
    n = len(question.options)
    letters = LETTERS[:n]
    index = letters.find(answer) if len(answer) == 1 else -1
    if index < 0:
        matches = [i for i, o in enumerate(question.options) if o.text.strip().lower() == answer]
        index = matches[0] if matches else -1
    right_text = correct_answer(question)
    if index < 0:
        return Outcome(question, text, "invalid", f"answer with a letter from {letters[0]} to {letters[-1]}",
                       right_text)
    picked = question.options[index]
    verdict = "correct" if picked.correct else "wrong"
    notes = (picked.explanation,) if picked.explanation else ()
    summary = f"Right: you picked {letters[index]}, the answer is {right_text}." if picked.correct else (
        f"Wrong: you picked {letters[index]}, the answer is {right_text}.")
    return Outcome(question, text, verdict, summary, right_text, diagnosis=notes)


def check(question: Question, text: str, override: Tolerance | None = None) -> Outcome:
    """Check ``text`` against ``question`` (numeric or choice)."""
    if question.kind == "choice":
        return check_choice(question, text)
    if question.kind == "numeric":
        return check_numeric(question, text, override)
    raise ValueError(f"question {question.id} ({question.kind}) is not auto-graded")


def explain(outcome: Outcome, steps: bool = True) -> str:
    """Verdict, named mistakes, and the worked steps: the full text for a miss."""
    q = outcome.question
    lines = [outcome.summary]
    for note in outcome.diagnosis:
        lines.append(note)
    if outcome.misconceptions:
        lines.insert(1, "Diagnosis: " + outcome.misconceptions[0])
    if outcome.pointer:
        lines.append("No known slip gives that number. " + outcome.pointer)
    if steps:
        from drills.grading.solution import worked_for  # deferred: the tables, only when shown

        worked = outcome.steps if outcome.steps is not None else worked_for(q)
        if worked is not None:
            lines += ["", worked]
        elif q.kind == "numeric" and outcome.expected_value is not None:
            lines.append(f"Exact answer: {with_value(outcome.expected, decimal_text(_dec(q), 12))}")
        if q.prose:
            lines += ["", q.prose]
    return "\n".join(lines)


def _dec(question: Question):  # noqa: ANN202 - Decimal
    return reference(question).decimal()
