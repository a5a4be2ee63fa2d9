"""The bank's fixed answers carry the problem they are about, so a learner's slip is named.

Checked as a learner meets it: `drills practice --pack questions/gain-and-discount.yaml`
in the plain line mode, one typed line per question, and through ``check`` for the others.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.grading.check import check
from drills.packs import load_pack

ROOT = Path(__file__).resolve().parents[1]
GAIN_PACK = ROOT / "questions" / "gain-and-discount.yaml"


def _practise(tmp_path: Path, lines: list[str], name: str) -> tuple[str, list[dict]]:
    transcript = tmp_path / f"{name}.jsonl"
    result = CliRunner().invoke(cli, ["practice", "--pack", str(GAIN_PACK), "--count", "20", "--seed", "1",
                                      "--transcript", str(transcript)], input="".join(f"{x}\n" for x in lines))
    assert result.exit_code == 0, result.output
    return result.output, [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("qid,typed,slip,why", [
    # 3/2: the grades divided, not their gains
    ("gain-ratio-3-vs-2", "1.5", "linear_gain", "You divided the grades themselves (linear gain)"),
    # gain 3 instead of 2^3 - 1 = 7
    ("gain-contribution-grade3-rank4", "3/log2(5)", "linear_gain", "You used the grade itself as the gain"),
])
def test_a_learner_s_slip_on_a_fixed_answer_is_named(tmp_path, qid, typed, slip, why):
    _, order = _practise(tmp_path, [":skip"] * 40, "order")
    ids = [q["id"] for q in order]
    assert qid in ids
    output, asked = _practise(tmp_path, [typed if i == qid else ":skip" for i in ids], "answered")
    [record] = [q for q in asked if q["id"] == qid]
    assert record["verdict"] == "wrong" and record["misconceptions"] == [slip]
    block = output.split(f"> {typed}\n", 1)[1].split("Question ", 1)[0]
    assert f"Diagnosis: {slip}" in block
    assert why in " ".join(block.split())  # the card explains the slip (wrapped to the terminal)


BANK = {q.id: q for path in sorted((ROOT / "questions").glob("*.yaml")) for q in load_pack(path).questions}


@pytest.mark.parametrize("qid,typed,slip", [
    ("gain-ratio-4-vs-3", "2", "gain_without_minus_one"),
    ("gain-ratio-4-vs-3", "7/15", "inverted_ratio"),
    ("gain-ratio-3-vs-2", "1.5", "linear_gain"),
    ("discount-weight-rank-4", "1/log2(6)", "rank_offset"),
    ("discount-weight-rank-4", "1/4", "reciprocal_discount"),
    ("gain-contribution-grade3-rank4", "8/log2(5)", "gain_without_minus_one"),
    ("hand-scores-to-ndcg", "1", "ideal_unsorted"),  # the model's own order taken as the ideal
    # ranked [3, 0, 3, 2], judged 3, 3, 2, 0, NDCG@3 (the ln of the prompt cancels)
    ("conv-ln-ndcg", "0.7636", "linear_gain"),
    ("conv-ln-ndcg", "1.9470", "ideal_ascending"),
    ("conv-ln-ndcg", "1.2301", "inverted_ratio"),
])
def test_each_fixed_answer_diagnoses_its_slips(qid, typed, slip):
    outcome = check(BANK[qid], typed)
    assert outcome.verdict == "wrong" and slip in outcome.misconceptions, outcome.misconceptions


@pytest.mark.parametrize("qid", ["gain-ratio-4-vs-3", "gain-ratio-3-vs-2", "discount-weight-rank-4",
                                 "gain-contribution-grade3-rank4", "hand-scores-to-ndcg", "conv-ln-ndcg"])
def test_the_engine_value_is_still_the_answer_key(qid):
    q = BANK[qid]
    assert q.answer is not None and q.problem is not None and q.metric
    assert check(q, q.answer).verdict == "correct"
