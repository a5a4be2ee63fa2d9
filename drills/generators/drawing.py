"""Helpers shared by the generators: drawing lists, wording prompts, building items.

Every prompt is built from the same phrases so the gain convention and the judged
pool are always stated the same way (the quiz states the answer form itself) (and the pack linter can check
that the ranked list is in the prompt). Nothing here imports sympy.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from drills.engine.exact import Exact, decimal_text
from drills.engine.problem import Problem
from drills.generators.registry import REGISTRY, Param
from drills.model import Option, Question, Tolerance

DISCOUNT_PHRASE = "the discount log2(i + 1) at rank i"
# How many distinguishable wrong-formula values make a numeric item worth diagnosing.
MIN_VARIANTS = 2
# Choice questions answer with a letter; the session and the worksheet print them a), b) ...


class _KValues(tuple):  # type: ignore[type-arg]
    """``Param.choices`` for k: any whole number >= 1, null or "random".

    The registry checks ``value in choices``; this tuple answers that for every k and
    still prints a readable list in the error message.
    """

    def __contains__(self, value: object) -> bool:
        if value is None or value == "random":
            return True
        return isinstance(value, int) and not isinstance(value, bool) and value >= 1


K_VALUES = _KValues(("a whole number >= 1", "null (the whole list)", "random"))


def k_param(default: Any = None) -> Param:
    return Param((int, str, type(None)), default,
                 'cut-off k: a whole number, null for the whole list, or "random" '
                 "(k < n, k = n or k > n)", choices=K_VALUES)


GAIN_PARAM = Param(str, "exponential", "gain convention", choices=("exponential", "linear"))


def n_param(default: int = 5) -> Param:
    return Param(int, default, "length of the ranked list", minimum=2, maximum=12)


def max_rel_param(default: int = 3, minimum: int = 1) -> Param:
    return Param(int, default, "highest relevance grade (grades run 0..max_rel)",
                 minimum=minimum, maximum=4)


def resolved(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The generator's defaults overlaid with ``params`` (idempotent)."""
    return REGISTRY[name].resolved(params)


def resolve_k(k: Any, n: int, rng: random.Random) -> int | None:
    """A concrete k: ``random`` picks k < n, k = n or k > n with equal chance."""
    if k is None or (isinstance(k, int) and not isinstance(k, bool)):
        if k is not None and k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        return k
    if k != "random":
        raise ValueError(f'k must be a whole number, null or "random", got {k!r}')
    mode = rng.choice(("less", "equal", "greater"))
    if mode == "less":
        return rng.randint(1, n - 1)
    if mode == "equal":
        return n
    return rng.randint(n + 1, n + 3)


def grades_text(grades: Iterable[int]) -> str:
    """``[2, 1, 3, 0]``: the one way a list is written in prompts (the linter looks for it)."""
    return "[" + ", ".join(str(g) for g in grades) + "]"


def gain_phrase(gain: str) -> str:
    return "exponential gain 2^rel - 1" if gain == "exponential" else "linear gain (gain = rel)"


def conventions(gain: str) -> str:
    return f"Use {gain_phrase(gain)} and {DISCOUNT_PHRASE}."


def metric_label(metric: str, k: int | None) -> str:
    """``NDCG@3``; without a cut-off ``NDCG`` (whole list)."""
    name = {"ndcg": "NDCG", "dcg": "DCG", "idcg": "IDCG"}.get(metric, metric.upper())
    return f"{name}@{k}" if k is not None else name


def cutoff_phrase(k: int | None, n: int, pool: int | None = None) -> str:
    """Say what k means for this list, so k > n and no cut-off are unambiguous.

    With no cut-off NDCG is uncut: DCG over the whole ranking, IDCG over the whole judged
    pool (``pool`` documents), which the prompt says when the pool is longer than the list.
    """
    if k is None and pool is not None and pool > n:
        return " with no cut-off (DCG over the whole ranking, IDCG over the whole judged pool)"
    if k is None:
        return " over the whole list (no cut-off)"
    if k > n:
        return f" (k = {k}, but the list has only {n} documents)"
    return ""


def draw_grades(rng: random.Random, n: int, max_rel: int) -> list[int]:
    return [rng.randint(0, max_rel) for _ in range(n)]


def draw_relevant_list(rng: random.Random, n: int, max_rel: int, distinct: bool = False) -> list[int]:
    """A list with at least one relevant grade (and, if ``distinct``, two different grades)."""
    for _ in range(100):
        grades = draw_grades(rng, n, max_rel)
        if any(grades) and (not distinct or len(set(grades)) > 1):
            return grades
    grades[rng.randrange(n)] = rng.randint(1, max_rel)  # pragma: no cover - vanishingly rare
    return grades


def problem_params(problem: Problem, metric: str) -> dict[str, Any]:
    """The concrete ranking of a problem as JSON-able params (enough to replay it)."""
    out: dict[str, Any] = {
        "relevance": list(problem.relevance),
        "judged": list(problem.judged) if problem.judged is not None else None,
        "k": problem.k,
        "gain": problem.gain,
        "metric": metric,
    }
    if problem.swap is not None:
        out["swap"] = list(problem.swap)
    if problem.versus is not None:
        out["versus"] = list(problem.versus)
    return out


def engine_value(problem: Problem, metric: str) -> Exact:
    """The engine's exact value of ``metric`` for ``problem`` (the metric registry's)."""
    # deferred for start-up: the registry loads every metric family, and the quiz's start
    # registers every generator but draws none
    from drills.engine.metrics.registry import metric_value

    return metric_value(problem, metric)


def short(x: Exact, digits: int = 6) -> str:
    """A value for explanations: exact form and a short decimal."""
    dec = decimal_text(x.decimal(), digits)
    return dec if x.text == dec else f"{x.text} = {dec}"


def compare(a: Exact, b: Exact) -> int:
    """-1, 0 or 1 comparing two exact values at 50 digits (equal below 1e-40)."""
    diff = a.decimal() - b.decimal()
    if abs(diff) < 1e-40:
        return 0
    return 1 if diff > 0 else -1


def diagnosable(problem: Problem, metric: str, tolerance: Tolerance | None) -> bool:
    """At least MIN_VARIANTS wrong-formula slips give a value the grader can tell apart.

    Generators prefer such draws, so a wrong answer can usually be named; the pack
    linter warns about templates that rarely get one (cached: it asks about the same items).
    """
    return _diagnosable(problem, metric, tolerance or Tolerance())


@lru_cache(maxsize=2048)
def _diagnosable(problem: Problem, metric: str, tolerance: Tolerance) -> bool:
    from drills.grading.diagnose import (
        variants,  # deferred for start-up: every slip and the registry
    )

    return len(variants(problem, metric, tolerance)) >= MIN_VARIANTS


def declared(metric: str, without: Sequence[str] = ("graded_labels",)) -> tuple[str, ...]:
    """The slips a generator declares for what it asks: every slip registered for ``metric``
    but ``without`` (graded_labels needs the graded list a binary question came from)."""
    from drills.grading.slips import slips_for  # deferred for start-up: every slip and the registry

    return tuple(s for s in slips_for(metric) if s not in without)


def shuffled(rng: random.Random, options: Sequence[Option]) -> tuple[Option, ...]:
    out = list(options)
    rng.shuffle(out)
    return tuple(out)


def concrete(
    template: Question,
    name: str,
    params: Mapping[str, Any],
    *,
    kind: str,
    prompt: str,
    explanation: str,
    problem: Problem | None = None,
    metric: str | None = None,
    answer: str | None = None,
    options: Sequence[Option] = (),
    hints: Sequence[str] = (),
    slips: Sequence[str] | None = None,
) -> Question:
    """The concrete item: the template's id/topic/difficulty/hints/pack/source, our content.

    The template's own explanation (if any) follows the generated one; its hints win
    over the generator's defaults. ``slips``: the wrong formulas the grader checks for
    what the item asks (default: every slip registered for ``metric``).
    """
    if slips is None and metric:
        from drills.grading.slips import (
            slips_for,  # deferred for start-up: every slip and the registry
        )

        slips = slips_for(metric)
    from drills.grading.narrowing import prepared  # deferred: not needed before the first question

    if template.explanation.strip():
        explanation = f"{explanation}\n\n{template.explanation.strip()}"
    return prepared(replace(
        template,
        kind=kind,
        prompt=prompt,
        explanation=explanation,
        problem=problem,
        metric=metric,
        answer=answer,
        options=tuple(options),
        model_answer=None,
        key_points=(),
        hints=template.hints or tuple(hints),
        generator=name,
        params=dict(params),
        slips=tuple(slips or ()),
        narrowing=None,
    ))
