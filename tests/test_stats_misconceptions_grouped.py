"""``drills stats`` counts slips and wrong beliefs from the answers grouped by (topic, kind,
misconceptions) first, expanding each distinct list's JSON once (issue 25, point 4: 1,000,000
answers). The counts, the topics' order and the answers left out as damaged must be those
of the definition, answer by answer: checked on random histories, with lists of several
ids, non-text items, and values that are not JSON lists, against the per-answer SQL the
grouped query replaced and against a count made in Python."""

from __future__ import annotations

import json
import random

import pytest

from drills.store import Attempt, Store
from drills.store.fields import MISCONCEPTIONS_OK
from drills.store.progress import _misconceptions

IDS = ("log2_rank", "linear_gain", "ideal_unsorted", "idcg_is_dcg")
TOPICS = ("conventions", "normalization", "lambdarank")
DAMAGED = ("{bad", '"log2_rank"', "3", "not json", '{"a": 1}')


def _per_answer_sql(store: Store) -> tuple[set[int], list[tuple]]:
    """The query as it was before grouping: JSON checked and expanded for every answer."""
    bad = {rowid for (rowid,) in store.conn.execute(
        "SELECT rowid FROM attempts INDEXED BY attempts_misconceptions_by_kind "
        f"WHERE misconceptions != '[]' AND NOT {MISCONCEPTIONS_OK}")}
    rows = store.conn.execute(
        "SELECT j.value, a.topic, a.belief, count(*) FROM (SELECT topic, "
        "kind = 'concept' AS belief, misconceptions FROM attempts "
        "INDEXED BY attempts_misconceptions_by_kind "
        f"WHERE misconceptions != '[]' AND {MISCONCEPTIONS_OK}) AS a, "
        "json_each(a.misconceptions) AS j WHERE j.type = 'text' AND (a.belief OR j.key = 0) "
        "GROUP BY j.value, a.topic, a.belief ORDER BY count(*) DESC").fetchall()
    return bad, rows


def _python_counts(store: Store) -> tuple[set[int], dict[str, int], dict[str, int]]:
    """Answer by answer in Python: (damaged rowids, slip counts, wrong-belief counts)."""
    bad: set[int] = set()
    slips: dict[str, int] = {}
    beliefs: dict[str, int] = {}
    for rowid, kind, text in store.conn.execute("SELECT rowid, kind, misconceptions FROM attempts"):
        if text == "[]":
            continue
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, list):
            bad.add(rowid)
            continue
        if kind == "concept":
            for item in value:
                if isinstance(item, str):
                    beliefs[item] = beliefs.get(item, 0) + 1
        elif value and isinstance(value[0], str):
            slips[value[0]] = slips.get(value[0], 0) + 1
    return bad, slips, beliefs


def _random_list(rng: random.Random) -> list:
    items = [rng.choice(IDS) for _ in range(rng.randrange(0, 4))]
    if items and rng.random() < 0.2:
        items.insert(rng.randrange(len(items) + 1), rng.choice([7, None, {"x": 1}]))
    return items


@pytest.mark.parametrize("seed", range(8))
def test_grouped_counts_equal_the_per_answer_definition(tmp_path, seed):
    rng = random.Random(seed)
    store = Store.open(tmp_path / "home")
    try:
        sid = store.start_session("practice", 1, {})
        batch = [Attempt(f"q{i}", rng.choice(TOPICS), rng.choice(("numeric", "concept", "choice")),
                         "wrong", "1", "2", 2.0, (), 3.0) for i in range(rng.randrange(20, 120))]
        store.record_attempts(sid, batch, review=False)
        for (rowid,) in store.conn.execute("SELECT id FROM attempts").fetchall():
            text = (rng.choice(DAMAGED) if rng.random() < 0.1
                    else json.dumps(_random_list(rng)))
            store.conn.execute("UPDATE attempts SET misconceptions = ? WHERE id = ?", (text, rowid))
        bad, rows = _per_answer_sql(store)
        slips, beliefs = _misconceptions(store)
        assert store.skipped.get("attempts", set()) == bad
        expected: tuple[dict, dict] = ({}, {})  # (slips, beliefs): id -> (count, topics in order)
        for m, topic, belief, n in rows:
            count, topics = expected[1 if belief else 0].get(m, (0, []))
            expected[1 if belief else 0][m] = (count + n, [*topics, topic])
        for got, want in ((slips, expected[0]), (beliefs, expected[1])):
            assert got[0] == {m: c for m, (c, _t) in sorted(want.items(), key=lambda kv: (-kv[1][0], kv[0]))}
            assert list(got[0]) == sorted(want, key=lambda m: (-want[m][0], m))
            assert got[1] == {m: t for m, (_c, t) in want.items()}
        py_bad, py_slips, py_beliefs = _python_counts(store)
        assert bad == py_bad
        assert slips[0] == py_slips and beliefs[0] == py_beliefs
    finally:
        store.close()
