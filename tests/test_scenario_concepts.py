"""The rubrics of the generated scenarios' concept steps (drills.generators.scenario_concepts):
every example grades as written, each rubric is complete enough to grade, and each drawn
scenario's concept step carries its rubric."""

from __future__ import annotations

import pytest

from drills.generators import REGISTRY
from drills.generators.instantiate import instantiate, item_rng
from drills.generators.scenario_concepts import CONCEPTS
from drills.generators.scenarios import CONCEPTS as IMPORTED_FROM_SCENARIOS
from drills.grading.concept.grade import VERDICTS, grade_concept
from drills.grading.concept.phrasing import MAX_PHRASING, ignored_words
from drills.model import Question, Source

EXAMPLES = [(name, n, ex) for name, c in CONCEPTS.items() for n, ex in enumerate(c.rubric.examples, start=1)]
CHAINS = {"ndcg-chain": "why_idcg", "binary-graded-chain": "what_is_lost",
          "lambdarank-swap-chain": "why_lambda", "ndcg-vs-mrr-chain": "what_rr_ignores"}


@pytest.mark.parametrize("name, n, ex", EXAMPLES, ids=[f"{name}-{n}" for name, n, _ in EXAMPLES])
def test_every_example_grades_as_written(name, n, ex):
    got = grade_concept(CONCEPTS[name].rubric, ex.answer)
    assert got.verdict == ex.verdict
    assert {p.text for p in got.made} == set(ex.points)
    assert sorted(m.id for m in got.misconceptions) == sorted(ex.misconceptions)


@pytest.mark.parametrize("name", sorted(CONCEPTS))
def test_each_rubric_can_grade(name):
    rubric = CONCEPTS[name].rubric
    assert len(rubric.misconceptions) >= 2 and len(rubric.examples) >= 3
    assert any(p.required for p in rubric.points)
    assert all(p.accept for p in rubric.points)  # no point falls back to matching its own text
    texts = {p.text for p in rubric.points}
    assert all(ex.verdict in VERDICTS and set(ex.points) <= texts for ex in rubric.examples)
    ids = [m.id for m in rubric.misconceptions]
    assert len(set(ids)) == len(ids) and all(m.correction and m.signals for m in rubric.misconceptions)
    named = {i for ex in rubric.examples for i in ex.misconceptions}
    assert named <= set(ids)
    verdicts = {ex.verdict for ex in rubric.examples}
    assert verdicts == set(VERDICTS)  # a right answer, a partial one and a wrong belief at least
    assert any(ex.verdict == "correct" and not ex.misconceptions for ex in rubric.examples)


@pytest.mark.parametrize("name", sorted(CONCEPTS))
def test_phrasings_are_usable(name):
    rubric = CONCEPTS[name].rubric
    phrasings = [x for p in rubric.points for x in p.accept] + [x for m in rubric.misconceptions for x in m.signals]
    for text in phrasings:
        assert len(text) <= MAX_PHRASING and not ignored_words(text), text


def test_misconception_ids_are_unique_across_the_concepts():
    ids = [m.id for c in CONCEPTS.values() for m in c.rubric.misconceptions]
    assert len(set(ids)) == len(ids)


def test_concepts_stay_importable_from_scenarios():
    assert IMPORTED_FROM_SCENARIOS is CONCEPTS


@pytest.mark.parametrize("generator, name", sorted(CHAINS.items()))
def test_drawn_scenario_step_carries_the_rubric(generator, name):
    t = Question(id=f"scen-{generator}", topic=REGISTRY[generator].topic, kind="scenario", prompt="title",
                 difficulty="hard", pack="test-pack", source=Source("pack.yaml", 3), generator=generator)
    step = instantiate(t, item_rng(0, 0, t.id)).steps[-1]
    concept = CONCEPTS[name]
    assert step.kind == "concept" and step.part.name == name and step.topic == concept.topic
    assert step.rubric is concept.rubric
    assert step.key_points == tuple(p.text for p in concept.rubric.points)
    assert step.model_answer == " ".join(concept.model_answer.split())
