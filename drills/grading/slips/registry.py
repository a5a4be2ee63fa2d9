"""The slip registry: every known wrong formula, registered by decorator, one module per family.

A slip is what a learner gets by a known mistake: the right computation with one thing
changed (``Formula``: linear gain, log2(i) discount, an unsorted ideal, ...) or the right
number of another quantity of the same problem (the NDCG where the IDCG was asked). Both
come from the same exact engine as the answer, so a slip's value, the grade and the
worked steps cannot disagree. The ids are public output (transcripts, --json, stats):
never rename one. Registration order is the tie-break order when two slips give the
same number.

Two ids may name the same formula when a newer, more specific id supersedes an older one
(``supersedes``): the older stays registered (its id is public: old transcripts, stats,
packs that declare it) and is named only where the newer one is not checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from drills.engine.exact import Exact
from drills.engine.metrics.ndcg import STANDARD, Formula
from drills.engine.metrics.registry import metric_value
from drills.engine.problem import Problem

ALL_GAINS = ("exponential", "linear")
NDCG_FAMILY = ("dcg", "idcg", "ndcg", "delta_ndcg")


@dataclass(frozen=True)
class Case:
    """What a slip is applied to: the asked ``metric`` of ``problem``.

    ``declared``: the slip ids the question's generator says apply (empty: every slip
    registered for the metric). ``graded``: the graded labels a binary question was
    binarised from (binary-vs-graded), for the slip of using them.
    """

    problem: Problem
    metric: str
    declared: tuple[str, ...] = ()
    graded: tuple[int, ...] | None = None


Compute = Callable[[Case], "Exact | None"]
Step = Callable[[Problem, str], str]


@dataclass(frozen=True)
class Slip:
    """One known wrong formula. ``value(case)`` is None when it does not apply to the case."""

    id: str
    title: str
    description: str
    metrics: tuple[str, ...]
    formula: Formula | None = None  # the engine under this formula gives the slip's value
    compute: Compute | None = None  # otherwise: the value, or None when not applicable
    gains: tuple[str, ...] = ALL_GAINS
    family: str = ""
    # a better description for some metrics (a gain ratio is not "DCG / IDCG")
    descriptions: Mapping[str, str] = field(default_factory=dict)
    short: str = ""  # "the 1/i discount": for "0.4118 would be the 1/i discount"
    # the right step for a diagnosis (what the right computation does here), when the
    # value's one-line equation says too little; None: the generic step
    step: Step | None = None
    # older ids for the same formula: named only when this one is not checked
    supersedes: tuple[str, ...] = ()
    # the description read from the question's own problem (its AP convention, its
    # relevance threshold), where a fixed text would cite the wrong convention
    text: Step | None = None

    def applies(self, case: Case) -> bool:
        if case.declared and self.id not in case.declared:
            return False
        return case.metric in self.metrics and case.problem.gain in self.gains

    def value(self, case: Case) -> Exact | None:
        if self.compute is not None:
            return self.compute(case)
        return metric_value(case.problem, case.metric, self.formula or STANDARD)

    def describe(self, metric: str, problem: Problem | None = None) -> str:
        if self.text is not None and problem is not None:
            return self.text(problem, metric)
        return self.descriptions.get(metric, self.description)

    @property
    def name(self) -> str:
        """A short noun phrase for the slip (its title when none was given)."""
        return self.short or self.title


SLIPS: dict[str, Slip] = {}


def _add(slip: Slip) -> Slip:
    if slip.id in SLIPS:
        raise ValueError(f"slip {slip.id!r} registered twice")
    SLIPS[slip.id] = slip
    return slip


def formula_slip(id: str, title: str, description: str, formula: Formula, *,  # noqa: A002
                 metrics: tuple[str, ...] = NDCG_FAMILY, gains: tuple[str, ...] = ALL_GAINS,
                 family: str = "", descriptions: Mapping[str, str] | None = None,
                 short: str = "") -> Slip:
    """Register a slip that is the right computation under ``formula``."""
    return _add(Slip(id, title, description, metrics, formula=formula, gains=gains, family=family,
                     descriptions=dict(descriptions or {}), short=short))


def slip(id: str, title: str, description: str, *, metrics: tuple[str, ...],  # noqa: A002
         gains: tuple[str, ...] = ALL_GAINS, family: str = "", formula: Formula | None = None,
         descriptions: Mapping[str, str] | None = None, short: str = "", step: Step | None = None,
         supersedes: tuple[str, ...] = (), text: Step | None = None) -> Callable[[Compute], Compute]:
    """Decorator: register ``compute(case)`` (the slip's value, or None) under ``id``.

    ``formula``, when given, is the formula the slip amounts to on DCG-like tables, so
    the worked steps can point at the first row where it departs. ``text(problem, metric)``,
    when given, is the description on that problem (``description`` stays the generic one).
    """

    def deco(compute: Compute) -> Compute:
        _add(Slip(id, title, description, metrics, formula=formula, compute=compute, gains=gains,
                  family=family, descriptions=dict(descriptions or {}), short=short, step=step,
                  supersedes=supersedes, text=text))
        return compute

    return deco


# The tie-break order of the families (within one: registration order). A metric's own
# formula slips (binary: AP, P, R, MRR, MAP; cascade: ERR, RBP) come before the generic
# cut-off and other-quantity ones, so precision_over_relevant is named before answered_recall.
FAMILIES = ("convention", "gain", "discount", "ideal", "binary", "cascade", "cutoff", "quantity",
            "labels")


def put_in_order() -> None:
    """Reorder SLIPS family by family (module import order must not matter)."""
    ordered = sorted(SLIPS.values(), key=lambda s: FAMILIES.index(s.family))
    SLIPS.clear()
    SLIPS.update((s.id, s) for s in ordered)


def slips_for(metric: str) -> tuple[str, ...]:
    """The ids of every slip registered for ``metric``, in registration order."""
    return tuple(s.id for s in SLIPS.values() if metric in s.metrics)
