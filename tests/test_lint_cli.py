"""``drills packs lint``: runs every question; errors fail, slips too few to diagnose only warn."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.authoring.lint import lint_questions
from drills.cli import cli
from drills.engine.problem import Problem
from drills.generators import REGISTRY
from drills.generators.registry import Generator
from drills.model import Option, Question
from tests.test_generate_cli import PACK

ROOT = Path(__file__).resolve().parents[1]
BANK = ROOT / "questions"

BAD_PACK = """\
pack:
  name: lint-bad
  version: "1.0.0"
  description: "Questions that run but are wrong."
  author: tests
questions:
  - id: bad-no-list
    topic: hand-computation
    kind: numeric
    prompt: "Compute NDCG@2 of the run we discussed."
    problem: {relevance: [2, 1, 3, 0], k: 2}
    metric: ndcg
  - id: bad-two-correct
    topic: conventions
    kind: choice
    prompt: "Pick one."
    options:
      - {text: "this", correct: true}
      - {text: "that", correct: true}
  - id: good-one
    topic: conventions
    kind: numeric
    prompt: "What is 1/log2(3)?"
    answer: "1/log2(3)"
"""


def lint(*args: str):
    return CliRunner().invoke(cli, ["packs", "lint", *args], catch_exceptions=False)


def test_a_good_pack_passes(tmp_path):
    path = tmp_path / "good.yaml"
    path.write_text(PACK, encoding="utf-8")
    result = lint(str(path), "--seeds", "30")
    assert result.exit_code == 0, result.stdout + result.stderr
    # the one fixed `answer:` without a problem is listed: it can diagnose nothing; and the
    # concept question without a rubric: its learner grades themselves
    assert "0 errors, 2 warnings" in result.stdout
    assert "warning: " in result.stdout and "t-fixed: can diagnose nothing" in result.stdout
    assert "no rubric (required points, misconceptions, examples)" in result.stdout
    summary = result.stdout.strip().splitlines()[-1]
    assert "15 generated x 30 seeds" in summary and f"{15 * 30 + 3} items checked" in summary


def test_too_few_distinguishable_slips_is_only_a_warning(tmp_path):
    path = tmp_path / "flat.yaml"
    path.write_text(PACK.split("  - {id: t-hand-dcg")[0] + """\
  - {id: t-binary-ones, topic: binary-vs-graded, kind: numeric, prompt: "NDCG of [1, 1, 1]",
     problem: {relevance: [1, 1, 1]}, metric: ndcg}
""", encoding="utf-8")
    report = lint_questions([template("ndcg-hand", n=2, max_rel=1, k=1)], seeds=20)
    assert report.errors == []
    assert len(report.warnings) == 1
    assert "t-ndcg-hand: " in report.warnings[0] and "of 20 generated items have fewer than 2" in report.warnings[0]
    result = lint(str(path), "--seeds", "10")
    # the fixed item is not flagged: forgetting the division (DCG 2.13) is still a slip to name
    assert result.exit_code == 0 and "0 warnings" in result.stdout, result.stdout


def test_errors_fail_with_file_line_and_id(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_PACK, encoding="utf-8")
    result = lint(str(path))
    assert result.exit_code == 1
    out = result.stdout
    assert "bad-no-list: the prompt does not show the ranked relevance list [2, 1, 3, 0]" in out
    assert "bad.yaml:17: questions[1].options: 2 options are marked `correct: true`; exactly one" in out
    assert "error: " not in out.split("good-one")[0].splitlines()[-1]  # only a warning:
    assert "good-one: can diagnose nothing" in out
    assert f"{path}:" in out
    assert "2 errors" in out


def test_usage_errors(tmp_path):
    assert lint("/nonexistent/x.yaml").exit_code == 2
    path = tmp_path / "good.yaml"
    path.write_text(PACK, encoding="utf-8")
    result = lint(str(path), "--seeds", "0")
    assert result.exit_code == 2 and "--seeds" in result.stderr
    result = lint(str(path), "--seeds", "99999999999999999999")  # would never finish
    assert result.exit_code == 2 and "--seeds must be from 1 to 10,000" in result.stderr


def test_schema_errors_are_lint_errors(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("pack: [unclosed\n", encoding="utf-8")
    result = lint(str(path))
    assert result.exit_code == 1
    assert "broken.yaml" in result.stdout


def template(name: str, **params) -> Question:
    kind = "scenario" if REGISTRY[name].kind == "scenario" else "generated"
    return Question(id=f"t-{name}", topic="hand-computation", kind=kind, prompt="t",
                    generator=name, params=params)


def test_generator_exception_is_an_error(monkeypatch):
    def explode(template: Question, params, rng: random.Random) -> Question:
        if rng.random() < 0.5:
            raise RuntimeError("boom")
        return REGISTRY["gain-ratio"].make(template, {"max_rel": 4, "consecutive": False}, rng)

    monkeypatch.setitem(REGISTRY, "exploding", Generator("exploding", "conventions", "test", explode, {}))
    report = lint_questions([template("exploding")], seeds=20)
    assert len(report.errors) == 1
    assert "generator exploding raised RuntimeError: boom (seeds " in report.errors[0]
    assert "of 20)" in report.errors[0]


def test_out_of_range_and_self_grading(monkeypatch):
    import drills.authoring.lint as packs_lint

    class Broken:
        text = "2"
        value = 2.0

        def to_sympy(self):  # pragma: no cover - never reached: "2" is a plain number
            raise AssertionError

    q = Question(id="q", topic="hand-computation", kind="numeric", prompt="NDCG of [2, 1]",
                 problem=Problem((2, 1)), metric="ndcg")
    monkeypatch.setattr(packs_lint, "_reference", lambda _q: Broken())
    report = lint_questions([q])
    assert report.errors == [f"{q.source}: q: ndcg = 2 is outside [0, 1]"]

    class Unreadable(Broken):
        text = "two"

    monkeypatch.setattr(packs_lint, "_reference", lambda _q: Unreadable())
    report = lint_questions([q])
    assert any("grades as invalid against itself" in e for e in report.errors)


def test_fixed_choice_and_concept_questions():
    good = Question(id="c", topic="conventions", kind="choice", prompt="?",
                    options=(Option("a", True), Option("b")))
    none = Question(id="n", topic="conventions", kind="choice", prompt="?",
                    options=(Option("a"), Option("b")))
    concept = Question(id="k", topic="conventions", kind="concept", prompt="?", model_answer="x")
    report = lint_questions([good, none, concept])
    assert report.errors == [f"{none.source}: n: 0 correct options (exactly one needed)"]
    assert report.items == 3


def test_every_generator_lints_clean_over_many_seeds():
    templates = [template(name) for name in sorted(REGISTRY)]
    templates += [template("ndcg-hand", n=12, k="random", ties=True, unretrieved=3, max_rel=4),
                  template("compare-rankings", ask="difference", n=12, max_rel=4),
                  template("swap-delta", k="random", n=12)]
    report = lint_questions(templates, seeds=100)
    assert report.errors == []
    flagged = {w.split(": ")[1] for w in report.warnings}
    assert flagged <= {"t-ndcg-at-1-binary", "t-single-relevant"}, report.warnings


@pytest.mark.skipif(not any(BANK.glob("*.yaml")), reason="no built-in question bank yet")
def test_built_in_bank_lints_clean_and_fast():
    start = time.monotonic()
    result = lint(str(BANK), "--seeds", "50")
    assert result.exit_code == 0, result.stdout
    assert time.monotonic() - start < 60


@pytest.mark.skipif(not any(BANK.glob("*.yaml")), reason="no built-in question bank yet")
def test_built_in_bank_warns_only_about_answers_with_no_problem():
    # every other fixed answer carries the problem it is about, so its slips are diagnosed
    result = lint(str(BANK), "--seeds", "5")
    assert result.exit_code == 0, result.stdout  # no error anywhere in the bank
    cues = ("as long as the longest wrong one", "absolute words only in wrong options",
            "the correct option is the longest in")  # tests/test_cue_lint.py
    warnings = [line for line in result.stdout.splitlines()
                if line.startswith("warning: ") and not any(c in line for c in cues)]
    ndcg_packs = ("hand-computation", "gain-and-discount", "normalization", "binary-vs-graded",
                  "ndcg-vs-mrr", "conventions", "lambdarank")
    ndcg = [w for w in warnings if any(f"/{stem}.yaml:" in w for stem in ndcg_packs)]
    assert sorted(w.split(": ")[2] for w in ndcg) == [
        "conv-ln-dcg", "conv-sklearn-ties", "gain-vs-position-crossover"]
    # the packs beyond NDCG ask for numbers no engine metric computes (a t statistic, a CTR
    # lift, alpha-nDCG): those answers have no slips to check, and that is all lint says
    assert all(": can diagnose nothing: an `answer:` without `problem:`" in w for w in warnings), warnings


RESTATING_PACK = """\
pack:
  name: lint-prose
  version: "1.0.0"
questions:
  - id: prose-sums
    topic: hand-computation
    kind: numeric
    prompt: "Ranked [2, 1, 3, 0], judged [3, 2, 1, 0], gain 2^rel - 1: NDCG@4?"
    problem: {relevance: [2, 1, 3, 0], judged: [3, 2, 1, 0], k: 4}
    metric: ndcg
    explanation: |
      DCG@4  = 3/1 + 1/log2(3) + 7/2 + 0 = 13/2 + 1/log2(3) = 7.1309
      IDCG@4 = 7/1 + 3/log2(3) + 1/2 + 0 = 15/2 + 3/log2(3) = 9.3928
      NDCG@4 = 7.1309 / 9.3928
      Answer: NDCG@4 = 0.7592
  - id: prose-insight
    topic: hand-computation
    kind: numeric
    prompt: "Ranked [2, 1, 3, 0], judged [3, 2, 1, 0], gain 2^rel - 1: NDCG@4?"
    problem: {relevance: [2, 1, 3, 0], judged: [3, 2, 1, 0], k: 4}
    metric: ndcg
    explanation: |
      The grade-3 document sits at rank 3, where it keeps half its gain. Under linear
      gain NDCG@4 is 0.8675; the uncut IDCG@4 = 9.3928 is the usual slip at k = 2.
      NDCG@4 = 0.7592 either way the log base is taken.
      Answer: NDCG@4 = 0.7592
  - id: prose-delta
    topic: lambdarank
    kind: numeric
    prompt: "Ranked [2, 1, 3, 0], judged [3, 2, 1, 0], gain 2^rel - 1: |dNDCG@4| for ranks 1 and 3?"
    problem: {relevance: [2, 1, 3, 0], judged: [3, 2, 1, 0], k: 4, swap: [1, 3]}
    metric: delta_ndcg
    explanation: |
      Only the two swapped terms change:
      |dNDCG@4| = |7 - 3| * |1 - 1/2| / IDCG@4
  - id: prose-fixed
    topic: hand-computation
    kind: numeric
    prompt: "What is 13/2 + 1/log2(3)?"
    answer: "13/2 + 1/log2(3)"
    explanation: "DCG@4 = 3/1 + 1/log2(3) + 7/2 = 7.1309 (no problem: drills prints no table)"
"""


def test_an_explanation_that_restates_the_worked_solution_is_a_warning(tmp_path):
    path = tmp_path / "prose.yaml"
    path.write_text(RESTATING_PACK, encoding="utf-8")
    result = lint(str(path), "--seeds", "1")
    # the fixture's questions share a problem, so they state each other's answers and ask the
    # same problem: those are the only errors; restating the worked steps is a warning
    errors = [line for line in result.stdout.splitlines() if line.startswith("error: ")]
    assert errors and all(": states " in line or ": the same problem as " in line for line in errors), result.stdout
    restated = [line for line in result.stdout.splitlines() if "restates" in line]
    assert restated == [
        f"warning: {path}:5: prose-sums: the explanation restates the worked solution drills prints "
        "('DCG@4  = 3/1 + 1/log2(3) + 7/2 + 0 = 13/2 + 1/log2(3) = 7...' and 2 more lines); keep only "
        "what the worked steps do not say (why, the usual slip, a comparison)",
        f"warning: {path}:27: prose-delta: the explanation restates the worked solution drills prints "
        "('|dNDCG@4| = |7 - 3| * |1 - 1/2| / IDCG@4'); keep only what the worked steps do not say "
        "(why, the usual slip, a comparison)",
    ]
    # prose-insight: equations inside a sentence, a bare value and the Answer: line are not sums;
    # prose-fixed: without a problem drills prints no worked solution, so its sums are the only ones
    assert not [line for line in result.stdout.splitlines()
                if "prose-insight" in line and "states " not in line and "the same problem as" not in line]
    assert "prose-fixed: the explanation" not in result.stdout
    assert f"{len(errors)} errors, 3 warnings" in result.stdout  # prose-fixed can diagnose nothing


@pytest.mark.parametrize("line,restates", [
    ("DCG@4  = 3/1 + 1/log2(3) + 7/2 + 0 = 13/2 + 1/log2(3) = 7.1309", True),
    ("IDCG@4 = 7/1 + 3/log2(3) + 1/2 + 0", True),
    ("NDCG@4 = 7.1309 / 9.3928", True),
    ("NDCG@1 = 3/7 (no logarithms: rank 1 is undiscounted).", True),
    ("IDCG@1 = gain of the best judged document = 2^3 - 1 = 7.", True),
    ("DCG = 1/log2(3)", True),
    ("NDCG(A) = 1.5616 / 2.1309", True),
    ("|dNDCG| = |3 - 1| * |1 - 1/log2(3)| / IDCG@4", True),
    ("|delta NDCG@2| = 4 / 8.8928", True),
    ("NDCG@4 = 0.7592", False),  # a value, not sums
    ("Answer: NDCG@4 = 7.1309 / 9.3928", False),  # the line the quiz drops
    ("The swap lifts NDCG@2 from 0.4083 to 0.8581.", False),
    ("DCG@4 and IDCG@4 are both divided by ln(2) = 0.6931.", False),
    ("NDCG@4 = 0.7592 for a grade-3 document buried at rank 3, whatever the log base.", False),
])
def test_which_explanation_lines_restate_the_sums(line, restates):
    from drills.authoring.slip_lint import restated_steps

    q = Question(id="q", topic="hand-computation", kind="numeric", prompt="NDCG@4 of [2, 1, 3, 0]",
                 problem=Problem((2, 1, 3, 0), k=4), metric="ndcg", explanation=f"Why.\n{line}\n")
    assert bool(restated_steps(q)) is restates
    fixed = Question(id="f", topic="hand-computation", kind="numeric", prompt="?", answer="1",
                     explanation=line)
    assert restated_steps(fixed) == []
