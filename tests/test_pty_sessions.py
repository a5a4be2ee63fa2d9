"""Sessions that respect the learner, in a real pty: resume where you stopped, retry what you
missed, a first run that welcomes and starts easy, config that sets the count."""

from __future__ import annotations

import sqlite3

from tests.test_pty import Term, pexpect


def practice(home, *extra, env=None):
    return Term(["practice", *extra], home, {"PAGER": "cat", **(env or {})})


def test_resume_continues_an_interrupted_session_at_the_right_question(drills_home):
    t = practice(drills_home, "--seed", "9", "--count", "4", "--topic", "hand-computation")
    t.expect("Question 1/4")
    t.expect("answer>")
    t.send("\x03")  # skip question 1 (Ctrl-C on an empty line)
    t.expect("Question 2/4")
    t.expect("answer>")
    first_two = t.seen
    t.send("\x04")  # quit before question 2
    t.expect("`drills practice --resume` goes on from there")
    assert t.close() == 0
    second = first_two.split("Question 2/4")[1].split("Answer:")[0].strip().splitlines()[1]
    r = practice(drills_home, "--resume")
    r.expect("at question 2 of 4")
    r.expect("Question 2/4")
    r.expect("answer>")
    assert second in r.seen  # the same question 2, same numbers
    r.send("\x04")
    assert r.close() == 0


THREE = """\
pack:
  name: three-test
  version: "1.0.0"
  description: Three fixed questions with known answers.
questions:
  - id: three-ndcg
    topic: three
    kind: numeric
    difficulty: easy
    prompt: "MARK-NDCG: grades [2, 1, 3, 0], pool [3, 2, 1, 0]; exponential gain. NDCG@4?"
    problem: {relevance: [2, 1, 3, 0], judged: [3, 2, 1, 0], k: 4, gain: exponential}
    metric: ndcg
  - id: three-dcg
    topic: three
    kind: numeric
    difficulty: easy
    prompt: "MARK-DCG: grades [2, 1, 3, 0]; exponential gain. DCG@4?"
    problem: {relevance: [2, 1, 3, 0], k: 4, gain: exponential}
    metric: dcg
  - id: three-choice
    topic: three
    kind: choice
    difficulty: easy
    prompt: "MARK-CHOICE: which gain gives a grade-0 document gain 0?"
    options:
      - text: "2^rel"
      - text: "2^rel - 1"
        correct: true
"""


def test_the_retry_round_asks_exactly_the_missed_questions(drills_home, tmp_path):
    pack = tmp_path / "three.yaml"
    pack.write_text(THREE, encoding="utf-8")
    t = practice(drills_home, "--seed", "5", "--count", "3", "--pack", str(pack))
    asked = []
    for n in (1, 2, 3):
        t.expect(f"Question {n}/3")
        which = t.expect("MARK-NDCG", "MARK-DCG", "MARK-CHOICE")
        asked.append(which)
        t.expect("answer>")
        if which == 0:
            t.send("0.7592\r")  # right
        elif which == 1:
            t.send("3.5\r")  # wrong: the brief card, then Enter
            if n < 3:
                t.expect("next>")
                t.send("\r")
        else:
            t.send("\x03")  # skipped: a miss too
    t.expect("Retry the 2 questions you missed?")
    t.send("y\r")
    retried = []
    for n in (1, 2):
        t.expect(f"Question {n}/2")
        retried.append(t.expect("MARK-NDCG", "MARK-DCG", "MARK-CHOICE"))
        t.expect("answer>")
        t.send("\x03")
    t.expect("Session over.")
    assert sorted(retried) == [1, 2]  # exactly the two missed, not the one answered right
    assert t.close() == 0  # one retry round; no second offer
    with sqlite3.connect(drills_home / "drills.db") as db:
        modes = [m for (m,) in db.execute("SELECT mode FROM sessions ORDER BY id")]
    assert modes == ["practice", "retry"]


def test_a_config_count_gives_a_three_question_session(drills_home):
    drills_home.mkdir(parents=True, exist_ok=True)
    (drills_home / "config.toml").write_text("[practice]\ncount = 3\n")
    t = practice(drills_home, "--seed", "2")
    t.expect("Question 1/3")
    t.expect("answer>")
    t.send("\x04")
    t.expect("Session over.")
    assert t.close() == 0


MIXED = """\
pack:
  name: mixed-test
  version: "1.0.0"
  description: Two hard questions and one easy one.
questions:
""" + "".join(f"""  - id: mixed-{n}
    topic: mixed
    kind: choice
    difficulty: {level}
    prompt: "MIXED-{n} ({level}): which gain gives a grade-0 document gain 0?"
    options:
      - text: "2^rel"
      - text: "2^rel - 1"
        correct: true
""" for n, level in (("a", "hard"), ("b", "hard"), ("c", "easy")))


def test_the_first_run_welcomes_and_starts_with_easy_questions(drills_home, tmp_path):
    pack = tmp_path / "mixed.yaml"
    pack.write_text(MIXED, encoding="utf-8")
    for _ in range(3):  # whatever seed is drawn, the easy question comes first
        home = tmp_path / f"home{_}"
        t = Term(["practice", "--count", "3", "--pack", str(pack)], home, {"PAGER": "cat"})
        t.expect("Welcome to drills")
        t.expect("Question 1/3")
        t.expect("answer>")
        assert "MIXED-c (easy)" in t.seen.split("Question 1/3")[1]
        t.send("\x04")
        t.expect("Session over.")
        assert t.close() == 0


assert pexpect is not None


FOUR = """\
pack:
  name: four-test
  version: "1.0.0"
  description: Four questions whose answer is 1.
questions:
""" + "".join(f"""  - id: four-{n}
    topic: four
    kind: numeric
    difficulty: easy
    prompt: "MARK-{n}: grades [1]; exponential gain. DCG@1?"
    problem: {{relevance: [1], k: 1, gain: exponential}}
    metric: dcg
""" for n in range(1, 5))


def test_a_resumed_session_adds_up_to_one_session(drills_home, tmp_path):
    """Issue 23: quit after 2 (one wrong), resume, answer 2 (one wrong): 2/4, retry 2, one row."""
    pack = tmp_path / "four.yaml"
    pack.write_text(FOUR, encoding="utf-8")
    t = practice(drills_home, "--seed", "4", "--count", "4", "--pack", str(pack))
    t.expect("Question 1/4")
    t.expect("answer>")
    t.send("1\r")
    t.expect("Question 2/4")
    t.expect("answer>")
    t.send("5\r")  # wrong: the card waits for Enter
    t.expect("next>")
    t.send("\r")
    t.expect("Question 3/4")
    t.expect("answer>")
    t.send("\x04")  # quit
    t.expect("goes on from there")
    assert t.close() == 0
    r = practice(drills_home, "--resume")
    r.expect("at question 3 of 4")
    r.expect("Question 3/4")
    r.expect("answer>")
    r.expect("streak")  # the toolbar, drawn after the prompt
    from tests.test_pty_feedback import screen_of  # pyte, only here

    assert "score 1/2" in screen_of(r)  # the toolbar counts the answers before the resume
    r.send("5\r")
    r.expect("next>")
    r.send("\r")
    r.expect("Question 4/4")
    r.expect("answer>")
    r.send("1\r")
    r.expect("Score: 2/4 correct (2 wrong)")
    r.expect("Retry the 2 questions you missed?")
    r.send("n\r")
    assert r.close() == 0
    with sqlite3.connect(drills_home / "drills.db") as db:
        sessions = db.execute("SELECT mode, score, total FROM sessions").fetchall()
        answers = db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
    assert sessions == [("practice", 2, 4)] and answers == 4


def test_the_retry_round_offers_a_concept_answer_its_rubric_graded_partial(drills_home):
    """A concept answer's self-grade only rates recall (issue 22): a partial one is a miss,
    offered in the retry round like any other (it was left out because it had a self-grade)."""
    from drills.packs import discover

    q, example = next((q, e) for q in discover(cache=False).questions
                      if q.kind == "concept" and q.rubric is not None
                      for e in q.rubric.examples
                      if e.verdict == "partial" and "\n" not in e.answer.strip() and len(e.answer) < 200)
    t = practice(drills_home, "--question", q.id)
    t.expect("Question 1/1")
    t.expect("answer>")
    t.send(example.answer.strip() + "\r")
    t.send("\r")  # the empty line that ends a concept answer
    t.expect("Partial")
    t.expect("grade>")
    t.send("3\r")  # recall rated good: still a partial answer
    t.expect("Retry the 1 question you missed?")
    t.send("n\r")
    t.expect_eof()
