"""The scenario generators (drills.generators.scenarios): one drawn ranking, a chain of steps.

Every expected value here comes from tests/ndcg_reference.py and tests/metrics_reference.py,
computed from the drawn ranking in the scenario's params and what each step says it changes,
never from the engine's own output.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from drills.engine.metrics.registry import metric_value
from drills.generators import REGISTRY
from drills.generators.drawing import conventions, grades_text
from drills.generators.instantiate import instantiate, item_rng
from drills.grading.check import check
from drills.grading.scenario import CONSISTENT, carry
from drills.model import TOPICS, Question, Source, Tolerance

from . import metrics_reference as mref
from . import ndcg_reference as ref

NAMES = ("ndcg-chain", "binary-graded-chain", "lambdarank-swap-chain", "ndcg-vs-mrr-chain")
CONFIGS = [
    ("ndcg-chain", {}), ("ndcg-chain", {"k": "random", "unretrieved": 2, "n": 6}),
    ("ndcg-chain", {"follow_up": "k", "gain": "linear"}), ("ndcg-chain", {"follow_up": "gain", "k": None}),
    ("binary-graded-chain", {}), ("binary-graded-chain", {"k": "random", "n": 6, "gain": "linear"}),
    ("binary-graded-chain", {"k": None, "max_rel": 2, "n": 4}),
    ("lambdarank-swap-chain", {}), ("lambdarank-swap-chain", {"k": "random", "n": 6}),
    ("lambdarank-swap-chain", {"k": None, "gain": "linear", "n": 4, "max_rel": 2}),
    ("ndcg-vs-mrr-chain", {}), ("ndcg-vs-mrr-chain", {"k": 4, "n": 6}),
    ("ndcg-vs-mrr-chain", {"n": 4, "max_rel": 2, "gain": "linear"}),
]


def template(name: str, params: dict | None = None) -> Question:
    return Question(id=f"scen-{name}", topic=REGISTRY[name].topic, kind="scenario", prompt="title",
                    difficulty="hard", pack="test-pack", source=Source("pack.yaml", 3), generator=name,
                    params=params or {})


def draw(name: str, seed: int, params: dict | None = None) -> Question:
    return instantiate(template(name, params), item_rng(seed, 0, f"scen-{name}"))


def steps(q: Question) -> dict[str, Question]:
    return {s.part.name: s for s in q.steps}


def engine(step: Question) -> float:
    return metric_value(step.problem, step.metric).value


def other_gain(gain: str) -> str:
    return "linear" if gain == "exponential" else "exponential"


def swapped(grades: list[int], i: int, j: int) -> list[int]:
    out = list(grades)
    out[i - 1], out[j - 1] = out[j - 1], out[i - 1]
    return out


# ------------------------------------------------------------- the independent expectations
def expected(q: Question) -> dict[str, float]:
    """Each numeric step's value from the references, by step name."""
    p = q.params
    rel, judged, k, gain = p["relevance"], p["judged"], p["k"], p["gain"]
    if q.generator == "ndcg-chain":
        change = p["follow_up_change"]
        follow = (ref.ndcg(rel, judged, change["k"], gain) if "k" in change
                  else ref.ndcg(rel, judged, k, change["gain"]))
        name = "ndcg_k" if "k" in change else f"ndcg_{change['gain']}"
        return {"dcg": ref.dcg(rel, k, gain), "idcg": ref.idcg(rel, judged, k, gain),
                "ndcg": ref.ndcg(rel, judged, k, gain), name: follow}
    if q.generator == "binary-graded-chain":
        binary = mref.binary(rel)
        return {"ndcg": ref.ndcg(rel, None, k, gain), "idcg_binary": ref.idcg(binary, None, k, gain),
                "ndcg_binary": ref.ndcg(binary, None, k, gain)}
    if q.generator == "lambdarank-swap-chain":
        after = swapped(rel, *p["swap"])
        return {"idcg": ref.idcg(rel, None, k, gain), "ndcg": ref.ndcg(rel, None, k, gain),
                "delta": abs(ref.ndcg(after, rel, k, gain) - ref.ndcg(rel, None, k, gain)),
                "ndcg_swapped": ref.ndcg(after, rel, k, gain)}
    assert q.generator == "ndcg-vs-mrr-chain"
    return {"ndcg": ref.ndcg(rel, None, k, gain), "rr": float(mref.rr(rel, k)), "ap": float(mref.ap(rel, k))}


# ----------------------------------------------------------------------------- the registry
@pytest.mark.parametrize("name", NAMES)
def test_registered_as_scenario_generators(name):
    gen = REGISTRY[name]
    assert gen.kind == "scenario" and gen.topic in TOPICS and gen.summary
    assert gen.validate(gen.resolved({})) == []


@pytest.mark.parametrize("name, params", CONFIGS)
def test_configs_validate(name, params):
    assert REGISTRY[name].validate(params) == []


@pytest.mark.parametrize("name, params", [("ndcg-chain", {"n": 3}), ("ndcg-chain", {"max_rel": 4}),
                                          ("ndcg-chain", {"follow_up": "swap"}),
                                          ("ndcg-vs-mrr-chain", {"k": 3}), ("ndcg-vs-mrr-chain", {"k": "random"})])
def test_out_of_range_params_are_refused(name, params):
    assert REGISTRY[name].validate(params) != []


# ---------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("name, params", CONFIGS)
def test_same_seed_same_scenario(name, params):
    for seed in range(5):
        assert draw(name, seed, params) == draw(name, seed, params)
    small = params.get("n") == 4  # four documents allow only a handful of draws
    assert len({draw(name, seed, params).prompt for seed in range(20)}) > (3 if small else 10)


# ---------------------------------------------------------------------- order, uses, changes
SHAPES = {
    "ndcg-chain": [("dcg", "numeric", "dcg", ()), ("idcg", "numeric", "idcg", ()),
                   ("ndcg", "numeric", "ndcg", ("dcg", "idcg")), (None, "numeric", "ndcg", ()),
                   ("why_idcg", "concept", None, ())],
    "binary-graded-chain": [("ndcg", "numeric", "ndcg", ()), ("idcg_binary", "numeric", "idcg", ()),
                            ("ndcg_binary", "numeric", "ndcg", ("idcg_binary",)),
                            ("direction", "choice", None, ()), ("what_is_lost", "concept", None, ())],
    "lambdarank-swap-chain": [("idcg", "numeric", "idcg", ()), ("ndcg", "numeric", "ndcg", ("idcg",)),
                              ("delta", "numeric", "delta_ndcg", ("idcg",)),
                              ("ndcg_swapped", "numeric", "ndcg", ("idcg",)), ("why_lambda", "concept", None, ())],
    "ndcg-vs-mrr-chain": [("ndcg", "numeric", "ndcg", ()), ("rr", "numeric", "rr", ()),
                          ("ap", "numeric", "ap", ()), ("unchanged", "choice", None, ()),
                          ("what_rr_ignores", "concept", None, ())],
}


@pytest.mark.parametrize("name, params", CONFIGS)
def test_step_order_uses_and_changes(name, params):
    for seed in range(10):
        q = draw(name, seed, params)
        assert q.kind == "scenario" and q.generator == name and q.id == f"scen-{name}"
        shape = [(s.part.name, s.kind, s.metric, s.part.uses) for s in q.steps]
        want = SHAPES[name]
        assert [(n or shape[i][0], *rest) for i, (n, *rest) in enumerate(want)] == shape
        assert [s.part.step for s in q.steps] == list(range(1, len(want) + 1))
        assert all(s.part.of == len(want) and s.part.setup == q.prompt for s in q.steps)
        assert all(s.topic in TOPICS and s.difficulty == "hard" for s in q.steps)
        assert all(s.id == f"scen-{name}#{n}" for n, s in enumerate(q.steps, 1))
        json.dumps(q.params)
        changes = {s.part.name: dict(s.part.change) for s in q.steps}
        p = q.params
        if name == "ndcg-chain":
            assert changes[q.steps[3].part.name] == p["follow_up_change"] and len(p["follow_up_change"]) == 1
            assert q.steps[3].part.name == ("ndcg_k" if "k" in p["follow_up_change"] else f"ndcg_{p['follow_up_change']['gain']}")
        if name == "binary-graded-chain":
            assert changes["idcg_binary"] == changes["ndcg_binary"] == {"binarise": True}
        if name == "lambdarank-swap-chain":
            i, j = p["swap"]
            assert changes["delta"] == changes["ndcg_swapped"] == {"swap": (i, j)}
            assert i < j and p["relevance"][i - 1] != p["relevance"][j - 1]
            assert q.steps[2].problem.swap == (i, j) and q.steps[3].problem.relevance == tuple(
                swapped(p["relevance"], i, j))


# ------------------------------------------------------------------ answers vs the references
@pytest.mark.parametrize("name, params", CONFIGS)
def test_numeric_answers_agree_with_the_references(name, params):
    for seed in range(25):
        q = draw(name, seed, params)
        want = expected(q)
        numeric = [s for s in q.steps if s.kind == "numeric"]
        assert {s.part.name for s in numeric} == set(want)
        for s in numeric:
            assert engine(s) == pytest.approx(want[s.part.name], rel=1e-9, abs=1e-12), (seed, s.part.name)
            assert check(s, f"{want[s.part.name]:.8f}").verdict == "correct"


@pytest.mark.parametrize("name, params", [c for c in CONFIGS if c[0] == "binary-graded-chain"])
def test_binarising_direction_agrees_with_the_references(name, params):
    for seed in range(40):
        q = draw(name, seed, params)
        rel, k, gain = q.params["relevance"], q.params["k"], q.params["gain"]
        graded, binary = ref.ndcg(rel, None, k, gain), ref.ndcg(mref.binary(rel), None, k, gain)
        choice = steps(q)["direction"]
        right = [o for o in choice.options if o.correct]
        assert len(right) == 1 and len(choice.options) == 3
        word = "raises" if binary > graded + 1e-9 else "lowers" if binary < graded - 1e-9 else "unchanged"
        assert word in right[0].text, (seed, rel, graded, binary)
        assert all(o.explanation.startswith(("Right: graded", "Not here: graded")) for o in choice.options)


@pytest.mark.parametrize("name, params", [c for c in CONFIGS if c[0] == "ndcg-vs-mrr-chain"])
def test_the_metric_a_reordering_leaves_alone_agrees_with_the_references(name, params):
    for seed in range(40):
        q = draw(name, seed, params)
        p = q.params
        rel, new, k, first = p["relevance"], p["reordered"], p["k"], p["first_relevant"]
        assert new[:first] == rel[:first] and sorted(new) == sorted(rel) and new != rel
        assert all(g == 0 for g in rel[:first - 1]) and rel[first - 1] > 0
        values = {
            "NDCG": (ref.ndcg(rel, None, k, p["gain"]), ref.ndcg(new, None, k, p["gain"])),
            "RR": (float(mref.rr(rel, k)), float(mref.rr(new, k))),
            "AP": (float(mref.ap(rel, k)), float(mref.ap(new, k))),
        }
        same = [m for m, (a, b) in values.items() if abs(a - b) < 1e-12]
        choice = steps(q)["unchanged"]
        right = [o for o in choice.options if o.correct]
        assert same == ["RR"] and len(right) == 1 and right[0].text.startswith("RR")
        assert grades_text(new) in choice.prompt and len(choice.options) == 4


# ---------------------------------------------------------------------- what the learner sees
@pytest.mark.parametrize("name, params", CONFIGS)
def test_setup_and_prompts_say_what_changes(name, params):
    for seed in range(10):
        q = draw(name, seed, params)
        p, by = q.params, steps(q)
        assert grades_text(p["relevance"]) in q.prompt and conventions(p["gain"]) in q.prompt
        assert (f"k = {p['k']}" in q.prompt) if p["k"] is not None else ("No cut-off" in q.prompt)
        if p["judged"] is not None:
            assert f"judged pool is {grades_text(p['judged'])}" in q.prompt
        else:
            assert "The judged pool is the list itself." in q.prompt
        for s in q.steps:  # each step asks one thing (a concept step may ask why, then what if)
            assert s.prompt.endswith("?") and (s.prompt.count("?") == 1 or s.kind == "concept")
            if s.kind == "concept":
                assert s.model_answer and len(s.key_points) >= 3
            else:
                assert s.hints and s.explanation
        follow_ups = [s for s in q.steps if s.part.change]  # NDCG vs MRR: one problem, no change
        assert bool(follow_ups) == (name != "ndcg-vs-mrr-chain")
        assert all(s.prompt.startswith(("Now", "So", "LambdaRank")) for s in follow_ups)
        if name == "ndcg-chain":
            change = p["follow_up_change"]
            text = q.steps[3].prompt
            assert (f"k = {change['k']}" in text and f"NDCG@{change['k']}" in text) if "k" in change else (
                f"{change['gain']} gain" in text)
        if name == "binary-graded-chain":
            binary = grades_text(mref.binary(p["relevance"]))
            assert "binarise" in by["idcg_binary"].prompt and binary in by["idcg_binary"].prompt
            assert binary in by["ndcg_binary"].prompt
        if name == "lambdarank-swap-chain":
            i, j = p["swap"]
            assert f"ranks {i} and {j}" in by["delta"].prompt
            assert grades_text(swapped(p["relevance"], i, j)) in by["ndcg_swapped"].prompt


def test_prompts_pass_the_linters_prompt_checks():
    """Setup + step prompt: the @k named is the step's own k, and the ranked list is shown."""
    from drills.authoring.lint import _lists_in_prompt
    from drills.authoring.slip_lint import prompt_errors

    for name, params in CONFIGS:
        for seed in range(10):
            q = draw(name, seed, params)
            for s in q.steps:
                if s.kind == "numeric":
                    whole = replace(s, prompt=f"{q.prompt}\n{s.prompt}")
                    assert prompt_errors(whole) == [] and _lists_in_prompt(whole), (name, seed, s.part.name)


# ------------------------------------------------------------------- no degenerate draws
@pytest.mark.parametrize("name", NAMES)
def test_three_hundred_seeds_build_and_are_not_degenerate(name):
    tol = Tolerance()
    for seed in range(300):
        q = draw(name, seed)
        values = {s.part.name: (s.metric, engine(s)) for s in q.steps if s.kind == "numeric"}
        for step, (metric, v) in values.items():
            if metric in ("ndcg", "rr", "ap"):
                assert 0 < v < 1 - 1e-9, (seed, step, v)
            if metric == "idcg":
                assert v > 0
            if metric == "delta_ndcg":
                assert v >= 4 * tol.allowed(v), (seed, v)
        # each follow-up asks for a number the learner could not copy from the step before
        if name == "ndcg-chain":
            follow = q.steps[3].part.name
            assert abs(values[follow][1] - values["ndcg"][1]) > 2 * tol.allowed(values["ndcg"][1])
        if name == "binary-graded-chain":
            assert abs(values["ndcg_binary"][1] - values["ndcg"][1]) > 2 * tol.allowed(values["ndcg"][1])
        assert sum(o.correct for s in q.steps if s.kind == "choice" for o in s.options) == sum(
            s.kind == "choice" for s in q.steps)


# ------------------------------------------------------------------------ carry-forward
def grader(q: Question):
    """Grade a step of ``q`` as the session does: check, then carry-forward from the learner's numbers
    (``learner``: their answers by step name; ``missed``: the step number of each earlier miss)."""
    by = steps(q)

    def grade(name: str, answer: float, learner: dict[str, float], missed: dict[str, int]):
        step = by[name]
        used = {u: by[u].metric for u in step.part.uses}
        return carry(check(step, f"{answer:.6f}"), step, learner, missed, used)

    return grade


def test_linear_gain_in_step_one_then_a_right_division_is_consistent():
    tried = 0
    for seed in range(30):
        q = draw("ndcg-chain", seed)
        grade = grader(q)
        p = q.params
        rel, judged, k = p["relevance"], p["judged"], p["k"]
        linear_dcg, idcg = ref.dcg(rel, k, "linear"), ref.idcg(rel, judged, k)
        one = grade("dcg", linear_dcg, {}, {})
        assert one.verdict == "wrong" and "linear_gain" in one.outcome.misconceptions, seed
        assert grade("idcg", idcg, {"dcg": linear_dcg}, {"dcg": 1}).verdict == "correct"
        three = grade("ndcg", linear_dcg / idcg, {"dcg": linear_dcg, "idcg": idcg}, {"dcg": 1})
        assert three.verdict == CONSISTENT and three.inherited, seed
        assert three.message.endswith("the slip was in step 1.")
        assert three.carried == pytest.approx(linear_dcg / idcg)
        # the right answer is still right, and a wrong division is still wrong
        right = ref.ndcg(rel, judged, k)
        assert grade("ndcg", right, {"dcg": linear_dcg, "idcg": idcg}, {"dcg": 1}).verdict == "correct"
        wrong = grade("ndcg", idcg / linear_dcg, {"dcg": linear_dcg, "idcg": idcg}, {"dcg": 1})
        assert wrong.verdict == "wrong"
        tried += 1
    assert tried == 30


def test_a_wrong_idcg_carries_into_ndcg_and_the_swap_delta():
    tol, tried = Tolerance(), 0
    for seed in range(30):
        q = draw("lambdarank-swap-chain", seed)
        grade = grader(q)
        p = q.params
        rel, k, gain = p["relevance"], p["k"], p["gain"]
        after = swapped(rel, *p["swap"])
        dcg, idcg = ref.dcg(rel, k, gain), ref.idcg(rel, None, k, gain)
        mine = dcg  # the slip: the ideal taken from the ranking's own order
        delta = abs(ref.dcg(after, k, gain) - dcg)
        if min(abs(delta / mine - delta / idcg), abs(1 - dcg / idcg)) < 3 * tol.allowed(1):
            continue  # the slip is too small to tell from the right answer
        one = grade("idcg", mine, {}, {})
        assert one.verdict == "wrong"
        two = grade("ndcg", dcg / mine, {"idcg": mine}, {"idcg": 1})
        assert two.verdict == CONSISTENT and two.carried == pytest.approx(1.0)
        three = grade("delta", delta / mine, {"idcg": mine}, {"idcg": 1})
        assert three.carried == pytest.approx(delta / mine)
        if delta / mine > 1:  # |delta NDCG| cannot exceed 1: the learner is told, not forgiven
            assert three.verdict == "wrong" and "lies between 0 and 1" in three.message, seed
        else:
            assert three.verdict == CONSISTENT and three.inherited, seed
        assert grade("delta", delta / idcg, {"idcg": mine}, {"idcg": 1}).verdict == "correct"
        tried += 1
    assert tried >= 20


def test_graded_labels_in_the_binary_ideal_carry_into_binary_ndcg():
    for seed in range(20):
        q = draw("binary-graded-chain", seed)
        grade = grader(q)
        rel, k, gain = q.params["relevance"], q.params["k"], q.params["gain"]
        binary = mref.binary(rel)
        graded_idcg, bdcg = ref.idcg(rel, None, k, gain), ref.dcg(binary, k, gain)
        one = grade("idcg_binary", graded_idcg, {}, {})
        assert one.verdict == "wrong" and "graded_labels" in one.outcome.misconceptions, seed
        two = grade("ndcg_binary", bdcg / graded_idcg, {"idcg_binary": graded_idcg}, {"idcg_binary": 2})
        assert two.verdict == CONSISTENT and "step 2" in two.message


# ------------------------------------------------------------------------------ the docs
DOCS = Path(__file__).resolve().parents[1] / "docs" / "generators.md"


def test_each_generator_and_param_is_documented():
    text = DOCS.read_text(encoding="utf-8")
    for name in NAMES:
        section = text.split(f"## {name}", 1)[1].split("\n## ", 1)[0]
        for param, spec in REGISTRY[name].params.items():
            assert f"| `{param}` | `{json.dumps(spec.default).strip(chr(34))}` |" in section, (name, param)


def test_documented_scenario_snippets_run():
    import re

    import yaml

    seen = set()
    for snippet in re.findall(r"```yaml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S):
        data = yaml.safe_load(snippet)
        for entry in data["questions"] if isinstance(data, dict) else data:
            if entry.get("kind") != "scenario":
                continue
            params = entry.get("params") or {}
            assert REGISTRY[entry["generator"]].validate(params) == [], entry["id"]
            q = Question(id=entry["id"], topic=entry["topic"], kind="scenario", prompt=entry["prompt"],
                         generator=entry["generator"], params=params)
            made = instantiate(q, item_rng(0, 0, q.id))
            assert made.steps and set(expected(made)) == {s.part.name for s in made.steps if s.kind == "numeric"}
            seen.add(entry["generator"])
    assert seen == set(NAMES)
