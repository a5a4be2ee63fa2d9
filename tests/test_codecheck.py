"""The coding round's grading, without processes: hidden cases, expected values from the
engine, per-case verdicts and the slip named by matching outputs across all cases.

The learner's "functions" here are plain Python run in-process by a fake runner (the real
runner, a separate process, has its own tests); expected values come from
tests/ndcg_reference.py and tests/metrics_reference.py, not from the engine.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from drills.coding.grade import check_code, outcome_of
from drills.coding.task import CodeTask, TaskError, hidden_cases, problem_for
from drills.engine.metrics.registry import metric_value
from drills.grading.check import explain
from drills.model import Question

from . import metrics_reference as mref
from . import ndcg_reference as ref

EDGES = ("k_past_end", "k_one", "all_zero", "single", "ties", "long")


def question(task: CodeTask, qid: str = "coding.test", function: str = "f") -> Question:
    return Question(id=qid, topic="coding", kind="code", prompt="p", function=function,
                    signature=f"def {function}(...)", task=task)


def fake_run(fn):
    """Run ``fn`` in-process on every call, as the runner would report it."""
    def run(source, function, calls):
        cases = []
        for call in calls:
            try:
                cases.append(SimpleNamespace(value=float(fn(*call)), error=None))
            except Exception as exc:  # noqa: BLE001 - what the runner reports
                cases.append(SimpleNamespace(value=None, error=f"{type(exc).__name__}: {exc}"))
        return SimpleNamespace(status="ok", message="", cases=cases, output="", seconds=0.0)
    return run


NDCG = CodeTask("ndcg", ("relevance", "k"), include=EDGES, cases=40)


def ndcg_at_k(rel, k):
    return ref.ndcg(rel, None, min(k, len(rel)))


def test_hidden_cases_are_deterministic_and_hold_the_edges():
    a, b = hidden_cases(NDCG, "coding.x"), hidden_cases(NDCG, "coding.x")
    assert a == b and len(a) == 40
    assert hidden_cases(NDCG, "coding.y") != a
    assert [c.edge for c in a[: len(EDGES)]] == list(EDGES)
    by_edge = {c.edge: c.call for c in a if c.edge}
    assert by_edge["k_past_end"][1] > len(by_edge["k_past_end"][0])
    assert by_edge["k_one"][1] == 1 and not any(by_edge["all_zero"][0])
    assert len(by_edge["single"][0]) == 1 and len(by_edge["long"][0]) == 500


def test_a_correct_function_passes_every_case():
    result = check_code(question(NDCG), "", fake_run(ndcg_at_k))
    assert result.verdict == "correct" and result.failed == 0 and result.passed == 40
    assert result.misconceptions == ()


@pytest.mark.parametrize("fn,slip", [
    (lambda rel, k: ref.ndcg(rel, None, min(k, len(rel)), "linear"), "linear_gain"),
    (lambda rel, k: _log2_rank(rel, k), "log2_rank"),
])
def test_a_slip_is_named_when_it_explains_every_returned_number(fn, slip):
    result = check_code(question(NDCG), "", fake_run(fn))
    assert result.verdict == "wrong"
    assert slip in result.misconceptions


def _log2_rank(rel, k):
    def dcg(r):
        return sum((2**g - 1) / (math.log2(i) if i > 1 else 1) for i, g in enumerate(r[:k], start=1))
    ideal = dcg(sorted(rel, reverse=True))
    return 0.0 if ideal == 0 else dcg(rel) / ideal


def test_ideal_from_the_ranking_when_a_judged_pool_is_given():
    task = CodeTask("ndcg", ("relevance", "judged", "k"), include=("judged_larger",), cases=30)

    def wrong(rel, judged, k):
        return ref.ndcg(rel, None, min(k, len(rel)))  # the pool ignored
    result = check_code(question(task), "", fake_run(wrong))
    assert result.verdict == "wrong" and "ideal_from_retrieved" in result.misconceptions
    right = check_code(question(task), "", fake_run(lambda rel, judged, k: _ndcg_pool(rel, judged, k)))
    assert right.verdict == "correct"


def _ndcg_pool(rel, judged, k):
    ideal = ref.dcg(sorted(judged, reverse=True), k)
    return 0.0 if ideal == 0 else ref.dcg(rel, k) / ideal


def test_a_division_by_zero_on_the_all_zero_case_is_named():
    def crashes(rel, k):
        return ref.dcg(rel, k) / ref.idcg(rel, None, k)
    result = check_code(question(NDCG), "", fake_run(crashes))
    assert result.verdict == "wrong" and result.failed == 1
    assert result.misconceptions == ()  # the other cases are right: no formula slip
    note = result.explanations[0]
    assert note.startswith("ZeroDivisionError") and "every grade is 0" in note and "IDCG = 0" in note
    text = explain(outcome_of(question(NDCG), "", result))
    assert "First failed case: relevance=[0" in text and "The first failed case, worked:" in text


def test_no_slip_is_named_for_an_unrelated_error():
    result = check_code(question(NDCG), "", fake_run(lambda rel, k: 0.5))
    assert result.verdict == "wrong" and result.misconceptions == ()


def test_average_precision_contract_roles():
    task = CodeTask("ap", ("relevance", "num_relevant"), top_grade=1, include=("judged_larger",))
    for case in hidden_cases(task, "coding.average-precision"):
        rel, big_r = case.call
        assert metric_value(problem_for(task, case.call), "ap").value == pytest.approx(
            float(mref.ap(rel, judged=list(rel) + [1] * (big_r - sum(rel)))))

    def over_retrieved(rel, big_r):
        hits = sum(rel)
        return 0.0 if hits == 0 else float(sum(mref.precision(rel, i) for i, g in enumerate(rel, 1) if g) / hits)
    result = check_code(question(task), "", fake_run(over_retrieved))
    assert "ap_over_retrieved" in result.misconceptions


def test_runner_failures_are_error_or_timeout_with_cases_so_far():
    def stops(status):
        def run(source, function, calls):
            done = [SimpleNamespace(value=ndcg_at_k(*c), error=None) for c in calls[:3]]
            return SimpleNamespace(status=status, message=f"{status} on case 4", cases=done,
                                   output="", seconds=1.0)
        return run
    timed = check_code(question(NDCG), "", stops("timeout"))
    assert timed.verdict == "timeout" and timed.passed == 3 and timed.message == "timeout on case 4"
    assert [c.error for c in timed.cases[3:5]] == ["not run", "not run"]
    assert check_code(question(NDCG), "", stops("memory")).verdict == "error"
    assert check_code(question(NDCG), "", stops("syntax")).to_json()["verdict"] == "error"


@pytest.mark.parametrize("task,message", [
    (CodeTask("ndcg", ("relevance", "kk")), "unknown argument role"),
    (CodeTask("map", ("relevance",)), "take `queries`"),
    (CodeTask("ndcg", ("queries",)), "takes `relevance`"),
    (CodeTask("delta_ndcg", ("relevance",)), "delta_ndcg takes"),
    (CodeTask("precision", ("relevance",)), "needs `k`"),
    (CodeTask("ndcg", ("relevance",), include=("nope",)), "unknown edge case"),
    (CodeTask("ndcg", ("relevance",), cases=0), "cases must be"),
])
def test_bad_tasks_are_named(task, message):
    with pytest.raises(TaskError, match=message):
        task.check()


def test_json_shape_is_the_public_contract():
    data = check_code(question(NDCG), "", fake_run(lambda rel, k: 0.5)).to_json()
    assert set(data) >= {"passed", "failed", "cases", "misconceptions", "verdict"}
    case = data["cases"][0]
    assert set(case) == {"input", "expected", "got", "ok", "error"}
    assert set(case["input"]) == {"relevance", "k"} and set(case["expected"]) == {"exact", "value"}


def test_lint_reports_a_code_case_the_engine_cannot_compute():
    from drills.authoring.lint import lint_questions

    task = CodeTask("err", ("relevance", "k"), max_grade=1, top_grade=3, cases=5)
    report = lint_questions([question(task, "coding.err-bad")], seeds=1)
    assert any("has no engine value" in e and "above the top grade" in e for e in report.errors), report


def test_every_case_raising_zero_division_is_the_log2_rank_slip():
    def crashes(rel, k):
        return sum((2**g - 1) / math.log2(i) for i, g in enumerate(rel[:k], start=1))
    result = check_code(question(NDCG), "", fake_run(crashes))
    assert result.misconceptions == ("log2_rank",)
    assert any("log2(1) = 0" in note for note in result.explanations)


def test_a_signature_must_show_the_function(tmp_path):
    from drills.packs import load_pack

    path = tmp_path / "p.yaml"
    path.write_text('pack:\n  name: p\n  version: "1"\nquestions:\n  - id: q\n    topic: coding\n'
                    '    kind: code\n    prompt: "p"\n    function: f\n'
                    '    signature: "def g(relevance, k):"\n'
                    '    task: {metric: ndcg, args: [relevance, k]}\n', encoding="utf-8")
    errors = [str(e) for e in load_pack(path).errors]
    assert any("should show the function f(...)" in e for e in errors), errors
