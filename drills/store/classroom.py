"""Stats over exports instead of the local history: ``drills stats --from`` (a class report).

The exports are merged (drills.store.merge, the rules of ``drills history import``) into
an in-memory history, never the local one, and ``drills.store.progress`` runs over that: the
same numbers as ``drills stats`` would show for those answers. An answer in two files
(a learner's laptop and desktop exports after a sync) counts once. ``by_learner`` does the
same per learner, the name each export carries (``[profile] learner``; an export without
one, such as the bare list an older drills wrote, goes by its file name).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from drills.store.database import Store
from drills.store.history_import import Export
from drills.store.home import empty_history
from drills.store.merge import merge
from drills.store.progress import _ratio, stats

TOP_SLIPS = 5
_DROPPED = ("review",)  # a review schedule belongs to the machine it runs on


def learner_of(export: Export) -> str:
    """The learner an export is from: its ``learner``, else its file's name."""
    return export.learner or Path(export.path).stem or export.path


def _merged(exports: list[Export]) -> tuple[Any, dict[str, int]]:
    """An in-memory Store holding the answers and sessions of ``exports`` (review cards
    left out), and the damaged rows skipped per file."""
    store = Store(empty_history(), Path(":memory:"), memory=True)
    damaged: dict[str, int] = {}
    for export in exports:
        cardless = Export(export.path, export.learner, export.attempts, export.sessions, [],
                          export.legacy)
        done = merge(store, cardless)
        if done.damaged:
            damaged[export.path] = damaged.get(export.path, 0) + done.damaged
    return store, damaged


def union_stats(exports: list[Export], now: datetime) -> tuple[dict[str, Any], dict[str, int]]:
    """``drills stats --json`` over every answer of ``exports`` (without ``review``), with
    ``files`` and ``learners`` added; and the damaged rows skipped per file."""
    store, damaged = _merged(exports)
    try:
        data = stats(store, now)
    finally:
        store.close()
    for key in _DROPPED:
        data.pop(key, None)
    data["files"] = [e.path for e in exports]
    data["learners"] = sorted({learner_of(e) for e in exports}, key=_order)
    return data, damaged


def _order(name: str) -> tuple[str, str]:
    return (name.casefold(), name)


def by_learner(exports: list[Export], now: datetime) -> tuple[dict[str, Any], dict[str, int]]:
    """One entry per learner (by name): ``learner, files, attempts, correct, accuracy,
    sessions, mean_seconds, first_answer, last_answer, by_topic, misconceptions`` (the
    slips, most frequent first), ``wrong_beliefs`` (a concept answer's, most frequent first)
    and ``slips`` (the top TOP_SLIPS: ``{id, count, topics}``); with the class's totals.
    And the damaged rows skipped per file."""
    groups: dict[str, list[Export]] = {}
    for export in exports:
        groups.setdefault(learner_of(export), []).append(export)
    learners = []
    damaged: dict[str, int] = {}
    for name in sorted(groups, key=_order):
        store, skipped = _merged(groups[name])
        damaged.update(skipped)
        try:
            data = stats(store, now)
        finally:
            store.close()
        slips = [{"id": m, "count": n, "topics": _topics(data, m)}
                 for m, n in list(data["misconceptions"].items())[:TOP_SLIPS]]
        learners.append({
            "learner": name, "files": [e.path for e in groups[name]],
            **{key: data[key] for key in ("attempts", "correct", "accuracy", "sessions",
                                          "mean_seconds", "first_answer", "last_answer",
                                          "by_topic", "misconceptions", "wrong_beliefs")},
            "slips": slips})
    attempts = sum(entry["attempts"] for entry in learners)
    correct = sum(entry["correct"] for entry in learners)
    return ({"files": [e.path for e in exports], "attempts": attempts, "correct": correct,
             "accuracy": _ratio(correct, attempts), "learners": learners}, damaged)


def _topics(data: dict[str, Any], slip: str) -> list[str]:
    for item in data["practise_next"]["misconceptions"]:
        if item["id"] == slip:
            return list(item["topics"])
    return []
