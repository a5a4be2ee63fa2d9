"""``drills grade ID --answer TEXT [--json]`` and ``drills practice --question ID``: the
JSON contract, exit codes (0 correct, 1 partial or wrong, 2 unknown id or bad input), a
numeric question's check object as ``drills solve`` prints it, and a scenario step."""

from __future__ import annotations

import json

from click.testing import CliRunner

from drills.cli import cli

NDCG_VS_RR = "mrr-single-relevant-identity"
ONE_OVER_R = ("the discount at rank r is 1/r, so NDCG = 1/r which is exactly RR; they are "
              "interchangeable")
PARAPHRASE = ("With one relevant document the ideal DCG is 1, so NDCG = 1/log2(r+1) while RR = 1/r. "
              "They agree at rank 1 and NDCG stays higher after that; both decrease with r, so per "
              "query they order systems the same way, but MRR is far more top-heavy, so the averages "
              "differ.")


def run(*args: str, input: str = ""):
    return CliRunner().invoke(cli, list(args), input=input)


def test_the_one_over_r_answer_is_wrong_with_its_belief_named():
    res = run("grade", NDCG_VS_RR, "--answer", ONE_OVER_R, "--json")
    assert res.exit_code == 1, res.output
    out = json.loads(res.output)
    assert set(out) == {"id", "kind", "verdict", "key_points", "misconceptions"}
    assert (out["id"], out["kind"], out["verdict"]) == (NDCG_VS_RR, "concept", "wrong")
    assert out["misconceptions"] and set(out["misconceptions"][0]) == {"id", "correction"}
    # none of the points it did not make is ticked (the word-overlap grader ticked three)
    assert [p["text"] for p in out["key_points"] if p["covered"]] == []
    assert all(set(p) == {"text", "covered", "required", "evidence"} for p in out["key_points"])


def test_a_right_paraphrase_is_correct_with_evidence_from_the_answer():
    res = run("grade", NDCG_VS_RR, "--answer", PARAPHRASE, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["verdict"] == "correct" and out["misconceptions"] == []
    for p in out["key_points"]:
        if p["covered"]:
            assert p["evidence"] and " ".join(p["evidence"].split()).rstrip(".") in " ".join(PARAPHRASE.split())


def test_the_card_is_printed_without_json():
    res = run("grade", NDCG_VS_RR, "--answer", ONE_OVER_R)
    assert res.exit_code == 1
    assert res.output.startswith("Wrong: a wrong belief")
    assert "you said:" in res.output


def test_a_numeric_question_prints_the_check_object_of_drills_solve():
    res = run("grade", "norm-idcg-at-2", "--answer", "3 + 2/log2(3)", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert (out["kind"], out["check"]["verdict"], out["check"]["exact"]) == ("numeric", "correct", True)
    solve = json.loads(run("solve", "1,0", "--judged", "3,2,1,0", "--k", "2", "--gain", "linear",
                           "--metric", "idcg", "--answer", "3 + 2/log2(3)", "--json").output)["check"]
    assert set(out["check"]) == set(solve)
    wrong = run("grade", "norm-idcg-at-2", "--answer", "1", "--json")
    assert wrong.exit_code == 1 and json.loads(wrong.output)["check"]["verdict"] == "wrong"


def test_a_scenario_step_is_graded_by_id_and_step():
    res = run("grade", "scn-ndcg-chain", "--answer", "1")
    assert res.exit_code == 2 and "grade a step as scn-ndcg-chain#N" in res.output
    res = run("grade", "scn-ndcg-chain#99", "--answer", "1")
    assert res.exit_code == 2


def test_unknown_ids_and_bad_input_exit_2():
    res = run("grade", "mrr-single-relevant-identiti", "--answer", "x")
    assert res.exit_code == 2 and "did you mean 'mrr-single-relevant-identity'" in res.output
    assert run("grade", NDCG_VS_RR, "--answer", "  ").exit_code == 2
    assert run("grade", "norm-idcg-at-2", "--answer", "two point four").exit_code == 2
    assert run("grade", NDCG_VS_RR).exit_code == 2  # --answer is required


def test_practice_question_asks_exactly_the_questions_named_in_order():
    res = run("practice", "--question", NDCG_VS_RR, "--question", "norm-idcg-at-2",
              input=ONE_OVER_R + "\n\n3\n4.2619\n")
    assert res.exit_code == 0, res.output
    out = res.output
    assert out.index("Derive NDCG and RR") < out.index("Compute IDCG@2")
    assert "Wrong: a wrong belief" in out and "Score: 1/2" in out
    bad = run("practice", "--question", "no-such-question")
    assert bad.exit_code == 2 and "unknown question id" in bad.output
