"""``answered_here`` reads the history newest first, a chunk of answers at a time, and stops
when every key is found (issue 25, point 4: ``drills stats`` over 1,000,000 answers). The
answer must not depend on where the chunks fall: checked here with chunks of 1 to 7 answers
against the definition (a key answered in a session not imported, or in no session at all)
computed row by row in Python."""

from __future__ import annotations

import random

import pytest

from drills.store import Attempt, Store, schedule

KEYS = ["q:a", "q:b", "q:c", "skill:ndcg_at_k:conventions", "q:scene"]


def _attempt(rng: random.Random) -> Attempt:
    pick = rng.randrange(6)
    if pick == 3:
        return Attempt("ndcg_at_k-x", "conventions", "generated", "correct", "1", "1", 1.0, (), 2.0,
                       generator="ndcg_at_k", params={"n": 3})
    if pick == 4:  # a scenario's step: its item is the scenario's
        return Attempt("scene.step2", "conventions", "numeric", "wrong", "1", "2", 2.0, (), 2.0,
                       scenario="scene", step=2)
    qid = "abcz"[min(pick, 3)] if pick != 5 else "z"
    return Attempt(qid, "conventions", "numeric", "correct", "1", "1", 1.0, (), 2.0)


def _expected(store: Store, wanted: set[str]) -> set[str]:
    """Row by row: each answer's item key, kept when its session is missing or not imported."""
    imported = {sid for sid, options in store.conn.execute("SELECT id, options FROM sessions")
                if '"imported": true' in options}
    found = set()
    for sid, qid, generator, topic, scenario in store.conn.execute(
            "SELECT session_id, question_id, generator, topic, scenario FROM attempts"):
        if sid in imported:
            continue
        key = (f"q:{scenario}" if scenario else f"skill:{generator}:{topic}" if generator else f"q:{qid}")
        if key in wanted:
            found.add(key)
    return found


@pytest.mark.parametrize("seed", range(6))
def test_answered_here_is_the_same_whatever_the_chunk(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    store = Store.open(tmp_path / "home")
    try:
        for s in range(rng.randrange(1, 6)):
            options = {"imported": True} if rng.random() < 0.4 else {}
            sid = store.start_session("practice", s, options)
            store.record_attempts(sid, [_attempt(rng) for _ in range(rng.randrange(0, 9))], review=False)
        if rng.random() < 0.5:  # an answer whose session row is gone still counts as here
            store.conn.execute("PRAGMA foreign_keys = OFF")  # as damage salvaged would leave it
            store.conn.execute("DELETE FROM sessions WHERE id = (SELECT max(session_id) FROM attempts)")
        wanted = set(rng.sample(KEYS, rng.randrange(1, len(KEYS) + 1)))
        expected = _expected(store, wanted)
        for chunk in range(1, 8):
            monkeypatch.setattr(schedule, "_HERE_CHUNK", chunk)
            assert schedule.answered_here(store, sorted(wanted)) == expected, chunk
    finally:
        store.close()


def test_no_answers_at_all(tmp_path):
    store = Store.open(tmp_path / "home")
    try:
        assert schedule.answered_here(store, ["q:a"]) == set()
    finally:
        store.close()
