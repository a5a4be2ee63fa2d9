"""Phrasings: how a rubric says "an answer that makes this claim reads like this".

A phrasing is plain text, read by the same rules as the answer (drills.grading.concept.text):

- its content words must all appear, in the same order, inside one claim of the answer;
  stop words (``the``, ``is``, ``of``...) are ignored, words are stemmed, the field's
  names are abbreviated, so ``ideal DCG depends on list length`` is the claim
  ``idcg depend list length``;
- ``a|b|c`` is one word with alternatives (``monotone|increasing``; no negation inside
  them: write a second phrasing); ``word*`` matches
  any word starting with ``word``; a multi-word alternative is written with ``_``
  (``perfect_ordering|ideal``);
- words written together without a space (``1/r``, ``dcg@k``, ``2^rel``) must stand
  together in the answer too;
- a phrasing with a negation (``not monotone``, ``no ideal``) matches only a negated
  claim, and one without matches only an affirmed claim: ``IDCG does not depend on the
  list length`` does not match ``idcg depend list length``.

No regular expression from a pack is ever compiled: the work is bounded by
(words in the answer) x (words in the phrasing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from drills.grading.concept.text import NEGATIONS, STOP, Token, is_negative, tokens

MAX_PHRASING = 200  # characters; longer phrasings are refused by the pack check
MAX_GAP = 12  # content words a phrasing may skip between two of its words


@dataclass(frozen=True)
class Alternative:
    """One way to write a word: a sequence of stems (``perfect_ordering``), or a prefix."""

    keys: tuple[str, ...]
    prefix: bool = False

    def matches(self, toks: list[Token], at: int) -> int:
        """How many tokens it covers at ``at`` (0: no match)."""
        if at + len(self.keys) > len(toks):
            return 0
        for k, key in enumerate(self.keys):
            t = toks[at + k]
            if k and t.claim != toks[at].claim:
                return 0
            if not (t.key == key or self.prefix and k == len(self.keys) - 1 and
                    (t.word.startswith(key) or t.key.startswith(key))):
                return 0
        return len(self.keys)


@dataclass(frozen=True)
class Term:
    """One word of a phrasing: its alternatives, and whether it is glued to the previous."""

    options: tuple[Alternative, ...]
    glued: bool = False


@dataclass(frozen=True)
class Phrasing:
    """One phrasing of a key point or belief, as terms to find (``negative``: it states the opposite)."""

    text: str
    terms: tuple[Term, ...]
    negative: bool

    @property
    def empty(self) -> bool:
        return not self.terms


_WORD = re.compile(r"[^\s]+")


@lru_cache(maxsize=8192)
def _alternative(text: str) -> Alternative | None:
    prefix = text.endswith("*")
    words = [t for t in tokens(text.rstrip("*").replace("_", " "))]
    keys = tuple(t.word if prefix and i == len(words) - 1 else t.key for i, t in enumerate(words))
    if not keys:
        return None
    return Alternative(keys, prefix)


def ignored_words(text: str) -> list[str]:
    """The ``a|b`` alternatives of a phrasing that read as nothing (stop words only): a pack
    check names them, since they would silently never match."""
    return [o for chunk in _WORD.findall(text[:MAX_PHRASING]) if "|" in chunk
            for o in chunk.split("|") if o and _alternative(o) is None]


_NON = re.compile(r"\bnon[\s-]+(?=[a-z])", re.IGNORECASE)


def compile_phrasing(text: str) -> Phrasing:
    """Read one phrasing (see the module docstring); an empty result matches nothing."""
    text = _NON.sub("non", text)  # "non-relevant", "non relevant": one word, as in answers
    terms: list[Term] = []
    for chunk in _WORD.findall(text[:MAX_PHRASING]):
        if "|" in chunk:
            options = tuple(a for a in (_alternative(o) for o in chunk.split("|") if o) if a)
            if options:
                terms.append(Term(options))
            continue
        if chunk.lower().strip(".,;:!?()") in NEGATIONS or chunk.lower() in STOP:
            continue
        parts = tokens(chunk.rstrip("*"))
        for i, t in enumerate(parts):
            last = i == len(parts) - 1
            prefix = chunk.endswith("*") and last
            key = t.word if prefix else t.key
            terms.append(Term((Alternative((key,), prefix),), glued=i > 0 and t.glued))
    plain = " ".join(c for c in _WORD.findall(text[:MAX_PHRASING]) if "|" not in c)
    return Phrasing(text, tuple(terms), is_negative(plain))


@dataclass(frozen=True)
class Match:
    """Where a phrasing was found in an answer, and whether it was negated there."""

    start: int  # character offsets in the answer: the evidence
    end: int
    negated: bool


def find(phrasing: Phrasing, toks: list[Token], ordered: bool = True) -> Match | None:
    """The first place the phrasing's claim is made in ``toks`` (with its polarity), or None.
    ``ordered=False``: its words in any order inside one claim (key points: "at rank 1 they
    coincide" makes the point "coincide at rank 1"); a wrong belief's words keep their order."""
    if phrasing.empty:
        return None
    n = len(toks)
    for first in range(n):
        if not ordered and first and toks[first - 1].claim == toks[first].claim:
            continue  # unordered: once per claim, from its first word
        got = _match_from(phrasing.terms, toks, first) if ordered else _anywhere(phrasing.terms, toks, first)
        if got is None:
            continue
        used = got
        # a key point may be made inside "a common mistake is ...": it is mentioned, not denied
        negated = any(toks[i].negated and (ordered or not toks[i].framed) for i in used)
        if negated == phrasing.negative:
            return Match(min(toks[i].neg_from for i in used), max(toks[i].end for i in used), negated)
    return None


def _anywhere(terms: tuple[Term, ...], toks: list[Token], first: int) -> list[int] | None:
    """Each term (a glued group as one) somewhere in the claim starting at ``first``."""
    claim = toks[first].claim
    end = first
    while end < len(toks) and toks[end].claim == claim:
        end += 1
    used: list[int] = []
    k = 0
    while k < len(terms):
        group = [terms[k]]
        while k + len(group) < len(terms) and terms[k + len(group)].glued:
            group.append(terms[k + len(group)])
        for start in range(first, end):
            got = _match_from(tuple(group), toks[:end], start)
            if got is not None:
                used.extend(got)
                break
        else:
            return None
        k += len(group)
    return used


def _match_from(terms: tuple[Term, ...], toks: list[Token], first: int) -> list[int] | None:
    """Greedy: each term at the earliest place after the previous one, in the same claim."""
    at = first
    claim = toks[first].claim
    used: list[int] = []
    for t_index, term in enumerate(terms):
        limit = min(len(toks), at + 1 if t_index == 0 or term.glued else at + MAX_GAP + 1)
        found = None
        for j in range(at, limit):
            if toks[j].claim != claim:
                break
            if term.glued and j != at:
                break
            for option in term.options:
                width = option.matches(toks, j)
                if width:
                    found = (j, width)
                    break
            if found:
                break
        if found is None:
            return None
        j, width = found
        used.extend(range(j, j + width))
        at = j + width
    return used
