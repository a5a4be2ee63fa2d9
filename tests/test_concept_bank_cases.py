"""Issue 22's cases, graded with the built-in bank's own rubrics: what a new user typed and
what the word-overlap grader got wrong. The expected verdicts are an interviewer's reading
of each answer (written in the issue), not the grader's output."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from drills.grading.concept.grade import grade_concept
from drills.model import Question
from drills.packs.load import load_pack

QUESTIONS = Path(__file__).resolve().parent.parent / "questions"


@cache
def question(pack: str, qid: str, step: str | None = None) -> Question:
    q = next(q for q in load_pack(QUESTIONS / pack, builtin=True).questions if q.id == qid)
    if step is not None:
        q = next(s for s in q.steps if s.part is not None and s.part.name == step)
    assert q.kind == "concept" and q.rubric is not None
    return q


def made(q: Question, answer: str) -> set[str]:
    return {p.text for p in grade_concept(q.rubric, answer).made}


def test_the_one_over_r_answer_ticks_nothing_it_did_not_say_and_names_the_belief():
    q = question("ndcg-vs-mrr.yaml", "mrr-single-relevant-identity")
    g = grade_concept(q.rubric, "the discount at rank r is 1/r, so NDCG = 1/r which is exactly RR; "
                                "they are interchangeable")
    assert g.verdict == "wrong" and g.made == ()
    assert "ndcg_single_equals_rr" in [m.id for m in g.misconceptions]


def test_idcg_as_list_length_is_wrong_with_the_belief_named():
    q = question("normalization.yaml", "norm-why-normalize")
    g = grade_concept(q.rubric, "IDCG normalises for list length, it is just the number of documents "
                                "times the top gain")
    assert g.verdict == "wrong" and g.misconceptions
    assert all(m.correction for m in g.misconceptions)


def test_the_binary_labels_paraphrase_makes_the_point():
    q = question("gain-and-discount.yaml", "gain-why-exponential")
    point = next(p.text for p in q.rubric.points if p.text.startswith("identical for binary labels"))
    assert point in made(q, "with 0/1 labels both give the same number")
    assert point in made(q, "For binary relevance 2^rel - 1 and rel coincide.")
    assert point not in made(q, "With graded labels 2^rel - 1 and rel give different numbers.")


@pytest.mark.parametrize("answer", [
    "the grade-3 document above it does not matter",
    "It depends only on its own grade and rank; the documents above are irrelevant to it.",
])
def test_an_err_step_that_ignores_the_documents_above_does_not_get_the_cascade_point(answer):
    q = question("scenarios.yaml", "scn-err-cascade", "saturation")
    cascade = [p.text for p in q.rubric.points
               if "above" in p.text or "satisf" in p.text or "cascade" in p.text]
    assert cascade
    assert not made(q, answer) & set(cascade)
    assert grade_concept(q.rubric, answer).verdict != "correct"


def test_a_right_err_answer_gets_the_cascade_point():
    q = question("scenarios.yaml", "scn-err-cascade", "saturation")
    g = grade_concept(q.rubric, "ERR's user reads down and stops once satisfied; a grade-3 document "
                                "stops 7/8 of the users who reach it, so only 1/8 read on and the next "
                                "document is weighted by that product of (1 - R_i) of the documents "
                                "above. DCG's discount depends only on the rank.")
    assert g.verdict == "correct", [p.text for p in g.missed]
