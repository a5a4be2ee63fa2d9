"""A scenario as a person sees it, in a real pty: `drills practice` and `drills mock` ask its
steps one at a time under the shared setup, grade a step that follows from the learner's own
slip as consistent, and the mock's report shows the chain.

Expected numbers come from tests/ndcg_reference.py.
"""

from __future__ import annotations

import json

import pytest

from . import ndcg_reference as ref
from .test_pty import Term

pytest.importorskip("pexpect")

RANKED, POOL, K = [3, 0, 2, 1], [3, 2, 2, 1, 0], 3
PACK = """\
pack:
  name: pty-scenario
  version: "1.0.0"
questions:
  - id: pty-chain
    topic: pty-chain
    kind: scenario
    prompt: |
      WHITEBOARD: ranked grades [3, 0, 2, 1]; judged pool [3, 2, 2, 1, 0]; k = 3.
      Exponential gain 2^rel - 1, discount 1/log2(i + 1).
    hints: []
    problem: {relevance: [3, 0, 2, 1], judged: [3, 2, 2, 1, 0], k: 3}
    steps:
      - {name: dcg, kind: numeric, metric: dcg, prompt: "STEP-DCG: compute DCG@3."}
      - {name: idcg, kind: numeric, metric: idcg, prompt: "STEP-IDCG: now IDCG@3."}
      - {name: ndcg, kind: numeric, metric: ndcg, uses: [dcg, idcg], prompt: "STEP-NDCG: so NDCG@3?"}
      - name: why
        kind: concept
        prompt: "STEP-WHY: why divide by IDCG?"
        model_answer: So that every query lands on a 0-1 scale.
        key_points: ["every query on a 0-1 scale"]
"""
LINEAR = ref.dcg(RANKED, K, "linear")
IDCG = ref.idcg(RANKED, POOL, K)


@pytest.fixture
def pack(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(PACK, encoding="utf-8")
    return path


def test_a_scenario_in_practice(pack, drills_home, tmp_path):
    transcript = tmp_path / "t.jsonl"
    t = Term(["practice", "--seed", "1", "--count", "1", "--pack", str(pack), "--topic", "pty-chain",
              "--transcript", str(transcript)], drills_home, dimensions=(24, 80))
    t.expect("step 1/4")
    t.expect("WHITEBOARD")
    t.expect("STEP-DCG")
    t.expect("answer>")
    t.send(f"{LINEAR:.4f}\r")
    t.expect("Diagnosis: linear_gain")
    t.expect("next>")
    t.send("\r")
    t.expect("step 2/4")
    t.expect("WHITEBOARD")  # the setup again, above the next step
    t.expect("STEP-IDCG")
    t.expect("answer>")
    t.send(f"{IDCG:.4f}\r")
    t.expect("Correct")
    t.expect("STEP-NDCG")
    t.expect("answer>")
    t.send(f"{LINEAR / IDCG:.4f}\r")
    t.expect("Consistent:")
    t.expect("the slip was in step 1")
    t.expect("STEP-WHY")
    t.expect("answer>")
    t.send("every query on a 0-1 scale\r\r")
    t.expect("grade>")
    t.send("good\r")
    t.expect("Session over.")
    t.expect("Score: 3/4 answers correct (1 consistent, 1 wrong)")
    t.expect("Retry the 1 question you missed?")
    t.send("n\r")
    assert t.close() == 0
    assert "Diagnosis: linear_gain" not in t.seen[t.seen.index("Consistent:"):]
    lines = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert [(x["step"], x["verdict"]) for x in lines] == [
        (1, "wrong"), (2, "correct"), (3, "consistent"), (4, "correct")]


def test_a_scenario_in_a_mock(pack, drills_home):
    t = Term(["mock", "--seed", "1", "--count", "1", "--pack", str(pack)], drills_home,
             dimensions=(24, 80))
    t.expect("Question 1/1 · step 1/4")
    t.expect("to answer")
    t.expect("answer>")
    t.send(f"{LINEAR:.4f}\r")
    t.expect("Answer recorded")
    t.expect("STEP-IDCG")
    t.expect("answer>")
    t.send(f"{IDCG:.4f}\r")
    t.expect("STEP-NDCG")
    t.expect("answer>")
    t.send(f"{LINEAR / IDCG:.4f}\r")
    t.expect("STEP-WHY")
    t.expect("answer>")
    t.send(":skip\r")
    t.expect("Mock interview report")
    t.expect("scenario, pty-chain")  # its time as one row
    t.expect("2/4 steps right")
    t.expect("Scenarios")
    t.expect("1. dcg   wrong")
    t.expect("3. ndcg  consistent")
    t.expect("first slip: linear_gain at step 1")
    t.send("q")  # the report is longer than 24 rows: it is paged
    assert t.close() == 0
