"""The quiz under an unlucky user: full disks, bad bytes, odd transcript targets, closed pipes.

Each test fails on the code before the hardening pass: answers shown as graded but not
saved with one easy-to-miss line, a strict locale aborting on a bad byte, a transcript
over the history or into a FIFO with no reader, ``Error: BrokenPipeError`` under ``| head``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = "0.5\n" * 40


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def drills(*args, input=None, env=None, timeout=60):
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, "-m", "drills", *args], input=input, env=full_env,
                          capture_output=True, timeout=timeout, cwd=str(ROOT))


def saved(home: Path) -> int:
    with sqlite3.connect(home / "drills.db") as conn:
        return conn.execute("SELECT count(*) FROM attempts").fetchone()[0]


# --- a save that fails -----------------------------------------------------------------

@pytest.fixture
def failing_saves(monkeypatch):
    """The store refuses every answer from the second on, as a full disk does."""
    import drills.cli.quiz.recorder as rec
    from drills.store import Store, StoreError

    monkeypatch.setattr(rec, "RETRY_DELAY", 0)
    calls = []
    real = Store.record_attempt

    def record_attempt(self, session_id, attempt):
        calls.append(attempt.given)
        if len(calls) > 1:
            raise StoreError("could not save to drills.db: database or disk is full")
        return real(self, session_id, attempt)

    monkeypatch.setattr(Store, "record_attempt", record_attempt)
    return calls


def test_plain_mode_stops_at_an_answer_it_cannot_save(failing_saves, drills_home):
    result = run("practice", "--count", "5", "--seed", "1", "--pack", "ndcg-hand-computation",
                 input=ANSWERS)
    assert result.exit_code == 1
    assert failing_saves == ["0.5", "0.5", "0.5"]  # answer 2 tried twice, then the session stops
    assert "database or disk is full; the session stops here" in result.stderr
    assert result.stdout.count("Question ") == 2  # no third question after the failure
    assert "Not saved: 1 answer was graded but not saved" in result.stderr
    lines = [json.loads(x) for x in result.stderr.splitlines() if x.startswith("{")]
    assert len(lines) == 1 and lines[0]["given"] == "0.5" and lines[0]["verdict"] in ("wrong", "close")
    assert saved(drills_home) == 1


def test_graded_equals_saved_plus_reported(failing_saves, drills_home, tmp_path):
    transcript = tmp_path / "t.jsonl"
    result = run("practice", "--count", "4", "--seed", "2", "--pack", "ndcg-hand-computation",
                 "--transcript", str(transcript), input=ANSWERS)
    graded = len(transcript.read_text().splitlines())
    reported = sum(1 for x in result.stderr.splitlines() if x.startswith("{"))
    assert graded == saved(drills_home) + reported and reported >= 1


def test_the_session_row_is_ended_when_a_save_fails(failing_saves, drills_home):
    run("practice", "--count", "3", "--seed", "1", "--pack", "ndcg-hand-computation", input=ANSWERS)
    with sqlite3.connect(drills_home / "drills.db") as conn:
        ended, total = conn.execute("SELECT ended_at, total FROM sessions").fetchone()
    assert ended is not None and total == 2


TMPFS_SIZE = "200k"


@pytest.fixture
def full_disk(tmp_path):
    """A 200 KB tmpfs (root only; skipped where mounting is not allowed)."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a tmpfs needs root")
    mnt = tmp_path / "small"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE}", "tmpfs", str(mnt)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


NUMERIC_ONLY = """\
pack:
  name: disk-fill
  version: "1.0.0"
  description: Numeric questions only, so every answer line is graded.
questions:
  - id: fill-gen
    topic: fill
    kind: generated
    difficulty: easy
    prompt: "Compute NDCG@k."
    generator: ndcg-hand
    params: {n: 4, k: 3, metric: ndcg, max_rel: 3, gain: exponential}
"""


def test_on_a_full_filesystem_every_graded_answer_is_saved_or_reported(full_disk, tmp_path):
    home = full_disk / "home"
    pack = tmp_path / "fill.yaml"  # the pack and the transcript live on the big disk
    pack.write_text(NUMERIC_ONLY, encoding="utf-8")
    transcript = tmp_path / "t.jsonl"
    env = {"DRILLS_HOME": str(home)}
    drills("practice", "--count", "1", "--seed", "1", "--pack", str(pack), input=b"0.5\n", env=env)
    first = saved(home)
    filler = full_disk / "filler"
    with open(filler, "wb") as f:  # fill the disk, then give back room to open but not to finish
        try:
            f.write(b"\0" * (200 * 1024))
        except OSError:
            pass
    os.truncate(filler, max(0, os.path.getsize(filler) - 80 * 1024))
    done = drills("practice", "--count", "300", "--seed", "5", "--pack", str(pack),
                  "--transcript", str(transcript), input=b"0.5\n" * 300, env=env, timeout=300)
    err = done.stderr.decode()
    graded = len(transcript.read_text().splitlines())
    unsaved = [json.loads(x) for x in err.splitlines() if x.startswith("{")]
    in_db = saved(home) - first
    assert graded == in_db + len(unsaved), err[-2000:]
    assert unsaved and done.returncode == 1 and "Not saved:" in err  # the disk did fill up
    assert "Traceback" not in err and graded < 300  # plain mode stopped at the failure


# --- input --------------------------------------------------------------------------------

def test_a_bad_byte_under_a_strict_locale_is_replaced_not_fatal(drills_home):
    done = drills("practice", "--count", "3", "--seed", "1", "--pack", "ndcg-hand-computation",
                  input=b"0.5\n\xff\xfe0.7\n0.6\n",
                  env={"DRILLS_HOME": str(drills_home), "PYTHONIOENCODING": "utf-8:strict",
                       "LC_ALL": "C.UTF-8"})
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    assert saved(drills_home) == 2  # the bad line is read as U+FFFD text: not a number, not counted
    assert "could not read '\ufffd\ufffd0.7'" in done.stdout.decode()
    assert b"Session over." in done.stdout and b"Answered 2 of 3" in done.stdout


def test_a_megabyte_line_is_refused_at_once_in_plain_mode(tmp_path):
    from tests.test_pty import TINY_PACK

    pack = tmp_path / "tiny.yaml"
    pack.write_text(TINY_PACK, encoding="utf-8")
    for topic in ("tiny-why", "tiny-hand"):  # a concept answer, then a numeric one
        result = run("practice", "--count", "1", "--seed", "1", "--pack", str(pack), "--topic",
                     topic, input="x" * 1_000_000 + "\n:skip\n")
        assert "answer too long (1,000,000 characters" in result.stdout, result.output[-500:]
        assert "Skipped" in result.stdout


# --- transcript targets -----------------------------------------------------------------

def test_transcript_over_the_history_is_refused_before_anything_is_written(drills_home, tmp_path):
    run("practice", "--count", "1", "--seed", "1", input="0.5\n")
    before = (drills_home / "drills.db").read_bytes()
    link = tmp_path / "innocent.jsonl"
    link.symlink_to(drills_home / "drills.db")
    for target in (drills_home / "drills.db", drills_home / "drills.db-wal", link):
        result = run("practice", "--count", "1", "--transcript", str(target), input="0.5\n")
        assert result.exit_code == 2
        assert "refusing to write the transcript over the history database" in result.stderr
    assert (drills_home / "drills.db").read_bytes() == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_transcript_fifo_with_no_reader_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    start = time.monotonic()
    done = drills("practice", "--count", "1", "--transcript", str(fifo), input=b"0.5\n",
                  env={"DRILLS_HOME": str(tmp_path / "home")}, timeout=30)
    assert time.monotonic() - start < 20  # before: blocked in open() until killed
    assert done.returncode == 2
    assert b"a pipe that nobody reads" in done.stderr


def test_an_unopenable_transcript_is_a_usage_error(tmp_path):
    result = run("practice", "--count", "1", "--transcript", str(tmp_path / "nope" / "t.jsonl"))
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: cannot write the transcript")
    assert "Traceback" not in result.output


# --- a closed pipe ----------------------------------------------------------------------

def test_practice_into_head_ends_quietly(drills_home):
    done = subprocess.run(
        f"{sys.executable} -m drills practice --count 5 --seed 1 | head -1",
        shell=True, input=ANSWERS.encode(), capture_output=True, timeout=60, cwd=str(ROOT),
        env=dict(os.environ, PYTHONPATH=str(ROOT), DRILLS_HOME=str(drills_home)),
        executable="/bin/bash")
    status = subprocess.run(  # the exit status of drills itself, not of head
        f"{sys.executable} -m drills practice --count 5 --seed 1 | head -1; exit ${{PIPESTATUS[0]}}",
        shell=True, input=ANSWERS.encode(), capture_output=True, timeout=60, cwd=str(ROOT),
        env=dict(os.environ, PYTHONPATH=str(ROOT), DRILLS_HOME=str(drills_home)),
        executable="/bin/bash")
    assert b"Error" not in done.stderr and b"Traceback" not in done.stderr, done.stderr
    assert status.returncode == 0, status.stderr


def test_a_concept_answer_that_cannot_be_saved_at_the_end_of_input_is_reported(monkeypatch, tmp_path):
    import drills.cli.quiz.recorder as rec
    from drills.store import Store, StoreError
    from tests.test_pty import TINY_PACK

    monkeypatch.setattr(rec, "RETRY_DELAY", 0)

    def full(self, session_id, attempt):
        raise StoreError("database or disk is full")

    monkeypatch.setattr(Store, "record_attempt", full)
    pack = tmp_path / "tiny.yaml"
    pack.write_text(TINY_PACK, encoding="utf-8")
    result = run("practice", "--pack", str(pack), "--topic", "tiny-why", "--count", "1",
                 input="because the ideal ranking scores 1\n")  # revealed, then input ends
    assert result.exit_code == 1
    assert "Session over." in result.stdout
    (line,) = [json.loads(x) for x in result.stderr.splitlines() if x.startswith("{")]
    assert line["given"] == "because the ideal ranking scores 1" and line["verdict"] == "skipped"
