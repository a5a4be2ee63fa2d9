"""The built-in `coding` pack (questions/coding.yaml): its shape, its two public contracts,
and learner files graded by the real runner.

tests/coding_solutions/correct/ holds one solution per code question, written from the
prompts' definitions (no drills imports): each must pass every visible and hidden case.
tests/coding_solutions/buggy/ holds classic wrong versions: each must be graded wrong and
named by its slip. Every find-the-bug snippet is run too, so that what its prompt, options
and explanation claim it does is what it does. One runner process per check.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from drills.coding.grade import check_code
from drills.engine.metrics.registry import metric_value
from drills.engine.problem import Problem
from drills.packs import load_pack, validate_paths
from drills.runner import run_function
from tests.test_bank import context_dependence

ROOT = Path(__file__).resolve().parent.parent
PACK_FILE = ROOT / "questions" / "coding.yaml"
SOLUTIONS = Path(__file__).resolve().parent / "coding_solutions"

PACK = load_pack(PACK_FILE)
BY_ID = {q.id: q for q in PACK.questions}
CODE = [q for q in PACK.questions if q.kind == "code"]
SNIPPETS = [q for q in PACK.questions if q.code]


def _qid(q) -> str:
    return q.id


# --------------------------------------------------------------------------- the pack

def test_the_pack_validates_with_enough_questions():
    assert PACK.errors == [] and validate_paths([PACK_FILE]) == []
    assert PACK.meta.name == "coding"
    assert len(CODE) >= 14
    assert len(SNIPPETS) >= 6 and all(q.kind == "choice" for q in SNIPPETS)
    assert all(q.topic == "coding" and q.id.startswith("coding.") for q in PACK.questions)
    assert len({q.function for q in CODE}) == len(CODE), "one function name per code question"


def test_the_public_contracts_are_spelled_exactly():
    ndcg = BY_ID["coding.ndcg-at-k"]
    assert (ndcg.kind, ndcg.function) == ("code", "ndcg_at_k")
    assert ndcg.signature == "def ndcg_at_k(relevance: list[int], k: int) -> float:"
    assert (ndcg.task.metric, ndcg.task.args, ndcg.task.gain) == ("ndcg", ("relevance", "k"),
                                                                   "exponential")
    ap = BY_ID["coding.average-precision"]
    assert (ap.kind, ap.function) == ("code", "average_precision")
    assert ap.signature == "def average_precision(relevance: list[int], num_relevant: int) -> float:"
    assert (ap.task.metric, ap.task.args, ap.task.denominator) == ("ap", ("relevance", "num_relevant"),
                                                                    "R")
    assert ap.task.top_grade == 1, "AP's hidden cases are binary"


@pytest.mark.parametrize("q", PACK.questions, ids=_qid)
def test_every_question_is_explained_and_self_contained(q):
    assert q.explanation.strip() and q.hints
    assert not [t for t in (q.prompt, *q.hints) if context_dependence(t)]
    if q.kind == "choice":
        assert 3 <= len(q.options) <= 5 and sum(o.correct for o in q.options) == 1
        assert all(o.explanation and o.explanation.strip() for o in q.options)
        lines = len(q.code.rstrip("\n").splitlines())
        named = [int(n) for o in q.options for n in re.findall(r"^Line (\d+)", o.text)]
        assert all(1 <= n <= lines for n in named), (named, lines)


# --------------------------------------------------------------------------- learner files

def _check(q, path: Path):
    return check_code(q, path.read_text(encoding="utf-8"), run_function)


def test_every_code_question_has_a_reference_solution():
    files = {p.stem for p in (SOLUTIONS / "correct").glob("*.py")}
    assert files == {q.function for q in CODE}


@pytest.mark.parametrize("q", CODE, ids=_qid)
def test_a_correct_solution_passes_every_case(q):
    result = _check(q, SOLUTIONS / "correct" / f"{q.function}.py")
    failed = result.first_failure
    assert result.verdict == "correct", (result.message, failed)
    assert len(result.cases) == len(q.task.examples) + q.task.cases
    assert result.misconceptions == ()


@pytest.mark.parametrize(("name", "qid", "slip"), [
    ("linear_gain", "coding.ndcg-at-k", "linear_gain"),
    ("log2_rank", "coding.ndcg-at-k", "log2_rank"),
    ("ideal_from_retrieved", "coding.ndcg-judged-pool", "ideal_from_retrieved"),
    ("ap_over_retrieved", "coding.average-precision", "ap_over_retrieved"),
    ("mrr_skips_misses", "coding.mrr", "mrr_skips_misses"),
])
def test_a_buggy_solution_is_wrong_and_named(name, qid, slip):
    result = _check(BY_ID[qid], SOLUTIONS / "buggy" / f"{name}.py")
    assert result.verdict == "wrong"
    assert 0 < result.passed < len(result.cases)  # right where the slip changes nothing
    assert slip in result.misconceptions, (result.misconceptions, result.explanations)


def test_dividing_by_zero_on_an_all_zero_list_is_told_so():
    result = _check(BY_ID["coding.ndcg-at-k"], SOLUTIONS / "buggy" / "zero_division.py")
    assert result.verdict == "wrong" and result.failed == 1
    assert result.first_failure.edge == "all_zero"
    assert result.first_failure.expected is not None and result.first_failure.expected.value == 0
    note = " ".join(result.explanations)
    assert "ZeroDivisionError" in note and "every grade is 0" in note


def test_the_literal_log2_i_fails_every_case_with_zero_division():
    # log2(1) = 0: no number comes back, so there is nothing to match a slip against
    result = _check(BY_ID["coding.ndcg-at-k"], SOLUTIONS / "buggy" / "log2_rank_crash.py")
    assert result.verdict == "wrong" and result.passed == 0
    assert "ZeroDivisionError" in " ".join(result.explanations)


# --------------------------------------------------------------------------- the snippets

def _ndcg(relevance, k):
    return metric_value(Problem(tuple(relevance), None, k), "ndcg").value


# Per snippet: calls, and what each must give: a number, or the exception's name.
CLAIMS = {
    "coding.bug-log2-rank": [(([3, 2, 1], 3), "ZeroDivisionError"), (([0], 1), "ZeroDivisionError")],
    "coding.bug-unsorted-ideal": [(([3, 0], [0, 3], 2), math.log2(3))],  # above 1
    "coding.bug-ideal-from-retrieved": [(([1, 3, 0, 2], [3, 2, 2, 1, 0], 3), 0.576667),
                                        (([3, 0], [3, 3, 0], 2), 1.0)],
    "coding.bug-zero-division": [(([0, 0, 0], 2), "ZeroDivisionError"), (([3, 2, 1], 10), 1.0),
                                 (([0, 0, 3], 1), 0.0), (([1], 1), 1.0)],
    "coding.bug-k-past-end": [(([3, 1], 5), "ValueError"), (([3, 1], 2), 1.0),
                              (([1, 3], 2), _ndcg([1, 3], 2))],
    "coding.bug-ap-over-retrieved": [(([1, 0, 1, 0, 0, 1], 4), 13 / 18),
                                     (([1, 0, 1, 0, 0, 1], 3), 13 / 18)],  # right when R = hits
    "coding.bug-mrr-skips-misses": [(([[0, 0, 1], [1], [0, 0], [0, 1]],), 11 / 18),
                                    (([[0], [0, 0]],), "ZeroDivisionError")],
    "coding.bug-ideal-alias": [(([0, 1, 3], 3), 1.0)],
}


def test_every_snippet_has_its_claims():
    assert set(CLAIMS) == {q.id for q in SNIPPETS}


@pytest.mark.parametrize("q", SNIPPETS, ids=_qid)
def test_a_snippet_does_what_its_question_says(q):
    function = re.findall(r"^def (\w+)\(", q.code, re.M)[-1]  # the last: the asked one
    calls = [list(call) for call, _ in CLAIMS[q.id]]
    result = run_function(q.code, function, calls)
    assert result.status == "ok", result.message
    for (call, want), got in zip(CLAIMS[q.id], result.cases, strict=True):
        if isinstance(want, str):
            assert got.error is not None and got.error.startswith(want), (call, got)
        else:
            assert got.error is None and got.value == pytest.approx(want, abs=5e-7), (call, got)


def test_the_numbers_quoted_in_the_pack():
    assert _ndcg([0, 1, 3], 3) == pytest.approx(0.5413, abs=5e-5)  # bug-ideal-alias's option
    pool = Problem((1, 3, 0, 2), (3, 2, 2, 1, 0), 3)
    assert metric_value(pool, "ndcg").value == pytest.approx(0.5212, abs=5e-5)
    b = (1, 0, 1, 0, 0, 1)
    assert metric_value(Problem(b, (1, 1, 1, 1), None), "ap").value == pytest.approx(13 / 24)
    assert metric_value(Problem(b, (1, 1, 1, 1), 3, convention="min_k_R"), "ap").value == \
        pytest.approx(5 / 9)
    mrr = Problem((0, 0, 1), queries=tuple(Problem(q) for q in [(0, 0, 1), (1,), (0, 0), (0, 1)]))
    assert metric_value(mrr, "mrr").value == pytest.approx(11 / 24)


def test_the_readme_says_how_many_cases_a_check_runs(tmp_path):
    """Issue 23: the README said 50 hidden cases while every check ran 42."""
    import re
    from pathlib import Path

    from click.testing import CliRunner

    from drills.cli import cli

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    said = re.search(r"run on (\d+) cases \((\d+) shown, (\d+) hidden\)", readme)
    assert said is not None
    total, shown, hidden = map(int, said.groups())
    assert shown + hidden == total
    solution = tmp_path / "ndcg.py"
    solution.write_text("def ndcg_at_k(relevance, k):\n    return 0.5\n", encoding="utf-8")
    res = CliRunner().invoke(cli, ["code", "check", str(solution), "--question", "coding.ndcg-at-k"])
    assert f"of {total} cases passed" in res.output, res.output
