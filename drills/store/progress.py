"""Progress statistics: all aggregation happens in SQL over indexes.

``drills stats`` must answer in well under a second on 100,000 attempts, so nothing
here iterates over attempt rows in Python, and nothing imports sympy or prompt_toolkit.
A ``consistent`` answer (a scenario step right from the learner's own earlier number) is
counted as correct everywhere; the by-verdict table still shows it as its own verdict.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

from drills.store.connection import Handle, recovering, utc_text
from drills.store.fields import DUE_OK, MISCONCEPTIONS_OK, count_damaged_cards, next_due
from drills.store.verdicts import MISSES, RIGHT, right_sql

TREND_SESSIONS = 10
RECENT_ATTEMPTS = 200
# A topic below this recent accuracy (with at least MIN_ATTEMPTS) is suggested for practice.
PRACTISE_BELOW = 0.8
MIN_ATTEMPTS = 3
TOP_MISCONCEPTIONS = 5
ACTIVITY_DAYS = 30
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")


def _ratio(num: float, den: float) -> float:
    return round(num / den, 4) if den else 0.0


def _summary(store: Handle) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]],
                                    dict[str, dict[str, Any]], float]:
    """by_topic, by_kind, by_verdict and total seconds from ONE covering-index scan."""
    topics: dict[str, list[float]] = {}
    kinds: dict[str, list[float]] = {}
    verdicts: dict[str, list[float]] = {}
    rows = store.conn.execute(
        "SELECT topic, kind, verdict, count(*), total(seconds) FROM attempts "
        "INDEXED BY attempts_summary GROUP BY topic, kind, verdict")
    for topic, kind, verdict, n, secs in rows:
        ok = n if verdict in RIGHT else 0
        for table, key in ((topics, topic), (kinds, kind), (verdicts, verdict)):
            acc = table.setdefault(key, [0, 0, 0.0])
            acc[0] += n
            acc[1] += ok
            acc[2] += secs

    def shape(table: dict[str, list[float]]) -> dict[str, dict[str, Any]]:
        return {key: {"attempts": n, "correct": c, "accuracy": _ratio(c, n),
                      "mean_seconds": round(secs / n, 2) if n else None}
                for key, (n, c, secs) in sorted(table.items())}

    total = sum(acc[2] for acc in verdicts.values())
    return shape(topics), shape(kinds), shape(verdicts), total


def _by_difficulty(store: Handle) -> tuple[dict[str, dict[str, Any]], int]:
    """Accuracy per recorded difficulty (easy, medium, hard first), and how many answers
    have none (recorded before drills stored it). One scan of a partial covering index."""
    rows = store.conn.execute(
        f"SELECT difficulty, count(*), sum({right_sql()}), total(seconds) FROM attempts "
        "INDEXED BY attempts_difficulty WHERE difficulty IS NOT NULL GROUP BY difficulty")
    found = {str(d): (n, c, secs) for d, n, c, secs in rows}
    order = [d for d in DIFFICULTIES if d in found] + sorted(set(found) - set(DIFFICULTIES))
    out = {d: {"attempts": found[d][0], "correct": found[d][1],
               "accuracy": _ratio(found[d][1], found[d][0]),
               "mean_seconds": round(found[d][2] / found[d][0], 2)} for d in order}
    (total,) = store.conn.execute("SELECT count(*) FROM attempts").fetchone()
    return out, int(total) - sum(n for n, _c, _s in found.values())


def _local_midnight(day: date) -> str:
    return utc_text(datetime.combine(day, time()).astimezone())


def _activity(store: Handle, today: date, days: int = ACTIVITY_DAYS) -> list[dict[str, Any]]:
    """Answers on each of the last ``days`` local calendar days, oldest first (today last).

    One index range count per day on answered_at: the cost is the answers counted, and
    days are local, so a change of daylight saving time moves the boundaries with it.
    """
    first = today - timedelta(days=days - 1)
    bounds = [(first + timedelta(days=i), _local_midnight(first + timedelta(days=i)),
               _local_midnight(first + timedelta(days=i + 1))) for i in range(days)]
    out = []
    for day, lo, hi in bounds:
        (n,) = store.conn.execute(
            "SELECT count(*) FROM attempts INDEXED BY attempts_answered_at "
            "WHERE answered_at >= ? AND answered_at < ?", (lo, hi)).fetchone()
        out.append({"date": day.isoformat(), "attempts": int(n)})
    return out


Counts = tuple[dict[str, int], dict[str, list[str]]]  # id -> count (most frequent first), id -> topics


def _misconceptions(store: Handle) -> tuple[Counts, Counts]:
    """The slips and the wrong beliefs: for each, the count per id (most frequent first) and
    the topics it showed up in. The ids of a concept answer (kind ``concept``, graded by its
    rubric) are wrong beliefs; every other answer's are slips (wrong formulas).

    One scan of the partial covering index of answers with misconceptions (topic, kind,
    misconceptions), grouped by those three in index order: the JSON of each distinct list is
    checked and expanded once, not once per answer. An answer whose misconceptions are not
    a JSON list is left out and counted.
    """
    conn = store.conn
    for topic, kind, text in conn.execute(
            "SELECT topic, kind, misconceptions FROM attempts INDEXED BY attempts_misconceptions_by_kind "
            "WHERE misconceptions != '[]' GROUP BY topic, kind, misconceptions "
            f"HAVING NOT {MISCONCEPTIONS_OK}").fetchall():
        for (rowid,) in conn.execute(
                "SELECT rowid FROM attempts INDEXED BY attempts_misconceptions_by_kind "
                "WHERE misconceptions != '[]' AND topic IS ? AND kind IS ? AND misconceptions IS ?",
                (topic, kind, text)):
            store.skip("attempts", rowid)
    rows = conn.execute(
        "SELECT j.value, a.topic, a.belief, sum(a.n) FROM (SELECT topic, "
        "kind = 'concept' AS belief, misconceptions, count(*) AS n FROM attempts "
        "INDEXED BY attempts_misconceptions_by_kind WHERE misconceptions != '[]' "
        f"GROUP BY topic, kind, misconceptions HAVING {MISCONCEPTIONS_OK}) AS a, "
        # one answer, one slip: a slip answer counts its primary (first) id only; a concept
        # answer every wrong belief it stated (drills.model.counted_slips)
        "json_each(a.misconceptions) AS j WHERE j.type = 'text' AND (a.belief OR j.key = 0) "
        "GROUP BY j.value, a.topic, a.belief ORDER BY sum(a.n) DESC")
    found: tuple[Counts, Counts] = (({}, {}), ({}, {}))  # (slips, wrong beliefs)
    for m, topic, belief, n in rows:
        counts, where = found[1 if belief else 0]
        counts[m] = counts.get(m, 0) + n
        where.setdefault(m, []).append(topic)
    return _ranked(found[0]), _ranked(found[1])


def _ranked(found: Counts) -> Counts:
    counts, where = found
    return {m: counts[m] for m in sorted(counts, key=lambda m: (-counts[m], m))}, where


def _trend(store: Handle, sessions: int = TREND_SESSIONS) -> list[dict[str, Any]]:
    rows = store.conn.execute(
        f"""SELECT s.id, s.mode, s.started_at, count(a.id), sum({right_sql('a.verdict')})
           FROM (SELECT id, mode, started_at FROM sessions
                 WHERE EXISTS (SELECT 1 FROM attempts WHERE session_id = sessions.id)
                 ORDER BY id DESC LIMIT ?) AS s
           JOIN attempts AS a ON a.session_id = s.id
           GROUP BY s.id ORDER BY s.id""", (sessions,))
    return [{"session_id": sid, "mode": mode, "started_at": started, "attempts": n,
             "correct": c, "accuracy": _ratio(c, n)} for sid, mode, started, n, c in rows]


def _practised_on(store: Handle, day: date) -> bool:
    """Any answer on this local calendar day? One index probe on answered_at."""
    start = datetime.combine(day, time()).astimezone()
    end = datetime.combine(day + timedelta(days=1), time()).astimezone()
    row = store.conn.execute(
        "SELECT 1 FROM attempts WHERE answered_at >= ? AND answered_at < ? LIMIT 1",
        (utc_text(start), utc_text(end))).fetchone()
    return row is not None


def _day_streak(store: Handle, today: date) -> int:
    """Consecutive local days with practice, ending today (or yesterday: still alive).

    Walks back one day at a time with index probes, so the cost grows with the streak,
    not with the size of the history.
    """
    day = today if _practised_on(store, today) else today - timedelta(days=1)
    streak = 0
    while _practised_on(store, day):
        streak += 1
        day -= timedelta(days=1)
    return streak


def _correct_streak(store: Handle) -> int:
    """Correct (or consistent) answers in a row, counting back from the latest one.

    One index lookup per miss verdict (max(id) WHERE verdict = ?) instead of a scan.
    """
    misses = list(MISSES)
    union = " UNION ALL ".join("SELECT max(id) AS m FROM attempts WHERE verdict = ?"
                               for _ in misses)
    row = store.conn.execute(
        f"SELECT count(*) FROM attempts WHERE id > (SELECT coalesce(max(m), 0) FROM ({union}))",
        misses).fetchone()
    return int(row[0])


@recovering
def recent_topics(store: Handle, recent: int = RECENT_ATTEMPTS) -> dict[str, dict[str, float]]:
    """Per topic over the last ``recent`` attempts: attempts, correct, misses (close and
    partial count half; consistent is correct and no miss)."""
    rows = store.conn.execute(
        f"""SELECT topic, count(*), sum({right_sql()}),
                  sum(CASE WHEN {right_sql()} THEN 0 WHEN verdict IN ('close', 'partial') THEN 0.5
                      ELSE 1 END)
           FROM (SELECT topic, verdict FROM attempts ORDER BY id DESC LIMIT ?)
           GROUP BY topic""", (recent,))
    return {topic: {"attempts": n, "correct": c, "misses": float(m)} for topic, n, c, m in rows}


RECENT_SESSIONS = 3  # a question answered in the learner's last sessions ...
RECENT_HOURS = 24  # ... or in the last day is not planned again while others are left


@recovering
def recent_questions(store: Handle, now: datetime | None = None,
                     sessions: int = RECENT_SESSIONS, hours: float = RECENT_HOURS) -> set[str]:
    """The ids of the fixed questions (a scenario's id for its steps) answered in the last
    ``sessions`` sessions or the last ``hours`` before ``now``: practice and mock plan them
    only once the others run out. A generated question is never one: each draw is new."""
    now = now or datetime.now(timezone.utc)
    since = utc_text(now - timedelta(hours=hours))
    rows = store.conn.execute(
        "SELECT DISTINCT coalesce(scenario, question_id) FROM attempts "
        "WHERE coalesce(generator, '') = '' AND (answered_at >= ? OR session_id IN "
        "(SELECT id FROM sessions AS s WHERE EXISTS (SELECT 1 FROM attempts "
        "WHERE session_id = s.id) ORDER BY started_at DESC, id DESC LIMIT ?))",
        (since, sessions))
    return {str(qid) for (qid,) in rows}


@recovering
def topic_weights(store: Handle, topics: Iterable[str], recent: int = RECENT_ATTEMPTS
                  ) -> dict[str, float]:
    """Sampling weights for adaptive practice: 1 + 3 * smoothed recent miss rate.

    The miss rate is Laplace-smoothed, (misses + 1) / (attempts + 2), so a topic never
    tried gets 2.5 (explore it), a topic always right drifts toward 1, always wrong toward 4.
    """
    seen = recent_topics(store, recent)
    weights: dict[str, float] = {}
    for topic in topics:
        data = seen.get(topic, {"attempts": 0, "correct": 0, "misses": 0.0})
        rate = (data["misses"] + 1) / (data["attempts"] + 2)
        weights[topic] = round(1 + 3 * rate, 4)
    return weights


def _practise_next(store: Handle, slips: Counts, beliefs: Counts
                   ) -> dict[str, list[dict[str, Any]]]:
    weak = []
    for topic, data in recent_topics(store).items():
        n = data["attempts"]
        accuracy = data["correct"] / n if n else 0.0
        if n >= MIN_ATTEMPTS and accuracy < PRACTISE_BELOW:
            weak.append({"topic": topic, "accuracy": round(accuracy, 4), "attempts": int(n)})
    weak.sort(key=lambda t: (t["accuracy"], -t["attempts"], t["topic"]))
    def top(found: Counts) -> list[dict[str, Any]]:
        counts, where = found
        return [{"id": m, "count": n, "topics": where.get(m, [])}
                for m, n in list(counts.items())[:TOP_MISCONCEPTIONS]]

    return {"topics": weak, "misconceptions": top(slips), "wrong_beliefs": top(beliefs)}


def _review(store: Handle, now: datetime) -> dict[str, Any]:
    """Cards, how many are due, and when the next falls due; a card whose due is not a
    date is left out and counted."""
    count_damaged_cards(store)
    due = store.conn.execute(f"SELECT count(*) FROM review_cards WHERE due <= ? AND {DUE_OK}",
                             (utc_text(now),)).fetchone()[0]
    nxt = next_due(store, now)
    cards = store.conn.execute(f"SELECT count(*) FROM review_cards WHERE {DUE_OK}").fetchone()[0]
    return {"cards": cards, "due": due, "next_due": nxt and utc_text(nxt)}


@recovering
def stats(store: Handle, now: datetime | None = None) -> dict[str, Any]:
    """Everything ``drills stats`` shows, as plain JSON-ready data."""
    now = now or datetime.now(timezone.utc)
    by_topic, by_kind, by_verdict, seconds = _summary(store)
    attempts = sum(v["attempts"] for v in by_verdict.values())
    correct = sum(by_verdict.get(v, {}).get("correct", 0) for v in RIGHT)
    first, last = store.conn.execute(
        "SELECT (SELECT min(answered_at) FROM attempts), (SELECT max(answered_at) FROM attempts)"
    ).fetchone()
    sessions = store.conn.execute("SELECT count(*) FROM sessions WHERE EXISTS "
                                  "(SELECT 1 FROM attempts WHERE session_id = sessions.id)"
                                  ).fetchone()[0]
    slips, beliefs = _misconceptions(store)
    by_difficulty, no_difficulty = _by_difficulty(store)
    return {
        "attempts": attempts,
        "correct": correct,
        "accuracy": _ratio(correct, attempts),
        "sessions": sessions,
        "verdicts": {v: d["attempts"] for v, d in by_verdict.items()},
        "by_topic": by_topic,
        "by_kind": by_kind,
        "by_difficulty": by_difficulty,
        "no_difficulty": no_difficulty,
        "activity": _activity(store, now.astimezone().date()),
        "misconceptions": slips[0],
        "wrong_beliefs": beliefs[0],
        "trend": _trend(store),
        "mean_seconds": round(seconds / attempts, 2) if attempts else None,
        "streak": {"days": _day_streak(store, now.astimezone().date()),
                   "correct": _correct_streak(store)},
        "practise_next": _practise_next(store, slips, beliefs),
        "review": _review(store, now),
        "first_answer": first,
        "last_answer": last,
    }
