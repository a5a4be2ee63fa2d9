"""Issue 24, point 2: hidden cases cover every edge a code question promises.

Each edge is checked on the drawn call itself (R really 0, every grade really 0, k really
past every list), for every code question of the built-in packs; a small bad pack shows
`drills packs lint` naming what its hidden cases miss. Pure: no runner.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.coding.edges import edge_errors, exercises, promised_edges, unknown_promises
from drills.coding.task import EDGES, CodeTask, hidden_cases
from drills.model import Question
from drills.packs import load_pack

ROOT = Path(__file__).resolve().parent.parent
BUILT_IN = [q for path in sorted((ROOT / "questions").glob("*.yaml"))
            for q in load_pack(path).questions if q.kind == "code"]


def _qid(q) -> str:
    return q.id


def test_the_built_in_packs_have_code_questions():
    assert len(BUILT_IN) >= 16


@pytest.mark.parametrize("q", BUILT_IN, ids=_qid)
def test_every_promised_edge_is_exercised_by_a_hidden_case(q):
    assert edge_errors(q) == []
    cases = hidden_cases(q.task, q.id)
    for edge in promised_edges(q.task, q.prompt):
        assert any(exercises(q.task, c.call, edge) for c in cases), edge
    # every case drawn for an edge has it (the label is no proof, the call is)
    for case in cases:
        if case.edge:
            assert exercises(q.task, case.call, case.edge), (case.edge, case.call)


# The edges the issue lists, per question: R = 0 for recall, AP, R-precision, MAP; no hit for
# RR and MRR; every grade 0 for the NDCG family; k past the end and k = 1 wherever k is taken.
PROMISED = {
    "coding.recall-at-k": {"no_hit", "k_past_end", "k_one"},
    "coding.average-precision": {"no_hit"},
    "coding.ap-at-k": {"no_hit", "k_past_end", "k_one"},
    "coding.r-precision": {"no_hit"},
    "coding.map": {"no_hit"},
    "coding.reciprocal-rank": {"no_hit"},
    "coding.mrr": {"no_hit"},
    "coding.ndcg-at-k": {"all_zero", "k_past_end", "k_one"},
    "coding.ndcg-numpy": {"all_zero", "k_past_end", "k_one"},
    "coding.lambdarank-delta": {"all_zero"},
    "coding.precision-at-k": {"k_past_end", "k_one"},
}


@pytest.mark.parametrize("qid", sorted(PROMISED))
def test_the_prompt_alone_promises_the_issue_s_edges(qid):
    q = next(q for q in BUILT_IN if q.id == qid)
    bare = replace(q.task, include=())
    assert PROMISED[qid] <= set(promised_edges(bare, q.prompt))
    assert unknown_promises(bare, q.prompt) == []


def _r(task: CodeTask, call) -> int:
    """R of a one-query call, counted here from the call's arguments."""
    given = dict(zip(task.args, call, strict=True))
    if "num_relevant" in given:
        return given["num_relevant"]
    pool = given.get("judged", given.get("relevance"))
    return sum(1 for g in pool if g >= task.threshold)


@pytest.mark.parametrize("qid", ["coding.recall-at-k", "coding.average-precision", "coding.ap-at-k",
                                 "coding.r-precision"])
def test_no_hit_has_no_relevant_document_at_all(qid):
    """The old draw added the unretrieved relevant documents even to `no_hit`: R was 3."""
    q = next(q for q in BUILT_IN if q.id == qid)
    drawn = [c for c in hidden_cases(q.task, q.id) if c.edge == "no_hit"]
    assert drawn and all(_r(q.task, c.call) == 0 for c in drawn)
    assert all(not any(dict(zip(q.task.args, c.call, strict=True))["relevance"]) for c in drawn)


def test_all_zero_with_a_judged_pool_has_an_all_zero_pool():
    q = next(q for q in BUILT_IN if q.id == "coding.ndcg-judged-pool")
    drawn = [c for c in hidden_cases(q.task, q.id) if c.edge == "all_zero"]
    assert drawn and all(not any(c.call[1]) for c in drawn)  # IDCG = 0, as the prompt's rule needs


def test_k_past_the_end_of_a_judged_pool_too():
    q = next(q for q in BUILT_IN if q.id == "coding.idcg-from-pool")  # "use every judged document"
    drawn = [c for c in hidden_cases(q.task, q.id) if c.edge == "k_past_end"]
    assert drawn and all(c.call[2] > len(c.call[1]) and c.call[2] > len(c.call[0]) for c in drawn)


# --------------------------------------------------------------------------- a bad pack
def _question(prompt: str, task: CodeTask) -> Question:
    return Question(id="bad.recall", topic="coding", kind="code", prompt=prompt, function="recall",
                    signature="def recall(relevance, num_relevant, k):", task=task)


RECALL = CodeTask("recall", ("relevance", "num_relevant", "k"), top_grade=1, cases=12)


def test_a_promise_with_no_case_is_an_error_naming_the_edge():
    q = _question("Recall@k. Return 0.0 when R is 0. k past the end means the whole list.", RECALL)
    errors = edge_errors(q)
    assert any(f"no hidden case has {EDGES['no_hit']}" in e and 'Return 0.0 when R is 0' in e
               and "add `no_hit` to cases.include" in e for e in errors), errors
    assert any(EDGES["k_past_end"] in e for e in errors), errors
    fixed = replace(q, task=replace(RECALL, include=("no_hit", "k_past_end", "k_one")))
    assert edge_errors(fixed) == []


def test_a_promise_no_edge_stands_for_is_an_error():
    q = _question("Recall@k. Return -1 when the list is shuffled.",
                  replace(RECALL, include=("no_hit", "k_past_end", "k_one")))
    assert any('promises "Return -1 when the list is shuffled"' in e for e in edge_errors(q))


BAD_PACK = """\
pack:
  name: bad-coding
  version: "1.0.0"
  description: A code question whose hidden cases miss what its prompt promises.
  author: tests
questions:
  - id: bad.recall-at-k
    topic: coding
    kind: code
    difficulty: easy
    prompt: |
      Implement recall@k: the relevant documents in the top k, divided by R.
      `num_relevant` is R. Return 0.0 when R is 0.
    function: recall_at_k
    signature: "def recall_at_k(relevance: list[int], num_relevant: int, k: int) -> float:"
    task:
      metric: recall
      args: [relevance, num_relevant, k]
    cases:
      count: 10
      include: [judged_larger]
    hints:
      - "sum(relevance[:k]) / num_relevant"
    explanation: |
      R = 0 needs a rule.
"""


def test_packs_lint_fails_a_pack_whose_cases_miss_a_promise(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_PACK, encoding="utf-8")
    res = CliRunner().invoke(cli, ["packs", "lint", str(path)], env={"DRILLS_HOME": str(tmp_path)})
    assert res.exit_code == 1, res.output
    assert "bad.recall-at-k" in res.output
    assert "no hidden case has a query with no relevant document" in res.output
    assert 'the prompt says "Return 0.0 when R is 0"' in res.output
    assert "no hidden case has k past the end of the list (the function takes k)" in res.output
    fixed = BAD_PACK.replace("include: [judged_larger]", "include: [judged_larger, no_hit, k_past_end, k_one]")
    path.write_text(fixed, encoding="utf-8")
    res = CliRunner().invoke(cli, ["packs", "lint", str(path)], env={"DRILLS_HOME": str(tmp_path)})
    assert res.exit_code == 0, res.output


def test_r_precision_s_ranks_past_the_end_are_an_edge():
    """R-precision promises "ranks past the end of the list count as non-relevant": R larger
    than the list. The prompt names the edge `r_past_end`, a hidden case has it (R checked on
    the call itself), and `cases.include` can draw it first."""
    (q,) = [q for q in BUILT_IN if q.id == "coding.r-precision"]
    wanted = promised_edges(q.task, q.prompt)
    assert wanted["r_past_end"] == 'the prompt says "Ranks past the end of the list count as non-relevant"'
    assert exercises(q.task, ([1, 0, 1], 4), "r_past_end")  # R = 4 > 3 ranks
    assert not exercises(q.task, ([1, 0, 1], 3), "r_past_end")
    drawn = hidden_cases(replace(q.task, include=("r_past_end",)), "edge-test")
    relevance, r = drawn[0].call
    assert r > len(relevance)
    assert EDGES["r_past_end"].startswith("R past the end")
    other = replace(q.task, metric="precision")  # the sentence is R-precision's promise only
    assert "r_past_end" not in promised_edges(other, q.prompt)
