"""The candidate-generation pack (questions/candidate-generation.yaml): every key recomputed from
its definition (fractions: recall against the catalogue, pooled vs per-query recall, query- vs
traffic-weighted means, ANN overlap with the exact neighbours), and the choice questions free of
length and wording cues. Generated questions: tests/test_generators_retrieval.py."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from drills.generators import REGISTRY
from tests.experiments_bank import load

RAW = load("candidate-generation")
Q = {q["id"]: q for q in RAW["questions"]}

QUERIES = [(2, 2), (1, 4), (10, 40)]  # (relevant retrieved, relevant) per query
SEGMENTS = [(100, F(7, 10), F(9, 10)), (900, F(2, 10), F(6, 10)), (9000, F(1, 10), F(2, 10))]


def pooled(queries):
    return F(sum(h for h, _ in queries), sum(r for _, r in queries))


def per_query(queries):
    return sum((F(h, r) for h, r in queries), F(0)) / len(queries)


def query_uniform(segments):
    return sum((n * rec for n, _, rec in segments), F(0)) / sum(n for n, _, _ in segments)


def traffic_weighted(segments):
    return sum((share * rec for _, share, rec in segments), F(0))


KEYS = {
    "cg-pooled-recall": pooled(QUERIES),
    "cg-query-uniform": query_uniform(SEGMENTS),
    "cg-ann-recall": F(len({f"d{i}" for i in range(8)} & {f"d{i}" for i in range(10)}), 10),
}


@pytest.mark.parametrize("qid", sorted(KEYS))
def test_every_fixed_answer(qid):
    assert F(Q[qid]["answer"]) == KEYS[qid]


def test_every_fixed_numeric_question_is_keyed():
    fixed = {q["id"] for q in RAW["questions"] if q["kind"] == "numeric" and "answer" in q}
    assert fixed == set(KEYS)


def test_the_recall_problem_is_recall_against_the_catalogue():
    q = Q["cg-recall-at-k"]
    labels, judged = q["problem"]["relevance"], q["problem"]["judged"]
    assert q["metric"] == "recall" and q["problem"]["k"] == 10 and sum(judged) == 11
    assert F(sum(labels[:10]), sum(judged)) == F(4, 11)
    assert F(10, 11) == F(min(10, sum(judged)), sum(judged))  # the ceiling the explanation quotes


def test_numbers_the_explanations_quote():
    assert per_query(QUERIES) > pooled(QUERIES)
    assert traffic_weighted(SEGMENTS) == F(77, 100)
    assert sum(share for _, share, _ in SEGMENTS) == 1


def test_generated_templates_name_registered_generators_and_valid_params():
    for q in RAW["questions"]:
        if q["kind"] == "generated":
            assert REGISTRY[q["generator"]].validate(q.get("params") or {}) == []
