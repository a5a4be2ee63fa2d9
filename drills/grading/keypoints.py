"""Which key points of a model answer a learner's free-text answer covers (concept questions).

Deliberately simple and predictable: content words, crudely stemmed, with a few of the
field's synonyms (IDCG ~ ideal, cut-off ~ truncation); half of a point's words must
appear, or half of one of its ';'-separated clauses. The learner grades themselves
after seeing the marks.
"""

from __future__ import annotations

import re

_STOP = frozenset("""a an and are as at be by can do does for from has have how if in into is
it its not of on or so than that the their them then there these this to was what when which
why will with you your they more most only also each per""".split())


# Words a candidate uses for the same idea, mapped to one spelling (after stemming).
_SAME = {
    "idcg": "ideal", "cutoff": "truncat", "cut-off": "truncat", "position": "rank",
    "label": "grade", "grad": "grade", "logarithm": "log", "log2": "log",
    "normalis": "normaliz", "normalisation": "normaliz", "normalization": "normaliz",
}


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    word = _SAME.get(word, word)
    if len(word) >= 8:  # truncation, truncated, truncate -> truncat
        word = word[:7]
    return _SAME.get(word, word)


def significant_words(text: str) -> set[str]:
    """Lower-cased content words, crudely stemmed: enough for 'did you mention it'."""
    words = re.findall(r"[a-z0-9]+(?:[-'][a-z0-9]+)*", text.lower())
    return {_stem(w) for w in words if w not in _STOP and (len(w) >= 3 or w.isdigit())}


def covered(point: str, answer: str) -> bool:
    """A key point counts as covered when at least half its significant words appear,
    or half of those of one of its clauses ("0 <= NDCG <= 1; above 1 means ...")."""
    have = significant_words(answer)
    for part in (point, *point.split(";")):
        need = significant_words(part)
        if need and len(need & have) * 2 >= len(need):
            return True
    return False
