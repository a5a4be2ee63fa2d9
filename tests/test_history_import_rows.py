"""An import lays each answer out as its ``attempts`` row in one pass (``merge.answer_row``,
issue 25: 100,000 answers under 2 s). Its row, or its error, must be exactly those of the
checked Attempt's row (``attempt_row`` of the pre-fast-path ``attempt_from_row``, kept
verbatim in tests/test_attempt_from_row_fast.py as the oracle), on sound rows and on rows
with each kind of fault; and the merge stores answers in time order whatever their offsets."""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import datetime, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drills.store import merge as merge_mod
from drills.store.connection import utc_text
from drills.store.database import INSERT_ATTEMPT, attempt_row
from drills.store.history_import import timestamp
from drills.store.merge import answer_row
from drills.store.migrations import migrate
from tests.test_attempt_from_row_fast import ODD, SOUND, WHEN, reference_from_row, row_of, rows
from tests.test_history_sync import import_files, table


def _outcome(fn: Any, row: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(row, WHEN)
    except (ValueError, TypeError, OverflowError) as exc:
        return type(exc).__name__, str(exc)


def _reference_row(row: Any, when: datetime) -> tuple[Any, ...]:
    return attempt_row(7, reference_from_row(row, when))[1:]


def _typed(outcome: tuple[str, Any]) -> tuple[str, Any]:
    kind, value = outcome
    return (kind, [(type(v), v) for v in value]) if kind == "ok" else outcome


@settings(max_examples=800, deadline=None)
@given(rows)
def test_the_same_row_or_the_same_message_as_the_checked_attempt(case):
    row = row_of(case)
    got, want = _outcome(answer_row, row), _outcome(_reference_row, row)
    assert _typed(got) == _typed(want)  # NaN never passes, so == is safe


@pytest.mark.parametrize("key", sorted(ODD))
def test_each_odd_value_alone(key):
    for value in ODD[key]:
        row = dict(SOUND, **{key: value})
        assert _typed(_outcome(answer_row, row)) == _typed(_outcome(_reference_row, row)), value


def test_rows_that_are_not_objects_and_a_scenario_without_its_step():
    for row in (None, [], "row", 3, {}):
        assert _outcome(answer_row, row) == _outcome(_reference_row, row)
    row = dict(SOUND, scenario="scene")
    assert _outcome(answer_row, row) == ("ValueError",
                                         "scenario and step go together: give both or neither")


def test_a_sound_row_is_laid_out_without_checked_values(monkeypatch):
    """The fast path is taken for what an export writes; the row is still the checked one."""
    def refuse(row: Any, when: datetime) -> None:
        raise AssertionError("the sound row took the slow path")

    sound = [dict(SOUND), dict(SOUND, misconceptions=[], difficulty=None, expected_value=None),
             dict(SOUND, scenario="sc", step=3, overridden=True, params={"k": 5, "a": [1.5]},
                  self_grade="good", generator="ndcg_at_k", given=None, seconds=0.0)]
    want = [_reference_row(row, WHEN) for row in sound]
    monkeypatch.setattr(merge_mod, "checked_values", refuse)
    assert [answer_row(row, WHEN) for row in sound] == want
    assert want[2][4] == '{"a": [1.5], "k": 5}' and want[0][9] == '["log2_rank"]'
    assert want[0][12] == "2026-01-02T03:04:05.678901+00:00" and want[2][-1] == 1


def test_answers_are_stored_in_time_order_whatever_their_offset(tmp_path):
    """The merge sorts answers by their stored UTC text: the same order as by time."""
    session = "5" * 32
    times = ["2026-01-02T10:00:00+05:30",  # 04:30 UTC
             "2026-01-02T04:00:00.5+00:00",  # 04:00:00.5 UTC
             "2026-01-01T23:30:00-05:00",  # 04:30 UTC again: a tie keeps file order
             "2026-01-02T04:00:00",  # naive: UTC, 04:00
             "2026-01-02T03:59:59.999999Z"]
    attempts = [dict(SOUND, uid=f"{i:032x}", question_id=f"q{i}", answered_at=t,
                     session_uid=session) for i, t in enumerate(times)]
    export = {"drills_export": 1, "attempts": attempts, "sessions": [{
        "uid": session, "mode": "practice", "seed": 1, "options": {},
        "started_at": "2026-01-01T00:00:00+00:00", "ended_at": None, "score": None,
        "total": None, "report": None}]}
    path = tmp_path / "offsets.json"
    path.write_text(json.dumps(export))
    result = import_files(tmp_path / "home", path)
    assert result.exit_code == 0, result.output
    stored = table(tmp_path / "home", "SELECT question_id, answered_at FROM attempts ORDER BY id")
    assert stored == [("q4", "2026-01-02T03:59:59.999999+00:00"),
                      ("q3", "2026-01-02T04:00:00.000000+00:00"),
                      ("q1", "2026-01-02T04:00:00.500000+00:00"),
                      ("q0", "2026-01-02T04:30:00.000000+00:00"),
                      ("q2", "2026-01-02T04:30:00.000000+00:00")]


def _attempts_db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    migrate(conn)
    conn.execute("INSERT INTO sessions(mode, options, started_at, uid) "
                 "VALUES ('practice', '{}', '2026-01-01T00:00:00.000000+00:00', ?)", ("s" * 32,))
    return conn


@pytest.mark.parametrize("seed", range(6))
def test_runs_of_plain_answers_are_stored_as_every_other_answer(seed):
    """``_write`` binds fewer values for runs of plain answers: the rows stored (ids, values,
    types) are those one ``executemany(INSERT_ATTEMPT)`` stores, for runs of every length."""
    rnd = random.Random(seed)
    plain = (1, "q", "t", "numeric", None, None, "correct", "0.5", "1/2", 0.5, "[]", 3.0, None,
             "2026-01-02T03:04:05.000000+00:00", None, None, None, "", 0)
    extras = {4: "gen", 5: '{"n": 1}', 10: '["m"]', 12: "good", 14: "hard", 15: "sc", 16: 2, 18: 1}
    rows = []
    while len(rows) < 2000:
        length, odd = rnd.choice([1, 2, 31, 32, 33, 100, 400]), rnd.random() < 0.5
        for _ in range(length):
            row = list(plain)
            row[1], row[9], row[17] = f"q{len(rows)}", rnd.random(), f"{len(rows):032x}"
            if odd:  # one column (or scenario with its step) away from plain
                at = rnd.choice(sorted(extras))
                row[at] = extras[at]
                if at in (15, 16):
                    row[15], row[16] = "sc", 2
            rows.append(tuple(row))
    mine, want = _attempts_db(), _attempts_db()
    merge_mod._write(mine, rows)
    want.executemany(INSERT_ATTEMPT, rows)
    query = "SELECT *, typeof(misconceptions), typeof(overridden), typeof(step) FROM attempts ORDER BY id"
    got = mine.execute(query).fetchall()
    assert got == want.execute(query).fetchall() and len(got) == len(rows)
    assert [r[1:20] for r in got] == rows  # ids 1.. in order, every value as given


@settings(max_examples=300, deadline=None)
@given(st.datetimes(timezones=st.just(timezone.utc)))
def test_a_time_already_in_utc_text_is_its_own_utc_text(when):
    """The merge stores an answer's time as given when it matches utc_text's form and parses
    (``_UTC_TEXT``, skipping the formatting): that text is exactly utc_text of the time."""
    text = utc_text(when)
    assert merge_mod._UTC_TEXT(text) and utc_text(timestamp(text, "answered_at")) == text


def test_the_utc_text_form_is_exact():
    match = merge_mod._UTC_TEXT
    assert match("0999-01-02T03:04:05.000000+00:00")
    for text in ("2026-01-02T03:04:05.000000+01:00", "2026-01-02 03:04:05.000000+00:00",
                 "2026-01-02T03:04:05.00000+00:00", "2026-01-02T03:04:05,000000+00:00",
                 "2026-01-02T03:04:05.000000+00:00\n", "2026-01-02T03:04:05.000000Z",
                 "２026-01-02T03:04:05.000000+00:00", "20260102T030405.000000+00:00"):
        assert not match(text), text
    with pytest.raises(ValueError):  # the form, but not a time: refused before it is stored
        timestamp("2026-13-02T03:04:05.000000+00:00", "answered_at")
