"""Free text as the concept grader reads it: tokens with their place in the answer,
stems, the field's abbreviations, negation scopes and the claims (windows) a phrasing
must match inside.

Deterministic and linear in the length of the text; nothing here runs text. The rules:

- words are lower-cased and crudely stemmed (``normalises``, ``normalized`` and
  ``normalisation`` read alike); the field's multi-word names become one token
  (``ideal DCG`` reads as ``idcg``, ``reciprocal rank`` as ``rr``); ``doesn't`` reads
  as ``does not``;
- negation (after NegEx, Chapman et al. 2001): a trigger (``not``, ``no``, ``never``,
  ``without``, ``non-``, ...) negates the next few content words, up to a comma, a
  clause word (``because``, ``so``, ``which``, ...) or the end of the claim; ``X is
  false``/``wrong``/``a myth`` negates what came before it in the clause;
- contrast: ``unlike X``, ``rather than X``, ``instead of X``, ``as opposed to X``
  mark X as negated (it is what the claim is *not* about);
- a claim (window) ends at ``.``, ``;``, ``:``, ``?``, ``!``, a new line, or a
  contrast conjunction (``but``, ``however``, ``whereas``, ``although``, ``yet``):
  a phrasing never matches across two claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from drills.grading.concept.normalise import normalise

# Longer answers are cut here before any work (the quiz refuses longer ones anyway).
MAX_CHARS = 10_000

STOP = frozenset("""a an the of to in on at by for with from into onto as is are was were be been
being am it its this that these those there here they them their we our you your me my he she
his her do does did doing done has have had having will would shall should can could may might
must just also only very much really quite so such then than too some any each every all both
either same other another which who whom whose what when where why how whether if or and
about over under up down out off again further once more most""".split()) - {
    "more", "most", "same", "other", "all", "only", "each", "every", "under", "over", "up", "down",
    "than", "before", "after", "above", "below", "once"}
# Words that negate what follows (their scope: see ``_negate``).
NEGATIONS = frozenset("not no never none nothing neither nor without non nobody cannot".split())
# Words that end a negation scope (a new clause starts).
SCOPE_ENDS = frozenset("""because since so which who that therefore thus hence then when whereas but
however although though yet while as if unless whereby instead rather""".split())
# Words that end a claim: a phrasing never matches across them.
CLAIM_ENDS = frozenset("but however whereas although though yet".split())
CLAIM_END_MARKS = frozenset({".", ";", ":", "?", "!", "\n"})
# "X is false" (is/are + one of these) negates X, back to the start of the clause.
POST_NEGATIONS = frozenset("false wrong incorrect myth untrue misconception".split())
# "a common mistake is to ...", "the myth that ...": what follows, to the end of the claim.
FRAMES = frozenset("""mistake mistakes misconception misconceptions myth myths fallacy pitfall
pitfalls trap traps slip slips bug bugs""".split())
FRAME_ENDS = CLAIM_ENDS | frozenset("because since so therefore thus hence while instead rather".split())
CONTRASTS = (("unlike",), ("rather", "than"), ("instead", "of"), ("as", "opposed", "to"),
             ("in", "contrast", "to"), ("as", "against"))
SCOPE_WORDS = 6  # content words a negation trigger reaches

# The field's names written out, read as their abbreviation (longest first).
PHRASES: tuple[tuple[str, str], ...] = tuple(sorted((
    ("normalized discounted cumulative gain", "ndcg"), ("normalised discounted cumulative gain", "ndcg"),
    ("discounted cumulative gain", "dcg"), ("cumulative gain", "cg"),
    ("ideal discounted cumulative gain", "idcg"), ("ideal dcg", "idcg"), ("dcg of the ideal", "idcg"),
    ("mean reciprocal rank", "mrr"), ("reciprocal rank", "rr"), ("expected reciprocal rank", "err"),
    ("mean average precision", "map"), ("average precision", "ap"), ("rank biased precision", "rbp"),
    ("rank-biased precision", "rbp"), ("learning to rank", "ltr"), ("learning-to-rank", "ltr"),
    ("click through rate", "ctr"), ("click-through rate", "ctr"), ("clickthrough rate", "ctr"),
    ("maximal marginal relevance", "mmr"), ("null hypothesis", "h0"),
    ("minimum detectable effect", "mde"), ("sample ratio mismatch", "srm"),
    ("inverse propensity", "ips"), ("inverse-propensity", "ips"),
    ("confidence interval", "ci"), ("log base", "base"), ("a/b test", "abtest"), ("a/b", "abtest"),
), key=lambda kv: -len(kv[0])))
# One spelling for words (and abbreviations) the field uses interchangeably.
SAME = {
    "doc": "document", "docs": "document", "pos": "position", "prob": "probability",
    "probabilities": "probability", "rel": "relevance", "relevant": "relevance",
    "judgement": "judgment", "judgements": "judgment", "judgments": "judgment",
    "graded": "grade", "labelled": "label", "labeled": "label",
    "log2": "log", "logarithm": "log", "logarithmic": "log", "ln": "log",
    "nonrelevant": "irrelevant", "optimal": "ideal", "perfect": "ideal", "cut": "cutoff",
    "truncat": "cutoff", "truncated": "cutoff", "truncate": "cutoff", "truncation": "cutoff",
    "top-k": "top", "bigger": "larger", "greater": "larger", "higher": "larger", "exceed": "above",
    "smaller": "lower", "less": "lower", "fewer": "lower", "exponential": "exponent",
    "significant": "signific", "significance": "signific", "interleaving": "interleav",
    "penalise": "penaliz", "penalize": "penaliz", "randomise": "randomiz", "randomize": "randomiz",
}
_SUFFIXES = ("isations", "izations", "isation", "ization", "ational", "ations", "ation", "ising",
             "izing", "ised", "ized", "ises", "izes", "ise", "ize", "ingly", "edly", "ings", "ing",
             "ness", "ments", "ment", "ities", "ity", "ives", "ive", "ally", "ly", "ies", "ied",
             "es", "ed", "s")

_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?|(?<![a-z0-9])\.[0-9]+|<=|>=|!=|->|[<>=/^@+~]|[.;:?!\n]|,|\(|\)")
# A full stop after these is an abbreviation's ("e.g.", "prob.", "vs."), not a claim's end.
ABBREVIATIONS = frozenset("e g i eg ie incl prob approx vs etc resp cf esp avg al".split())
# "not X and it Y": the negation ends at "and" when a new verb phrase starts.
_AND_NEW_CLAUSE = frozenset("""it its they this that does do did is are was were can will would
so then also still thus hence therefore instead""".split())


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A crude, predictable stem: one suffix off (the stem keeps 3 letters), -our -> -or,
    British -is- -> -iz-, a final e dropped; the field's one spelling before and after."""
    word = _rule(SAME.get(word, word))
    return _SAME_STEMS.get(word, word)


def _rule(word: str) -> str:
    if not word.isalpha() or len(word) <= 3:
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in ("ies", "ied", "ities", "ity"):
                base += "y" if suffix in ("ies", "ied") else ""
            if suffix in ("isations", "isation", "ising", "ised", "ises", "ise",
                          "izations", "ization", "izing", "ized", "izes", "ize"):
                base += "iz"
            word = base
            break
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    if word.endswith("our") and len(word) > 5:
        word = word[:-3] + "or"
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # stopp(ed) -> stop
    return word


_SAME_STEMS = {_rule(k): _rule(v) for k, v in SAME.items() if _rule(k) != _rule(v)}


def canonical_number(token: str) -> str:
    if "." in token:
        whole, frac = token.split(".", 1)
        frac = frac.rstrip("0")
        return (whole.lstrip("0") or "0") + ("." + frac if frac else "")
    return token.lstrip("0") or "0"


@dataclass(frozen=True)
class Token:
    """One word or symbol: its stem (``key``), where it is in the text, and how it reads."""

    key: str
    start: int
    end: int
    claim: int  # which claim (window) it belongs to
    negated: bool
    neg_from: int  # where the negation (or contrast) that covers it starts (its own start if none)
    glued: bool  # written right after the previous token, with no space (``1/r``, ``dcg@k``)
    word: str  # the raw lower-cased word
    framed: bool = False  # negated only as part of "a common mistake is X" (X is mentioned)


def _raw(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) with offsets in ``text``: symbols kept, hyphens and apostrophes
    dropped, ``non-relevant`` one word, field names joined."""
    norm, where = normalise(text[:MAX_CHARS])
    out: list[tuple[str, int, int]] = []  # offsets in ``norm`` first
    for m in _TOKEN.finditer(norm):
        word = m.group()
        if word[0] == "." and len(word) > 1:  # .5 is 0.5
            word = "0" + word
        if word[0].isdigit() and "." in word:
            word = canonical_number(word)
        if out and out[-1][0] == "non" and m.start() - out[-1][2] <= 1 and word.isalpha():
            out[-1] = ("non" + word, out[-1][1], m.end())  # non-relevant: one word, no negation
            continue
        out.append((word, m.start(), m.end()))
    # The field's names written out -> one token ("reciprocal rank" -> "rr").
    joined: list[tuple[str, int, int]] = []
    i = 0
    while i < len(out):
        for words, abbrev in _BY_FIRST.get(out[i][0], ()):
            n = len(words)
            if tuple(w for w, _, _ in out[i:i + n]) == words:
                joined.append((abbrev, out[i][1], out[i + n - 1][2]))
                i += n
                break
        else:
            joined.append(out[i])
            i += 1
    return [(w, where[start], where[end - 1] + 1) for w, start, end in joined]


def _by_first() -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """PHRASES as token tuples, indexed by their first word (longest first)."""
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for phrase, abbrev in PHRASES:
        words = tuple(m.group() for m in _TOKEN.finditer(phrase.replace("-", " ")))
        index.setdefault(words[0], []).append((words, abbrev))
    return index


_BY_FIRST = _by_first()


def tokens(text: str) -> list[Token]:
    """The text's tokens, content words stemmed, with claims and negation marked.
    Stop words and punctuation are dropped from the result (they only shape the marks)."""
    raw = _raw(text)
    words = [w for w, _, _ in raw]
    n = len(raw)
    negated = [-1] * n  # the index of the trigger that negates the word, or -1
    claim = [0] * n
    current = 0
    for i, w in enumerate(words):
        if w in CLAIM_ENDS or w in CLAIM_END_MARKS and not (
                w == "." and i and words[i - 1] in ABBREVIATIONS and raw[i][1] == raw[i - 1][2]):
            current += 1
        claim[i] = current
    framed: set[int] = set()
    _negate(words, claim, negated, framed)
    out: list[Token] = []
    prev_end = -2
    for i, (w, start, end) in enumerate(raw):
        glued = start == prev_end
        prev_end = end
        if w in STOP or w in NEGATIONS or w in SCOPE_ENDS or w in _DROPPED:
            continue
        by = negated[i]
        out.append(Token(stem(w), start, end, claim[i], by >= 0, raw[by][1] if by >= 0 else start,
                         glued, w, i in framed))
    return out


def _ends_scope(w: str) -> bool:
    return w in SCOPE_ENDS or w in CLAIM_ENDS or w in (",", ".", ";", ":", "?", "!", "\n", "(", ")")


_DROPPED = frozenset({",", ".", ";", ":", "?", "!", "\n", "(", ")", "unlike", "rather", "instead",
                      "opposed"}) | CLAIM_ENDS


def _negate(words: list[str], claim: list[int], negated: list[int], framed: set[int]) -> None:
    n = len(words)
    for i, w in enumerate(words):
        contrast = next((c for c in CONTRASTS if tuple(words[i:i + len(c)]) == c), None)
        if w == "none" and i and words[i - 1] == "=":
            continue  # k=None is a value, not a negation
        if w in NEGATIONS or contrast:
            j, reach = i + (len(contrast) if contrast else 1), 0
            if j < n and words[j] in ("that", "because", "since"):
                j += 1  # "it's not that X", "not because of X": X is what is denied
            while j < n and not _ends_scope(words[j]) and reach < SCOPE_WORDS and not (
                    contrast and words[j] in _VERBS) and not (
                    words[j] == "and" and j + 1 < n and words[j + 1] in _AND_NEW_CLAUSE):
                negated[j] = i
                reach += words[j] not in STOP
                j += 1
            if w in ("nothing", "none") and reach == 0 and not _hedged(words, i):  # "loses nothing"
                _back(words, claim, negated, i - 1, i)
        if w in FRAMES and i + 1 < n and words[i + 1] in ("is", "are", "was", "to", ":", "would"):
            j = i + 1  # "a common mistake is to think X", "myth: X": X, to the end of the claim
            while j < n and claim[j] == claim[i + 1] and words[j] not in FRAME_ENDS:
                if negated[j] < 0:
                    framed.add(j)
                negated[j] = i
                j += 1
        if w in POST_NEGATIONS and i > 0 and words[i - 1] in _COPULA + ("a", "be"):
            j = i - 1 - (words[i - 1] == "a" and i > 1 and words[i - 2] in _COPULA)
            if j > 0 and words[j - 1] in ("which", "that", "this", "it"):  # "X, which is false"
                j -= 1 + (j > 1 and words[j - 2] == ",")
                k = j - 1
                while k >= 0 and words[k] in CLAIM_END_MARKS:
                    k -= 1
                if k >= 0 and claim[k] != claim[i]:  # "X. That's a myth.": the claim before
                    _back(words, claim, negated, k, k, commas=True)
                else:
                    _back(words, claim, negated, j - 1, i, commas=True)
            else:
                _back(words, claim, negated, i - 1, i)


_COPULA = ("is", "are", "was", "s")  # "s": that's
# "instead of X is Y": a contrast covers X, not the verb that follows it.
_VERBS = frozenset("is are was were be been makes make gives give has have does do can will would".split())
_HEDGES = frozenset("almost nearly virtually practically close next".split())


def _hedged(words: list[str], i: int) -> bool:
    """"adds almost nothing", "next to nothing": a small amount, not a denial."""
    return i > 0 and words[i - 1] in _HEDGES or i > 1 and words[i - 2] in _HEDGES


def _back(words: list[str], claim: list[int], negated: list[int], j: int, by: int,
          commas: bool = False) -> None:
    """Negate backwards from ``j`` to the start of the clause (of the claim, if ``commas``)."""
    while j >= 0 and claim[j] == claim[by] and words[j] != "and" and (
            not _ends_scope(words[j]) or commas and words[j] == ","):
        negated[j] = j
        j -= 1


def is_negative(text: str) -> bool:
    """Whether a phrasing states a negated claim (it contains a negation or a contrast)."""
    words = [w for w, _, _ in _raw(text)]
    return any(w in NEGATIONS for w in words) or any(
        tuple(words[i:i + len(c)]) == c for i in range(len(words)) for c in CONTRASTS)
