"""Checking and reading option values the commands share: --count, --seed, --difficulty,
durations, --tolerance, and a list of grades (``2,1,3,0``); a bad value is one line, exit 2.
May import model, grading (the tolerance parser, on demand) and cli.errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drills.cli.errors import fail

if TYPE_CHECKING:
    from drills.model import Tolerance

MAX_COUNT = 1000  # questions per session or worksheet
MAX_SEED = 2**63 - 1  # seeds are stored in SQLite INTEGER columns
MAX_MINUTES = 24 * 60


def check_count(count: int) -> None:
    if count < 1:
        fail(f"--count must be at least 1, got {count}")
    if count > MAX_COUNT:
        fail(f"--count must be at most {MAX_COUNT}, got {count}")


def pick_seed(seed: int | None) -> int:
    """The given seed, or a fresh one that the session or sheet then prints for a rerun."""
    if seed is not None:
        return seed
    import random  # lazy, as drills.model below: `drills solve` reaches this module and needs neither

    return random.SystemRandom().randrange(1, 1_000_000)


def check_seed(seed: int | None) -> None:
    if seed is not None and not 0 <= seed <= MAX_SEED:
        fail(f"--seed must be a whole number from 0 to {MAX_SEED}, got {seed}")


def check_difficulty(difficulty: str | None) -> None:
    from drills.model import DIFFICULTIES  # lazy: the quiz commands import the model anyway

    if difficulty is not None and difficulty not in DIFFICULTIES:
        fail(f"unknown difficulty {difficulty!r} (difficulties: {', '.join(DIFFICULTIES)})")


def check_seconds(name: str, value: float | None, most: float) -> None:
    """A positive, finite duration no longer than ``most`` (inf and nan are refused)."""
    if value is not None and not 0 < value <= most:
        fail(f"{name} must be a positive number no larger than {most:g}, got {value:g}")


def tolerance_option(text: str | None) -> Tolerance | None:
    """``--tolerance TOL`` read, or a one-line usage error saying what is accepted."""
    if text is None:
        return None
    from drills.grading.check import ToleranceError, parse_tolerance  # lazy: the grader

    try:
        return parse_tolerance(text)
    except ToleranceError as exc:
        fail(str(exc))


def parse_grades(text: str, what: str = "relevance") -> tuple[int, ...]:
    """``2,1,3,0``, ``2 1 3 0`` or ``[2, 1, 3, 0]`` (as prompts show it) -> (2, 1, 3, 0).

    Anything else is a one-line error: ``2,,3`` names the empty place instead of
    silently dropping a grade.
    """
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    pieces = [p.strip() for p in body.split(",")] if "," in body else body.split()
    if any(not p for p in pieces) and "," in body:
        fail(f"the {what} list {text.strip()!r} has an empty place between commas; "
             "give every grade, like 2,1,3,0")
    parts = [q for p in pieces for q in p.split()]
    if not parts:
        fail(f"the {what} list is empty: give grades like 2,1,3,0")
    grades: list[int] = []
    for p in parts:
        if not p.isdigit() or not p.isascii():
            kind = "negative" if p.startswith("-") else "fractional" if "." in p else "not a whole number"
            fail(f"{what} grades must be whole numbers >= 0 like 2,1,3,0; {p!r} is {kind}")
        if len(p) > 3:
            fail(f"{what} grade {p} is too large (grades are small integers such as 0-4)")
        grades.append(int(p))
    return tuple(grades)
