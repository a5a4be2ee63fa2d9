"""Slip-aware tolerance: the accepted interval never contains a known slip's value.

When a question's tolerance (the default 0.005 / 0.5%, the pack's or the question's)
would accept the value of one of its slips, the interval is narrowed to half a unit in
the D-th decimal place, where D is the fewest decimals whose unit is below the distance
to the nearest slip. So the new half-width is less than half that distance, an answer
rounded to D places is accepted, and a slip's value rounded to D places is not. The
prompt then ends with "Give the answer to D decimal places." This is computed when a
question is built (generators, the session plan), so it holds for generated variants
too; the grader applies the same rule to a question built elsewhere or to an explicit
--tolerance. sympy is never imported here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal
from functools import lru_cache
from typing import TypeVar

from drills.engine.lazy import FLOAT_APART
from drills.engine.metrics.registry import metric_value
from drills.grading.diagnose import Variant, case_of, slip_values
from drills.grading.slips import Case
from drills.model import Narrowing, Question, Tolerance

MAX_DECIMALS = 15  # slips closer than that to the answer are not told apart (see diagnose.SAME)
_SLACK = 1 + 1e-9  # the grader's own boundary slack (grading.within)
T = TypeVar("T")


def decimals_needed(distance: Decimal) -> int:
    """The fewest decimal places D (at least 1) with 10^-D < ``distance``."""
    d = max(1, -distance.adjusted())
    while Decimal(1).scaleb(-d) >= distance:
        d += 1
    return d


@lru_cache(maxsize=1024)
def narrowing(case: Case, tolerance: Tolerance) -> Narrowing | None:
    """The narrowed tolerance for ``case``, or None when ``tolerance`` accepts no slip."""
    values = slip_values(case)
    if not values:
        return None
    right = metric_value(case.problem, case.metric)
    found = _by_floats(values, right.value, tolerance)
    if found is False:
        return None
    if found is None:  # the floats cannot tell: the exact values decide
        correct = right.decimal()
        allowed = tolerance.allowed(float(correct)) * _SLACK + 1e-15
        distances = sorted(((abs(v.value.decimal() - correct), i, v) for i, v in enumerate(values)),
                           key=lambda t: (t[0], t[1]))
        nearest, _, variant = distances[0]
        if float(nearest) > allowed:
            return None
        places = decimals_needed(nearest)
        shown = variant.value.decimal().quantize(Decimal(1).scaleb(-places - 1))
    else:
        variant, places, shown = found
    if places > MAX_DECIMALS:
        return None
    half = float(Decimal(5).scaleb(-places - 1))
    reason = f"{shown.normalize():f} would be {variant.misconception.name}"
    return Narrowing(Tolerance(absolute=half, relative=0.0), tolerance, places,
                     variant.misconception.id, f"{shown.normalize():f}", reason)


def _steady(f: Callable[[Decimal], T], x: float, error: float) -> T | None:
    """``f`` of the number a float stands for, when it is the same across the float's error."""
    d, e = Decimal(repr(x)), Decimal(error)
    found = f(d)
    return found if f(d - e) == found == f(d + e) else None


def _by_floats(values: Sequence[Variant], correct: float, tolerance: Tolerance
               ) -> tuple[Variant, int, Decimal] | bool | None:
    """``narrowing`` from the values' floats (no exact form built): False when no slip is in the
    interval, the nearest slip with its decimals and its value as shown, or None when the
    floats are too near a boundary or each other to decide (then the exact values decide)."""
    allowed = tolerance.allowed(correct) * _SLACK + 1e-15
    gaps = sorted((abs(v.value.value - correct), i) for i, v in enumerate(values))
    (gap, i), rest = gaps[0], gaps[1:]
    slip = values[i].value.value
    error = FLOAT_APART * (abs(correct) + abs(slip) + 1e-300)
    if gap - error > allowed:
        return False
    if gap + error > allowed or (rest and rest[0][0] - gap <= 2 * error):
        return None
    places = _steady(decimals_needed, gap, error)
    if places is None:
        return None
    shown = _steady(lambda d: d.quantize(Decimal(1).scaleb(-places - 1)), slip, error)
    return None if shown is None else (values[i], places, shown)


def narrowing_for(question: Question, tolerance: Tolerance) -> Narrowing | None:
    """``narrowing`` for a numeric question with a problem (None for any other question)."""
    case = case_of(question) if question.kind == "numeric" else None
    return None if case is None else narrowing(case, tolerance)


def prepared(question: Question) -> Question:
    """The question with its interval narrowed and its prompt asking for enough decimals,
    when its tolerance would accept a slip; otherwise (or when already done) unchanged."""
    if question.narrowing is not None:
        return question
    found = narrowing_for(question, question.tolerance or Tolerance())
    if found is None:
        return question
    prompt = question.prompt
    stated = stated_places(prompt)
    if stated is None or stated < found.decimals:  # "to 4 decimal places" already says enough
        prompt = f"{prompt.rstrip()}\n{found.instruction}"
    return replace(question, tolerance=found.tolerance, narrowing=found, prompt=prompt)


_PLACES = re.compile(r"(\d+)\s+(?:decimal\s+)?places", re.IGNORECASE)


def stated_places(prompt: str) -> int | None:
    """The decimal places a prompt already asks for ("to 3 decimal places"), if it says."""
    found = [int(m.group(1)) for m in _PLACES.finditer(prompt)]
    return min(found) if found else None
