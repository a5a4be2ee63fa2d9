"""TREC qrels and run files: parsing with ``file:line`` errors, and trec_eval's ranking.

Pure: takes the text of a file and a name to report it by, returns data; no file access.

- qrels: ``qid iter docno grade``, exactly 4 fields split on blanks; ``iter`` is ignored.
  The grade is a whole number; a negative grade means "in the pool, unjudged" (trec_eval):
  never relevant and not counted in R. Grades above ``MAX_RELEVANCE`` (20) are refused.
- run: ``qid Q0 docno rank score tag``, at least 6 fields (later ones are ignored, as
  trec_eval does); ``Q0`` and ``rank`` are not read; the score must be a decimal number
  (trec_eval's atof would read ``abc`` as 0; drills names the line instead).
- Both: blank lines and lines starting with ``#`` are skipped (trec_eval 10 skips ``#``
  comments; 9.0.8 and trec_eval itself refuse a blank qrels line). A docno twice in one
  query is an error naming both lines (trec_eval stops on "duplicate docs" too).
- ``ranked``: score descending, ties by docno descending (strcmp), the rank column ignored:
  trec_eval's order. Scores are doubles, as trec_eval 10 reads them (9.0.8 and
  pytrec_eval keep float32, so two scores that differ only past the 7th digit tie there).

Work is bounded: ``parse_qrels``/``parse_run`` take at most ``MAX_LINES`` lines of text; at
most ``MAX_ERRORS`` errors are listed before parsing stops. ``drills solve --qrels --run``
reads files of any size in pieces (``reading.py``) and comes here, through ``qrels_of`` and
``run_of``, only to name the bad lines of a file the fast path refused.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from drills.engine.problem import MAX_RELEVANCE
from drills.safetext import shorten

MAX_LINES = 1_000_000
MAX_ERRORS = 20
_BLANKS = re.compile(r"[ \t\r\f\v]+")  # C isspace() minus newline: what trec_eval splits on
# What str.split() also splits on but C's isspace() does not: when a file has none of these,
# the fast str.split() splits exactly as trec_eval does.
_OTHER_SPACE = re.compile("[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_GRADE = re.compile(r"[+-]?\d+", re.ASCII)


class TrecError(ValueError):
    """Bad input: one or more messages, each one line (``file:line: what is wrong``)."""

    def __init__(self, lines: list[str] | tuple[str, ...] | str) -> None:
        self.lines = (lines,) if isinstance(lines, str) else tuple(lines)
        super().__init__("\n".join(self.lines))


class Judgement(NamedTuple):
    """One qrels line: the grade of a document for a query, and where it was read."""

    grade: int
    line: int


@dataclass(frozen=True, eq=False)
class Qrels:
    """qid -> docno -> judgement, in file order; ``negative``: how many grades were < 0."""

    source: str
    queries: dict[str, dict[str, Judgement]]
    negative: int = 0


class Retrieved(NamedTuple):
    """One run line: a document retrieved for a query, its score and its line."""

    docno: str
    score: float
    line: int


@dataclass(frozen=True, eq=False)
class Run:
    """qid -> the documents retrieved for it, in file order; ``tag`` from the last line."""

    source: str
    queries: dict[str, list[Retrieved]]
    tag: str = ""


def show(token: str, width: int = 40) -> str:
    """A token from a file as it is quoted in a message: visible, at most ``width`` long."""
    return shorten(token, width)


class _Errors:
    """Collects ``file:line`` messages; raises once ``MAX_ERRORS`` are reached or at the end."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.lines: list[str] = []

    def add(self, line: int, message: str) -> None:
        self.lines.append(f"{self.source}:{line}: {message}")
        if len(self.lines) >= MAX_ERRORS:
            self.lines.append(f"{self.source}: stopped after {MAX_ERRORS} errors")
            raise TrecError(self.lines)

    def check(self) -> None:
        if self.lines:
            raise TrecError(self.lines)


def _fields(text: str, source: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of every line that is not blank or a ``#`` comment."""
    if text.count("\n") > MAX_LINES:
        raise TrecError(f"{source} has more than {MAX_LINES:,} lines; drills reads at most "
                        f"{MAX_LINES:,} (split the file, or evaluate fewer queries)")
    split = _BLANKS.split if _OTHER_SPACE.search(text) else None
    for number, raw in enumerate(text.split("\n"), start=1):
        fields = raw.split() if split is None else split(raw.strip(" \t\r\f\v"))
        if fields and fields[0] and not fields[0].startswith("#"):
            yield number, fields


def parse_qrels(text: str, source: str = "qrels") -> Qrels:
    """The judgements of a qrels file (raises TrecError with ``source:line`` messages)."""
    return qrels_of(_fields(text, source), source)


def qrels_of(lines: Iterable[tuple[int, list[str]]], source: str = "qrels") -> Qrels:
    """``parse_qrels`` over (line number, fields) of the lines that are not blank or comments."""
    errors = _Errors(source)
    queries: dict[str, dict[str, Judgement]] = {}
    negative = 0
    too_high: list[tuple[int, str]] = []  # (line, grade): reported once, with a count
    for number, fields in lines:
        if len(fields) != 4:
            errors.add(number, f"expected 4 fields (qid iter docno grade), found {len(fields)}")
            continue
        qid, _, docno, grade_text = fields
        if not _GRADE.fullmatch(grade_text):
            errors.add(number, f"grade {show(grade_text)!r} is not a whole number "
                               "(trec_eval would read its leading digits)")
            continue
        digits = grade_text.lstrip("+-")
        grade = int(grade_text) if len(digits) <= 9 else -(10**9) if grade_text[0] == "-" else 10**9
        if grade > MAX_RELEVANCE:
            too_high.append((number, show(grade_text)))
            continue
        judged = queries.setdefault(qid, {})
        first = judged.get(docno)
        if first is not None:
            errors.add(number, f"document {show(docno)} of query {show(qid)} is judged again "
                               f"(first at line {first.line}); trec_eval stops on duplicate docs too")
            continue
        judged[docno] = Judgement(grade, number)
        negative += grade < 0
    if too_high:
        line, grade = too_high[0]
        more = f" ({len(too_high) - 1} more lines too)" if len(too_high) > 1 else ""
        errors.add(line, f"grade {grade} is above {MAX_RELEVANCE}, the largest grade drills "
                         f"computes with{more}")
    errors.check()
    if not queries:
        raise TrecError(f"{source} has no judgements (expected lines like: 301 0 DOC-1 1)")
    return Qrels(source, queries, negative)


def parse_run(text: str, source: str = "run") -> Run:
    """The ranked documents of a run file (raises TrecError with ``source:line`` messages)."""
    return run_of(_fields(text, source), source)


def run_of(lines: Iterable[tuple[int, list[str]]], source: str = "run", keep: bool = True) -> Run:
    """``parse_run`` over (line number, fields) of the lines that are not blank or comments;
    ``keep`` False: only check them (the documents are not kept)."""
    errors = _Errors(source)
    queries: dict[str, list[Retrieved]] = {}
    seen: dict[str, dict[str, int]] = {}  # qid -> docno -> line
    tag = ""
    for number, fields in lines:
        if len(fields) < 6:
            errors.add(number, f"expected 6 fields (qid Q0 docno rank score tag), found {len(fields)}")
            continue
        qid, docno, score_text, tag = fields[0], fields[2], fields[4], fields[5]
        score = _score(score_text)
        if score is None:
            errors.add(number, f"score {show(score_text)!r} is not a finite decimal number "
                               "(trec_eval's atof would read it without a word)")
            continue
        lines = seen.get(qid)
        if lines is None:
            lines = seen[qid] = {}
            queries[qid] = []
        first = lines.setdefault(docno, number)
        if first != number:
            errors.add(number, f"document {show(docno)} is ranked twice for query {show(qid)} "
                               f"(first at line {first}); trec_eval stops on duplicate docs too")
            continue
        if keep:
            queries[qid].append(Retrieved(docno, score, number))
    errors.check()
    if not queries:
        raise TrecError(f"{source} has no ranked documents "
                        "(expected lines like: 301 Q0 DOC-1 1 12.5 myrun)")
    return Run(source, queries, tag)


def _score(text: str) -> float | None:
    """A decimal number as C writes it (``12``, ``-0.5``, ``.5``, ``1e-3``), finite; else None."""
    if text.strip("0123456789.+-eE"):  # float() would also take inf, nan, 1_000 and other digits
        return None
    try:
        score = float(text)
    except ValueError:
        return None
    return score if math.isfinite(score) else None


def ranked(docs: list[Retrieved] | tuple[Retrieved, ...]) -> tuple[Retrieved, ...]:
    """trec_eval's order: score descending, ties by docno descending; the rank column unread."""
    return tuple(sorted(docs, key=lambda d: (d.score, d.docno), reverse=True))


def tied(order: tuple[Retrieved, ...]) -> int:
    """How many documents share their score with a neighbour (their order came from docnos)."""
    return sum(1 for i, d in enumerate(order)
               if (i and order[i - 1].score == d.score)
               or (i + 1 < len(order) and order[i + 1].score == d.score))
