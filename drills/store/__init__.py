"""History storage: sessions, attempts, progress stats and spaced review in SQLite.

The quiz session uses ``Store.open()``, ``start_session``, ``record_attempt`` and
``end_session``; the CLI reads through ``drills.store.progress``, ``.cards``,
``.sessions`` and ``.history_export``.

Inside, imports point one way: connection (SQLite handling, the ``Handle`` protocol),
migrations, attempt, verdicts <- salvage, home, fields <- cards, progress, schedule,
sessions (queries taking a ``Handle``) <- database (``Store``: open, record, recover)
<- merge, history_export/history_import, classroom.

May import: drills (root), grading, model, safetext, paths.
"""

from __future__ import annotations

from typing import Any

from drills.store.connection import StoreError
from drills.store.database import MODES, SELF_GRADES, VERDICTS, Store

__all__ = ["MODES", "SELF_GRADES", "VERDICTS", "Attempt", "Store", "StoreError"]  # noqa: F822 - Attempt: __getattr__


def __getattr__(name: str) -> Any:
    """``Attempt``, made when first asked for: the first question is shown before it is."""
    if name == "Attempt":
        from drills.store.attempt import Attempt  # lazy: a dataclass a launch need not build

        return Attempt
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
