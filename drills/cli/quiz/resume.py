"""``drills practice --resume``: the session cut short goes on in the same session row, with
its earlier answers counted (score, streak, summary, retry offer, ``history list``).

A resumed session is the same session: its answers so far are read back from the history
and mapped onto the plan (a scenario left part way is asked again whole), the session row
is reused and ended with the totals of the whole plan.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from drills.grading.scenario import flatten
from drills.model import Question
from drills.quiz.events import Record

_COLUMNS = "question_id, verdict, given, expected, expected_value, misconceptions, seconds, self_grade"


def earlier_records(store: Any, session_id: int, items: Sequence[Question]) -> list[Record]:
    """The session's saved answers as the records of its first planned items, whole: the
    answers of a scenario cut short (and anything that does not follow the plan) are left
    out, so those items are asked again."""
    rows = store.reading(lambda: store.conn.execute(
        f"SELECT {_COLUMNS}, scenario, step FROM attempts WHERE session_id = ? ORDER BY id",
        (session_id,)).fetchall())
    flat, owner = flatten(list(items))
    records: list[Record] = []
    current: list[Record] = []  # the answered steps of the scenario in progress
    pos = 0
    for row in rows:
        if pos >= len(flat):
            break
        scenario, step = row[8], row[9]
        q = flat[pos]
        if q.part is not None and current and scenario == q.part.scenario and step == 1:
            pos -= len(current)  # the scenario was asked again from its first step
            current = []
            q = flat[pos]
        if q.part is None:
            if scenario is not None or row[0] != q.id:
                break
            records.append(_record(pos, owner[pos], q, row))
        else:
            if scenario != q.part.scenario or step != q.part.step:
                break
            current.append(_record(pos, owner[pos], q, row))
            if q.part.step == q.part.of:
                records += current
                current = []
        pos += 1
    return records


def _record(index: int, item: int, q: Question, row: Sequence[Any]) -> Record:
    try:
        beliefs = tuple(str(m) for m in json.loads(row[5] or "[]"))
    except (ValueError, TypeError):
        beliefs = ()
    return Record(index, q, str(row[1]), given=row[2] or "", seconds=float(row[6] or 0.0),
                  expected=row[3] or "", expected_value=row[4], misconceptions=beliefs,
                  self_grade=row[7], item=item)
