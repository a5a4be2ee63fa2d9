"""What a coding-round question asks a function to compute, and the cases it is run on.

A ``CodeTask`` names an engine metric and what each positional argument of the learner's
function means (its *role*): the ranked grades, k, a judged pool, the number of relevant
documents, several queries, two ranks to swap. ``problem_for`` turns one call's arguments
into the engine's ``Problem``, so every expected value, worked solution and slip value
comes from the exact engine; a pack never supplies an expected number or code.

``hidden_cases`` draws the hidden cases from a seed made of the question id, so every
learner (and every run) gets the same ones, with the edge cases the question asks for.
Pure: no files, no processes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from drills.engine.problem import Problem

# What each argument of the learner's function can be.
ROLES = {
    "relevance": "the grades in ranked order (list[int])",
    "k": "the cut-off k (int)",
    "judged": "the query's whole judged pool (list[int])",
    "num_relevant": "R, the number of relevant documents for the query (int)",
    "queries": "one ranked list of grades per query (list[list[int]])",
    "i": "the first rank of the swap, 1-based (int)",
    "j": "the second rank of the swap, 1-based (int)",
}
EDGES = {
    "k_past_end": "k past the end of the list",
    "k_one": "k = 1",
    "all_zero": "every grade is 0",
    "single": "a single document",
    "ties": "tied grades",
    "long": "a long list (500 documents)",
    "judged_larger": "relevant documents the ranking did not retrieve",
    "no_hit": "a query with no relevant document",
    "r_past_end": "R past the end of the list (more relevant documents than ranks)",
}
# Each edge as a clause, for "ZeroDivisionError when ...".
WHEN = {
    "k_past_end": "k is past the end of the list",
    "k_one": "k = 1",
    "all_zero": "every grade is 0",
    "single": "the list holds a single document",
    "ties": "grades are tied",
    "long": "the list is long (500 documents)",
    "judged_larger": "relevant documents were not retrieved",
    "no_hit": "a query has no relevant document (R = 0)",
    "r_past_end": "R is past the end of the list",
}
MAX_CASES = 200
DEFAULT_CASES = 30


class TaskError(ValueError):
    """A code task that cannot be computed (wrong roles for its metric, ...)."""


@dataclass(frozen=True)
class CodeTask:
    """The engine quantity a code question's function must return."""

    metric: str
    args: tuple[str, ...]  # the role of each positional argument
    gain: str = "exponential"
    denominator: str = "R"
    threshold: int = 1
    persistence: Fraction | None = None
    max_grade: int | None = None
    top_grade: int = 3  # generated grades run 0..top_grade (1: binary)
    cases: int = DEFAULT_CASES
    include: tuple[str, ...] = ()  # EDGES always among the hidden cases
    examples: tuple[tuple[Any, ...], ...] = ()  # visible calls (positional arguments)
    tolerance: float = 1e-6  # relative; 1e-9 absolute near 0
    notes: tuple[str, ...] = field(default=())

    def check(self) -> None:
        """Raise TaskError naming what cannot work."""
        # deferred for start-up: a cached pack's code tasks are rebuilt when it loads, and the
        # registry loads every metric family
        from drills.engine.metrics.registry import CODE_METRICS

        if self.metric not in CODE_METRICS:
            raise TaskError(f"unknown metric {self.metric!r} (one of {', '.join(CODE_METRICS)})")
        unknown = [a for a in self.args if a not in ROLES]
        if unknown:
            raise TaskError(f"unknown argument role {unknown[0]!r} (one of {', '.join(ROLES)})")
        if len(set(self.args)) != len(self.args):
            raise TaskError("each argument role may appear once")
        multi = self.metric in ("map", "mrr")
        if multi != ("queries" in self.args):
            raise TaskError("map and mrr take `queries` (and no `relevance`); the others take `relevance`"
                            if multi else f"metric {self.metric} takes `relevance`, not `queries`")
        if not multi and "relevance" not in self.args:
            raise TaskError(f"metric {self.metric} needs a `relevance` argument")
        if (self.metric == "delta_ndcg") != ("i" in self.args and "j" in self.args):
            raise TaskError("delta_ndcg takes the two ranks `i` and `j`; no other metric does")
        if "judged" in self.args and "num_relevant" in self.args:
            raise TaskError("give the judged pool or the number of relevant documents, not both")
        if "k" not in self.args and self.metric in ("precision", "hit"):
            raise TaskError(f"{self.metric} needs `k`")
        bad = [e for e in self.include if e not in EDGES]
        if bad:
            raise TaskError(f"unknown edge case {bad[0]!r} (one of {', '.join(EDGES)})")
        if not 1 <= self.cases <= MAX_CASES:
            raise TaskError(f"cases must be 1 to {MAX_CASES}")


def problem_for(task: CodeTask, call: tuple[Any, ...]) -> Problem:
    """The engine's Problem for one call of the learner's function."""
    given = dict(zip(task.args, call, strict=True))
    common: dict[str, Any] = dict(gain=task.gain, threshold=task.threshold, convention=task.denominator,
                                  persistence=task.persistence, max_grade=task.max_grade)
    k = given.get("k")
    if "queries" in given:
        queries = tuple(Problem(tuple(q)) for q in given["queries"])
        return Problem(queries[0].relevance, None, k, queries=queries, **common)
    relevance = tuple(given["relevance"])
    judged = tuple(given["judged"]) if "judged" in given else None
    if "num_relevant" in given:  # R relevant documents in all: the ranked ones and the rest
        hits = sum(1 for g in relevance if g >= task.threshold)
        judged = tuple(g for g in relevance if g >= task.threshold) + (task.threshold,) * (
            given["num_relevant"] - hits)
    swap = (given["i"], given["j"]) if "i" in given else None
    return Problem(relevance, judged, k, swap=swap, **common)


def describe_call(task: CodeTask, call: tuple[Any, ...]) -> dict[str, Any]:
    """The call as ``{role: value}``, for reports and JSON."""
    return dict(zip(task.args, call, strict=True))


@dataclass(frozen=True)
class HiddenCase:
    """One hidden case of a code question: the call's arguments, and the edge it was drawn for."""

    call: tuple[Any, ...]
    edge: str | None = None  # an EDGES key when the case was drawn for it


def hidden_cases(task: CodeTask, seed: str) -> tuple[HiddenCase, ...]:
    """``task.cases`` calls, deterministic for ``seed``: the asked edges first, then random ones."""
    rng = random.Random(f"drills-code:{seed}")
    out = [HiddenCase(_draw(task, rng, edge), edge) for edge in task.include]
    while len(out) < task.cases:
        out.append(HiddenCase(_draw(task, rng, None)))
    return tuple(out[: max(task.cases, len(task.include))])


def _grades(task: CodeTask, rng: random.Random, n: int, edge: str | None) -> list[int]:
    if edge == "all_zero":
        return [0] * n
    if edge == "ties":
        tied = sorted([rng.choice((1, task.top_grade)) for _ in range(n)], reverse=rng.random() < 0.5)
        if n > 1 and len(set(tied)) == n:  # two documents drawn 1 and 3: make them tie
            tied[1] = tied[0]
        return tied
    grades = [rng.randint(0, task.top_grade) for _ in range(n)]
    if edge != "no_hit" and not any(g >= task.threshold for g in grades):
        grades[rng.randrange(n)] = max(task.threshold, 1)
    return grades


def _draw(task: CodeTask, rng: random.Random, edge: str | None) -> tuple[Any, ...]:
    n = {"single": 1, "long": 500}.get(edge or "", rng.randint(2, 10))
    if edge == "k_past_end":
        n = rng.randint(2, 6)
    if "i" in task.args:  # a swap needs two documents
        n = max(n, 2)
    values: dict[str, Any] = {}
    if "queries" in task.args:
        queries = [_grades(task, rng, rng.randint(2, 8), None) for _ in range(rng.randint(2, 5))]
        if edge in ("no_hit", "all_zero"):
            queries[rng.randrange(len(queries))] = [0] * rng.randint(2, 6)
        values["queries"] = queries
        n = max(len(q) for q in queries)
    else:
        values["relevance"] = _grades(task, rng, n, "all_zero" if edge == "no_hit" else edge)
    relevance = values.get("relevance", [])
    if "k" in task.args:
        values["k"] = (n + rng.randint(1, 4) if edge == "k_past_end" else 1 if edge == "k_one"
                       else rng.randint(1, max(1, n)))
    extra = rng.randint(1, 3) if edge == "judged_larger" or rng.random() < 0.3 else 0
    if edge in ("no_hit", "all_zero"):  # nothing relevant anywhere: R = 0, IDCG = 0
        extra = 0
    if edge == "r_past_end":  # more relevant documents in all than ranks: R-precision's P@R
        extra = n - sum(1 for g in relevance if g >= task.threshold) + rng.randint(1, 3)
    if "judged" in task.args:
        values["judged"] = sorted(relevance + [rng.randint(1, task.top_grade) for _ in range(extra)],
                                  reverse=True)
        rng.shuffle(values["judged"])
        if edge == "k_past_end":  # past the end of the pool too, not only of the ranking
            values["k"] = max(values["k"], len(values["judged"]) + 1)
    if "num_relevant" in task.args:
        values["num_relevant"] = sum(1 for g in relevance if g >= task.threshold) + extra
    if "i" in task.args:
        i, j = rng.sample(range(1, n + 1), 2) if n > 1 else (1, 1)
        values["i"], values["j"] = i, j
    return tuple(values[role] for role in task.args)
