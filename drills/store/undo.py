"""Taking a recorded answer back (the quiz's ``:undo``): the attempt leaves the history and
its review card is put back as it was before that answer.

``before`` is read just before the answer is recorded: the attempt's uid and its card's row
(None when the item had no card yet). ``take_back`` then, in one transaction, deletes that
attempt of that session and restores the row (deletes the card the answer created). A card
reviewed again since (another drills on the same item, between the answer and the undo) is
left as it is, and ``take_back`` says so: nothing is overwritten silently.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from drills.store.attempt import Attempt
from drills.store.cards import item_key, reviews_card
from drills.store.connection import Handle, recovering, utc_text

CARD_COLUMNS = "card, due, reviews, updated_at"


@dataclass(frozen=True)
class Before:
    """What ``take_back`` needs to undo one recorded attempt."""

    uid: str  # the attempt's (recorded with it)
    key: str | None  # the review card it updates; None: it updates none (a scenario's earlier step)
    row: tuple[Any, ...] | None  # the card's row before the answer (CARD_COLUMNS); None: no card
    reviewed_at: str  # ``updated_at`` the answer gives its card (utc_text of ``answered_at``)


@recovering
def before(store: Handle, attempt: Attempt) -> Before:
    """The state ``attempt`` (with its ``uid`` and ``answered_at`` set) is about to change."""
    if attempt.uid is None or attempt.answered_at is None:
        raise ValueError("an attempt that can be taken back has its uid and answered_at set")
    key = item_key(attempt) if reviews_card(attempt) else None
    row = None if key is None else store.conn.execute(
        f"SELECT {CARD_COLUMNS} FROM review_cards WHERE item_key = ?", (key,)).fetchone()
    return Before(attempt.uid, key, None if row is None else tuple(row),
                  utc_text(attempt.answered_at))


def take_back(store: Any, session_id: int, was: Before, *, reviewed: bool = True) -> str | None:
    """Delete the attempt ``was.uid`` of ``session_id`` and restore its card; None, or a note
    when the card was left as it is. ``reviewed``: False when the answer's card update had
    failed (the card is then as it was). ``store``: a ``drills.store.Store`` (one transaction,
    repaired and retried on damage like every write); StoreError when it fails."""
    def undo(conn: sqlite3.Connection) -> str | None:
        conn.execute("DELETE FROM attempts WHERE uid = ? AND session_id = ?", (was.uid, session_id))
        if was.key is None or not reviewed:
            return None
        now = conn.execute("SELECT updated_at FROM review_cards WHERE item_key = ?",
                           (was.key,)).fetchone()
        if now is not None and now[0] != was.reviewed_at:
            return "its review card was reviewed again since, so it is left as it is"
        if was.row is None:
            conn.execute("DELETE FROM review_cards WHERE item_key = ?", (was.key,))
        else:
            conn.execute(f"INSERT OR REPLACE INTO review_cards(item_key, {CARD_COLUMNS}) "
                         "VALUES (?, ?, ?, ?, ?)", (was.key, *was.row))
        return None

    result: str | None = store._transact(undo)
    return result
