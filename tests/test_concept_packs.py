"""Concept rubrics in packs: what validation refuses (with file:line), the pack's shared
misconception catalogue, the cache keeping rubrics, and lint running each example."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from drills.authoring.lint import lint_questions
from drills.cli import cli
from drills.packs import load_pack

HEAD = """\
pack:
  name: rubric-test
  version: "1.0.0"
misconceptions:
  - id: base_changes_ndcg
    correction: "A log base scales every discount alike: it cancels in DCG / IDCG."
    signals: ["base changes|affects ndcg", "ln different ndcg"]
questions:
"""
QUESTION = """\
  - id: rt-base
    topic: conventions
    kind: concept
    prompt: "Does the log base of the discount change NDCG?"
    model_answer: "No: a base change multiplies every discount by one constant, which cancels."
    key_points:
      - text: "every discount scales by the same constant"
        required: true
        accept: ["same|one|constant factor|constant", "scal* same"]
      - text: "it cancels in DCG / IDCG"
        required: true
        accept: ["cancel*", "ndcg same|unchanged"]
      - "DCG itself changes"
    misconceptions:
      - base_changes_ndcg
      - id: base_reweights_ranks
        correction: "All ranks are scaled alike; their relative weights stay."
        signals: ["base reweight*|favors|favours rank*"]
    examples:
      - answer: "A constant factor on every discount; it cancels in the ratio."
        verdict: correct
        points: ["every discount scales by the same constant", "it cancels in DCG / IDCG"]
      - answer: "It cancels."
        verdict: partial
        points: ["it cancels in DCG / IDCG"]
      - answer: "The base changes NDCG because ln is smaller than log2."
        verdict: wrong
        misconceptions: [base_changes_ndcg]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rubric.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_rubric_loads_with_its_catalogue_entries_resolved(tmp_path):
    pack = load_pack(write(tmp_path, HEAD + QUESTION))
    assert pack.errors == []
    (q,) = pack.questions
    assert q.key_points == ("every discount scales by the same constant", "it cancels in DCG / IDCG",
                            "DCG itself changes")
    assert [p.required for p in q.rubric.points] == [True, True, False]
    assert [m.id for m in q.rubric.misconceptions] == ["base_changes_ndcg", "base_reweights_ranks"]
    assert q.rubric.misconceptions[0].correction.startswith("A log base scales")
    assert [e.verdict for e in q.rubric.examples] == ["correct", "partial", "wrong"]


def test_lint_runs_every_example_and_points_at_the_one_graded_otherwise(tmp_path):
    path = write(tmp_path, HEAD + QUESTION.replace("""      - answer: "It cancels."
        verdict: partial""", """      - answer: "It cancels."
        verdict: correct"""))
    result = CliRunner().invoke(cli, ["packs", "lint", str(path), "--seeds", "1"])
    assert result.exit_code == 1
    line = next(n for n, text in enumerate(path.read_text().splitlines(), start=1) if "It cancels." in text)
    assert f"{path}:{line}: rt-base: example 2" in result.stdout
    assert "verdict partial, expected correct" in result.stdout


def test_a_clean_rubric_lints_without_errors(tmp_path):
    report = lint_questions(load_pack(write(tmp_path, HEAD + QUESTION)).questions, seeds=1)
    assert report.errors == []


def errors_of(tmp_path: Path, question: str) -> list[str]:
    return [f"{e.line}: {e.message}" for e in load_pack(write(tmp_path, HEAD + question)).errors]


def test_what_validation_refuses(tmp_path):
    cases = {
        "no required point": (QUESTION.replace("required: true", "required: false"),
                              "at least one point with `required: true`"),
        "unknown catalogue id": (QUESTION.replace("      - base_changes_ndcg\n", "      - base_is_magic\n"),
                                 "unknown misconception 'base_is_magic'"),
        "bad id": (QUESTION.replace("id: base_reweights_ranks", "id: Base-Reweights"), "snake_case"),
        "no signals": (QUESTION.replace('        signals: ["base reweight*|favors|favours rank*"]\n', ""),
                       "needs `signals:`"),
        "example point unknown": (QUESTION.replace('points: ["it cancels in DCG / IDCG"]',
                                                   'points: ["it cancels"]'), "is not one of the key points"),
        "example belief unknown": (QUESTION.replace("misconceptions: [base_changes_ndcg]",
                                                    "misconceptions: [nope_nope]"),
                                   "is not one of this question's misconceptions"),
        "bad verdict": (QUESTION.replace("verdict: partial", "verdict: half"), "unknown verdict 'half'"),
        "negation in alternatives": (QUESTION.replace('"cancel*"', '"not|never cancel"'),
                                     "no negation inside `a|b` alternatives"),
        "stop words only": (QUESTION.replace('"cancel*"', '"the of"'), "has no word to match"),
        "required not a bool": (QUESTION.replace("required: true", 'required: "yes"', 1),
                                "`required` must be true or false"),
    }
    for name, (text, message) in cases.items():
        found = errors_of(tmp_path, text)
        assert any(message in e for e in found), (name, found)
        assert all(e.split(":")[0].isdigit() and int(e.split(":")[0]) > 1 for e in found), (name, found)


def test_a_plain_key_point_list_still_loads_without_a_rubric(tmp_path):
    plain = """\
  - id: rt-plain
    topic: conventions
    kind: concept
    prompt: "Why?"
    model_answer: "Because."
    key_points: ["one", "two"]
"""
    (q,) = load_pack(write(tmp_path, HEAD + plain)).questions
    assert q.rubric is None and q.key_points == ("one", "two")


def test_the_pack_cache_keeps_rubrics(tmp_path):
    from drills.packs import cache

    path = write(tmp_path, HEAD + QUESTION)
    (q,) = load_pack(path).questions
    again = cache.decode(json.loads(json.dumps(cache.encode(q))))
    assert again == q and again.rubric.examples[0].line == q.rubric.examples[0].line
