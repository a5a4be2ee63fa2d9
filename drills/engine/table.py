"""Plain-text tables for worked solutions: ``format_table`` (cells to aligned lines) and the
``Layout`` a screen asks for (narrow columns, rows shown, exact forms elided).

Imports nothing: every metric family prints its worked table with these.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Layout:
    """How worked tables are laid out for the screen they go to.

    ``narrow`` (under 72 columns): the gain and discount columns show values only
    (``3``, ``1.585``), not their formulas, so a row never wraps. ``max_rows``: ranks
    shown per table before "... N more ranks".
    """

    narrow: bool = False
    max_rows: int = 50
    exact_width: int | None = None  # elide exact forms longer than this (the full one: --json)

    def exact(self, text: str) -> str:
        """An exact form as shown: whole, or cut in the middle between terms; a quotient
        ``(a + b + c) / (d + e + f)`` keeps its structure, each side cut on its own."""
        if self.exact_width is not None and len(text) > self.exact_width:
            parts = quotient(text)
            if parts is not None:
                side = replace(self, exact_width=max(12, (self.exact_width - 7) // 2))
                top, bottom = (p if p.isdigit() else f"({side.exact(p)})" for p in parts)
                return f"{top} / {bottom}"
        shown = self.exact_sum(_terms(text), text)
        if self.exact_width is not None and len(shown) > self.exact_width:
            return short_numbers(shown)  # AP of 10,000 documents: one 7,000-digit fraction
        return shown

    def exact_sum(self, terms: Sequence[str], text: str | None = None) -> str:
        """A sum given by its terms, shown as ``exact`` shows its text (``" + ".join(terms)``),
        without joining a long one: a 100,000-term DCG is cut from its terms."""
        size = len(text) if text is not None else sum(map(len, terms)) + 3 * (len(terms) - 1)
        if self.exact_width is None or size <= self.exact_width or len(terms) < 3:
            return text if text is not None else " + ".join(terms)
        half = (self.exact_width - 7) // 2
        head, tail = [terms[0]], [terms[-1]]
        for term in terms[1:-1]:  # whole terms from the front while they fit half the room
            if len(" + ".join(head + [term])) > half:
                break
            head.append(term)
        for term in reversed(terms[len(head):-1]):
            if len(" + ".join([term] + tail)) > half:
                break
            tail.insert(0, term)
        if len(head) + len(tail) >= len(terms):
            return text if text is not None else " + ".join(terms)
        return f"{' + '.join(head)} + ... + {' + '.join(tail)}"


LONG_NUMBER = re.compile(r"\d{25,}")


def short_numbers(text: str) -> str:
    """Each run of 25 digits or more as ``123456...[215 digits]``: what is left of a long
    exact form that cannot be cut between terms."""
    return LONG_NUMBER.sub(lambda m: f"{m.group(0)[:6]}...[{len(m.group(0))} digits]", text)


def _terms(text: str) -> list[str]:
    """The terms of a sum, split at ``" + "`` outside brackets only."""
    terms: list[str] = []
    depth, current = 0, []
    for piece in text.split(" + "):  # the bracket depth at each " + " is that of the pieces before it
        current.append(piece)
        depth += piece.count("(") - piece.count(")")
        if depth == 0:
            terms.append(" + ".join(current))
            current = []
    return [*terms, " + ".join(current)] if current else terms


def quotient(text: str) -> tuple[str, str] | None:
    """``(A) / (B)`` at the top level (a side that is one whole number may go without
    brackets: ``1 / (B)``): (A, B); else None."""
    depth, cut = 0, -1
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and text.startswith(" / ", i):
            if cut >= 0:
                return None
            cut = i
        elif depth == 0 and ch == " " and not text.startswith(" / ", i - 2):
            if not text.startswith(" / ", i):
                return None  # a top-level sum: not a quotient
    if cut < 0:
        return None
    sides = []
    for side in (text[:cut], text[cut + 3:]):
        if side.isdigit():
            sides.append(side)
        elif side.startswith("(") and side.endswith(")") and _closes_at_end(side):
            sides.append(side[1:-1])
        else:
            return None
    return sides[0], sides[1]


def _closes_at_end(side: str) -> bool:
    """The bracket that opens ``side`` closes at its very end."""
    level = 0
    for j, c in enumerate(side):
        level += (c == "(") - (c == ")")
        if level == 0 and j < len(side) - 1:
            return False
    return True


WIDE = Layout()
NARROW_BELOW = 72  # columns


def format_table(cells: list[list[str]], indent: str = "  ") -> str:
    """A header row, a rule, then the rows: the first two columns right-aligned, the rest left."""
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    lines = []
    for n, row in enumerate(cells):
        lines.append(indent + "  ".join(c.rjust(w) if i in (0, 1) else c.ljust(w)
                                        for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip())
        if n == 0:
            lines.append(indent + "  ".join("-" * w for w in widths))
    return "\n".join(lines)
