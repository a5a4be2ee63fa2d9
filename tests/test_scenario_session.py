"""Scenarios in a session and in packs: steps asked one at a time under the shared setup,
carry-forward to `consistent`, one time limit per scenario, the report's chains, and the
pack kind's file:line errors.

Expected numbers come from tests/ndcg_reference.py, never from the engine.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.display import Style
from drills.generators.instantiate import instantiate, item_rng
from drills.packs.load import load_pack
from drills.quiz.session import Graded, Options, QuestionShown, Session, TimedOut
from drills.tui.render import render

from . import ndcg_reference as ref

RANKED, POOL, K = [3, 0, 2, 1], [3, 2, 2, 1, 0], 3

PACK = """\
pack:
  name: scn-test
  version: "0.1.0"
questions:
  - id: chain-1
    topic: scn-hand
    kind: scenario
    prompt: |
      SETUP-CHAIN: ranked grades [3, 0, 2, 1]; judged pool [3, 2, 2, 1, 0]; k = 3.
      Exponential gain 2^rel - 1, discount 1/log2(i + 1).
    hints: []
    problem: {relevance: [3, 0, 2, 1], judged: [3, 2, 2, 1, 0], k: 3}
    steps:
      - name: dcg
        kind: numeric
        metric: dcg
        prompt: Compute DCG@3.
      - name: idcg
        kind: numeric
        metric: idcg
        prompt: Now IDCG@3.
      - name: ndcg
        kind: numeric
        metric: ndcg
        uses: [dcg, idcg]
        prompt: So NDCG@3?
      - name: top
        kind: numeric
        metric: ndcg
        change: {k: 1}
        prompt: And NDCG@1?
      - name: pick
        kind: choice
        prompt: Which is larger here, DCG@3 or IDCG@3?
        options:
          - {text: IDCG@3, correct: true}
          - {text: DCG@3}
  - id: plain-1
    topic: scn-other
    kind: numeric
    prompt: "PLAIN: ranked grades [1, 0]; NDCG@2 with exponential gain?"
    hints: []
    problem: {relevance: [1, 0], k: 2}
    metric: ndcg
"""


@pytest.fixture
def pack(tmp_path):
    path = tmp_path / "scn.yaml"
    path.write_text(PACK, encoding="utf-8")
    return path


def questions(pack):
    loaded = load_pack(pack)
    assert loaded.errors == []
    return {q.id: q for q in loaded.questions}


def session(pack, *ids, **options):
    qs = questions(pack)
    items = [instantiate(qs[i], item_rng(1, n, i)) for n, i in enumerate(ids)]
    return Session(items, Options(**options))


def test_linear_gain_in_step_one_then_a_right_division_is_consistent(pack):
    """The issue's must-show: step 1 wrong with linear_gain, step 3 consistent, the slip named once."""
    s = session(pack, "chain-1", mode="mock", feedback="end")
    s.start()
    linear_dcg = ref.dcg(RANKED, K, "linear")
    idcg = ref.idcg(RANKED, POOL, K)
    s.submit(f"{linear_dcg:.4f}")
    s.submit(f"{idcg:.4f}")
    s.submit(f"{linear_dcg / idcg:.4f}")
    s.submit(f"{ref.ndcg(RANKED, POOL, 1):.4f}")
    s.submit("a")
    one, two, three, four, five = s.records
    assert one.verdict == "wrong" and one.misconceptions == ("linear_gain",)
    assert two.verdict == "correct"
    assert three.verdict == "consistent" and three.misconceptions == ()
    assert f"follows from your DCG {linear_dcg:.6g} and IDCG" in three.explanation
    assert "the slip was in step 1" in three.explanation
    assert four.verdict == "correct" and five.verdict == "correct"
    summary = s.summary()
    assert summary.misconceptions == {"linear_gain": 1}
    assert summary.score == 4  # consistent counts as right
    assert s.finished
    report = render(_finished(s), Style(width=80))
    assert "linear_gain x1" in report  # the slip counted once, at step 1
    assert "linear_gain" not in three.explanation and "linear gain" not in three.explanation
    chain = report[report.index("Scenarios"):report.index("Wrong formulas")]
    assert "3. ndcg  consistent" in chain
    assert "first slip: linear_gain at step 1" in chain
    assert chain.count("linear_gain") == 1


def _finished(s):
    from drills.quiz.session import Finished

    return Finished(s.summary())


def test_a_wrong_division_of_the_learners_numbers_is_still_wrong(pack):
    s = session(pack, "chain-1")
    s.start()
    s.submit(f"{ref.dcg(RANKED, K, 'linear'):.4f}")
    s.submit(f"{ref.idcg(RANKED, POOL, K):.4f}")
    s.submit("0.5")
    assert s.records[2].verdict == "wrong"


def test_steps_show_the_setup_and_their_place(pack):
    s = session(pack, "chain-1", "plain-1")
    shown = s.start()[0]
    assert isinstance(shown, QuestionShown) and (shown.index, shown.total) == (0, 2)
    text = render(shown, Style(width=80))
    assert text.splitlines()[0].startswith("Question 1/2 · step 1/5")
    assert "SETUP-CHAIN" in text and "Step 1/5:" in text and "Compute DCG@3." in text
    events = s.submit(str(ref.dcg(RANKED, K)))
    assert any(isinstance(e, QuestionShown) and e.question.part.step == 2 for e in events)
    for _ in range(4):
        events = s.submit(":skip")
    last = [e for e in events if isinstance(e, QuestionShown)][-1]
    assert (last.index, last.total, last.question.id) == (1, 2, "plain-1")  # the next planned item


def test_one_time_limit_for_the_whole_scenario(pack):
    now = [0.0]
    s = session(pack, "chain-1", "plain-1", seconds=10)
    s.clock = lambda: now[0]
    s.start()
    assert s.item_limit() == 50  # 10 s a step, shared by the scenario's 5 steps
    now[0] = 30.0
    s.submit(str(ref.dcg(RANKED, K)))  # step 2 starts with the scenario's 20 s left
    assert s.remaining() == pytest.approx(20.0)
    now[0] = 51.0
    events = s.timeout()
    outs = [e for e in events if isinstance(e, TimedOut)]
    assert [e.record.question.part.step for e in outs] == [2, 3, 4, 5]
    assert all(e.record.verdict == "timeout" for e in outs)
    shown = [e for e in events if isinstance(e, QuestionShown)]
    assert shown and shown[0].question.id == "plain-1" and s.remaining() == pytest.approx(10.0)


def test_a_graded_consistent_step_is_shown_as_right(pack):
    s = session(pack, "chain-1")
    s.start()
    linear = ref.dcg(RANKED, K, "linear")
    s.submit(f"{linear:.4f}")
    s.submit(f"{ref.idcg(RANKED, POOL, K):.4f}")
    events = s.submit(f"{linear / ref.idcg(RANKED, POOL, K):.4f}")
    graded = next(e for e in events if isinstance(e, Graded))
    text = render(graded, Style(width=80))
    assert text.startswith("Consistent:") and "Diagnosis" not in text


def _pack(steps: str, head: str = "problem: {relevance: [3, 0, 2, 1], k: 3}") -> str:
    return textwrap.dedent(f"""\
        pack: {{name: bad, version: "1"}}
        questions:
          - id: bad-1
            topic: t
            kind: scenario
            prompt: ranked grades [3, 0, 2, 1]
            hints: []
            {head}
            steps:
        """) + textwrap.indent(textwrap.dedent(steps), "      ")


@pytest.mark.parametrize(("steps", "message"), [
    ("""\
     - {name: dcg, kind: numeric, metric: dcg, prompt: DCG@3?}
     - {name: ndcg, kind: numeric, metric: ndcg, uses: [nope], prompt: NDCG@3?}
     """, "step 'ndcg' uses 'nope', which is not an earlier step (earlier: dcg)"),
    ("""\
     - {name: dcg, kind: numeric, metric: dcg, prompt: DCG@3?}
     - {name: rr, kind: numeric, metric: rr, uses: [dcg], prompt: RR?}
     """, "but metric rr is not recomputed from a learner's earlier numbers; these are: ndcg (from dcg, idcg)"),
    ("""\
     - {name: dcg, kind: numeric, metric: dcg, prompt: DCG@3?, change: {k: 1}}
     - {name: ndcg, kind: numeric, metric: ndcg, uses: [dcg], prompt: NDCG@3?}
     """, "uses 'dcg', which is about a different problem"),
    ("""\
     - {name: dcg, kind: numeric, metric: dcg, prompt: DCG@3?}
     """, "a list of 2 to 12 steps"),
    ("""\
     - {name: dcg, kind: numeric, metric: dcg, prompt: DCG@3?, change: {depth: 2}}
     - {name: x, kind: concept, prompt: why?, model_answer: because, key_points: [a]}
     """, "unknown field `depth` in change"),
    ("""\
     - {name: dcg, kind: numeric, metric: dcg, answer: "8.5", prompt: DCG@3?}
     - {name: x, kind: concept, prompt: why?, model_answer: because, key_points: [a]}
     """, "needs `metric:` (the engine computes it on the shared problem) or, in a scenario"),
    ("""\
     - {name: Bad, kind: numeric, metric: dcg, prompt: DCG@3?}
     - {name: x, kind: concept, prompt: why?, model_answer: because, key_points: [a], change: {k: 1}}
     """, "step name 'Bad'"),
])
def test_bad_scenarios_are_reported_at_their_line(tmp_path, steps, message):
    path = tmp_path / "bad.yaml"
    path.write_text(_pack(steps), encoding="utf-8")
    loaded = load_pack(path)
    assert loaded.questions == ()
    assert any(message in e.message for e in loaded.errors), [e.message for e in loaded.errors]
    assert all(e.line > 0 for e in loaded.errors)


def test_problem_and_generator_are_exclusive(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(_pack("- {name: a, kind: numeric, metric: dcg, prompt: x}\n"
                          "- {name: b, kind: numeric, metric: dcg, prompt: y}\n",
                          head="generator: ndcg-hand"), encoding="utf-8")
    (error,) = [e.message for e in load_pack(path).errors]
    assert "is a question generator (kind: generated)" in error


def test_generate_json_lists_a_scenario_with_its_steps_and_answers(pack):
    result = CliRunner().invoke(cli, ["generate", "--pack", str(pack), "--topic", "scn-hand",
                                       "--seed", "2", "--count", "1", "--json"])
    assert result.exit_code == 0, result.output
    (item,) = [i for i in json.loads(result.output) if i["kind"] == "scenario"]
    assert item["params"] == {"relevance": RANKED, "judged": POOL, "k": K, "gain": "exponential"}
    steps = item["steps"]
    assert [s["kind"] for s in steps] == ["numeric"] * 4 + ["choice"]
    assert [s["metric"] for s in steps[:4]] == ["dcg", "idcg", "ndcg", "ndcg"]
    expected = [ref.dcg(RANKED, K), ref.idcg(RANKED, POOL, K), ref.ndcg(RANKED, POOL, K),
                ref.ndcg(RANKED, POOL, 1)]
    for step, value in zip(steps, expected, strict=False):
        assert step["answer"]["value"] == pytest.approx(value, rel=1e-12)
        assert set(step["answer"]) == {"exact", "value"}
    assert steps[2]["uses"] == ["dcg", "idcg"]
    assert steps[4]["correct"] in ("a", "b") and steps[4]["prompt"].startswith("Which is larger")


def test_transcript_writes_scenario_and_step(pack, tmp_path):
    transcript = tmp_path / "t.jsonl"
    answers = "\n".join([f"{ref.dcg(RANKED, K, 'linear'):.4f}", f"{ref.idcg(RANKED, POOL, K):.4f}",
                         f"{ref.dcg(RANKED, K, 'linear') / ref.idcg(RANKED, POOL, K):.4f}",
                         ":skip", ":skip"]) + "\n"
    result = CliRunner().invoke(cli, ["practice", "--pack", str(pack), "--topic", "scn-hand",
                                       "--seed", "3", "--count", "1", "--transcript", str(transcript)],
                                input=answers)
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert [(x["scenario"], x["step"]) for x in lines] == [("chain-1", n) for n in range(1, 6)]
    assert [x["verdict"] for x in lines] == ["wrong", "correct", "consistent", "skipped", "skipped"]


def test_the_same_seed_gives_the_same_scenarios_in_generate_and_practice(tmp_path):
    """Issue 15: `generate --json` and `practice` with one seed ask the same scenarios, drawn
    scenarios included (the built-in pack has one per scenario generator)."""
    args = ["--pack", "scenarios", "--seed", "5", "--count", "20"]  # every scenario of the pack
    result = CliRunner().invoke(cli, ["generate", *args, "--json"])
    assert result.exit_code == 0, result.output
    items = json.loads(result.output)
    assert any(i["generator"] for i in items), "a generated scenario among them"
    steps = [(i, s) for i in items for s in i["steps"]]
    transcript = tmp_path / "t.jsonl"
    run = CliRunner().invoke(cli, ["practice", *args, "--transcript", str(transcript)],
                             input=":skip\n" * len(steps))
    assert run.exit_code == 0, run.output
    lines = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert [(x["scenario"], x["step"], x["prompt"]) for x in lines] == [
        (i["id"], s["step"], s["prompt"]) for i, s in steps]
    for line, (item, step) in zip(lines, steps, strict=True):
        if step["kind"] == "numeric":
            assert line["expected"]["value"] == step["answer"]["value"]
        if item["generator"]:
            assert line["params"]["relevance"] == item["params"]["relevance"]


def test_resume_asks_a_scenario_cut_short_again_from_its_first_step(pack):
    args = ["practice", "--pack", str(pack), "--topic", "scn-hand", "--seed", "3", "--count", "1"]
    first = CliRunner().invoke(cli, args, input=f"{ref.dcg(RANKED, K):.4f}\n:quit\n")
    assert first.exit_code == 0, first.output
    assert "Stopped in question 1 of 1 (a scenario, at step 2 of 5)" in first.output
    again = CliRunner().invoke(cli, ["practice", "--resume"], input=":quit\n")
    assert again.exit_code == 0, again.output
    assert "Resuming session 1 (seed 3) at question 1 of 1" in again.output
    assert "Question 1/1 · step 1/5" in again.output


def test_reading_the_feedback_between_steps_does_not_use_the_scenarios_time(pack):
    now = [0.0]
    s = session(pack, "chain-1", seconds=10, pause=True)
    s.clock = lambda: now[0]
    s.start()
    now[0] = 5.0
    s.submit("4")  # a miss: the feedback waits for Enter
    assert s.waiting
    now[0] = 65.0  # a minute reading the worked solution
    s.go_on()
    assert s.remaining() == pytest.approx(45.0)  # 50 s for the scenario, 5 s used answering


def test_the_summary_counts_questions_not_steps(pack):
    s = session(pack, "chain-1", "plain-1")
    s.start()
    s.submit(str(ref.dcg(RANKED, K)))
    s.quit()
    summary = s.summary()
    assert (summary.planned, summary.planned_asked) == (2, 1)
    text = render(_finished(s), Style(width=80))
    assert "Score: 1/1 answers correct" in text and "Answered 1 of 2 questions." in text


def test_a_drawn_problem_a_steps_change_does_not_suit_is_an_error_at_the_step(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent("""\
        pack: {name: bad, version: "1"}
        questions:
          - id: bad-1
            topic: t
            kind: scenario
            prompt: a drawn ranking
            hints: []
            generator: ndcg-chain
            steps:
              - {name: dcg, kind: numeric, metric: dcg, prompt: DCG?}
              - {name: ndcg, kind: numeric, metric: ndcg, prompt: NDCG?, change: {judged: [0, 0]}}
        """), encoding="utf-8")
    (error,) = load_pack(path).errors
    assert error.line == 11 and "step 'ndcg' (ndcg)" in error.message and "seed 0" in error.message


def test_lint_finds_a_later_steps_exact_form_and_a_code_example_value(tmp_path):
    from drills.packs.leaks import leak_errors

    path = tmp_path / "leak.yaml"
    path.write_text(PACK.replace("        prompt: Compute DCG@3.",
                                 "        prompt: Compute DCG@3.\n"
                                 "        explanation: Next, IDCG = 17/2 + 3/log2(3)."), encoding="utf-8")
    qs = load_pack(path).questions
    errors = leak_errors(qs)
    assert any("states 17/2 + 3/log2(3) (in its explanation), the exact answer of chain-1#2" in e
               for e in errors), errors


def test_the_summary_heading_is_painted_not_shown_as_escape_text(pack):
    """Painting before wrapping showed the escape codes as text (^[[1m) on colour terminals."""
    s = session(pack, "plain-1")
    s.start()
    s.quit()
    text = render(_finished(s), Style(color=True, width=80))
    assert text.startswith("\x1b[1mSession over.\x1b[0m\n") and "^[" not in text


def test_a_dcg_or_idcg_step_shows_only_its_own_table(pack):
    """The whole NDCG solution after a missed DCG step would give the next steps' answers away."""
    from drills.grading.solution import worked_for

    dcg, idcg, ndcg = questions(pack)["chain-1"].steps[:3]
    assert "DCG@3: the ranking as given" in worked_for(dcg)
    assert "IDCG@3" not in worked_for(dcg) and "NDCG@3" not in worked_for(dcg)
    assert "IDCG@3: judged grades sorted best first" in worked_for(idcg)
    assert "the ranking as given" not in worked_for(idcg) and "NDCG@3" not in worked_for(idcg)
    assert "NDCG@3 = DCG@3 / IDCG@3" in worked_for(ndcg)  # the last of the three shows it all


def test_a_slip_repeated_at_a_later_step_is_explained_once(pack):
    """Issue 23: the same slip at two steps of one scenario is explained in full at the first;
    the second says it is the same slip and keeps only its own right step."""
    s = session(pack, "chain-1")
    s.start()
    s.submit(f"{ref.dcg(RANKED, K, 'linear'):.4f}")  # step 1: DCG@3 with linear gain
    s.go_on()
    s.submit(f"{ref.idcg(RANKED, POOL, K, 'linear'):.4f}")  # step 2: IDCG@3, linear gain again
    one, two = s.records
    assert one.misconceptions == two.misconceptions == ("linear_gain",)
    described = "You used the grade itself as the gain"
    assert described in one.explanation
    assert described not in two.explanation
    assert "The same slip as at step 1 (linear_gain), explained there. Right step: IDCG" in two.explanation
    assert two.explanation.count("Right step") == 1
