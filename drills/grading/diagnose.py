"""Wrong-formula diagnosis: recompute the answer under each known slip and name the match.

The slips live in ``drills.grading.slips`` (one module per family, registered by
decorator); each is a ``Formula`` for the same exact engine or another quantity of the
same problem, so the value a slip produces and the step it gets wrong come from the
grader's own computation. The ids are public output (transcripts, --json, stats):
never rename one.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from drills.engine.exact import Exact, decimal_text, short_fraction
from drills.engine.lazy import FLOAT_APART, same_value, shown_decimal
from drills.engine.metrics import binary as bm
from drills.engine.metrics import cascade as cm
from drills.engine.metrics.ndcg import STANDARD, Solution, ndcg_solution
from drills.engine.metrics.ndcg_text import row_text
from drills.engine.metrics.rational import elided, ends, sum_text
from drills.engine.metrics.registry import measure, metric_value, names, value_line
from drills.engine.problem import Problem, ProblemError
from drills.grading.slips import SLIPS, Case, Slip
from drills.grading.slips.binary import denominator_text
from drills.grading.typo import nearer_by_margin, one_digit_typo, rounds_to
from drills.model import Question, Tolerance

Misconception = Slip  # the name the front ends and older code use
CATALOG: dict[str, Slip] = SLIPS
TABLE_METRICS = ("dcg", "idcg", "ndcg", "delta_ndcg")
# Two values closer than this (relative) are the same number: nothing can tell them apart.
SAME = Decimal("1e-12")
# The metrics bounded by 1, each with why: a result above 1 is no rounding, it is a bug.
AT_MOST_ONE = {
    "ndcg": ("NDCG", "no order of the documents beats the ideal one (DCG@k <= IDCG@k)"),
    "delta_ndcg": ("|delta NDCG|", "both NDCGs lie between 0 and 1"),
    "ap": ("AP", "it adds at most one precision (each at most 1) per relevant document it divides by"),
    "map": ("MAP", "it is a mean of APs, each at most 1"),
    "precision": ("P@k", "at most k of the top k documents are relevant"),
    "recall": ("Recall", "at most R of the R relevant documents can be found"),
    "rprec": ("R-precision", "at most R of the top R documents are relevant"),
    "rr": ("RR", "the first relevant document is at rank 1 at best"),
    "mrr": ("MRR", "it is a mean of reciprocal ranks, each at most 1"),
    "hit": ("Hit@k", "it is 0 or 1"),
    "err": ("ERR", "it is the expected 1/r of the rank where the user stops, at most 1/1"),
    "rbp": ("RBP", "(1 - p) times the sum of p^(i - 1) over any ranks is below 1"),
}


@dataclass(frozen=True)
class Variant:
    """The value a misconception produces on a problem."""

    misconception: Slip
    value: Exact


@dataclass(frozen=True)
class Diagnosis:
    """What the learner's number matches: named slips, or a pointer into the worked steps."""

    matches: tuple[Slip, ...]  # every slip the answer matches: the primary first
    explanations: tuple[str, ...]  # the primary's, then "Also gives this number: ..."
    pointer: str | None = None

    @property
    def ids(self) -> list[str]:
        return [m.id for m in self.matches]

    @property
    def primary(self) -> str | None:
        """The one slip an answer is counted under (stats, reports, history)."""
        return self.matches[0].id if self.matches else None


def case_of(question: Question) -> Case | None:
    """The slip case of a numeric question with a problem and a metric (else None)."""
    if question.problem is None or not question.metric:
        return None
    graded = question.params.get("graded") if question.params else None
    return Case(question.problem, question.metric, tuple(question.slips),
                tuple(graded) if isinstance(graded, list | tuple) else None)


def same(a: Decimal, b: Decimal) -> bool:
    """Equal to 12 significant digits: a slip that gives the right number is no slip."""
    return abs(a - b) <= SAME * max(Decimal(1), abs(b))


def slip_values(case: Case) -> tuple[Variant, ...]:
    """Every slip that applies to ``case`` with its value, those equal to the answer left out.

    An older id superseded by a newer one of the same value (answered_recall by
    precision_over_relevant) is left out when the newer one is checked too.
    """
    values = _all_values(case.problem, case.metric, case.graded)
    if case.declared:
        values = tuple(v for v in values if v.misconception.id in case.declared)
    return tuple(v for v in values if not any(
        v.misconception.id in w.misconception.supersedes and same_value(v.value, w.value, same)
        for w in values))


@lru_cache(maxsize=1024)  # generators, narrowing and grading ask about the same items
def _all_values(problem: Problem, metric: str, graded: tuple[int, ...] | None) -> tuple[Variant, ...]:
    case = Case(problem, metric, (), graded)
    correct = metric_value(problem, metric)  # compared by floats first: exact only when too close
    out: list[Variant] = []
    for m in SLIPS.values():
        if not m.applies(case):
            continue
        try:
            value = m.value(case)
        except (ProblemError, ZeroDivisionError):
            continue
        if value is not None and not same_value(value, correct, same):
            out.append(Variant(m, value))
    return tuple(out)


def variants_for(case: Case, tolerance: Tolerance) -> list[Variant]:
    """Every slip whose value can be told from the correct one under ``tolerance``."""
    correct = metric_value(case.problem, case.metric).value
    allowed = tolerance.allowed(correct)
    return [v for v in slip_values(case) if abs(v.value.value - correct) > allowed]


def variants(problem: Problem, metric: str, tolerance: Tolerance) -> list[Variant]:
    """``variants_for`` with every slip registered for ``metric``."""
    return variants_for(Case(problem, metric), tolerance)


def bound_line(metric: str, value: float) -> str | None:
    """``NDCG cannot exceed 1: ...`` for a result above 1 of a metric bounded by 1, else None."""
    if metric not in AT_MOST_ONE or value <= 1 + 1e-9:
        return None
    name, why = AT_MOST_ONE[metric]
    return f"{name} cannot exceed 1: {why}, so {decimal_text(Decimal(repr(value)), 6)} is not a possible {name}."


def right_step(problem: Problem, m: Slip, metric: str = "ndcg") -> str:
    """The first place where the slip's computation departs from the correct one.

    Only the tables the asked ``metric`` uses are searched: IDCG's for an IDCG question.
    A slip that is another quantity (or a one-number question) gets the right value's line.
    """
    if m.step is not None:
        return m.step(problem, metric)
    f = m.formula
    if f is None or metric not in TABLE_METRICS:
        return value_line(problem, metric)
    good, bad = ndcg_solution(problem), ndcg_solution(problem, f)
    if f.inverted or not f.normalized:
        return f"NDCG = DCG / IDCG = {good.ndcg.text} = {decimal_text(good.ndcg.decimal(), 6)}"
    if f.empty_ideal_one:
        return "IDCG = 0, so NDCG = 0 by drills' convention"
    if not f.absolute_delta:
        value = metric_value(problem, "delta_ndcg")
        return f"|delta NDCG| = |NDCG after - NDCG before| = {decimal_text(value.decimal(), 6)}"
    tables = (("DCG", good.rows, bad.rows), ("IDCG", good.ideal_rows, bad.ideal_rows))
    if metric in ("dcg", "idcg"):
        tables = tuple(t for t in tables if t[0].lower() == metric)
    for label, rows_good, rows_bad in tables:
        common = min(len(rows_good), len(rows_bad))
        if (good.gain, good.formula.discount, rows_good.grades[:common]) == (
                bad.gain, bad.formula.discount, rows_bad.grades[:common]):
            common = 0  # the same grades, gain and discount: the same rows (none built to compare)
        for _, rg, rb in zip(range(common), rows_good, rows_bad, strict=False):  # built as read
            if rg.contribution != rb.contribution or rg.relevance != rb.relevance:
                return f"{label} {row_text(rg, good.gain)} (your formula: {rb.contribution.text})"
        if len(rows_bad) > len(rows_good):
            extra = rows_bad[len(rows_good)]
            return f"{label} stops at rank {good.k}; rank {extra.rank} and below do not count"
    return f"ideal order: {', '.join(map(str, good.ideal_order))}"


def _pointer(problem: Problem, metric: str, learner: float) -> str | None:
    """For an unmatched miss: the first rank at which the running total passes the answer
    (the terms and the denominator for the binary metrics beyond NDCG)."""
    if metric in names(measured=True):
        return measured_pointer(problem, metric, learner)
    if metric not in ("dcg", "ndcg", "idcg"):
        return None
    sol = ndcg_solution(problem)
    rows = sol.ideal_rows if metric == "idcg" else sol.rows
    target = learner
    if metric == "ndcg":
        if sol.idcg.is_zero:
            return "IDCG is 0 here, so NDCG is 0 by convention."
        target = learner * sol.idcg.value
    for row in rows:
        if not row.discount.inverse.is_rational or row.running >= target - 1e-12:
            return (f"Check {row_text(row, sol.gain)}; running {'IDCG' if metric == 'idcg' else 'DCG'} "
                    f"{decimal_text(row.running, 6)}. Discounts like log2(3) = 1.585 are where "
                    "hand computations usually slip.")
    return None


def measured_pointer(problem: Problem, metric: str, learner: float) -> str:
    """The pointer for an unmatched miss on a metric beyond NDCG: the terms and what divides
    them (binary metrics), or the first rank where the running total passes the answer."""
    result = measure(problem, metric)
    if isinstance(result, cm.CascadeResult):
        name = metric.upper()
        row = next((r for r in result.rows if float(r.running) >= learner - 1e-12), None)
        if row is None:
            return f"{name} adds up to {result.shown} over all {len(result.rows)} ranks: check each row's term."
        what = "R" if metric == "err" else "r"
        return (f"Check rank {row.rank}: grade {row.grade}, {what} = {short_fraction(row.stop)}, "
                f"weight {short_fraction(row.reach)}, term {short_fraction(row.contribution)}; "
                f"running {name} {decimal_text(Decimal(row.running.numerator) / row.running.denominator, 6)}.")
    if isinstance(result, bm.MeanResult):
        what = "AP" if metric == "map" else "RR"
        per = result.per_query
        return (f"{result.label} is the mean of the {len(per)} queries' {what}s "
                f"({elided([r.shown for r in ends(per)], ', ', total=len(per))}); a query with nothing "
                "relevant retrieved counts 0.")
    hits = result.rows[-1].hits if result.rows else 0
    top = result.relevant_total if metric == "rprec" else result.k if result.k is not None else len(result.rows)
    if metric == "ap":
        terms = [r for r in result.rows if r.counts]
        where = elided([str(r.rank) for r in ends(terms)], ", ", total=len(terms)) or "none"
        sums = sum_text([short_fraction(r.precision) for r in ends(terms)], total=len(terms))
        many = f" {len(terms):,}" if len(terms) > 8 else ""
        return (f"AP adds P@i at the{many} relevant ranks ({where}): {sums} = {short_fraction(result.numerator)}, "
                f"and divides by {denominator_text(result)}.")
    if metric in ("rr", "hit"):
        first = next((r.rank for r in result.rows if r.relevant), None)
        at = f"the first relevant document is at rank {first}" if first else "no relevant document is ranked"
        return f"{result.label}: {at}{'' if result.k is None else f' (looking at the top {result.k})'}."
    over = {"precision": f"k = {result.denominator}",
            "recall": f"R = {result.relevant_total}, every relevant judged document",
            "rprec": f"R = {result.relevant_total}"}[metric]
    return f"{hits} relevant in the top {top}; {result.label} divides by {over}."


def _tied_exactly(hits: list[tuple[float, Variant]], learner: float) -> list[tuple[float, Variant]]:
    """The distances floats cannot order (two slips within float error of each other) taken
    from the exact values, rounded once, so that equal slips keep their registration order."""
    out = []
    for d, v in hits:
        if any(w is not v and abs(d - e) <= FLOAT_APART * max(1.0, d, e) for e, w in hits):
            d = abs(learner - float(v.value.decimal()))
        out.append((d, v))
    return out


def _closest(hits: list[tuple[float, Variant]]) -> list[tuple[float, Variant]]:
    """The slips that explain the answer best: nearest first, none more than twice as far.

    0.689 against 0.6885 (IDCG from the retrieved list) and 0.6920 (2^rel) names only
    the first; slips that give the same number are all named, since nothing tells them
    apart. One exception: on a query with IDCG = 0 an answer of 1 is the convention
    slip, whatever formula also reaches 1 there.
    """
    hits = sorted(hits, key=lambda pair: pair[0])  # stable: registration order among equals
    if not hits:
        return hits
    best = hits[0][0]
    kept = [(d, v) for d, v in hits if d <= 2 * best + 1e-12]
    convention = [(d, v) for d, v in kept
                  if v.misconception.formula is not None and v.misconception.formula.empty_ideal_one]
    return convention or kept


def diagnose_case(case: Case, learner: float, tolerance: Tolerance,
                  window: Tolerance | None = None, given: str | None = None) -> Diagnosis:
    """Name the slip the learner's answer matches, and the others that give the same number.

    ``window``: how near a slip's value the answer must be to match it (default
    ``tolerance``); a narrowed question matches within its original, wider tolerance, so
    0.970 still names the slip worth 0.96950 that a ±0.0005 interval keeps out. A slip is
    named only when the answer is ``typo.MARGIN`` times nearer its value than the right one
    and ``given`` (the answer as typed) is no one-digit typo of the right value.
    """
    problem, metric = case.problem, case.metric
    right = metric_value(problem, metric)
    correct = right.value
    if abs(learner - correct) <= tolerance.allowed(correct):
        return Diagnosis((), ())
    bound = bound_line(metric, learner)
    near = window or tolerance
    typo = given is not None and one_digit_typo(given, right.decimal())
    hits = [
        (abs(learner - v.value.value), v)
        for v in variants_for(case, tolerance)
        if abs(learner - v.value.value) <= near.allowed(v.value.value) * (1 + 1e-9) + 1e-15
        and nearer_by_margin(learner, v.value.value, correct)
        # a typo of the right value is no slip, unless the slip gives exactly what was typed
        and not (typo and given is not None and not rounds_to(v.value.decimal(), given))
    ]
    hits = _closest(_tied_exactly(hits, learner))
    if not hits:
        pointer = _pointer(problem, metric, learner)
        if typo:
            pointer = (f"{given} is one digit away from the right {decimal_text(right.decimal(), 6)}: "
                       "a typo?" + (f" {pointer}" if pointer else ""))
        return Diagnosis((), (bound,) if bound else (), pointer)
    first = hits[0][1]
    m = first.misconception
    explanation = (f"{m.describe(metric, problem)} "
                   f"{'That value is' if m.id.startswith('answered_') else 'That formula gives'} "
                   f"{shown_decimal(first.value, 6)}. "
                   f"Right step: {right_step(problem, m, metric).rstrip('.')}.")
    return Diagnosis(tuple(v.misconception for _, v in hits),
                     (explanation, *_also(hits), *((bound,) if bound else ())))


def _also(hits: list[tuple[float, Variant]]) -> tuple[str, ...]:
    """The other slips the answer matches, named in one line (no second explanation)."""
    first = hits[0][1].value
    same_number = [v.misconception.id for _, v in hits[1:] if same_value(v.value, first, same)]
    nearby = [f"{v.misconception.id} ({shown_decimal(v.value, 6)})" for _, v in hits[1:]
              if not same_value(v.value, first, same)]
    lines = []
    if same_number:
        lines.append(f"Also gives this number: {', '.join(same_number)}.")
    if nearby:
        lines.append(f"Also near it: {', '.join(nearby)}.")
    return tuple(lines)


def diagnose(problem: Problem, metric: str, learner: float, tolerance: Tolerance) -> Diagnosis:
    """``diagnose_case`` with every slip registered for ``metric``."""
    return diagnose_case(Case(problem, metric), learner, tolerance)


__all__ = ["CATALOG", "STANDARD", "Case", "Diagnosis", "Misconception", "Solution", "Variant",
           "case_of", "diagnose", "diagnose_case", "right_step", "slip_values", "variants",
           "variants_for"]
