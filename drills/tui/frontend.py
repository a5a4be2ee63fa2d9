"""Which front end runs a session: prompt_toolkit when stdin and stdout are a terminal
(``drills.tui.interactive``), plain lines otherwise (``drills.tui.plain``).

On a terminal the first question is drawn before prompt_toolkit is imported, so ``drills``
shows it at once. May import quiz.session, display and the tui modules below it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Any

from drills.display import Style, display_width, use_color
from drills.quiz.session import Session, Summary
from drills.tui.output import CONCEPT_END, PLAIN_END, OnRecord, Output, Signalled
from drills.tui.terminal import is_terminal


def run(session: Session, on_record: OnRecord | None = None, *,
        interactive: bool | None = None,
        grade_hint: Callable[[Any], str | None] | None = None,
        record_note: Callable[[Any], str | None] | None = None) -> Summary:
    """Run ``session`` to its summary in the right front end for this terminal; ``record_note``:
    a line said under each graded answer (a review's next interval)."""
    if interactive is None:
        interactive = is_terminal()
    width = display_width()
    out = Output(Style(use_color(sys.stdout), width, CONCEPT_END if interactive else PLAIN_END),
                 on_record)
    out.grade_hint = grade_hint
    out.record_note = record_note
    try:
        if interactive:
            from drills.tui.pager import make_pager, terminal_rows  # lazy: only a terminal pages

            out.pager = make_pager(terminal_rows)
            out.emit(session.start())  # the first question is up before prompt_toolkit is imported
            from drills.tui.interactive import run_interactive  # lazy: prompt_toolkit is slow

            return run_interactive(session, out=out)
        from drills.tui.plain import run_plain  # lazy: keeps a terminal's first question light

        return run_plain(session, out=out)
    except Signalled:
        if not session.finished:  # a typed concept answer is saved; the summary shown if it can be
            out.give_up()
            with contextlib.suppress(OSError, ValueError):
                out.emit(session.quit())
        raise
