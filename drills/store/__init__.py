"""History storage: sessions, attempts, progress stats and spaced review in SQLite.

The quiz session uses ``Store.open()``, ``start_session``, ``record_attempt`` and
``end_session``; the CLI reads through ``drills.store.progress``, ``.review`` and ``.export``.
"""

from __future__ import annotations

from drills.store.db import StoreError
from drills.store.store import MODES, SELF_GRADES, VERDICTS, Attempt, Store

__all__ = ["MODES", "SELF_GRADES", "VERDICTS", "Attempt", "Store", "StoreError"]
