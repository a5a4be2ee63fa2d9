"""``drills packs lint`` learns the cues (issue 27): an over-long correct option, a pack whose
correct options are mostly the longest, absolutes only in wrong options, one problem asked
twice (``variant_of:`` allows it), and answers written as fractions."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from drills.authoring.cue_lint import option_warnings
from drills.cli import cli
from drills.model import Option, Question
from drills.packs.leaks import numbers_in

HEAD = """\
pack:
  name: cues
  version: "1.0.0"
  description: "Small bad packs."
  author: tests
questions:
"""


def choice(qid: str, right: str, *wrong: str) -> str:
    options = "".join(f"\n      - text: \"{w}\"" for w in wrong)
    return (f"  - id: {qid}\n    topic: conventions\n    kind: choice\n    hints: []\n"
            f"    prompt: \"Which is right?\"\n    options:\n      - text: \"{right}\"\n"
            f"        correct: true{options}\n")


def err_question(qid: str, relevance: str, k: str = "", extra: str = "") -> str:
    return (f"  - id: {qid}\n    topic: mrr-and-err\n    kind: numeric\n    hints: []\n"
            f"    prompt: \"ERR of {relevance}, g_max 4?\"\n"
            f"    problem: {{relevance: {relevance}, max_grade: 4{k}}}\n    metric: err\n{extra}")


def lint(tmp_path: Path, body: str):
    path = tmp_path / "pack.yaml"
    path.write_text(HEAD + body)
    return CliRunner().invoke(cli, ["packs", "lint", str(path), "--seeds", "1"])


def lines(result, kind: str) -> list[str]:
    """Each ``kind:`` entry as one line: a long one (a long temporary path) is wrapped onto
    indented lines below it, so the entries are joined back before they are searched."""
    entries: list[str] = []
    for line in result.stdout.splitlines():
        if line.startswith((" ", "\t")) and entries:
            entries[-1] += " " + line.strip()
        else:
            entries.append(line)
    return [" ".join(e.split()) for e in entries if e.startswith(f"{kind}:")]


def q(right: str, *wrong: str) -> Question:
    return Question(id="c", topic="conventions", kind="choice", prompt="?",
                    options=(Option(right, True), *(Option(w, False) for w in wrong)))


# ------------------------------------------------------------------ one question


def test_a_correct_option_over_one_and_a_half_times_the_longest_wrong_one_warns():
    right = "x" * 31  # 31 > 1.5 x 20
    assert any("1.55x as long" in w for w in option_warnings(q(right, "y" * 20, "z" * 10)))
    assert not any("as long" in w for w in option_warnings(q("x" * 30, "y" * 20, "z" * 10)))  # 1.5x exactly


def test_absolutes_only_in_wrong_options_warn():
    found = option_warnings(q("It depends on the pool", "It is always 1 here", "Nothing changes"))

    assert found == ["absolute words only in wrong options (always, nothing): a learner rules those out unread"]
    assert option_warnings(q("Only the order matters", "It is always 1 here", "It is 2")) == []
  # the right one has one too
    assert option_warnings(q("True", "False")) == []  # true/false questions are not judged on length


def test_the_warnings_reach_the_cli_and_do_not_fail(tmp_path):
    result = lint(tmp_path, choice("long", "A careful, qualified and rather long correct answer here", "Short",
                                   "Brief one", "Never this"))
    assert result.exit_code == 0, result.stdout
    warned = lines(result, "warning")
    assert any("long: the correct option is" in w and "as long as the longest wrong one" in w for w in warned)
    assert any("long: absolute words only in wrong options (never)" in w for w in warned)


# ------------------------------------------------------------------ a pack


def test_a_pack_whose_correct_option_is_longest_in_over_40_percent_fails(tmp_path):
    # 3 of 5 choice questions have the longest correct option: 60% > 40%
    body = "".join(choice(f"c{i}", "right answer, longest", "wrong one", "wrong two") for i in range(3))
    body += "".join(choice(f"d{i}", "right", "a longer wrong answer", "wrong") for i in range(2))
    result = lint(tmp_path, body)
    assert result.exit_code == 1
    assert any("the correct option is the longest in 3 of its 5 choice questions (at most 40%): c0, c1, c2" in e
               for e in lines(result, "error")), result.stdout


def test_a_pack_at_40_percent_or_with_few_choice_questions_passes(tmp_path):
    body = "".join(choice(f"c{i}", "right answer, longest", "wrong one", "wrong two") for i in range(2))
    body += "".join(choice(f"d{i}", "right", "a longer wrong answer", "wrong") for i in range(3))
    assert "the correct option is the longest in" not in lint(tmp_path, body).stdout  # 2 of 5 = 40%
    few = "".join(choice(f"c{i}", "right answer, longest", "wrong one", "wrong two") for i in range(4))
    assert "the correct option is the longest in" not in lint(tmp_path, few).stdout  # too few to judge



# ------------------------------------------------------------------ one problem twice


def test_the_same_problem_twice_is_an_error(tmp_path):
    # ERR@2 of [4, 4] and ERR of [4, 4, 0]: the cut and the trailing non-relevant rank change nothing
    result = lint(tmp_path, err_question("err-a", "[4, 4]", ", k: 2") + err_question("err-b", "[4, 4, 0]"))
    assert result.exit_code == 1
    assert any("err-b: the same problem as err-a" in e for e in lines(result, "error")), result.stdout


def test_a_different_ranking_or_a_named_variant_passes(tmp_path):
    other = err_question("err-a", "[4, 4]", ", k: 2") + err_question("err-b", "[4, 3, 0]")
    assert lint(tmp_path, other).exit_code == 0
    variant = err_question("err-a", "[4, 4]", ", k: 2") + err_question("err-b", "[4, 4, 0]", extra="    variant_of: err-a\n")
    result = lint(tmp_path, variant)
    assert result.exit_code == 0, result.stdout


def test_variant_of_must_name_a_question(tmp_path):
    result = lint(tmp_path, err_question("err-a", "[4, 4]", extra="    variant_of: err-zz\n"))
    assert result.exit_code == 1
    assert any("err-a: variant_of names 'err-zz', no question linted with it" in e for e in lines(result, "error"))
    bad = lint(tmp_path, err_question("err-a", "[4, 4]", extra="    variant_of: \"Not An Id\"\n"))
    assert bad.exit_code == 1 and "must be a question id" in bad.stdout


# ------------------------------------------------------------------ fractions leak


def test_fractions_are_read_as_exact_values():
    found = {n.text: n.value for n in numbers_in("ERR = 495/512, R = 15/16, half 1/2, 7/8, 2/3 and 3/4")
             if "/" in n.text}
    assert set(found) == {"495/512", "15/16"}  # small fractions, like small integers, are everyone's

    assert float(found["495/512"]) == 0.966796875 and float(found["15/16"]) == 0.9375


def test_a_fraction_stating_another_question_s_answer_is_a_leak(tmp_path):
    # ERR@2 of [4, 4] with g_max 4 = 15/16 + (1/16)(15/16)/2 = 495/512
    leaky = (err_question("err-a", "[4, 4]", ", k: 2")
             + "  - id: err-talk\n    topic: mrr-and-err\n    kind: concept\n    hints: []\n"
               "    prompt: \"Why does ERR saturate?\"\n    model_answer: \"Two excellent results give 495/512.\"\n"
               "    key_points: [\"saturation\"]\n")
    result = lint(tmp_path, leaky)
    assert result.exit_code == 1
    assert any("err-talk: states 495/512 (in its model answer), the answer of err-a" in e
               for e in lines(result, "error")), result.stdout
    clean = lint(tmp_path, leaky.replace("495/512", "almost 1"))
    assert clean.exit_code == 0, clean.stdout
