"""Run every question of a pack: each must produce an answer that grades as correct
against itself (``drills packs lint``).

Schema checks belong to ``drills packs validate``; lint goes further and runs the
questions: reference answers through the safe parser and the grader, metric ranges,
one correct option per choice, the ranked list in the prompt, generator exceptions,
and no question whose text states another's answer (drills.packs.leaks), no pack whose
correct options give themselves away by length, no problem asked twice (cue_lint).
A generated item whose wrong-formula slips cannot be told apart from the right answer
is only a warning: the diagnosis simply has less to say there.

Pure: no terminal library, no file access; progress goes to a callback.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from drills.authoring.cue_lint import (
    PACK_SHARE_IS_ERROR,
    duplicate_errors,
    option_warnings,
    pack_errors,
)
from drills.authoring.rubric_lint import example_errors, rubric_warnings
from drills.authoring.slip_lint import prompt_errors, restated_steps, slip_warnings
from drills.coding.edges import edge_errors
from drills.coding.grade import all_cases
from drills.coding.task import problem_for
from drills.engine.metrics.registry import metric_value, names
from drills.engine.problem import ProblemError
from drills.generators.drawing import MIN_VARIANTS
from drills.generators.instantiate import GenerationError, instantiate, item_rng
from drills.grading.reference import reference
from drills.grading.tolerance import grade
from drills.model import Tolerance
from drills.packs.leaks import leak_errors
from drills.safetext import shorten

if TYPE_CHECKING:
    from drills.model import Question, Tolerance

UNIT_METRICS = ("ndcg", "rr", "precision", "hit", "delta_ndcg", "ap", "recall", "rprec", "err",
                "rbp", "map", "mrr")  # values in [0, 1]
DIAGNOSED = ("dcg", "idcg", "ndcg", "delta_ndcg")
QUANTITIES = names(family="quantity")  # one gain or one rank: no list in the prompt
# Items whose point is that every formula agrees (NDCG of a perfect ranking is 1 under any
# slip): too few distinguishable slips is by design there, so no warning.
SAME_UNDER_EVERY_FORMULA = ("edge-case",)
PROGRESS_EVERY = 2.0  # seconds between progress lines on stderr


@dataclass
class Report:
    """Errors (lint fails) and warnings (lint passes), one line each."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    questions: int = 0
    items: int = 0


@dataclass
class _Linter:
    """One lint run: the seeds each generated question is drawn with, progress, and the grades
    already worked out."""

    seeds: int
    progress: Callable[[str], None] | None = None
    _graded: dict[tuple[str, Any], str | None] = field(default_factory=dict)

    def check_item(self, q: Question, generated: bool) -> tuple[list[str], bool]:
        """Errors for one concrete item, and whether its slips are too few to diagnose."""

        if q.kind == "scenario":
            return self.check_scenario(q, generated)
        if q.kind == "choice":
            right = sum(o.correct for o in q.options)
            return ([] if right == 1 else [f"{right} correct options (exactly one needed)"]), False
        if q.kind == "code":
            return _code_errors(q) + edge_errors(q), False
        if q.kind != "numeric":
            return [], False
        tol = q.tolerance or Tolerance()
        errors: list[str] = []
        try:
            ref = _reference(q)
        except Exception as exc:  # noqa: BLE001 - every failure is a lint error
            return [f"no reference answer: {exc}"], False
        problem = self._self_grade(ref, tol)
        if problem:
            errors.append(problem)
        few = False
        if q.problem is not None and q.metric:
            value = ref.value
            if q.metric in UNIT_METRICS and not -1e-12 <= value <= 1 + 1e-12:
                errors.append(f"{q.metric} = {value:.6g} is outside [0, 1]")
            elif value < -1e-12 and q.metric != "ndcg_difference":  # A - B may be negative
                errors.append(f"{q.metric} = {value:.6g} is negative")
            # one gain or rank has no list; an answer's problem may be shown otherwise (as scores)
            if q.metric not in QUANTITIES and q.answer is None and q.part is None and not _lists_in_prompt(q):
                lists = [_grades(x.relevance) for x in q.problem.queries or (q.problem,)]
                errors.append(f"the prompt does not show the ranked relevance list{'s' if len(lists) > 1 else ''} "
                              f"{' and '.join(lists)}")
            errors += prompt_errors(q)  # @k and metric agree with problem:, answer: with it
            if generated and q.metric in DIAGNOSED and q.generator not in SAME_UNDER_EVERY_FORMULA:
                from drills.generators.drawing import diagnosable

                few = not diagnosable(q.problem, q.metric, tol)
        return errors, few

    def check_scenario(self, q: Question, generated: bool) -> tuple[list[str], bool]:
        """Each step as a question of its own (its reference grades as correct against itself ...),
        and the shared setup shows the shared problem's ranked list(s)."""
        errors: list[str] = []
        few = False
        if q.problem is not None and not _lists_in_prompt(q):
            lists = [_grades(x.relevance) for x in q.problem.queries or (q.problem,)]
            errors.append(f"the setup does not show the ranked list {' and '.join(lists)}")
        for step in q.steps:
            found, too_few = self.check_item(step, generated)
            errors += [f"step {step.part.step if step.part else '?'}: {e}" for e in found]
            few = few or too_few
        return errors, few

    def _self_grade(self, ref: Any, tol: Tolerance) -> str | None:
        """The reference's exact text, typed back in, must grade as correct (cached by text)."""
        key = (ref.text, tol)
        if key not in self._graded:
            check = grade(ref.text, ref, tol)
            self._graded[key] = None if check.verdict == "correct" else (
                f"the reference answer {shorten(ref.text, 60)!r} grades as {check.verdict} against itself"
                + (f" ({check.message})" if check.message else ""))
        return self._graded[key]

    def run(self, questions: Sequence[Question]) -> Report:

        report = Report(questions=len(questions))
        total = sum(self.seeds if q.generator else 1 for q in questions)
        last = time.monotonic()
        for q in questions:
            where = f"{q.source}: {q.id}"
            if not q.generator:
                report.items += 1
                errors, _ = self.check_item(instantiate(q, item_rng(0, 0, q.id)) if q.kind == "scenario"
                                            else q, generated=False)
                report.errors += [f"{where}: {e}" for e in errors] + example_errors(q)
                report.warnings += [f"{where}: {w}" for w in slip_warnings(q) + restated_steps(q)
                                    + option_warnings(q)]
                report.warnings += rubric_warnings(q)
                continue
            if q.kind == "scenario":  # a generated scenario's concept steps: one draw has them all
                try:
                    drawn = instantiate(q, item_rng(0, 0, q.id))
                except Exception:  # noqa: BLE001 - the draws below report it
                    drawn = q
                report.errors += example_errors(drawn)
                report.warnings += rubric_warnings(drawn)
            failures: dict[str, list[int]] = {}
            few: list[int] = []
            for seed in range(self.seeds):
                report.items += 1
                try:
                    item = instantiate(q, item_rng(seed, 0, q.id))
                    errors, too_few = self.check_item(item, generated=True)
                except GenerationError as exc:
                    errors, too_few = [exc.message], False
                except Exception as exc:  # noqa: BLE001 - a generator crash is a lint error
                    errors, too_few = [f"generator {q.generator} raised {type(exc).__name__}: {exc}"], False
                for e in errors:
                    failures.setdefault(e, []).append(seed)
                if too_few:
                    few.append(seed)
                if self.progress and time.monotonic() - last > PROGRESS_EVERY:
                    last = time.monotonic()
                    self.progress(f"lint: {report.items}/{total} items checked")
            for message, bad in failures.items():
                report.errors.append(f"{where}: {message} (seed{'s' if len(bad) > 1 else ''} "
                                     f"{_seeds(bad)} of {self.seeds})")
            if few:
                report.warnings.append(
                    f"{where}: {len(few)} of {self.seeds} generated items have fewer than {MIN_VARIANTS} "
                    f"wrong-formula variants that can be told from the answer (seeds {_seeds(few)})")

        report.errors += leak_errors(questions)  # across every pack linted together
        shares = pack_errors(questions)  # cues: correct options mostly the longest in a pack
        (report.errors if PACK_SHARE_IS_ERROR else report.warnings).extend(shares)
        report.errors += duplicate_errors(questions)  # one problem asked twice
        return report


def _reference(q: Question) -> Any:

    return reference(q)


def _grades(grades: Iterable[int]) -> str:
    return "[" + ", ".join(map(str, grades)) + "]"


def _code_errors(q: Question) -> list[str]:
    """Every hidden and visible case of a code question must have an engine value."""

    for n, case in enumerate(all_cases(q), start=1):
        try:
            metric_value(problem_for(q.task, case.call), q.task.metric)
        except (ProblemError, ZeroDivisionError, ValueError) as exc:
            return [f"case {n} ({case.edge or 'random'}) has no engine value: {exc}"]
    return []


def _lists_in_prompt(q: Question) -> bool:
    """The ranked grades appear in order, separated by commas/spaces/brackets, in the prompt."""
    assert q.problem is not None
    for query in q.problem.queries or (q.problem,):  # MAP and MRR: every query's ranking
        grades = [str(g) for g in query.relevance]
        pattern = r"(?<![\d.])" + r"[\s,;\[\]]+".join(grades) + r"(?![\d.])"
        if re.search(pattern, q.prompt) is None:
            return False
    return True


def _seeds(seeds: list[int], shown: int = 5) -> str:
    text = ", ".join(map(str, seeds[:shown]))
    return text + (f", ... ({len(seeds)} in all)" if len(seeds) > shown else "")


def lint_questions(questions: Sequence[Question], seeds: int = 50,
                   progress: Callable[[str], None] | None = None) -> Report:
    """Lint loaded questions (generated templates over ``seeds`` seeds each)."""
    return _Linter(seeds, progress).run(questions)
