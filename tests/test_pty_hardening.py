"""What a person sees when things go wrong, in a real pty: signals, huge pastes, odd history files,
and a save that fails mid-quiz (the quiz pauses and offers retry or quit)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time

import pytest

from tests.test_pty import ROOT, TINY_PACK, Term, pexpect

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


@pytest.fixture
def pack(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY_PACK, encoding="utf-8")
    return path


def numeric(pack, home, *extra, env=None):
    return Term(["practice", "--seed", "4", "--pack", str(pack), "--topic", "tiny-hand", *extra],
                home, env)


def builtin(home, *extra, env=None):
    """Built-in hand-computation questions: many numeric ones; 0.5 is wrong for each."""
    return Term(["practice", "--seed", "4", "--topic", "hand-computation", *extra], home, env)


def sessions(home):
    with sqlite3.connect(home / "drills.db") as conn:
        return conn.execute("SELECT ended_at, score, total FROM sessions").fetchall()


def wait_exit(t: Term) -> int | None:
    t.expect_eof()
    t.child.close()
    return t.child.exitstatus if t.child.exitstatus is not None else -(t.child.signalstatus or 0)


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_signal_ends_the_session_row_and_prints_the_summary(pack, drills_home, signame):
    t = builtin(drills_home, "--count", "3")
    t.expect("answer>")
    t.send("0.5\r")
    t.expect("next>")  # after a miss the next question waits for Enter
    t.send("\r")
    t.expect("Question 2/3")
    t.expect("answer>")
    t.child.kill(getattr(signal, signame))
    t.expect("Session over.")
    t.expect("Score: 0/1")
    assert wait_exit(t) == 128 + getattr(signal, signame)
    ((ended, score, total),) = sessions(drills_home)
    assert ended is not None and score == 0 and total == 1


def test_a_closed_terminal_ends_the_session_row(pack, drills_home):
    t = builtin(drills_home, "--count", "3")
    t.expect("answer>")
    t.send("0.5\r")
    t.expect("next>")  # after a miss the next question waits for Enter
    t.send("\r")
    t.expect("Question 2/3")
    t.expect("answer>")
    t.child.ptyproc.fileobj.close()  # the master side goes away: the kernel hangs the session up
    for _ in range(400):
        if not t.child.isalive():
            break
        time.sleep(0.05)
    assert not t.child.isalive()
    ((ended, score, total),) = sessions(drills_home)
    assert ended is not None and score == 0 and total == 1


@pytest.mark.parametrize("bracketed", [True, False], ids=["paste", "typed"])
def test_a_huge_paste_is_refused_and_the_question_stays(pack, drills_home, bracketed):
    t = numeric(pack, drills_home, "--count", "1")
    t.expect("answer>")
    size = 1_000_000 if bracketed else 100_000
    data = "7" * size
    start = time.monotonic()
    t.send(f"{PASTE_START}{data}{PASTE_END}\r" if bracketed else data + "\r")
    t.expect("answer too long", timeout=60)
    took = time.monotonic() - start
    # before the cap: 240 s for the paste, 45 s for the typed stream (timing lives in bench/)
    assert took < 20, took
    t.expect(f"({size:,} characters, at most 1,000)")
    t.expect("answer>")
    t.send("0.7592\r")
    t.expect("Correct")
    assert wait_exit(t) == 0


@pytest.mark.parametrize("kind", ["folder", "fifo", "zero"])
def test_an_answer_history_that_is_not_a_file_is_kept_in_memory(pack, drills_home, kind):
    drills_home.mkdir(parents=True, exist_ok=True)
    path = drills_home / "answer_history"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    t = numeric(pack, drills_home, "--count", "1")
    t.expect("is not a regular file; answer history is kept in memory this session")
    t.expect("answer>")
    t.send("0.7592\r")
    t.expect("Correct")
    assert wait_exit(t) == 0


def test_a_failed_save_pauses_the_quiz_with_retry_or_quit(drills_home, tmp_path):
    """The history is made read-only after the first answer (by a hook): the second pauses."""
    transcript = tmp_path / "t.jsonl"
    hook = tmp_path / "sitecustomize.py"
    hook.write_text(
        "import os\n"
        "from drills.store import Store, StoreError\n"
        "_real = Store.record_attempt\n"
        "def record_attempt(self, sid, attempt):\n"
        "    if os.path.exists(os.environ['FAIL_FLAG']):\n"
        "        raise StoreError('could not save: database or disk is full')\n"
        "    return _real(self, sid, attempt)\n"
        "Store.record_attempt = record_attempt\n", encoding="utf-8")
    flag = tmp_path / "full"
    env = {"PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "FAIL_FLAG": str(flag)}
    t = builtin(drills_home, "--count", "3", "--transcript", str(transcript), env=env)
    t.expect("answer>")
    t.send("0.4\r")
    t.expect("next>")
    t.send("\r")
    t.expect("Question 2/3")
    t.expect("answer>")
    flag.write_text("x")
    t.send("0.5\r")
    t.expect("Could not save your answer: could not save: database or disk is full")
    t.expect("retry or quit [r/q]>")
    flag.unlink()  # space freed: retry works and the quiz goes on
    t.send("r\r")
    t.expect("next>")
    t.send("\r")
    t.expect("Question 3/3")
    t.expect("answer>")
    flag.write_text("x")
    t.send("0.6\r")
    t.expect("retry or quit [r/q]>")
    t.send("q\r")
    t.expect("Session over.")
    t.expect("Not saved: 1 answer was graded but not saved")
    assert wait_exit(t) == 1
    lines = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert [x["given"] for x in lines] == ["0.4", "0.5", "0.6"]
    with sqlite3.connect(drills_home / "drills.db") as conn:
        given = [r[0] for r in conn.execute("SELECT given FROM attempts ORDER BY id")]
    assert given == ["0.4", "0.5"]
    unsaved = [json.loads(x) for x in t.seen.splitlines() if x.startswith('{"id"')]
    assert [x["given"] for x in unsaved] == ["0.6"]


assert pexpect is not None
