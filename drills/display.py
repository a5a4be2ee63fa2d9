"""How output looks: the display set once per command from ``--color`` and the config's
[display] table, and ``Style``, the terminal-independent text styling every front end and
the worksheets share (colour codes, wrapping to a width, a duration as m:ss).

Colour follows https://no-color.org and https://force-color.org: ``--color always|never``
or the config file decide first; otherwise a non-empty NO_COLOR turns colour off, a
non-empty FORCE_COLOR turns it on, and else colour is used only on a terminal. Prose is
wrapped to the terminal width; indented blocks (the ~70-column worked tables) are left
alone so their columns stay aligned.

May import only ``drills.safetext`` (text from packs and learners is shown, not sent).
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from dataclasses import dataclass
from typing import IO, Any

from drills.safetext import visible

COLOR_MODES: tuple[str, ...] = ("auto", "always", "never")


@dataclass
class Display:
    """The [display] settings in force: colour, prose width cap, pager."""

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
    """--color / [display] color, else NO_COLOR / FORCE_COLOR, else only on a terminal."""
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


_LIST_ITEM = re.compile(r"\s*([-*]|\d+[.)]|[a-z]\))\s+")
_EQUATION = re.compile(r"\S{1,14}\s+=\s")
# keep "log2(i + 1)" and a short list such as "[2, 3, 0]" on one line
_SHORT_PARENS = re.compile(r"\([^()]{1,14}\)|\[[\d, ]{1,30}\]")
_NBSP = "\u00a0"
_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}

MAX_WIDTH = 100  # prose is easier to read in lines no longer than this, however wide the terminal


def terminal_size(fallback: tuple[int, int] = (80, 24)) -> os.terminal_size:
    """``shutil.get_terminal_size``, the same rules (COLUMNS and LINES first, then the
    terminal of standard output, then ``fallback``), without importing shutil: it brings
    bz2, lzma and fnmatch, a few ms of every launch."""
    sizes = []
    for name in ("COLUMNS", "LINES"):
        try:
            sizes.append(int(os.environ[name]))
        except (KeyError, ValueError):
            sizes.append(0)
    columns, lines = sizes
    if columns <= 0 or lines <= 0:
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            size = os.terminal_size(fallback)
        columns = columns if columns > 0 else size.columns or fallback[0]
        lines = lines if lines > 0 else size.lines or fallback[1]
    return os.terminal_size((columns, lines))


def display_width() -> int:
    """The terminal's width, capped at MAX_WIDTH for prose."""
    return min(terminal_size().columns, CURRENT.width or MAX_WIDTH)


@dataclass(frozen=True)
class Style:
    """How to draw: colour or not, wrap width, and how this front end ends a concept answer."""

    color: bool = False
    width: int = 80
    concept_end: str = "finish with an empty line"

    def paint(self, text: str, *names: str) -> str:
        if not self.color or not names:
            return text
        codes = ";".join(_CODES[n] for n in names)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def reflow(self, text: str, indent: str = "") -> str:
        """Re-wrap hard-wrapped pack prose to this width; short lines, lists and tables stay put.

        A prose line is joined with the next only when it looks hard-wrapped (60+ characters,
        no full stop at the end), so one-statement lines ("Gains: 3, 1, 7, 0.") keep their
        breaks; a list item absorbs its indented continuation lines.
        """
        out: list[str] = []
        joinable, hang, prev_eq = False, 0, False
        for line in text.strip("\n").splitlines():
            lead = len(line) - len(line.lstrip())
            item = _LIST_ITEM.match(line)
            equation = bool(_EQUATION.match(line))  # "DCG@4 = ..." under another equation: a table
            ending = line.rstrip().endswith((".", "?", "!"))
            if line.strip() and not item and ((hang and lead == hang) or
                                              (joinable and lead == 0 and not (equation and prev_eq))):
                out[-1] += " " + line.strip()
                joinable = joinable and len(line.rstrip()) >= 60 and not ending
                continue
            prev_eq = equation
            out.append(line.rstrip())
            hang = item.end() if item else 0
            joinable = (bool(line.strip()) and lead == 0 and not item and len(line.rstrip()) >= 60
                        and not ending)
        return self.wrap("\n".join(out), indent)

    def wrap(self, text: str, indent: str = "") -> str:
        """Wrap to the width: prose plainly, list items and long indented formulas with a hanging indent.

        Control characters are shown, not sent (``visible``): pack and learner text reaches
        the screen through here.
        """
        text = visible(text)
        out = []
        width = max(20, self.width - 1)
        for line in text.splitlines():
            item = _LIST_ITEM.match(line)
            if not line.strip():
                out.append("")
            elif len(indent + line) <= width:
                out.append(indent + line)
            elif line[0].isspace() and not item:  # an over-long table or formula line
                lead = indent + line[: len(line) - len(line.lstrip())]
                out.extend(textwrap.wrap(line.strip(), width, initial_indent=lead,
                                         subsequent_indent=lead + "    ", break_on_hyphens=False))
            else:
                hang = indent + " " * (item.end() if item else 0)
                glued = _SHORT_PARENS.sub(lambda m: m.group(0).replace(" ", _NBSP), line)
                out.extend(w.replace(_NBSP, " ") for w in textwrap.wrap(
                    glued, width, initial_indent=indent, subsequent_indent=hang, break_on_hyphens=False))
        return "\n".join(out)


def clock_text(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"
