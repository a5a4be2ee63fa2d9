"""Cues that answer a question without the knowledge it tests, and questions asked twice
(``drills packs lint``).

* A choice question whose correct option is more than 1.5x as long as its longest wrong
  one: a warning (a learner picks the careful, qualified option).
* A pack where the correct option is the longest in more than 40% of its choice questions
  (true/false ones aside; at least 5 of them): an error. With four options chance is
  about a quarter.
* Absolute words ("always", "never", "any", "nothing", "all", "only"...) in wrong options
  and in no correct one: a warning (test-wise learners rule those out unread).
* Two numeric questions with the same problem (metric, ranked list cut at k without its
  trailing non-relevant documents, parameters) and the same answer: an error, unless one
  names the other in ``variant_of:``, a deliberate variant. ``variant_of:`` must name a
  question linted with it, not itself.

Pure: no terminal, no files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from drills.model import Question

LONGER = 1.5  # correct option / longest wrong option
PACK_SHARE = 0.40  # of a pack's choice questions with the correct option the longest
PACK_MIN = 5  # choice questions a pack needs before its share is judged
# The share is an error (issue 27); the built-in packs' options were rewritten to be at most 40%.
PACK_SHARE_IS_ERROR = True

ABSOLUTES = ("always", "never", "any", "nothing", "all", "only", "none", "anything", "everything",
             "whatever", "impossible")

_ABSOLUTE = re.compile(r"\b(" + "|".join(ABSOLUTES) + r")\b", re.IGNORECASE)


def _counted(q: Question) -> bool:
    """A choice question with one correct option and wrong ones, not a true/false question."""
    texts = {o.text.strip().lower() for o in q.options}
    return (q.kind == "choice" and sum(o.correct for o in q.options) == 1
            and any(not o.correct for o in q.options) and texts != {"true", "false"})


def correct_is_longest(q: Question) -> bool:
    """Is the correct option strictly longer than every wrong one?"""
    right = next(len(o.text) for o in q.options if o.correct)
    return right > max(len(o.text) for o in q.options if not o.correct)


def option_warnings(q: Question) -> list[str]:
    """The cues of one choice question (see the module docstring)."""
    if not _counted(q):
        return []
    out: list[str] = []
    right = next(o.text for o in q.options if o.correct)
    longest = max(len(o.text) for o in q.options if not o.correct)
    if len(right) > LONGER * longest:
        out.append(f"the correct option is {len(right) / longest:.2f}x as long as the longest wrong one "
                   f"(at most {LONGER}x): shorten it or give the wrong options substance")
    wrong_words = {w.lower() for o in q.options if not o.correct for w in _ABSOLUTE.findall(o.text)}
    right_words = {w.lower() for w in _ABSOLUTE.findall(right)}
    if wrong_words and not right_words:
        out.append(f"absolute words only in wrong options ({', '.join(sorted(wrong_words))}): "
                   f"a learner rules those out unread")
    return out


def pack_errors(questions: Sequence[Question]) -> list[str]:
    """Packs (by file) where the correct option is the longest in more than PACK_SHARE of
    their counted choice questions."""
    by_pack: dict[str, list[Question]] = {}
    for q in questions:
        if _counted(q):
            by_pack.setdefault(q.source.path, []).append(q)
    out = []
    for path, qs in by_pack.items():
        longest = [q.id for q in qs if correct_is_longest(q)]
        if len(qs) >= PACK_MIN and len(longest) > PACK_SHARE * len(qs):
            out.append(f"{path}: the correct option is the longest in {len(longest)} of its {len(qs)} "
                       f"choice questions (at most {PACK_SHARE:.0%}): {', '.join(longest)}")
    return out


def _stripped(grades: Sequence[int] | None) -> tuple[int, ...] | None:
    if grades is None:
        return None
    out = list(grades)
    while out and out[-1] <= 0:
        out.pop()
    return tuple(out)


def problem_key(q: Question) -> tuple[Any, ...] | None:
    """What makes two numeric questions the same problem (None: it has no problem)."""
    p = q.problem
    if q.kind != "numeric" or p is None or not q.metric:
        return None
    from drills.packs.leaks import answer_digits  # the exact answer, as the leak check has it

    def one(x: Any) -> tuple[Any, ...]:
        ranked = x.relevance[:x.k] if x.k is not None else x.relevance
        pool = sorted(x.judged if x.judged is not None else x.relevance, reverse=True)
        return _stripped(ranked), _stripped(pool)

    queries = tuple(one(x) for x in p.queries) if p.queries else (one(p),)
    return (q.metric, answer_digits(q), queries, p.gain, p.swap, _stripped(p.versus), p.threshold,
            p.convention, p.persistence, p.max_grade)


def duplicate_errors(questions: Sequence[Question]) -> list[str]:
    """Questions asking the same problem, not marked as variants; and bad ``variant_of:``."""
    ids = {q.id for q in questions}
    out = [f"{q.source}: {q.id}: variant_of names {q.variant_of!r}, "
           + ("itself" if q.variant_of == q.id else "no question linted with it")
           for q in questions if q.variant_of and (q.variant_of == q.id or q.variant_of not in ids)]
    first: dict[tuple[Any, ...], Question] = {}
    for q in questions:
        key = problem_key(q)
        if key is None or key[1] is None:
            continue
        other = first.setdefault(key, q)
        if other is not q and q.variant_of != other.id and other.variant_of != q.id:
            out.append(f"{q.source}: {q.id}: the same problem as {other.id} ({other.source}): "
                       f"ask something else, or mark one `variant_of: <the other's id>`")
    return out
