"""How output looks, set once per command from ``--color`` and the config's [display] table.

Colour follows https://no-color.org and https://force-color.org: ``--color always|never``
or the config file decide first; otherwise a non-empty NO_COLOR turns colour off, a
non-empty FORCE_COLOR turns it on, and else colour is used only on a terminal.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import IO, Any

COLOR_MODES: tuple[str, ...] = ("auto", "always", "never")


@dataclass
class Display:
    color: str = "auto"
    width: int | None = None  # prose width cap (None: the terminal's, at most 100)
    pager: str | None = None  # overrides $PAGER


CURRENT = Display()


def configure(color: str | None = None, width: int | None = None, pager: str | None = None) -> None:
    """Set the display for this command (called by the CLI group for every command)."""
    global CURRENT
    CURRENT = Display(color or "auto", width, pager)


def color_source() -> str:
    """Why colour is on or off, for ``drills config``."""
    if CURRENT.color != "auto":
        return CURRENT.color
    if os.environ.get("NO_COLOR"):
        return "never (NO_COLOR)"
    if os.environ.get("FORCE_COLOR"):
        return "always (FORCE_COLOR)"
    return "auto (in a terminal)"


def use_color(stream: IO[Any] | None = None) -> bool:
    if CURRENT.color == "always":
        return True
    if CURRENT.color == "never" or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False
