"""Sessions as the learner sees them: ``drills history list`` and ``drills history show``.

Scores are counted from the answers themselves, so a session that never ended (a crash,
a closed terminal) still shows what was answered. Fields damaged in the file are shown
as they are (through ``visible``) or left empty, never a traceback. Light: no sympy.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from drills.model import counted_slips
from drills.store.connection import Handle, recovering
from drills.store.verdicts import is_right, right_sql

_ANSWER_COLUMNS = ("attempt_id", "question_id", "topic", "kind", "generator", "verdict",
                   "given", "expected", "expected_value", "misconceptions", "seconds",
                   "self_grade", "difficulty", "answered_at", "scenario", "step", "overridden")


def _object(text: Any) -> dict[str, Any]:
    """A JSON object column (options, report); {} when missing or damaged."""
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _session(row: tuple[Any, ...]) -> dict[str, Any]:
    sid, mode, seed, options, started, ended, score, total, answered, correct = row
    return {"id": sid, "mode": mode, "seed": seed, "started_at": started, "ended_at": ended,
            "answered": int(answered or 0), "correct": int(correct or 0),
            "score": score, "total": total, "recovered": bool(_object(options).get("recovered")),
            "imported": _object(options).get("imported") is True}


_SELECT = f"""SELECT s.id, s.mode, s.seed, s.options, s.started_at, s.ended_at, s.score, s.total,
    (SELECT count(*) FROM attempts WHERE session_id = s.id),
    (SELECT count(*) FROM attempts WHERE session_id = s.id AND {right_sql()})
    FROM sessions AS s"""


@recovering
def list_sessions(store: Handle, limit: int | None = 20) -> tuple[list[dict[str, Any]], int]:
    """The most recent ``limit`` sessions, newest first, and how many there are in all.

    Each: ``id, mode, seed, started_at, ended_at`` (UTC text; ``ended_at`` None when the
    session never ended), ``answered, correct`` (counted from its answers), ``score,
    total`` (as the session recorded them at its end), ``recovered`` (a stand-in for a
    session row lost to damage) and ``imported`` (merged from another machine's export).
    """
    (count,) = store.conn.execute("SELECT count(*) FROM sessions").fetchone()
    sql = _SELECT + " ORDER BY s.started_at DESC, s.id DESC"  # imported sessions by their own time
    args: tuple[Any, ...] = ()
    if limit is not None:
        sql += " LIMIT ?"
        args = (max(0, int(limit)),)
    return [_session(row) for row in store.conn.execute(sql, args)], int(count)


def _misconceptions(store: Handle, attempt_id: int, text: Any) -> list[str]:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        value = None
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        store.skip("attempts", attempt_id)
        return []
    return value


def items_answered(steps: Iterable[tuple[Any, Any]]) -> int:
    """How many planned items a session's answers cover, from their ``(scenario, step)`` in
    recording order: an ordinary answer is one item, and a scenario's steps are one between
    them (a scenario left part way counts as asked). A step numbered no higher than the one
    before starts the scenario again (the same scenario asked twice)."""
    n = 0
    last: tuple[Any, Any] = (None, None)
    for scenario, step in steps:
        if (scenario is None or scenario != last[0] or not isinstance(step, int)
                or not isinstance(last[1], int) or step <= last[1]):
            n += 1
        last = (scenario, step)
    return n


def step_label(answer: dict[str, Any]) -> str | None:
    """``<scenario id>#<step>`` for an answer to a scenario's step, else None."""
    scenario, step = answer.get("scenario"), answer.get("step")
    if scenario is None:
        return None
    return f"{scenario}#{step}" if isinstance(step, int) else str(scenario)


def _review_next(answers: list[dict[str, Any]]) -> list[str]:
    """What the quiz's summary suggests (weakest topics, then the top slips), for a session
    that ended before its report was written."""
    topics: dict[str, list[int]] = {}
    for a in answers:
        t = topics.setdefault(str(a["topic"]), [0, 0])
        t[0] += is_right(a["verdict"])
        t[1] += 1
    weak = sorted((c / n, topic) for topic, (c, n) in topics.items() if c < n)
    hits = Counter(m for a in answers for m in counted_slips(str(a["kind"]), a["misconceptions"]))
    return [t for _, t in weak] + [f"misconception {m}" for m, _ in hits.most_common(3)]


@recovering
def session_report(store: Handle, session_id: int) -> dict[str, Any] | None:
    """One session with its answers in order, for its report card; None if no such id.

    Adds to the fields of ``list_sessions``: ``options`` (as started), ``quit_early``,
    ``answers`` (dicts keyed like the export's columns; ``scenario`` and ``step`` set on a
    scenario's steps; ``overridden`` True where the learner overruled the grader), ``items`` (planned items they cover: a scenario's steps are one, see
    ``items_answered``) and ``review`` (what to review next: from the session's report,
    else worked out as the quiz does).
    """
    row = store.conn.execute(_SELECT + " WHERE s.id = ?", (session_id,)).fetchone()
    if row is None:
        return None
    out = _session(row)
    options, report = store.conn.execute("SELECT options, report FROM sessions WHERE id = ?",
                                         (session_id,)).fetchone()
    answers = []
    for values in store.conn.execute(
            f"SELECT id, {', '.join(_ANSWER_COLUMNS[1:])} FROM attempts "
            "WHERE session_id = ? ORDER BY id", (session_id,)):
        answer = dict(zip(_ANSWER_COLUMNS, values, strict=True))
        answer["misconceptions"] = _misconceptions(store, answer["attempt_id"],
                                                   answer["misconceptions"])
        answer["overridden"] = answer["overridden"] == 1  # 0 or 1; damage reads as not overruled
        answers.append(answer)
    stored = _object(report)
    review = stored.get("review")
    if not (isinstance(review, list) and all(isinstance(r, str) for r in review)):
        review = _review_next(answers)
    out.update(options=_object(options), answers=answers, review=review,
               quit_early=bool(stored.get("quit_early")),
               items=items_answered((a["scenario"], a["step"]) for a in answers))
    return out
