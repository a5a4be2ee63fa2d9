"""Text taller than the terminal goes through a pager, so nothing scrolls away unread.

Only on a terminal (the interactive front end); piped output is never paged. The pager
is [display] pager or ``$PAGER`` when set (split like a shell would, run without a shell), else
``less -R -X -F`` (colours kept; the text stays on screen after quitting; one screen or
less is printed as is), else the text is printed. The text was sanitised by the renderer
and passes ``terminal_text`` again on its way to the pager.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from drills import display
from drills.safetext import terminal_text


def pager_command() -> list[str] | None:
    """The pager to run: $PAGER, else less; None when there is none."""
    value = (display.CURRENT.pager or os.environ.get("PAGER", "")).strip()
    if value:
        try:
            import shlex  # lazy: only for a PAGER set

            return shlex.split(value) or None
        except ValueError:
            return None
    import shutil  # lazy: only when a page is shown; it brings bz2 and lzma

    less = shutil.which("less")
    return [less, "-R", "-X", "-F"] if less else None


def make_pager(rows: Callable[[], int]) -> Callable[[str], bool]:
    """A function that pages a text taller than ``rows()`` lines; False when it did not."""

    def page(text: str) -> bool:
        if text.count("\n") + 1 < rows() - 1:
            return False
        command = pager_command()
        if command is None:
            return False
        import subprocess  # lazy: only when a page is shown

        try:
            subprocess.run(command, input=terminal_text(text) + "\n", text=True, encoding="utf-8",
                           errors="replace", check=False)
        except (OSError, ValueError):  # no such program, or it could not run: just print
            return False
        return True

    return page


def terminal_rows() -> int:
    return display.terminal_size().lines
