"""``drills generate``: byte-identical for a seed, answers agree with an independent float NDCG."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from drills.cli import cli
from tests.metrics_reference import value_of
from tests.test_generators import float_metric

ROOT = Path(__file__).resolve().parents[1]
BANK = ROOT / "questions"

PACK = """\
pack:
  name: generator-tests
  version: "1.0.0"
  description: "Every generator, plus one fixed question of each kind."
  author: tests
questions:
  - {id: t-hand, topic: hand-computation, kind: generated, prompt: "hand", generator: ndcg-hand,
     params: {n: 6, k: random, ties: true, unretrieved: 2}}
  - {id: t-hand-dcg, topic: hand-computation, kind: generated, difficulty: easy, prompt: "dcg",
     generator: ndcg-hand, params: {metric: dcg, gain: linear, k: random}}
  - {id: t-hand-idcg, topic: normalization, kind: generated, difficulty: hard, prompt: "idcg",
     generator: ndcg-hand, params: {metric: idcg, k: random, unretrieved: 1}}
  - {id: t-swap, topic: lambdarank, kind: generated, prompt: "swap", generator: swap-delta,
     params: {k: random}}
  - {id: t-compare, topic: normalization, kind: generated, prompt: "compare", generator: compare-rankings}
  - {id: t-compare-diff, topic: normalization, kind: generated, prompt: "diff", generator: compare-rankings,
     params: {ask: difference}}
  - {id: t-binary, topic: binary-vs-graded, kind: generated, prompt: "binary", generator: binary-vs-graded,
     params: {k: random}}
  - {id: t-binary-which, topic: binary-vs-graded, kind: generated, prompt: "which",
     generator: binary-vs-graded, params: {ask: which}}
  - {id: t-single, topic: ndcg-vs-mrr, kind: generated, prompt: "single", generator: single-relevant}
  - {id: t-single-rr, topic: ndcg-vs-mrr, kind: generated, prompt: "rr", generator: single-relevant,
     params: {metric: rr}}
  - {id: t-at1, topic: ndcg-vs-mrr, kind: generated, prompt: "at1", generator: ndcg-at-1-binary}
  - {id: t-at1-which, topic: ndcg-vs-mrr, kind: generated, prompt: "at1w", generator: ndcg-at-1-binary,
     params: {ask: which}}
  - {id: t-gain, topic: gain-and-discount, kind: generated, prompt: "gain", generator: gain-ratio}
  - {id: t-discount, topic: gain-and-discount, kind: generated, prompt: "disc", generator: discount-at-rank,
     params: {ask: ratio}}
  - {id: t-edge, topic: conventions, kind: generated, prompt: "edge", generator: edge-case}
  - id: t-fixed
    topic: conventions
    kind: numeric
    prompt: "What is 3/7 of 1?"
    answer: "3/7"
  - id: t-choice
    topic: conventions
    kind: choice
    prompt: "Is NDCG in [0, 1]?"
    options:
      - {text: "yes", correct: true, explanation: "DCG <= IDCG."}
      - {text: "no", correct: false, explanation: "It is normalised."}
  - id: t-concept
    topic: conventions
    kind: concept
    prompt: "Why normalise?"
    model_answer: "To compare queries."
    key_points: ["queries differ in how many relevant documents they have"]
"""


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    path = tmp_path / "gen-tests.yaml"
    path.write_text(PACK, encoding="utf-8")
    return path


def run(*args: str):
    return CliRunner().invoke(cli, ["generate", *args], catch_exceptions=False)


MEASURED = ("precision", "recall", "rprec", "hit", "rr", "ap", "err", "map", "mrr")


def _shaped(p: dict) -> SimpleNamespace:
    """``generate --json`` params shaped like a Problem, for tests/metrics_reference.value_of."""
    queries = tuple(SimpleNamespace(relevance=q["relevance"], judged=q["judged"])
                    for q in p.get("queries", ()))
    return SimpleNamespace(relevance=p["relevance"], judged=p["judged"], k=p["k"],
                           threshold=p.get("threshold", 1), convention=p.get("denominator", "R"),
                           max_grade=p.get("max_grade"), queries=queries)


def check_json_items(items: list[dict]) -> int:
    """Every NDCG-family answer agrees with an independent float implementation; returns how many."""
    checked = 0
    for item in items:
        assert {"id", "topic", "kind", "difficulty", "prompt"} <= set(item)
        if item["kind"] == "choice":
            letters = [o["letter"] for o in item["options"] if o["correct"]]
            assert item["correct"] == ",".join(letters) and letters
        if item["kind"] == "scenario":  # each numeric step with its own problem
            checked += check_json_items([{**step, "id": f"{item['id']}#{step['step']}",
                                          "difficulty": item["difficulty"]}
                                         for step in item["steps"]])
            continue
        if "params" in item:
            p = item["params"]
            if p["metric"] == "rbp":
                from fractions import Fraction

                from tests.cascade_reference import rbp
                want = float(rbp(p["relevance"], Fraction(p.get("persistence", "4/5")), p["k"],
                                 p.get("max_grade"))[0])
            elif p["metric"] in MEASURED:  # the metrics beyond NDCG: the naive references
                want = float(value_of(_shaped(p), p["metric"]))
            else:
                want = float_metric(p["relevance"], p["judged"], p["k"], p["gain"], p["metric"],
                                    p.get("swap"), p.get("versus"))
            assert item["answer"]["value"] == pytest.approx(want, abs=1e-9), item["id"]
            checked += 1
        if item["kind"] == "numeric":
            assert set(item["answer"]) == {"exact", "value"}
    return checked


def test_json_is_byte_identical_and_right(pack):
    first = run("--seed", "7", "--count", "50", "--json", "--pack", str(pack))
    second = run("--seed", "7", "--count", "50", "--json", "--pack", str(pack))
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    items = json.loads(first.stdout)
    assert len(items) == 50
    assert check_json_items(items) > 10
    other = run("--seed", "8", "--count", "50", "--json", "--pack", str(pack))
    assert other.stdout != first.stdout


def test_json_matches_plan(pack):
    from drills.packs import discover
    from drills.quiz.plan import plan

    catalog = discover(extra=[pack])
    mine = [q for q in catalog.questions if q.pack == "generator-tests"]  # --pack P: only P
    want = [q.id for q in plan(mine, seed=3, count=20, topics=("normalization",))]
    result = run("--seed", "3", "--count", "20", "--topic", "normalization", "--json", "--pack", str(pack))
    assert [item["id"] for item in json.loads(result.stdout)] == want


def test_test_pack_items_in_json(pack):
    items = json.loads(run("--seed", "1", "--count", "200", "--json", "--pack", str(pack)).stdout)
    mine = {item["id"]: item for item in items if item["id"].startswith("t-")}
    assert set(mine) >= {"t-hand", "t-swap", "t-compare", "t-fixed", "t-choice", "t-concept"}
    assert mine["t-fixed"]["answer"] == {"exact": "3/7", "value": pytest.approx(3 / 7)}
    assert mine["t-concept"]["model_answer"] == "To compare queries."
    assert mine["t-choice"]["correct"] == "a"
    assert "swap" in mine["t-swap"]["params"]
    check_json_items(items)


def test_plain_text_sheet(pack):
    result = run("--seed", "5", "--count", "12", "--pack", str(pack), "--topic", "hand-computation",
                 "--topic", "lambdarank")
    assert result.exit_code == 0
    assert result.stdout == run("--seed", "5", "--count", "12", "--pack", str(pack), "--topic",
                                "hand-computation", "--topic", "lambdarank").stdout
    text = result.stdout
    questions, key = text.split("\nAnswer key\n")
    for n in range(1, 13):
        assert f"\n{n}. [" in questions
        assert f"\n{n}. " in key
    assert "IDCG@" in key and "gain = 2^rel - 1" in key  # worked solutions
    assert "seed 5" in text
    assert max(len(line) for line in questions.splitlines()) <= 100
    assert result.stderr == ""


def test_choice_and_concept_in_the_text_key(pack):
    text = run("--seed", "2", "--count", "30", "--pack", str(pack), "--topic", "conventions").stdout
    assert "a) yes" in text and "DCG <= IDCG." in text
    assert "model answer" in text and "To compare queries." in text
    assert "3/7 = 0.428571428571429" in text


def test_markdown_sheet(pack):
    result = run("--seed", "4", "--count", "15", "--markdown", "--pack", str(pack))
    assert result.exit_code == 0
    md = result.stdout
    assert md.startswith("# NDCG drills worksheet\n")
    assert "## Questions" in md and "## Answer key" in md and "**Answer:**" in md
    assert md.count("### ") == 30
    assert md == run("--seed", "4", "--count", "15", "--markdown", "--pack", str(pack)).stdout


def test_no_seed_prints_one_on_stderr(pack):
    result = run("--count", "3", "--json", "--pack", str(pack))
    assert result.exit_code == 0
    seed = int(result.stderr.split()[1])
    again = run("--seed", str(seed), "--count", "3", "--json", "--pack", str(pack))
    assert again.stdout == result.stdout


@pytest.mark.parametrize("args, message", [
    (["--topic", "ndcg-math"], "(topics: "),
    (["--count", "0"], "--count must be at least 1"),
    (["--pack", "/nonexistent/pack.yaml"], "unknown pack"),
    (["--difficulty", "brutal"], "unknown difficulty"),
    (["--json", "--markdown"], "choose one"),
    (["--count", "100000"], "--count must be at most 1000"),
])
def test_usage_errors_are_one_line_exit_2(args, message):
    result = run("--seed", "1", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_broken_pack_is_skipped_with_one_line(pack, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("pack: [unclosed\n", encoding="utf-8")
    result = run("--seed", "1", "--count", "5", "--json", "--pack", str(pack), "--pack", str(broken))
    assert result.exit_code == 0
    assert "broken.yaml" in result.stderr
    assert len(json.loads(result.stdout)) == 5


def test_help_mentions_every_option_and_generator():
    from drills.generators import REGISTRY

    result = CliRunner().invoke(cli, ["generate", "--help"])
    for option in ("--seed", "--count", "--topic", "--difficulty", "--pack", "--json", "--markdown"):
        assert option in result.output
    for name in REGISTRY:
        assert name in result.output


@pytest.mark.skipif(not any(BANK.glob("*.yaml")), reason="no built-in question bank yet")
def test_built_in_bank_answers_agree_with_floats():
    result = run("--seed", "11", "--count", "150", "--json")
    assert result.exit_code == 0, result.stderr
    items = json.loads(result.stdout)
    assert check_json_items(items) > 0
    assert result.stdout == run("--seed", "11", "--count", "150", "--json").stdout


def test_identical_across_processes_and_hash_seeds(pack):
    import os
    import subprocess
    import sys

    outputs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        result = subprocess.run(
            [sys.executable, "-m", "drills", "generate", "--seed", "7", "--count", "40", "--json",
             "--pack", str(pack)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        outputs.add(result.stdout)
    assert len(outputs) == 1
    assert outputs.pop() == run("--seed", "7", "--count", "40", "--json", "--pack", str(pack)).stdout
