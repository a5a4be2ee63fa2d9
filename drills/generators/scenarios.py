"""Scenario generators: one drawn ranking on the whiteboard and an interviewer's follow-ups.

Each draws ONE problem and binds its steps to it (drills.grading.scenario): numeric steps name a
metric and what they change, so the engine computes their answers; a choice step's right option is
decided from the engine's exact values; a concept step is graded by its rubric (scenario_concepts).
A draw is repeated (a bounded number of times, same rng) until no numeric step is 0 or 1 and each
follow-up moves its value past the tolerance.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from drills.engine.exact import Exact, LogSum, decimal_text
from drills.engine.problem import Problem
from drills.generators.drawing import (
    GAIN_PARAM,
    compare,
    conventions,
    declared,
    diagnosable,
    draw_relevant_list,
    engine_value,
    gain_phrase,
    grades_text,
    k_param,
    metric_label,
    resolve_k,
    shuffled,
)
from drills.generators.registry import Param, register
from drills.generators.scenario_concepts import CONCEPTS
from drills.grading.scenario import bind, changed
from drills.model import Option, Part, Question, Tolerance

NDCG_CHAIN = "ndcg-chain"
BINARY_GRADED_CHAIN = "binary-graded-chain"
LAMBDARANK_SWAP_CHAIN = "lambdarank-swap-chain"
NDCG_VS_MRR_CHAIN = "ndcg-vs-mrr-chain"
TRIES = 60  # draws before the last one is kept as it is
MIN_DELTA_FACTOR = 4  # |delta NDCG| at least this many tolerances wide: answering 0 must not pass

N_PARAM = Param(int, 5, "length of the ranked list (small enough to work by hand)", minimum=4, maximum=6)
MAX_REL_PARAM = Param(int, 3, "highest relevance grade (grades run 0..max_rel)", minimum=2, maximum=3)
Change = tuple[tuple[str, Any], ...]


# ------------------------------------------------------------------------------ shared pieces
def _dec(x: Exact) -> str:
    return decimal_text(x.decimal(), 4)


def _other(gain: str) -> str:
    return "linear" if gain == "exponential" else "exponential"


def _value(problem: Problem, metric: str, change: Mapping[str, Any] | None = None) -> Exact:
    return engine_value(changed(problem, change or {}, metric), metric)


def _inside(*values: Exact) -> bool:
    """Every value strictly between 0 and 1 (no step answered by a glance)."""
    return all(compare(v, LogSum()) > 0 and compare(v, LogSum.of(1)) < 0 for v in values)


def _apart(a: Exact, b: Exact, tol: Tolerance) -> bool:
    """Two values a learner cannot confuse within the tolerance."""
    return abs(a.value - b.value) > 2 * tol.allowed(max(a.value, b.value))


def _k(params: Mapping[str, Any], n: int, rng: random.Random) -> int | None:
    """The cut-off; a random one is at least 2 (NDCG@1 of a whole chain asks nothing)."""
    k = resolve_k(params["k"], n, rng)
    return max(k, 2) if params["k"] == "random" and k is not None else k


def _setup(relevance: Sequence[int], max_rel: int, k: int | None, gain: str,
           missed: Sequence[int] = (), extra: str = "") -> str:
    """What stays on screen above every step: the ranking, the pool, k and the conventions."""
    n, pool = len(relevance), grades_text(sorted([*relevance, *missed], reverse=True))
    return "\n".join([
        f"A search system returns {n} documents for a query. Their relevance grades (0-{max_rel}), "
        f"rank 1 first: {grades_text(relevance)}.",
        f"The judges also graded {len(missed)} document{'s' * (len(missed) > 1)} the system did not retrieve, "
        f"with grades {grades_text(missed)}, so the query's judged pool is {pool}." if missed else
        "The judged pool is the list itself.",
        "No cut-off: every rank counts (k = the whole list)." if k is None else
        f"The cut-off is k = {k}" + (f", but the list has only {n} documents." if k > n else "."),
        conventions(gain) + (f" {extra}" if extra else "")])


def _numeric(t: Question, name: str, metric: str, prompt: str, explanation: str,
             hints: tuple[str, ...], *, topic: str = "", uses: tuple[str, ...] = (),
             change: Change = (), slips: tuple[str, ...] | None = None) -> Question:
    return Question(id="", topic=topic, kind="numeric", prompt=prompt, difficulty=t.difficulty,
                    hints=hints, explanation=explanation, metric=metric, tolerance=t.tolerance,
                    slips=declared(metric) if slips is None else slips,
                    part=Part("", name=name, uses=uses, change=change))


def _choice(t: Question, name: str, prompt: str, options: Sequence[Option], explanation: str,
            hints: tuple[str, ...], rng: random.Random, topic: str = "") -> Question:
    if sum(o.correct for o in options) != 1:  # a draw the loop could not fix: a GenerationError
        raise ValueError(f"{name}: {sum(o.correct for o in options)} correct options, not 1")
    return Question(id="", topic=topic, kind="choice", prompt=prompt, difficulty=t.difficulty,
                    hints=hints, explanation=explanation, options=shuffled(rng, options),
                    part=Part("", name=name))


def _concept(t: Question, name: str) -> Question:
    """The closing "why" step (drills.generators.scenario_concepts), graded by its rubric."""
    c = CONCEPTS[name]
    return Question(id="", topic=c.topic, kind="concept", prompt=c.prompt, difficulty=t.difficulty,
                    model_answer=" ".join(c.model_answer.split()), key_points=c.key_points, rubric=c.rubric,
                    part=Part("", name=name))


def _finish(t: Question, name: str, params: Mapping[str, Any], problem: Problem,
            steps: Sequence[Question], setup: str, **drawn: Any) -> Question:
    """The scenario: the template with its generator and the concrete draw, bound to its steps."""
    concrete = {**params, "relevance": list(problem.relevance), "k": problem.k, "gain": problem.gain,
                "judged": list(problem.judged) if problem.judged is not None else None, **drawn}
    return bind(replace(t, generator=name, params=concrete), problem, steps, setup=setup)


def _params(**extra: Param) -> dict[str, Param]:
    return {"n": N_PARAM, "max_rel": MAX_REL_PARAM, "gain": GAIN_PARAM, **extra}


TABLE_HINT = "Write a table: rank, grade, gain, discount log2(rank + 1), gain / discount."
IDEAL_HINT = "IDCG: sort every judged grade best first, cut at k, and sum the same way."


# ------------------------------------------------------------------------------ 1. NDCG chain
@register(NDCG_CHAIN, topic="hand-computation", kind="scenario",
          summary="DCG@k, IDCG@k, NDCG@k of one drawn ranking, then NDCG again with k or the gain changed, "
                  "then why NDCG divides by IDCG",
          params=_params(k=k_param(3), follow_up=Param(str, "random", "what the follow-up changes: k (to 1) "
                                                       "or the gain", choices=("random", "k", "gain")),
                         unretrieved=Param(int, 0, "judged documents the system did not retrieve (the first "
                                                   "is relevant)", minimum=0, maximum=2)))
def ndcg_chain(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    n, max_rel, gain, unretrieved = params["n"], params["max_rel"], params["gain"], params["unretrieved"]
    tol, k = template.tolerance or Tolerance(), _k(params, n, rng)
    follow = rng.choice(("k", "gain")) if params["follow_up"] == "random" else params["follow_up"]
    other, new_k = _other(gain), 1 if k != 1 else min(3, n)
    change: Change = (("k", new_k),) if follow == "k" else (("gain", other),)
    for _ in range(TRIES):
        relevance = draw_relevant_list(rng, n, max_rel)
        missed = [rng.randint(1 if i == 0 else 0, max_rel) for i in range(unretrieved)]
        problem = Problem(tuple(relevance), tuple(sorted(relevance + missed, reverse=True)) if missed else None,
                          k, gain)
        ndcg, later = _value(problem, "ndcg"), _value(problem, "ndcg", dict(change))
        if (_inside(ndcg, later) and _apart(ndcg, later, tol) and diagnosable(problem, "dcg", tol)
                and _apart(_value(problem, "dcg"), _value(problem, "dcg", {"gain": other}), tol)):
            break
    label, dcg_label, idcg_label = (metric_label(m, k) for m in ("ndcg", "dcg", "idcg"))
    pool = "The ideal order takes every judged document, retrieved or not. " if missed else ""
    if follow == "k":
        follow_prompt = (f"Now cut at k = {new_k} instead of {'no cut-off' if k is None else f'k = {k}'}: DCG and "
                         f"the ideal both stop at rank {new_k}. What is {metric_label('ndcg', new_k)}?")
        follow_note = f"A new k changes DCG and IDCG both: NDCG@{new_k} is not NDCG@k scaled (nor monotone in k)."
    else:
        follow_prompt = (f"Now switch to {gain_phrase(other)}; the ranking, the pool and k stay the same. "
                         f"What is {label} now?")
        follow_note = ("Exponential gain rewards the top grades far more than linear gain does, so the two "
                       "conventions can rank systems differently; always say which one you use.")
    steps = [
        _numeric(template, "dcg", "dcg", f"What is {dcg_label} of this ranking?",
                 "DCG sums gain / log2(rank + 1) over the ranks up to the cut-off.", (TABLE_HINT,)),
        _numeric(template, "idcg", "idcg", f"Now the ideal: what is {idcg_label}, the best {dcg_label} any "
                 "order of the judged documents could reach?",
                 pool + "IDCG is the DCG of the judged grades sorted best first, cut at k.", (IDEAL_HINT,)),
        _numeric(template, "ndcg", "ndcg", f"So what is {label}?",
                 "NDCG divides the ranking's DCG by the ideal one: 1 means the ideal order.",
                 ("Divide your DCG by your IDCG.",), uses=("dcg", "idcg")),
        _numeric(template, f"ndcg_{'k' if follow == 'k' else other}", "ndcg", follow_prompt, follow_note,
                 ("Recompute DCG and IDCG with the change, then divide.",),
                 topic="gain-and-discount" if follow == "gain" else "", change=change),
        _concept(template, "why_idcg"),
    ]
    return _finish(template, NDCG_CHAIN, params, problem, steps, _setup(relevance, max_rel, k, gain, missed),
                   follow_up=follow, follow_up_change=dict(change))


# ------------------------------------------------------------------ 2. binary vs graded chain
@register(BINARY_GRADED_CHAIN, topic="binary-vs-graded", kind="scenario", params=_params(k=k_param(3)),
          summary="Graded NDCG@k of one drawn ranking, then IDCG@k and NDCG@k with the labels binarised, "
                  "whether binarising raised or lowered NDCG, and what it loses")
def binary_graded_chain(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    n, max_rel, gain = params["n"], params["max_rel"], params["gain"]
    tol, k, binarise = template.tolerance or Tolerance(), _k(params, n, rng), {"binarise": True}
    for _ in range(TRIES):
        relevance = draw_relevant_list(rng, n, max_rel)
        if max(relevance) < 2:
            relevance[rng.randrange(n)] = rng.randint(2, max_rel)
        problem = Problem(tuple(relevance), None, k, gain)
        graded, binary = _value(problem, "ndcg"), _value(problem, "ndcg", binarise)
        if _inside(graded, binary) and _apart(graded, binary, tol) and diagnosable(
                changed(problem, binarise), "ndcg", tol):
            break
    labels, label, idcg_label = [int(g >= 1) for g in relevance], metric_label("ndcg", k), metric_label("idcg", k)
    order = compare(binary, graded)
    values = f"graded {label} = {_dec(graded)}, binary {label} = {_dec(binary)}"
    why = {1: "Binary labels do not see which relevant document is best: graded, this ranking lost most where "
              "it placed the highest grades below the ideal's; binarised, that costs less.",
           -1: "Binary labels count every relevant document alike: the high grades this ranking put early "
               "earned most of the graded ideal, but binarised, the relevant documents it left low (or out of "
               "the top k) weigh as much as those it put first.",
           0: "Here both give the same value."}[order]
    texts = {1: "raises", -1: "lowers", 0: "leaves unchanged"}
    options = [Option(f"Binarising {texts[v]} {label}", v == order,
                      f"{'Right' if v == order else 'Not here'}: {values}. {why}") for v in (1, -1, 0)]
    steps = [
        _numeric(template, "ndcg", "ndcg", f"What is {label} with the graded labels?",
                 "Graded NDCG rewards putting the highest grades first.", (TABLE_HINT, IDEAL_HINT)),
        _numeric(template, "idcg_binary", "idcg",
                 "Now binarise the labels: any grade >= 1 counts as relevant (1) and 0 stays 0, so the "
                 f"ranking becomes {grades_text(labels)}. What is {idcg_label} with the binary labels?",
                 "With binary labels every relevant document has gain 1 under either convention, so the "
                 "ideal is just the relevant documents first, in any order.",
                 ("Count the relevant documents, put them first, and sum 1 / log2(rank + 1) up to k.",),
                 change=(("binarise", True),), slips=declared("idcg", without=())),
        _numeric(template, "ndcg_binary", "ndcg",
                 f"So what is {label} of the binarised ranking {grades_text(labels)}?",
                 "Binary DCG sums 1 / log2(rank + 1) over the relevant ranks; divide by the binary IDCG.",
                 ("Binary DCG: 1 / log2(rank + 1) for each relevant rank up to k; divide by your IDCG.",),
                 uses=("idcg_binary",), change=(("binarise", True),), slips=declared("ndcg", without=())),
        _choice(template, "direction", f"Did binarising raise or lower {label} for this ranking?",
                options, f"{values}. {why}",
                ("Compare your two NDCG values; think about where the graded ranking lost most.",), rng),
        _concept(template, "what_is_lost"),
    ]
    return _finish(template, BINARY_GRADED_CHAIN, params, problem, steps, _setup(relevance, max_rel, k, gain),
                   graded=list(relevance), binary=labels)


# ------------------------------------------------------------------------ 3. LambdaRank swap
@register(LAMBDARANK_SWAP_CHAIN, topic="lambdarank", kind="scenario", params=_params(k=k_param(3)),
          summary="IDCG@k and NDCG@k of one drawn ranking, |delta NDCG@k| of swapping two ranks, NDCG@k after "
                  "the swap, and why LambdaRank weights a pair by |delta NDCG|")
def lambdarank_swap_chain(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    n, max_rel, gain = params["n"], params["max_rel"], params["gain"]
    tol, k = template.tolerance or Tolerance(), _k(params, n, rng)
    best: tuple[int, Problem, tuple[int, int]] | None = None
    for _ in range(TRIES):
        relevance = draw_relevant_list(rng, n, max_rel, distinct=True)
        problem = Problem(tuple(relevance), None, k, gain)
        # one rank inside the cut-off, two different grades: the delta is never 0
        pairs = sorted({(min(a, b), max(a, b)) for a in range(1, min(k or n, n) + 1) for b in range(1, n + 1)
                        if relevance[a - 1] != relevance[b - 1]})
        swap = rng.choice(pairs)
        delta = _value(problem, "delta_ndcg", {"swap": swap})
        score = ((delta.value >= MIN_DELTA_FACTOR * tol.allowed(delta.value))
                 + _inside(_value(problem, "ndcg"), _value(problem, "ndcg", {"swap": swap}))
                 + diagnosable(changed(problem, {"swap": swap}, "delta_ndcg"), "delta_ndcg", tol))
        if best is None or score > best[0]:
            best = (score, problem, swap)
        if score == 3:
            break
    assert best is not None
    _, problem, (i, j) = best
    relevance, swapped = list(problem.relevance), list(changed(problem, {"swap": (i, j)}).relevance)
    label, idcg_label = metric_label("ndcg", k), metric_label("idcg", k)
    delta_note = (f"Rank {j} is below the cut-off: only rank {i}'s contribution changes, by "
                  f"(G(l_{j}) - G(l_{i})) / log2(1 + {i}); divide by IDCG." if k is not None and j > k else
                  "|delta NDCG| = |G(l_i) - G(l_j)| * |1/log2(1 + i) - 1/log2(1 + j)| / IDCG: only the two "
                  "swapped documents change their discount, and IDCG does not change.")
    steps = [
        _numeric(template, "idcg", "idcg", f"Start with the ideal: what is {idcg_label}, the DCG of the judged "
                 "documents sorted best first?", "The ideal order sorts the judged grades best first and cuts "
                 "at k.", (IDEAL_HINT,)),
        _numeric(template, "ndcg", "ndcg", f"What is {label} of the ranking as it stands?",
                 "NDCG = DCG / IDCG of the same k.", (TABLE_HINT, "Divide by your IDCG."), uses=("idcg",)),
        _numeric(template, "delta", "delta_ndcg",
                 f"LambdaRank looks at the pair at ranks {i} and {j} (grades {relevance[i - 1]} and "
                 f"{relevance[j - 1]}). If these two documents swapped places, by how much would {label} "
                 f"change (|delta {label}|)?", delta_note,
                 ("Only the two swapped ranks change: compare their gain / discount before and after.",
                  "Divide the change in DCG by IDCG (which the swap does not change)."),
                 topic="lambdarank", uses=("idcg",), change=(("swap", (i, j)),)),
        _numeric(template, "ndcg_swapped", "ndcg", f"Now make the swap: the ranking becomes "
                 f"{grades_text(swapped)}. What is {label} after the swap?",
                 "The swap moves NDCG by exactly the |delta| of the step before, up or down.",
                 ("Add or subtract your delta, or recompute DCG of the new order over the same IDCG.",),
                 uses=("idcg",), change=(("swap", (i, j)),)),  # the swap leaves IDCG alone
        _concept(template, "why_lambda"),
    ]
    return _finish(template, LAMBDARANK_SWAP_CHAIN, params, problem, steps,
                   _setup(relevance, max_rel, k, gain), swap=[i, j], swapped=swapped)


# ------------------------------------------------------------------------- 4. NDCG vs MRR/AP
@register(NDCG_VS_MRR_CHAIN, topic="ndcg-vs-mrr", kind="scenario",
          summary="NDCG, RR and AP of one drawn ranking whose first relevant document is at rank 2 or 3, which "
                  "of them a reordering below that document leaves alone, and what RR ignores",
          params=_params(k=Param((int, type(None)), None, "cut-off for all three metrics: null (the whole "
                                                          "list) or a whole number >= 4", minimum=4)))
def ndcg_vs_mrr_chain(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    n, max_rel, gain, k = params["n"], params["max_rel"], params["gain"], params["k"]
    tol, window, metrics = template.tolerance or Tolerance(), min(k or n, n), ("ndcg", "rr", "ap")
    for _ in range(TRIES):  # the ranks 1..window are what the three metrics see
        first = rng.randint(2, min(3, window - 2))
        tail = [rng.randint(0, max_rel) for _ in range(window - first)]
        tail[rng.randrange(len(tail))] = 0  # a non-relevant document below the first relevant one
        relevance = [0] * (first - 1) + [rng.randint(1, max_rel)] + tail + [
            rng.randint(0, max_rel) for _ in range(n - window)]
        order = sorted(tail, reverse=rng.random() < 0.5)  # the tail improved or made worse
        moved = order if order != tail else order[::-1]
        reordered = relevance[:first] + moved + relevance[window:]
        problem = Problem(tuple(relevance), None, k, gain)
        before = {m: _value(problem, m) for m in metrics}
        after = {m: _value(replace(problem, relevance=tuple(reordered)), m) for m in metrics}
        same = [m for m in metrics if compare(before[m], after[m]) == 0]
        if same == ["rr"] and _inside(before["ndcg"], before["ap"]) and all(
                _apart(before[m], after[m], tol) for m in ("ndcg", "ap")):
            break
    labels = {m: metric_label(m, k) for m in metrics}
    shown = {m: f"{labels[m]} {_dec(before[m])} -> {_dec(after[m])}" for m in metrics}
    summary = "; ".join(shown.values())
    options = [Option(labels[m], m in same, f"{'Right' if m in same else 'No'}: {shown[m]}. " + (
        "RR only sees the first relevant document, which did not move." if m == "rr" else
        f"{labels[m]} counts every relevant document's rank.")) for m in metrics]
    options.append(Option("None of them: all three change", not same, f"Not so: {summary}."))
    span = f"ranks {first + 1}-{window}" if window > first + 1 else f"rank {window}"
    steps = [
        _numeric(template, "ndcg", "ndcg", f"What is {labels['ndcg']} of this ranking?",
                 "NDCG uses grades and every rank.", (TABLE_HINT, IDEAL_HINT), topic="hand-computation"),
        _numeric(template, "rr", "rr", f"Now the reciprocal rank: what is {labels['rr']} (relevant: grade >= 1)?",
                 "RR looks only at the first relevant document.",
                 ("RR = 1 / the rank of the first relevant document.",), topic="mrr-and-err"),
        _numeric(template, "ap", "ap",
                 f"And the average precision {labels['ap']} (relevant: grade >= 1, divided by R)?",
                 "AP averages the precision at each relevant rank over R, the relevant documents judged.",
                 ("Write P@i at each rank i holding a relevant document; sum them and divide by R.",),
                 topic="map-and-recall"),
        _choice(template, "unchanged", f"Suppose the system kept ranks 1-{first} and reordered the documents "
                f"at {span}, giving {grades_text(reordered)}. Which of the three values would stay exactly the "
                "same?", options, summary, ("Which metric looks past the first relevant document?",), rng,
                topic="ndcg-vs-mrr"),
        _concept(template, "what_rr_ignores"),
    ]
    extra = ("For RR and AP a document is relevant when its grade is at least 1; AP divides by R, the number "
             "of relevant documents in the judged pool (trec_eval's map).")
    return _finish(template, NDCG_VS_MRR_CHAIN, params, problem, steps,
                   _setup(relevance, max_rel, k, gain, extra=extra), first_relevant=first, reordered=reordered)
