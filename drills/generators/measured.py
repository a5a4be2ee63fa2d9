"""Helpers for the generators of the metrics beyond NDCG (AP, MAP, P, R, R-prec, MRR, ERR).

Their answers come from the metric registry through ``drawing.engine_value``, like every
generated item. What this module adds: the wording shared by their prompts (labels, the
relevance threshold, the judged pool, a cut-off past the end of the list), the slips each
question declares (only ids the slip registry knows), and a draw picker that keeps every
rival value (another convention's number, a declared slip's) either equal to the answer
or at least ``GAP`` away from it, so four decimals always tell them apart.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from drills.engine.exact import Exact, decimal_text
from drills.engine.problem import Problem, ProblemError
from drills.generators.drawing import engine_value, grades_text

# A rival nearer the answer than this (but not equal) would need more than 4 decimals.
GAP = 0.001
SAME = 1e-12
ATTEMPTS = 60

# The slips each metric's questions declare, when the registry has them (issue 12's ids).
# The engine grades with the registered ones only; an id not (yet) registered is skipped.
WANTED: dict[str, tuple[str, ...]] = {
    "ap": ("ap_over_retrieved", "ap_over_k", "ap_all_ranks", "k_ignored"),
    "map": ("map_of_precision", "ap_over_retrieved", "ap_over_k", "ap_all_ranks", "k_ignored"),
    "precision": ("precision_over_relevant", "answered_recall", "k_ignored"),
    "recall": ("recall_over_k", "r_from_retrieved", "k_ignored"),
    "rprec": ("r_from_retrieved",),
    "mrr": ("mrr_skips_misses", "zero_based_rank", "k_ignored"),
    "err": ("err_linear_gain", "err_no_stop", "err_log_discount", "k_ignored"),
}
# Two ids for one mistake: declare the first when both are registered.
SAME_MISTAKE = {"answered_recall": "precision_over_relevant"}

T = TypeVar("T")


def slips_asked(metric: str, without: Iterable[str] = ()) -> tuple[str, ...]:
    """The registered slips among ``WANTED[metric]``, less ``without`` and duplicates."""
    from drills.grading.slips import slips_for  # deferred: not needed before the first question

    registered = set(slips_for(metric))
    skip = set(without)
    out = [s for s in WANTED[metric] if s in registered and s not in skip]
    return tuple(s for s in out if SAME_MISTAKE.get(s) not in out)


def slip_values(problem: Problem, metric: str, declared: Sequence[str]) -> list[float]:
    """The value of every declared (or, none declared, every registered) slip that applies."""
    from drills.grading.slips import (  # deferred: not needed before the first question
        SLIPS,
        Case,
        slips_for,
    )

    case = Case(problem, metric, tuple(declared))
    out = []
    for sid in declared or slips_for(metric):
        slip = SLIPS[sid]
        if not slip.applies(case):
            continue
        try:
            value = slip.value(case)
        except (ProblemError, ZeroDivisionError):
            continue
        if value is not None:
            out.append(value.value)
    return out


def badness(answer: float, rivals: Iterable[float | Fraction]) -> tuple[int, int]:
    """(rivals nearer than GAP but not equal, rivals equal to the answer): (0, 0) is a good draw."""
    close = same = 0
    for rival in rivals:
        d = abs(float(rival) - answer)
        if d < SAME:
            same += 1
        elif d < GAP:
            close += 1
    return close, same


def pick(draw: Callable[[], T], rate: Callable[[T], tuple[int, ...]], attempts: int = ATTEMPTS) -> T:
    """The first draw rated all zeros, else the best-rated of ``attempts`` draws."""
    best: tuple[tuple[int, ...], T] | None = None
    for _ in range(attempts):
        candidate = draw()
        score = rate(candidate)
        if best is None or score < best[0]:
            best = (score, candidate)
        if not any(score):
            break
    assert best is not None
    return best[1]


def rate(problem: Problem, metric: str, declared: Sequence[str], rivals: Iterable[float | Fraction],
         *, low: float = 0.0, high: float = 1.0) -> tuple[int, int, int]:
    """A draw's rating: answer outside (low, high) open, rivals and slips too close, rivals equal.

    A rival (another convention's value) equal to the answer makes the draw less instructive;
    a slip equal to the answer is simply no mistake here (the diagnosis skips it).
    """
    answer = engine_value(problem, metric).value
    outside = int(not low < answer < high)
    close, same = badness(answer, rivals)
    close += badness(answer, slip_values(problem, metric, declared))[0]
    return outside, close, same


# ---------------------------------------------------------------------------- drawing lists
def draw_labels(rng: random.Random, n: int, max_rel: int, threshold: int, within: int) -> list[int]:
    """Grades 0..max_rel with a relevant one (>= threshold) in the top ``within`` and a non-relevant one."""
    for _ in range(100):
        grades = [rng.randint(0, max_rel) for _ in range(n)]
        if any(g >= threshold for g in grades[:within]) and (n == 1 or any(g < threshold for g in grades)):
            return grades
    grades[rng.randrange(min(within, n))] = max_rel  # pragma: no cover - vanishingly rare
    return grades


def draw_missed(rng: random.Random, count: int, max_rel: int, threshold: int) -> list[int]:
    """Grades of judged documents the system did not retrieve: the first is relevant."""
    if count <= 0:
        return []
    return [rng.randint(threshold, max_rel)] + [rng.randint(0, max_rel) for _ in range(count - 1)]


def pool_of(ranking: Sequence[int], missed: Sequence[int]) -> tuple[int, ...] | None:
    """The judged pool, best first (None: the ranking itself)."""
    return tuple(sorted([*ranking, *missed], reverse=True)) if missed else None


# ----------------------------------------------------------------------------------- wording
def labels_phrase(max_rel: int) -> str:
    return "binary labels (1 relevant, 0 not)" if max_rel == 1 else f"relevance grades (0-{max_rel})"


def threshold_sentence(max_rel: int, threshold: int) -> str:
    """Which grades count as relevant (binary labels need no sentence)."""
    if max_rel == 1:
        return ""
    return (f" A document counts as relevant when its grade is at least {threshold} "
            f"(trec_eval -l {threshold}); the others count as non-relevant.")


def missed_sentence(missed: Sequence[int], judged: Sequence[int] | None, max_rel: int) -> str:
    if judged is None:
        return "The judged pool is the list itself: the system retrieved every judged document."
    n = len(missed)
    what = "relevant document" if max_rel == 1 and all(missed) else "document"
    grades = ("" if max_rel == 1 and all(missed) else f", with grade {missed[0]}" if n == 1
              else f", with grades {grades_text(missed)}")
    return (f"The judges also assessed {n} {what}{'' if n == 1 else 's'} the system did not "
            f"retrieve{grades}, so the query's judged pool is {grades_text(judged)}.")


def past_end(k: int | None, n: int) -> str:
    """For k > n: what the missing ranks count as (trec_eval pads with non-relevant)."""
    if k is None or k <= n:
        return ""
    return f" (k = {k}, but the list has only {n} documents: ranks {n + 1}..{k} count as non-relevant)"


def dec(x: Exact) -> str:
    """A value as explanations show it: ``53/90 = 0.5889`` (4 significant digits), or just the
    decimal when the exact form is the same or too long to help."""
    shown = decimal_text(x.decimal(), 4)
    return shown if x.text == shown or len(x.text) > 12 else f"{x.text} = {shown}"


def replay(problem: Problem, metric: str) -> dict[str, Any]:
    """The concrete draw as JSON-able params: enough to rebuild the problem."""
    out: dict[str, Any] = {
        "relevance": list(problem.relevance),
        "judged": list(problem.judged) if problem.judged is not None else None,
        "k": problem.k,
        "metric": metric,
    }
    if metric in ("ap", "map", "precision", "recall", "rprec", "mrr"):
        out["threshold"] = problem.threshold
    if metric in ("ap", "map"):
        out["convention"] = problem.convention
    if metric == "err":
        out["max_grade"] = problem.max_grade
    if problem.queries:
        out["queries"] = [{"relevance": list(q.relevance),
                           "judged": list(q.judged) if q.judged is not None else None}
                          for q in problem.queries]
    return out


def short_value(x: Exact) -> str:
    return decimal_text(x.decimal(), 6)
