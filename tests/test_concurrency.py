"""Durability and concurrency with real processes: kill -9 mid-session, two writers at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from drills.store import Store
from drills.store.migrations import MIGRATIONS
from drills.store.progress import stats

ROOT = Path(__file__).resolve().parent.parent

# Records attempts one by one through the public API; optional go-file to start together.
HELPER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from drills.store import Attempt, Store

    home, count, tag, go, linger = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5])
    if go != "-":
        while not Path(go).exists():
            time.sleep(0.001)
    store = Store.open(Path(home))
    sid = store.start_session("practice", None, {"tag": tag})
    for i in range(count):
        store.record_attempt(sid, Attempt(f"{tag}-{i}", "normalization", "numeric",
                                          "wrong" if i % 3 else "correct", str(i), "1", 1.0,
                                          ("log2_rank",) if i % 3 else (), 1.5))
        print(f"recorded {i + 1}", flush=True)
    time.sleep(linger)
    store.end_session(sid, 0, count, {})
    store.close()
""")


@pytest.fixture
def helper(tmp_path) -> Path:
    path = tmp_path / "record_helper.py"
    path.write_text(HELPER, encoding="utf-8")
    return path


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs kill -9")
def test_kill_9_mid_session_keeps_every_recorded_attempt(helper, drills_home):
    proc = subprocess.Popen([sys.executable, str(helper), str(drills_home), "7", "k", "-", "60"],
                            stdout=subprocess.PIPE, text=True, env=_env())
    try:
        lines = [proc.stdout.readline().strip() for _ in range(7)]
        assert lines[-1] == "recorded 7", lines
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    with Store.open(drills_home) as store:
        assert store.notice is None
        ids = [r[0] for r in store.conn.execute("SELECT question_id FROM attempts ORDER BY id")]
        assert ids == [f"k-{i}" for i in range(7)]
        ended = store.conn.execute("SELECT ended_at FROM sessions").fetchall()
        assert ended == [(None,)]  # the session never ended, its answers are all there
        cards = store.conn.execute("SELECT count(*) FROM review_cards").fetchone()[0]
        assert cards == 7
        assert stats(store)["attempts"] == 7


def test_two_processes_writing_at_once_lose_nothing(helper, drills_home, tmp_path):
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, str(helper), str(drills_home), "20", tag, str(go),
                               "0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, env=_env())
             for tag in ("a", "b")]
    time.sleep(0.3)  # both interpreters up and polling, then release them together
    go.touch()
    errors = []
    for p in procs:
        _, err = p.communicate(timeout=120)
        errors.append((p.returncode, err))
    assert all(code == 0 for code, _ in errors), errors
    with Store.open(drills_home) as store:
        assert store.conn.execute("SELECT count(*) FROM attempts").fetchone()[0] == 40
        per_tag = dict(store.conn.execute(
            "SELECT substr(question_id, 1, 1), count(*) FROM attempts GROUP BY 1"))
        assert per_tag == {"a": 20, "b": 20}
        assert store.conn.execute("SELECT count(*) FROM sessions WHERE ended_at IS NOT NULL"
                                  ).fetchone()[0] == 2
        applied = store.conn.execute("SELECT count(*) FROM migrations").fetchone()[0]
        assert applied == len(MIGRATIONS)  # the fresh-db race applied each migration once
        assert stats(store)["misconceptions"] == {"log2_rank": 26}
