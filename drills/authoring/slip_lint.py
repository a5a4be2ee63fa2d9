"""Lint checks about what a numeric question asks and what its slips can tell apart.

Used by ``drills packs lint`` (drills.authoring.lint): a prompt whose @k or metric disagrees
with its ``problem:``, an ``answer:`` that is not the engine's value of the problem it
carries, a numeric question that can diagnose nothing, and an explicit tolerance wide
enough to accept a slip's value (drills narrows such an interval; the pack should not
need it), and an explanation that restates the worked solution drills prints itself.
Pure: no terminal, no files, no sympy.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from drills.answers.parser import AnswerError, parse
from drills.engine.metrics.registry import metric_value, names
from drills.engine.problem import ProblemError
from drills.grading.diagnose import case_of, variants_for
from drills.grading.narrowing import narrowing_for
from drills.grading.reference import reference
from drills.model import Tolerance
from drills.safetext import shorten

if TYPE_CHECKING:
    from drills.model import Question

NDCG_FAMILY = names(family="ndcg")  # dcg, idcg, ndcg, delta_ndcg, ndcg_difference: NDCG@k in prompts
_AT_K = re.compile(r"(NDCG|I?DCG)@(\d+)")
_OTHER_AT_K = re.compile(r"\b(?:P|Precision|Hit|RR|MRR|AP|MAP|R|Recall|ERR|RBP)@(\d+)", re.IGNORECASE)
CUT_METRICS = names(measured=True, taking="k")  # P@k, AP@k, ERR@k, ... in prompts
# What a prompt must say to ask for each metric.
NAMES: dict[str, tuple[str, str]] = {
    "ndcg": (r"NDCG|normali[sz]ed DCG", "NDCG"),
    "dcg": (r"(?<![NI])DCG", "DCG"),
    "idcg": (r"IDCG|ideal", "IDCG"),
    "delta_ndcg": (r"NDCG", "the NDCG change"),
    "ndcg_difference": (r"NDCG", "NDCG"),
    "rr": (r"\bM?RR\b|reciprocal rank", "the reciprocal rank"),
    "precision": (r"precision|\bP@", "precision"),
    "hit": (r"\bhit", "Hit@k"),
    "gain_ratio": (r"gain", "a gain ratio"),
    "discount": (r"discount", "a discount"),
    "contribution": (r"contribut|\badds?\b|\bkeeps?\b|weight", "a contribution"),
    "discount_ratio": (r"contribution|discount", "a discount ratio"),
    "ap": (r"\bAP\b|AP@|average precision", "AP"),
    "map": (r"\bMAP\b|MAP@|mean average precision", "MAP"),
    "mrr": (r"\bMRR\b|MRR@|mean reciprocal rank", "MRR"),
    "recall": (r"recall|\bR@", "recall"),
    "rprec": (r"R-?prec", "R-precision"),
    "err": (r"\bERR\b|ERR@|expected reciprocal rank", "ERR"),
    "rbp": (r"\bRBP\b|rank-biased precision", "RBP"),
}
# Case-insensitive names (the others are acronyms that must be spelled as such).
_ANY_CASE = ("rr", "precision", "hit", "gain_ratio", "discount", "contribution", "discount_ratio",
             "recall", "rprec")


def prompt_errors(q: Question) -> list[str]:
    """The prompt's @k and metric agree with ``problem:``; an ``answer:`` with a problem is its value."""
    if q.problem is None or not q.metric:
        return []
    errors: list[str] = []
    pattern, name = NAMES.get(q.metric, ("", ""))
    if pattern and not re.search(pattern, q.prompt, re.IGNORECASE if q.metric in _ANY_CASE else 0):
        errors.append(f"the prompt never names {name}, but the question's metric is {q.metric}")
    k, n = q.problem.k, len(q.problem.relevance)
    pool = len(q.problem.judged) if q.problem.judged is not None else n
    mentions = (_AT_K.finditer(q.prompt) if q.metric in NDCG_FAMILY
                else _OTHER_AT_K.finditer(q.prompt) if q.metric in CUT_METRICS else ())
    for m in mentions:
        said = int(m.group(m.lastindex or 1))
        fine = said == k if k is not None else (said == n and pool == n)
        if not fine:
            wanted = f"k: {k}" if k is not None else "no k (uncut: the whole ranking and the whole pool)"
            errors.append(f"the prompt says {m.group(0)}, but its problem has {wanted}")
            break
    if q.answer is not None:
        errors += _answer_agrees(q)
    return errors


def _answer_agrees(q: Question) -> list[str]:

    assert q.problem is not None and q.metric and q.answer is not None
    try:
        engine = metric_value(q.problem, q.metric)
        typed = parse(q.answer).decimal()
    except (AnswerError, ProblemError, ZeroDivisionError) as exc:
        return [f"cannot compare the answer with its problem: {exc}"]
    if abs(typed - engine.decimal()) > abs(engine.decimal()) * Decimal("1e-30") + Decimal("1e-40"):
        return [f"the answer {q.answer!r} is not the {q.metric} of its problem "
                f"({engine.text} = {engine.value:.6g})"]
    return []


def slip_warnings(q: Question) -> list[str]:
    """A numeric question that can diagnose nothing; an explicit tolerance that accepts a slip.

    A tolerance equal to the default (0.005 abs, 0.5% rel) counts as the default, even
    when a pack writes it out: drills narrows it on its own where a slip needs it.
    """

    if q.kind != "numeric":
        return []
    case = case_of(q)
    tol = q.tolerance or Tolerance()
    idle = idle_absolute(q)
    out = [idle] if idle else []
    if case is None:
        return out + ["can diagnose nothing: an `answer:` without `problem:` + `metric:` has no "
                      "wrong-formula slips to check (attach the problem it is about)"]
    return out + _slip_checks(q, case, tol)


def idle_absolute(q: Question) -> str | None:
    """A tolerance whose ``absolute`` was changed but whose ``relative`` is still the default
    0.005 (a question's tolerance is merged over the defaults key by key), wider at this
    answer: the interval is max(absolute, relative * |answer|), so the absolute written has
    no effect. Almost always the author meant that absolute alone."""
    tol, default = q.tolerance, Tolerance()
    if tol is None or tol.absolute == default.absolute or tol.relative != default.relative:
        return None
    try:
        exact = abs(metric_of(q))
    except Exception:  # noqa: BLE001 - an answer that does not parse is reported elsewhere
        return None
    if tol.relative * exact <= tol.absolute:
        return None
    return (f"the tolerance's absolute {tol.absolute:g} has no effect: the relative {tol.relative:g} "
            f"(the default) accepts ±{tol.relative * exact:.3g} at |answer| = {exact:.6g} (the wider "
            f"of the two counts); add `relative: 0` (here or in the pack's defaults.tolerance) "
            f"for ±{tol.absolute:g}")


def _slip_checks(q: Question, case: Any, tol: Tolerance) -> list[str]:
    out: list[str] = []
    if not variants_for(case, tol):
        out.append(f"can diagnose nothing: no wrong-formula slip gives a {q.metric} that can be "
                   "told from the answer")
    found = narrowing_for(q, tol) if q.tolerance not in (None, Tolerance()) else None
    if found is not None:
        out.append(f"the tolerance ±{tol.allowed(metric_of(q)):g} accepts a slip ({found.reason}); "
                   f"drills narrows it to ±{found.tolerance.absolute:g} ({found.decimals} decimal places)")
    return out


def metric_of(q: Question) -> float:

    return float(reference(q).value)


# An explanation line that restates the engine's worked solution: an equation that opens
# with DCG, IDCG, NDCG (@k, (A)) or |dNDCG| and goes on with arithmetic (`DCG@4 = 3/1 +
# 1/log2(3) + 7/2`, `NDCG@4 = 7.1309 / 9.3928`). A bare `NDCG@4 = 0.7592` is a value, not sums.
_RESTATED = re.compile(r"\s*(?:\|\s*d(?:elta\s*)?NDCG(?:@\d+)?\s*\||I?DCG(?:@\d+)?|NDCG(?:@\d+)?)"
                       r"(?:\s*\((?:A|B)\))?\s*=(?P<rest>.*)")
_ARITHMETIC = re.compile(r"[\d)|]\s*[-+*/^=]|\b(?:log2?|ln)\(")  # an operator after an operand


def restated_steps(q: Question) -> list[str]:
    """A numeric question the engine solves whose explanation repeats the engine's sums.

    drills prints the DCG and IDCG tables and the division itself (``:steps``, after a
    miss, worksheets); the explanation is for what they do not say. The ``Answer:`` line
    the quiz drops is not looked at.
    """
    if q.kind != "numeric" or q.problem is None or not q.metric:
        return []
    lines = [line.strip() for line in q.prose.splitlines()]
    found = [line for line in lines
             if (m := _RESTATED.match(line)) and re.search(r"\d", m["rest"]) and _ARITHMETIC.search(m["rest"])]
    if not found:
        return []

    more = f" and {len(found) - 1} more line{'s' if len(found) > 2 else ''}" if len(found) > 1 else ""
    return [f"the explanation restates the worked solution drills prints ({shorten(found[0], 60)!r}{more}); "
            "keep only what the worked steps do not say (why, the usual slip, a comparison)"]

