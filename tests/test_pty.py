"""What a person sees: `drills practice` and `drills mock` in a real pty, driven by pexpect.

A tiny pack written per test keeps the questions known. prompt_toolkit asks the
terminal for the cursor position (ESC[6n); ``Term.expect`` answers it with the row and
column a terminal would (replayed in pyte when it is installed, else ESC[1;1R) so the
prompt and the bottom toolbar are drawn as on a real terminal, below what was printed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

if sys.platform == "win32":  # pragma: no cover
    pytest.skip("pty tests need a POSIX pty", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
CPR = "\x1b[6n"

TINY_PACK = """\
pack:
  name: tiny-test
  version: "1.0.0"
  description: Three known questions for the terminal tests.
questions:
  - id: tiny-ndcg
    topic: tiny-hand
    kind: numeric
    difficulty: easy
    prompt: |
      TINY-NDCG: grades in ranked order [2, 1, 3, 0], judged pool [3, 2, 1, 0].
      Exponential gain 2^rel - 1, discount log2(i + 1). Compute NDCG@4.
    hints:
      - "NDCG@4 = DCG@4 / IDCG@4."
    problem: {relevance: [2, 1, 3, 0], judged: [3, 2, 1, 0], k: 4, gain: exponential}
    metric: ndcg
  - id: tiny-choice
    topic: tiny-conventions
    kind: choice
    difficulty: easy
    prompt: "TINY-CHOICE: which gain gives a grade-0 document gain 0?"
    options:
      - text: "2^rel"
      - text: "2^rel - 1"
        correct: true
  - id: tiny-concept
    topic: tiny-why
    kind: concept
    difficulty: easy
    prompt: "TINY-CONCEPT: why divide DCG by IDCG?"
    model_answer: "So every query lands on a 0-1 scale where the ideal ranking scores 1."
    key_points:
      - "queries become comparable on a 0-1 scale"
      - "the ideal ranking scores exactly 1"
"""


class Term:
    """A pexpect child that answers cursor-position requests while waiting."""

    def __init__(self, args: list[str], home: Path, extra_env: dict[str, str] | None = None,
                 dimensions: tuple[int, int] = (40, 100)) -> None:
        env = dict(os.environ, DRILLS_HOME=str(home), TERM="xterm", NO_COLOR="1",
                   PYTHONPATH=str(ROOT))
        env.pop("PAGER", None)
        for sized in ("COLUMNS", "LINES"):  # the pty's own size, never a width leaked from another test
            env.pop(sized, None)
        env.update(extra_env or {})
        env.pop("PROMPT_TOOLKIT_NO_CPR", None)
        self.child = pexpect.spawn(sys.executable, ["-m", "drills", *args], env=env, cwd=str(ROOT),
                                   encoding="utf-8", dimensions=dimensions, timeout=30)
        self.seen = ""
        self._fed = 0
        try:
            import pyte
        except ImportError:  # answer row 1: prompt_toolkit then draws from the top
            self._screen = None
        else:
            self._screen = pyte.Screen(dimensions[1], dimensions[0])
            self._stream = pyte.Stream(self._screen)

    def _position(self) -> str:
        """The cursor position report a terminal would send now."""
        if self._screen is None:
            return "\x1b[1;1R"
        self._stream.feed(self.seen[self._fed:])
        self._fed = len(self.seen)
        return f"\x1b[{self._screen.cursor.y + 1};{self._screen.cursor.x + 1}R"

    def expect(self, *patterns: str, timeout: float = 30) -> int:
        """Wait for one of ``patterns`` (plain text); returns its index."""
        while True:
            i = self.child.expect_exact([CPR, *patterns, pexpect.EOF], timeout=timeout)
            self.seen += (self.child.before or "") + (self.child.after if isinstance(self.child.after, str) else "")
            if i == 0:
                self.child.send(self._position())
                continue
            if i == len(patterns) + 1:
                raise AssertionError(f"exited before {patterns!r}; screen:\n{self.seen[-3000:]}")
            return i - 1

    def send(self, text: str) -> None:
        self.child.send(text)

    def close(self) -> int | None:
        self.expect_eof()
        self.child.close()
        return self.child.exitstatus

    def expect_eof(self) -> None:
        while self.child.expect_exact([CPR, pexpect.EOF], timeout=30) == 0:
            self.seen += self.child.before or ""
            self.child.send(self._position())
        self.seen += self.child.before or ""


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY_PACK, encoding="utf-8")
    return path


def practice(pack: Path, home: Path, *extra: str, env: dict[str, str] | None = None) -> Term:
    """`drills practice` with the tiny pack added; --topic picks its questions (custom topics)."""
    if "--topic" not in extra:
        extra = (*extra, *ALL_TINY)
    return Term(["practice", "--seed", "4", "--pack", str(pack), *extra], home, env)


ALL_TINY = ("--topic", "tiny-hand", "--topic", "tiny-conventions", "--topic", "tiny-why")


def test_answer_right_in_a_pty(pack, drills_home):
    t = practice(pack, drills_home, "--topic", "tiny-hand", "--count", "1")
    t.expect("TINY-NDCG")
    t.expect("answer>")
    t.send("0.7592\r")
    t.expect("Correct")
    t.expect("Session over.")
    t.expect("Score: 1/1")
    assert t.close() == 0


def test_wrong_answer_is_diagnosed_in_a_pty(pack, drills_home):
    t = practice(pack, drills_home, "--topic", "tiny-hand", "--count", "1")
    t.expect("answer>")
    t.send("0.8675\r")
    t.expect("Wrong")
    t.expect("Diagnosis: linear_gain")
    t.expect("That formula gives 0.867503")  # the brief card; the tables wait for :steps
    # the last question's miss waits too, so its worked solution is still one key away
    t.expect("Enter: the summary   s: the worked solution")
    t.send("s\r")
    t.expect("IDCG")
    t.expect("Enter: the summary")
    t.send("\r")
    t.expect("Session over.")
    t.expect("Retry the 1 question you missed?")
    t.send("n\r")
    assert t.close() == 0


def test_ctrl_c_skips_and_ctrl_d_quits(pack, drills_home, tmp_path):
    transcript = tmp_path / "t.jsonl"
    t = practice(pack, drills_home, "--count", "3", "--transcript", str(transcript))
    t.expect("Question 1/3")
    t.expect("answer>")
    t.send("\x03")
    t.expect("Skipped")
    t.expect("Question 2/3")
    t.expect("answer>")
    t.send("\x04")
    t.expect("Session over.")
    t.expect("Seed 4")
    assert t.close() == 0
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert [line["verdict"] for line in lines] == ["skipped"]


def test_hint_choice_and_concept_in_a_pty(pack, drills_home):
    t = practice(pack, drills_home, "--topic", "tiny-conventions", "--topic", "tiny-why", "--count", "2")
    for _ in range(2):
        which = t.expect("TINY-CHOICE", "TINY-CONCEPT")
        if which == 0:
            t.expect("answer>")
            t.send(":hint\r")
            t.expect("no hints")
            t.send("b\r")
            t.expect("Correct: b) 2^rel - 1")
        else:
            t.expect("finish with an empty line")
            t.expect("answer>")
            t.send("queries become comparable\r")
            t.send("on a 0-1 scale\r\r")
            t.expect("Key points you covered (1/2)")
            t.expect("grade>")
            t.send("good\r")
            t.expect("you graded it good")
    t.expect("Score: 2/2")
    assert t.close() == 0


def test_mock_question_times_out_with_a_countdown(pack, drills_home, tmp_path):
    transcript = tmp_path / "mock.jsonl"
    t = Term(["mock", "--per-question", "2", "--count", "1", "--seed", "1", "--pack", str(pack),
              "--transcript", str(transcript), "--feedback", "immediate"], drills_home)
    t.expect("Question 1/1")
    t.expect(" left")  # the live countdown in the bottom toolbar
    t.expect("Time is up", timeout=15)
    t.expect("Mock interview report")
    assert t.close() == 0
    (line,) = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert line["verdict"] == "timeout" and line["seconds"] == 2


def test_first_question_is_drawn_before_sympy_is_imported(pack, drills_home):
    t = practice(pack, drills_home, "--count", "1", env={"DRILLS_DEBUG_IMPORTS": "1"})
    t.expect("Question 1/1")
    t.expect("[debug] sympy imported at first question: ")
    assert t.expect("False", "True") == 0
    t.expect("answer>")
    t.send("\x04")
    assert t.close() == 0
