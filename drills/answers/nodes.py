"""The answer tree: the frozen nodes parse() builds and digits/exactness walk.

Below both the parser (which builds them) and the evaluators (which read them), so
neither needs the other for its types.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Num:
    """A number literal, kept exact (``text`` as typed, with its % if any)."""

    value: Fraction
    text: str


@dataclass(frozen=True)
class Neg:
    """``-operand``."""

    operand: Node


@dataclass(frozen=True)
class Percent:
    """``(expr)%`` on the whole answer: expr / 100."""

    operand: Node


@dataclass(frozen=True)
class Bin:
    """A binary operation: ``left op right``."""

    op: str  # one of + - * / ^
    left: Node
    right: Node


@dataclass(frozen=True)
class Call:
    """A function of the answer language applied to its arguments: ``log2(5)``."""

    name: str  # a key of drills.answers.parser.FUNCTIONS
    args: tuple[Node, ...]


Node = Num | Neg | Percent | Bin | Call
