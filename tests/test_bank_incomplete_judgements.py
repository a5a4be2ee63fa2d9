"""The incomplete-judgements pack: every number it states, recomputed from first principles.

The reference formulas follow trec_eval's source (github.com/usnistgov/trec_eval):
m_bpref.c, m_infap.c, m_unjudged.c, and form_res_rels.c for unjudged documents and -J.
pytrec_eval (trec_eval 9.0.8's code) and ir_measures are run where they install. Claims
that cannot be run carry their source in a comment in questions/incomplete-judgements.yaml.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from fractions import Fraction as F
from pathlib import Path

import pytest
import yaml

from drills.packs import load_pack
from tests.bank_text import point_texts

PATH = Path(__file__).resolve().parent.parent / "questions" / "incomplete-judgements.yaml"
RAW = yaml.safe_load(PATH.read_text(encoding="utf-8"))
Q = {q["id"]: q for q in RAW["questions"]}
INFAP_EPSILON = 0.00001  # trec_eval.h


def value(expr: str) -> float:
    """An `answer:` expression of the pack (our own file: numbers, + - * / ^, log2)."""
    assert re.fullmatch(r"[0-9a-z/*+\-^(). ]+", expr), expr
    return eval(expr.replace("^", "**"), {"__builtins__": {}}, {"log2": math.log2})  # noqa: S307


def exact(expr: str) -> F:
    return F(value(expr)).limit_denominator(10_000)


def ap(labels, r) -> F:
    """trec_eval's map: precision at each relevant rank, summed, over R from the qrels."""
    hits, total = 0, F(0)
    for i, rel in enumerate(labels, start=1):
        if rel:
            hits += 1
            total += F(hits, i)
    return total / r


def as_zero(marks):
    """R/N/? marks with every unjudged document counted as non-relevant."""
    return [m == "R" for m in marks]


def condensed(marks):
    """Sakai's condensed list (trec_eval -J): unjudged documents removed."""
    return [m == "R" for m in marks if m != "?"]


def bpref(marks, r, n) -> F:
    """m_bpref.c: 1 - min(nonrel above, R) / min(N, R) per retrieved relevant; unjudged skipped."""
    nonrel, total = 0, F(0)
    for m in marks:
        if m == "N":
            nonrel += 1
        elif m == "R":
            total += 1 - F(min(nonrel, r), min(n, r)) if nonrel else 1
    return total / r


def infap(marks, r, eps=0.0) -> float:
    """m_infap.c. Marks: R, N judged; P in the pool but not sampled; ? not in the pool."""
    rel = nonrel = unjudged = 0
    total = 0.0
    for j, m in enumerate(marks):
        if m == "?":
            continue
        if m == "P":
            unjudged += 1
            continue
        if m == "N":
            nonrel += 1
            continue
        rel += 1
        if j == 0:
            total += 1.0
        else:
            total += 1 / (j + 1) + (j / (j + 1)) * ((rel - 1 + nonrel + unjudged) / j) * (
                (rel - 1 + eps) / (rel - 1 + nonrel + 2 * eps))
    return total / r


def ndcg_linear(grades, pool, k) -> float:
    def dcg(gs):
        return sum(g / math.log2(i + 2) for i, g in enumerate(gs[:k]))

    return dcg(grades) / dcg(sorted(pool, reverse=True))


def test_pack_loads_with_enough_questions_and_kinds():
    pack = load_pack(PATH, builtin=True)
    assert pack.errors == [], [str(e) for e in pack.errors]
    assert len(pack.questions) >= 20
    kinds = {q.kind for q in pack.questions}
    assert len(kinds) >= 3 and {"numeric", "choice", "concept"} <= kinds
    assert len({q["difficulty"] for q in RAW["questions"]}) >= 2
    assert all(q["topic"] == "incomplete-judgements" and q["id"].startswith("ij-") for q in RAW["questions"])


# ------------------------------------------------------------------ AP and NDCG with holes

RUN8 = ["R", "?", "?", "N", "R", "?", "N", "R"]


def test_ap_with_unjudged_as_non_relevant():
    q = Q["ij-ap-unjudged-zero"]
    assert [int(x) for x in as_zero(RUN8)] == q["problem"]["relevance"]
    assert ap(as_zero(RUN8), 4) == F(71, 160) == exact(q["answer"])
    assert len(q["problem"]["judged"]) == 4 and sum(as_zero(RUN8)) == 3  # one relevant not retrieved


def test_ap_on_the_condensed_list():
    q = Q["ij-ap-condensed"]
    assert [int(x) for x in condensed(RUN8)] == q["problem"]["relevance"] == [1, 0, 1, 0, 1]
    assert ap(condensed(RUN8), 4) == F(17, 30) == exact(q["answer"])
    assert ap(condensed(RUN8), 4) > ap(as_zero(RUN8), 4)


def test_ndcg_on_the_condensed_list():
    q = Q["ij-ndcg-condensed"]
    ranked = [3, "?", 1, "?", 0, 2]
    pool = [3, 2, 2, 1, 0, 0]
    kept = [g for g in ranked if g != "?"]
    assert kept == q["problem"]["relevance"] and kept[:4] == [3, 1, 0, 2]
    assert sorted(pool, reverse=True)[:4] == [3, 2, 2, 1]
    got = ndcg_linear(kept, pool, 4)
    assert value(q["answer"]) == pytest.approx(got, abs=1e-12)
    zeros = [0 if g == "?" else g for g in ranked]
    assert 2 not in zeros[:4] and ndcg_linear(zeros, pool, 4) < got  # the grade-2 document falls out


def test_condensed_never_lower_on_random_runs():
    rng = random.Random(14)
    for _ in range(500):
        marks = [rng.choice("RN?") for _ in range(rng.randint(1, 10))]
        r = marks.count("R") + rng.randint(0, 3) or 1
        assert ap(condensed(marks), r) >= ap(as_zero(marks), r)
    [right] = [o for o in Q["ij-condensed-never-lower"]["options"] if o.get("correct")]
    assert right["text"] == "True"


# ------------------------------------------------------------------ bpref and infAP


def test_bpref_by_hand():
    marks = ["R", "N", "?", "R", "N", "R"]
    assert bpref(marks, r=4, n=5) == F(9, 16) == exact(Q["ij-bpref-hand"]["answer"])
    assert bpref([m for m in marks if m != "?"], r=4, n=5) == F(9, 16)  # the unjudged one changes nothing


def test_bpref_with_fewer_non_relevant_than_relevant():
    marks = ["R", "N", "R", "?", "N", "R"]
    assert bpref(marks, r=3, n=2) == F(1, 2) == exact(Q["ij-bpref-few-nonrel"]["answer"])
    over_r = (1 + (1 - F(1, 3)) + (1 - F(2, 3))) / 3  # dividing by R alone
    assert over_r == F(2, 3)


def test_bpref_denominator_choice():
    [right] = [o for o in Q["ij-bpref-denominator"]["options"] if o.get("correct")]
    assert right["text"].startswith("min(N, R)")
    # the pre-8.0 denominator (judged non-relevant retrieved) scores a run lower: bpref_bug's case
    marks = ["N", "R", "R", "R", "R"]  # 3 more judged non-relevant and 2 relevant unretrieved
    new = bpref(marks, r=6, n=4)
    old = sum(1 - F(min(1, 6), min(1, 6)) for _ in range(4)) / 6
    assert (old, new) == (0, F(1, 2))  # the note's example: 0.0 before, 0.5 after


def test_infap_by_hand():
    marks = ["R", "P", "N", "R"]
    assert F(infap(marks, 2)).limit_denominator(100) == F(13, 16) == exact(Q["ij-infap"]["answer"])
    assert infap(marks, 2, INFAP_EPSILON) == pytest.approx(13 / 16, abs=1e-4)
    assert 1 / 4 + 3 / 4 * 1 * (1 / 2) == 5 / 8  # the rank-4 document's term
    assert ap(as_zero(["R", "P", "N", "R"]), 2) == F(3, 4)  # P counted as non-relevant
    assert ap([True, False, True], 2) == F(5, 6)  # P dropped (condensed)


def test_infap_equals_ap_with_complete_judgements():
    for marks in (["R", "N", "R", "N", "N", "R"], ["N", "R", "R"], ["R", "R", "N", "N", "R"]):
        r = marks.count("R") + 1
        assert infap(marks, r) == pytest.approx(float(ap(as_zero(marks), r)), abs=1e-12)


# ------------------------------------------------------------------ judged share and pools


def test_judged_at_5():
    q = Q["ij-judged-at-5"]
    flags = q["problem"]["relevance"]
    assert F(sum(flags[:5]), 5) == F(4, 5) == exact(q["answer"])
    assert 1 - F(sum(flags[:5]), 5) == F(1, 5)  # "a fifth of the top 5 unjudged"
    assert F(sum(flags[:5]), sum(flags)) != F(4, 5)  # the slip is told apart


def test_judged_at_10_of_a_short_run():
    flags = [1, 0, 1, 1, 0, 0]
    ir_measures_now = F(sum(flags[:10]), min(10, len(flags)))
    assert ir_measures_now == F(1, 2) == exact(Q["ij-judged-short-run"]["answer"])
    assert F(sum(flags), 10) == F(3, 10)  # before 0.3.1: divided by the cut-off


def unj(flags, cutoff):
    """m_unjudged.c: unjudged / cutoff; ranks past the end are filled with non-relevant docs."""
    return F(sum(1 for f in flags[:cutoff] if not f), cutoff)


def test_trec_eval_unj_10():
    flags = [1, 1, 0, 1]
    options = {o["text"]: o for o in Q["ij-unj-trec-eval"]["options"]}
    assert options["1/10"].get("correct") is True and unj(flags, 10) == F(1, 10)
    assert F(1, len(flags)) == F(1, 4)  # over the documents returned
    assert F(1 + (10 - len(flags)), 10) == F(7, 10)  # missing ranks counted as unjudged
    assert F(sum(flags), len(flags)) == F(3, 4)  # the judged share of the four


RUNS = {"A": ["d1", "d2", "d3", "d4", "d5"], "B": ["d2", "d6", "d1", "d7", "d8"],
        "C": ["d9", "d1", "d10", "d2", "d11"]}


def pool(depth=3):
    return set().union(*(run[:depth] for run in RUNS.values()))


def test_pool_size():
    assert pool() == {"d1", "d2", "d3", "d6", "d9", "d10"}
    assert len(pool()) == 6 == value(Q["ij-pool-size"]["answer"])
    retrieved = set().union(*RUNS.values())
    assert retrieved - pool() == {"d4", "d5", "d7", "d8", "d11"}


def test_new_run_judged_share():
    d = ["d4", "d11", "d2", "d12", "d1"]
    judged = [x for x in d[:5] if x in pool()]
    assert judged == ["d2", "d1"]
    assert F(len(judged), 5) == F(2, 5) == exact(Q["ij-pool-new-run"]["answer"])
    assert RUNS["A"].index("d4") >= 3 and RUNS["C"].index("d11") >= 3  # retrieved, below depth 3
    assert all("d12" not in run for run in RUNS.values())


def test_hole_filling_changes_r_for_everyone():
    q = Q["ij-hole-filling"]
    after = [m == "R" for m in ["R", "R", "R", "R", "N"]]
    assert [int(x) for x in after] == q["problem"]["relevance"] and len(q["problem"]["judged"]) == 5
    assert ap(after, 5) == F(4, 5) == exact(q["answer"])
    other = [True, False, True, False]  # another run's labels, unchanged by the new judgements
    assert ap(other, 5) < ap(other, 3)


def test_recall_against_the_true_r():
    q = Q["ij-recall-true-r"]
    labels = q["problem"]["relevance"]
    assert sum(labels) == 6 and len(q["problem"]["judged"]) == 12
    assert F(sum(labels), 12) == F(1, 2) == exact(q["answer"])
    assert F(sum(labels), 8) == F(3, 4)  # "6 of 8" against the original pool


def test_generated_template_params():
    q = Q["ij-gen-ap-r"]
    assert q["generator"] == "ap-hand" and q["params"] == {"n": 6, "convention": "R", "unretrieved": 2}


def test_every_decimal_in_the_pack_is_checked_here():
    """The only decimal the pack writes is trec_eval's smoothing constant."""
    texts = []
    for q in RAW["questions"]:
        texts += [q["prompt"], q.get("explanation", ""), q.get("model_answer", "")]
        texts += q.get("hints", []) + point_texts(q.get("key_points"))
        for o in q.get("options", []):
            texts += [o["text"], o.get("explanation", "")]
    found = {m.group() for t in texts for m in re.finditer(r"(?<![\w.])\d+\.\d+", t)}
    hole_filling = {f"{float(v):.3f}" for v in hole_filling_maps()}  # ij-hole-filling, derived below
    assert found <= {"0.00001", "0.3", "8.0", "9.0", "10.0", "0.5"} | hole_filling, found
    # a constant and version numbers (pytrec_eval 0.5)


def ap_of(ranked, relevant):
    """AP by hand: precision at each relevant rank, summed over R."""
    hits, total = 0, F(0)
    for i, doc in enumerate(ranked, start=1):
        if doc in relevant:
            hits += 1
            total += F(hits, i)
    return total / len(relevant)


def hole_filling_maps():
    """ij-hole-filling's example: AP of [u1, u2, r1] and [r2, x, y] before and after u1, u2 are judged
    relevant (qrels r1, r2, r3 relevant): the first rises, the second falls."""
    before, after = {"r1", "r2", "r3"}, {"r1", "r2", "r3", "u1", "u2"}
    return [ap_of(run, rel) for run in (["u1", "u2", "r1"], ["r2", "x", "y"]) for rel in (before, after)]


def test_hole_filling_can_raise_a_run():
    up_before, up_after, down_before, down_after = hole_filling_maps()
    assert (up_before, up_after, down_before, down_after) == (F(1, 9), F(3, 5), F(1, 3), F(1, 5))
    text = next(q for q in RAW["questions"] if q["id"] == "ij-hole-filling")["explanation"]
    assert "0.111 to 0.600" in text and "0.333 to 0.200" in text


# ------------------------------------------------------------------ pytrec_eval (trec_eval 9.0.8)


def trec(marks, extra=(), measures=("map",), judged_only=False):
    """Evaluate R/N/?/P marks (P = qrels grade -1, "in the pool, unjudged") with pytrec_eval."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = {}, {}
    for i, m in enumerate(marks):
        doc = f"d{i:02d}"
        run[doc] = float(100 - i)  # distinct scores: trec_eval keeps this order
        if m in "RNP":
            qrels[doc] = {"R": 1, "N": 0, "P": -1}[m]
    for j, grade in enumerate(extra):  # judged documents the run did not retrieve
        qrels[f"x{j:02d}"] = grade
    ev = pytrec_eval.RelevanceEvaluator({"q": qrels}, set(measures), judged_docs_only_flag=judged_only)
    return ev.evaluate({"q": run})["q"]


def test_pytrec_eval_map_default_and_condensed():
    assert trec(RUN8, extra=[1])["map"] == pytest.approx(71 / 160)
    assert trec(RUN8, extra=[1], judged_only=True)["map"] == pytest.approx(17 / 30)


def test_pytrec_eval_bpref():
    assert trec(["R", "N", "?", "R", "N", "R"], extra=[1, 0, 0, 0], measures=["bpref"])["bpref"] == 9 / 16
    assert trec(["R", "N", "R", "?", "N", "R"], measures=["bpref"])["bpref"] == pytest.approx(1 / 2)


def test_pytrec_eval_infap():
    got = trec(["R", "P", "N", "R"], measures=["infAP", "map"])
    assert got["infAP"] == pytest.approx(infap(["R", "P", "N", "R"], 2, INFAP_EPSILON), abs=1e-9)
    assert got["infAP"] == pytest.approx(13 / 16, abs=1e-4) and got["map"] == pytest.approx(3 / 4)
    assert trec(["R", "P", "N", "R"], judged_only=True)["map"] == pytest.approx(5 / 6)


def test_pytrec_eval_bpref_ignores_inserted_unjudged_documents():
    marks = ["R", "N", "R", "N", "R"]
    before = trec(marks, extra=[1, 0], measures=["bpref", "map"])
    after = trec(["?"] * 5 + marks, extra=[1, 0], measures=["bpref", "map"])
    assert after["bpref"] == before["bpref"] and after["map"] < before["map"]
    [right] = [o for o in Q["ij-bpref-insert-unjudged"]["options"] if o.get("correct")]
    assert right["text"] == "bpref unchanged; map drops"


def test_pytrec_eval_unjudged_counts_as_non_relevant():
    unjudged = trec(["?", "R", "N"], measures=["map", "P_5"])
    judged_nonrel = trec(["N", "R", "N"], measures=["map", "P_5"])
    assert unjudged == judged_nonrel


def test_pytrec_eval_scores_only_the_queries_the_run_answers():
    # trec_eval 9.0.8 without -c: a qrels query missing from the run is left out of the mean
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ev = pytrec_eval.RelevanceEvaluator({"q1": {"a": 1}, "q2": {"b": 1}}, {"map"})
    assert set(ev.evaluate({"q1": {"a": 1.0}})) == {"q1"}


def test_pytrec_eval_condensed_ndcg():
    marks = [3, "?", 1, "?", 0, 2]
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {f"d{i}": g for i, g in enumerate(marks) if g != "?"}
    qrels.update({"x0": 2, "x1": 0})
    run = {f"d{i}": float(10 - i) for i in range(len(marks))}
    for judged_only, ranking in ((True, [3, 1, 0, 2]), (False, [3, 0, 1, 0])):
        ev = pytrec_eval.RelevanceEvaluator({"q": qrels}, {"ndcg_cut.4"}, judged_docs_only_flag=judged_only)
        got = ev.evaluate({"q": run})["q"]["ndcg_cut_4"]
        assert got == pytest.approx(ndcg_linear(ranking, [3, 2, 2, 1, 0, 0], 4), abs=1e-9)


def test_pytrec_eval_condensed_ap_never_lower():
    rng = random.Random(7)
    for _ in range(30):
        marks = [rng.choice("RN?") for _ in range(8)]
        if "R" not in marks:
            continue
        default, j = trec(marks, extra=[1]), trec(marks, extra=[1], judged_only=True)
        assert j["map"] >= default["map"] - 1e-12


# ------------------------------------------------------------------ ir_measures


def test_ir_measures_judged_at_k():
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 1, "f": 0}}
    flags = Q["ij-judged-at-5"]["problem"]["relevance"]
    judged_ids, other = iter("abcdef"), itertools.count()
    run = {"q": {(next(judged_ids) if f else f"u{next(other)}"): float(20 - i) for i, f in enumerate(flags)}}
    got = ir_measures.calc_aggregate([ir_measures.Judged @ 5], qrels, run)
    assert got[ir_measures.Judged @ 5] == pytest.approx(4 / 5)
    short = {"q": {"a": 6.0, "u1": 5.0, "b": 4.0, "c": 3.0, "u2": 2.0, "u3": 1.0}}  # flags [1,0,1,1,0,0]
    got = ir_measures.calc_aggregate([ir_measures.Judged @ 10], qrels, short)
    assert got[ir_measures.Judged @ 10] == pytest.approx(1 / 2)
