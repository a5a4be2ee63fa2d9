"""A review shows what each self-grade would schedule next, and the history records difficulty."""

from __future__ import annotations

import re
import sqlite3

from click.testing import CliRunner

from drills.cli import cli
from drills.packs import discover


def test_a_review_shows_the_next_interval_for_each_grade(drills_home):
    from datetime import datetime, timedelta, timezone

    from drills.store import Attempt, Store

    concept = next(q for q in discover(cache=False).questions if q.kind == "concept")
    with Store.open(drills_home) as store:
        sid = store.start_session("practice", 1, {})
        store.record_attempt(sid, Attempt(concept.id, concept.topic, "concept", "wrong", "no idea",
                                          None, None, (), 5.0, self_grade="again",
                                          answered_at=datetime.now(timezone.utc) - timedelta(days=2)))
    result = CliRunner().invoke(cli, ["review"], input="it normalises the scale\ngood\n")
    assert result.exit_code == 0, result.output
    line = next(x for x in result.stdout.splitlines() if x.startswith("Next review:"))
    assert re.fullmatch(r"Next review: again \S+ · hard \S+ · good \S+ · easy \S+", line), line


def test_practice_records_each_answers_difficulty(drills_home):
    # a seed whose first question takes a number (a new built-in pack changes what a seed picks)
    CliRunner().invoke(cli, ["practice", "--count", "2", "--seed", "5"], input="0.5\n0.5\n")
    with sqlite3.connect(drills_home / "drills.db") as db:
        rows = db.execute("SELECT difficulty FROM attempts").fetchall()
    assert rows and all(d in ("easy", "medium", "hard") for (d,) in rows)
