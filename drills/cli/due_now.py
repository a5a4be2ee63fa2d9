"""What is due for review now: the one definition ``drills review``, ``drills stats`` and the
end of a review session share, so they always give the same count.

Due now: a review card due at or before now whose item a loaded pack asks (the built-in
bank, the packs installed in ``$DRILLS_HOME/packs``, entry points): ``q:<id>`` its question,
``skill:<generator>:<topic>`` a generated template of that generator and topic. Cards of
items no loaded pack asks are counted apart, never as due: ``gone`` when the item was
answered here once (its pack was removed, or is broken for now), ``foreign`` when it is
known only from history imported from another machine. Both keep their schedule.

Shared below every command: it may import store, packs, model and the shared cli modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from drills.model import Question
from drills.safetext import plural
from drills.store.connection import Handle, utc_text
from drills.store.schedule import DueNow, due_now


def catalog(report: bool = False) -> list[Question]:
    """Every loaded question; ``report``: say which packs are broken (on stderr)."""
    if report:
        from drills.cli.catalog import load_questions  # lazy: its reporting, for --list only

        return load_questions(())
    from drills.packs import discover  # lazy: the packs (from the cache), once cards exist

    return list(discover().questions)


def resolve(keys: Sequence[str], questions: Sequence[Question]) -> dict[str, list[Question]]:
    """What each key asks among ``questions``: ``q:<id>`` its question, ``skill:<generator>:<topic>``
    the generated templates of that generator and topic (one is drawn as a fresh variant).

    Keys that no loaded question answers (a question or pack removed, or a pack that is
    broken for now) are left out: the caller skips them.
    """
    by_id: dict[str, Question] = {}
    skills: dict[tuple[str, str], list[Question]] = {}
    for q in questions:
        by_id.setdefault(q.id, q)
        if q.kind == "generated" and q.generator:
            skills.setdefault((q.generator, q.topic), []).append(q)
    found: dict[str, list[Question]] = {}
    for key in keys:
        kind, _, rest = key.partition(":")
        if kind == "q" and rest in by_id:
            found[key] = [by_id[rest]]
        elif kind == "skill":
            generator, _, topic = rest.partition(":")
            if (generator, topic) in skills:
                found[key] = skills[(generator, topic)]
    return found


def askable_keys(questions: Sequence[Question]) -> set[str]:
    """Every item key ``resolve`` answers among ``questions``."""
    keys = {f"q:{q.id}" for q in questions}
    keys |= {f"skill:{q.generator}:{q.topic}" for q in questions
             if q.kind == "generated" and q.generator}
    return keys


def has_cards(store: Handle) -> bool:
    """Any review card at all (when there is none, no pack needs loading)."""
    return store.conn.execute("SELECT EXISTS (SELECT 1 FROM review_cards)").fetchone()[0] == 1


def due(store: Handle, now: datetime, questions: Sequence[Question] | None = None) -> DueNow:
    """THE due items at ``now``: ``questions`` are the loaded ones (default: ``catalog()``,
    loaded only when the history has review cards)."""
    if questions is None:
        questions = catalog() if has_cards(store) else []
    return due_now(store, askable_keys(questions), now)


def elsewhere_notes(d: DueNow) -> list[str]:
    """What is due but not counted: ``2 due items no longer in any pack``, ``1 due item from
    imported history, in no pack here``."""
    notes = []
    if d.gone:
        notes.append(f"{plural(len(d.gone), 'due item')} no longer in any pack")
    if d.foreign:
        notes.append(f"{plural(len(d.foreign), 'due item')} from imported history, in no pack here")
    return notes


def stats_review(store: Handle, now: datetime, cards: int) -> dict[str, object]:
    """``drills stats``' ``review`` object: ``cards`` (readable ones), ``due`` (as ``drills
    review`` counts it), ``next_due`` (the next item a pack asks, after now), and the due
    cards not counted: ``due_no_longer_in_a_pack``, ``due_imported_not_here``."""
    d = due(store, now)
    return {"cards": cards, "due": len(d.askable),
            "next_due": d.next_due and utc_text(d.next_due),
            "due_no_longer_in_a_pack": len(d.gone), "due_imported_not_here": len(d.foreign)}
