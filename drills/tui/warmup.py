"""Importing the grader (and sympy) in the background once the first question is up, so the
first answer is graded without a wait; ``settle`` lets a half-done import finish before exit.

Used by the interactive front end only: piped answers arrive at once, and a warm-up thread
would only compete with grading them.
"""

from __future__ import annotations

import threading

_warm: list[threading.Thread] = []


def warm_up() -> None:
    """Import the grader (and sympy) in the background once the first question is up."""
    if _warm:
        return

    def work() -> None:
        try:
            # lazy on purpose: these imports are the warm-up, done in this thread
            import sympy  # noqa: F401

            import drills.grading.check  # noqa: F401 - lazy: the warm-up itself
            import drills.grading.diagnose  # noqa: F401 - lazy: the warm-up itself
            import drills.grading.tolerance  # noqa: F401 - lazy: the warm-up itself
        except Exception:  # noqa: BLE001 - warming is best effort; the real import reports
            pass

    t = threading.Thread(target=work, name="drills-warm-up", daemon=True)
    _warm.append(t)
    t.start()


def settle(timeout: float = 3.0) -> None:
    """Let a half-done warm-up import finish so the interpreter never exits mid-import."""
    for t in _warm:
        t.join(timeout)
