"""The session plan: deterministic, filtered, fixed questions once, templates with fresh variants."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from drills.engine.problem import Problem
from drills.generators.instantiate import GenerationError, instantiate, item_rng
from drills.model import Option, Question
from drills.quiz.plan import item_json, mock_plan, plan, select, weighted_plan

ROOT = Path(__file__).resolve().parents[1]


def fixed(i: int, topic: str = "conventions", difficulty: str = "easy") -> Question:
    return Question(id=f"fixed-{i}", topic=topic, kind="numeric", prompt=f"Q{i}?", difficulty=difficulty,
                    answer=f"{i}/7")


def generated(name: str, topic: str, difficulty: str = "medium", **params) -> Question:
    return Question(id=f"gen-{name}", topic=topic, kind="generated", prompt="title", difficulty=difficulty,
                    generator=name, params=params)


BANK = (
    [fixed(i) for i in range(4)]
    + [fixed(i, "ndcg-vs-mrr", "hard") for i in range(4, 6)]
    + [
        generated("ndcg-hand", "hand-computation", k="random", unretrieved=1),
        generated("swap-delta", "lambdarank", "hard"),
        generated("compare-rankings", "normalization"),
        Question(id="choice-1", topic="conventions", kind="choice", prompt="Pick", options=(
            Option("yes", True, "right"), Option("no", False, "wrong"))),
        Question(id="concept-1", topic="normalization", kind="concept", prompt="Why?",
                 model_answer="Because.", key_points=("one", "two")),
    ]
)


def test_same_seed_same_plan_and_order_independent():
    a = plan(BANK, seed=3, count=25)
    assert a == plan(list(reversed(BANK)), seed=3, count=25)
    assert a != plan(BANK, seed=4, count=25)
    assert len(a) == 25
    assert all(q.kind != "generated" for q in a)


def test_fixed_questions_once_then_templates_repeat_with_fresh_variants():
    items = plan(BANK, seed=11, count=30)
    ids = Counter(q.id for q in items)
    assert all(ids[q.id] == 1 for q in BANK if q.kind != "generated")
    assert sum(ids[q.id] for q in BANK if q.kind == "generated") == 30 - 8
    prompts = [q.prompt for q in items if q.id == "gen-ndcg-hand"]
    assert len(set(prompts)) > 1
    # the first cycle holds every question before any template comes back
    first = [q.id for q in items[: len(BANK)]]
    assert sorted(first) == sorted(q.id for q in BANK)


def test_only_fixed_questions_stops_when_they_run_out():
    items = plan([fixed(i) for i in range(3)], seed=1, count=10)
    assert sorted(q.id for q in items) == ["fixed-0", "fixed-1", "fixed-2"]
    assert plan([], seed=1, count=5) == []


def test_filters():
    items = plan(BANK, seed=5, count=10, topics=["ndcg-vs-mrr"])
    assert {q.id for q in items} == {"fixed-4", "fixed-5"}
    hard = plan(BANK, seed=5, count=6, difficulty="hard")
    assert {q.difficulty for q in hard} == {"hard"} and len(hard) == 6
    both = plan(BANK, seed=5, count=4, topics=["lambdarank", "hand-computation"], difficulty="medium")
    assert {q.id for q in both} == {"gen-ndcg-hand"}
    assert select(BANK, topics=["normalization"]) == sorted(
        [q for q in BANK if q.topic == "normalization"], key=lambda q: q.id)


def test_count_must_be_positive():
    with pytest.raises(ValueError, match="count"):
        plan(BANK, seed=1, count=0)


def test_an_item_does_not_depend_on_earlier_draws():
    """Item i is made from (seed, i, id) alone: a template's variant at a position is stable."""
    items = plan(BANK, seed=9, count=20)
    for index, q in enumerate(items):
        if q.generator:
            template = next(t for t in BANK if t.id == q.id)
            assert instantiate(template, item_rng(9, index, q.id)) == q


def test_bad_template_raises_generation_error():
    bad = generated("ndcg-hand", "hand-computation", n=40)
    with pytest.raises(GenerationError, match="gen-ndcg-hand: n: must be at most 12"):
        plan([bad], seed=1, count=1)


def test_item_json_shapes():
    items = plan(BANK, seed=2, count=len(BANK))
    by_id = {q.id: item_json(q) for q in items}
    json.dumps(list(by_id.values()))
    hand = by_id["gen-ndcg-hand"]
    assert set(hand) >= {"id", "topic", "kind", "difficulty", "prompt", "params", "answer"}
    assert set(hand["params"]) == {"relevance", "judged", "k", "gain", "metric"}
    assert len(hand["params"]["judged"]) == len(hand["params"]["relevance"]) + 1
    assert set(hand["answer"]) == {"exact", "value"} and isinstance(hand["answer"]["value"], float)
    assert by_id["gen-swap-delta"]["params"]["swap"][0] < by_id["gen-swap-delta"]["params"]["swap"][1]
    assert by_id["fixed-3"]["answer"] == {"exact": "3/7", "value": pytest.approx(3 / 7)}
    assert "params" not in by_id["fixed-3"]
    choice = by_id["choice-1"]
    assert choice["correct"] == "a"
    assert choice["options"] == [{"letter": "a", "text": "yes", "correct": True},
                                 {"letter": "b", "text": "no", "correct": False}]
    concept = by_id["concept-1"]
    assert concept["model_answer"] == "Because." and concept["key_points"] == ["one", "two"]
    compare = by_id["gen-compare-rankings"]
    assert compare["kind"] == "choice" and compare["correct"] in "abc"


def test_item_json_problem_question_without_judged():
    q = Question(id="p", topic="hand-computation", kind="numeric", prompt="[2, 1, 3, 0]",
                 problem=Problem((2, 1, 3, 0), None, 2), metric="ndcg")
    data = item_json(q)
    assert data["params"] == {"relevance": [2, 1, 3, 0], "judged": [2, 1, 3, 0], "k": 2,
                              "gain": "exponential", "metric": "ndcg"}
    assert data["answer"]["value"] == pytest.approx(0.408300438)


def test_planning_imports_no_sympy_click_or_prompt_toolkit():
    code = (
        "import sys\n"
        "from drills.quiz.plan import plan\n"
        "from drills.model import Question\n"
        "bank = [Question(id=n, topic='hand-computation', kind='generated', prompt='t', generator=n)\n"
        "        for n in ('ndcg-hand', 'swap-delta', 'compare-rankings', 'binary-vs-graded',\n"
        "                  'single-relevant', 'ndcg-at-1-binary', 'gain-ratio', 'discount-at-rank',\n"
        "                  'edge-case')]\n"
        "items = plan(bank, seed=1, count=30)\n"
        "print(items[0].prompt)\n"
        "heavy = [m for m in ('sympy', 'click', 'prompt_toolkit', 'mpmath') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "from drills.quiz.plan import item_json\n"
        "[item_json(q) for q in items]\n"
        "assert 'sympy' not in sys.modules, 'item_json imported sympy'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


def test_fixed_choice_options_are_shuffled_by_seed_but_true_false_keeps_order():
    four = Question(id="c4", topic="conventions", kind="choice", prompt="?",
                    options=(Option("right", True), Option("w1"), Option("w2"), Option("w3")))
    tf = Question(id="tf", topic="conventions", kind="choice", prompt="?",
                  options=(Option("True", True), Option("False")))
    positions = set()
    for seed in range(40):
        (item,) = plan([four], seed=seed, count=1)
        assert sorted(o.text for o in item.options) == ["right", "w1", "w2", "w3"]
        positions.add([o.correct for o in item.options].index(True))
        assert plan([four], seed=seed, count=1) == [item]  # same seed, same order
        (kept,) = plan([tf], seed=seed, count=1)
        assert [o.text for o in kept.options] == ["True", "False"]
    assert positions == {0, 1, 2, 3}


def test_mock_plan_mixes_computation_why_and_conventions():
    items = mock_plan(BANK, seed=5, count=8)
    assert len(items) == 8 and mock_plan(BANK, seed=5, count=8) == items
    kinds = Counter("why" if q.kind == "concept" else "conv" if q.topic == "conventions" else "hand"
                    for q in items)
    # 8 = 4 hand computation + 2 why + 2 conventions; the one concept question is asked once,
    # so its missing share is topped up from the whole bank
    assert kinds["hand"] >= 4 and kinds["why"] == 1 and kinds["conv"] >= 2
    assert {q.id for q in items if q.kind != "generated" and q.generator is None} <= {q.id for q in BANK}


def test_weighted_plan_follows_the_weights():
    heavy = weighted_plan(BANK, seed=9, count=40, weights={"lambdarank": 9.0, "normalization": 1.0})
    topics = Counter(q.topic for q in heavy)
    assert set(topics) <= {"lambdarank", "normalization"}
    assert topics["lambdarank"] > 2 * topics["normalization"]
    assert heavy == weighted_plan(BANK, seed=9, count=40, weights={"normalization": 1.0, "lambdarank": 9.0})
    assert weighted_plan(BANK, seed=9, count=5, weights={}) == []


def test_instantiating_lives_with_the_generators_and_plan_uses_it():
    # drills.generators.instantiate draws a concrete question; packs (a scenario's check) and
    # the planner both use it, so packs need not import the quiz
    import drills.generators.instantiate as drawn
    from drills.quiz import plan as plan_module

    assert (plan_module.instantiate, plan_module.item_rng, plan_module.GenerationError) == (
        drawn.instantiate, drawn.item_rng, drawn.GenerationError)
    assert instantiate is drawn.instantiate and GenerationError.__module__ == drawn.__name__


# --- the questions of the last sessions, and a first session (issue 23, points 5 and 6) ----------

FIXED_IDS = [q.id for q in BANK if q.kind != "generated"]  # 8 fixed questions


def test_recent_questions_come_last_and_only_once_the_others_run_out():
    recent = frozenset(FIXED_IDS[:5])
    for seed in range(20):
        items = plan(BANK, seed=seed, count=3, topics=("conventions", "ndcg-vs-mrr"), recent=recent)
        # conventions + ndcg-vs-mrr: fixed-0..5 and choice-1; 0..4 recent, so 2 are not
        assert [q.id for q in items][:2] and {q.id for q in items[:2]} == {"fixed-5", "choice-1"}
        assert items[2].id in recent  # the pool ran out: one comes back
        again = plan(list(reversed(BANK)), seed=seed, count=3, topics=("conventions", "ndcg-vs-mrr"),
                     recent=set(recent))
        assert again == items  # the same seed and recent set: the same plan, any load order
    # the whole bank asked: the same questions, the recent ones last
    whole = plan(BANK, seed=4, count=len(BANK), recent=recent)
    assert sorted(q.id for q in whole) == sorted(q.id for q in BANK)
    assert {q.id for q in whole[-5:]} == recent


def test_a_mock_leaves_recent_questions_for_later():
    recent = frozenset(FIXED_IDS[:4])
    for seed in range(20):
        items = mock_plan(BANK, seed, 4, recent)
        ids = {q.id for q in items}
        fresh = {i for i in FIXED_IDS if i not in recent}
        assert not ids & recent or fresh <= ids  # recent only once the fresh ones are all in
        assert mock_plan(BANK, seed, 4, recent) == items


def test_weighted_plan_leaves_recent_questions_for_later():
    recent = frozenset(["fixed-0", "fixed-1", "fixed-2"])
    items = weighted_plan(BANK, seed=2, count=2, weights={"conventions": 1.0}, recent=recent)
    assert {q.id for q in items}.isdisjoint(recent)


LEVELS = [fixed(100 + i, "mixed", d) for i, d in enumerate(["hard"] * 6 + ["medium"] * 6 + ["easy"] * 4)]


@pytest.mark.parametrize("seed", range(10))
def test_a_first_session_plan_is_half_easy_and_starts_easy(seed):
    items = plan(LEVELS, seed=seed, count=6, easy_first=True)
    levels = [q.difficulty for q in items]
    assert levels[:3] == ["easy"] * 3  # half of 6, from the 4 easy questions
    rank = {"easy": 0, "medium": 1, "hard": 2}
    assert [rank[d] for d in levels] == sorted(rank[d] for d in levels)
    assert plan(LEVELS, seed=seed, count=6, easy_first=True) == items  # reproducible (resume)
    short = plan(LEVELS, seed=seed, count=10, easy_first=True)
    assert [q.difficulty for q in short][:4] == ["easy"] * 4  # only 4 easy: all of them first


def test_repeated_counts_the_recent_items_of_a_plan():
    from drills.quiz.plan import repeated

    items = plan(BANK, seed=1, count=8, topics=("conventions",))
    assert repeated(items, frozenset()) == 0
    assert repeated(items, frozenset(["fixed-0", "fixed-3", "gen-ndcg-hand", "nope"])) == 2
