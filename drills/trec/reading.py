"""TREC files read in pieces: the qrels held compactly, the run handed on one query at a time.

Pure: the caller gives a function returning a fresh iterator over the file's bytes (read in
pieces of any size); nothing here opens a file. Lines are UTF-8 (a BOM dropped), split on
``\\n``; fields are split as trec_eval splits them (``files._fields``' rule). The fast path
only notices that a file is invalid (``Invalid``); the caller then runs ``files``' checks
line by line to name every bad line, with the messages ``parse_qrels``/``parse_run`` give.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from drills.engine.problem import MAX_RELEVANCE
from drills.safetext import visible
from drills.trec.files import _BLANKS, _OTHER_SPACE, TrecError

Source = Callable[[], Iterator[bytes]]  # a fresh iterator over a file's bytes
Progress = Callable[[int], None]  # bytes read so far
_INF = float("inf")


class Invalid(Exception):
    """The fast path met a line it does not take: the caller names the lines (files.py)."""


def texts(source: Source, name: str, progress: Progress | None = None) -> Iterator[str]:
    """The file as pieces of text, each a run of whole lines (the last may lack its ``\\n``)."""
    rest, line, done, first = b"", 1, 0, True
    for raw in source():
        done += len(raw)
        data = rest + raw if rest else raw
        cut = data.rfind(b"\n") + 1
        if not cut:
            rest = data
            continue
        piece, rest = data[:cut], data[cut:]
        text = _decode(piece, name, line)
        if first:
            text, first = text.removeprefix("\ufeff"), False
        yield text
        line += text.count("\n")
        if progress is not None:
            progress(done)
    if rest:
        text = _decode(rest, name, line)
        yield text.removeprefix("\ufeff") if first else text


def _decode(data: bytes, name: str, line: int) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = line + data.count(b"\n", 0, exc.start)
        raise TrecError(f"{visible(name)}:{at}: not UTF-8 text (byte 0x{data[exc.start]:02x}); "
                        "save the file as UTF-8") from None


def rows(text: str) -> Iterator[list[str]]:
    """The fields of every line of a piece (blank lines give []), split as trec_eval does."""
    if _plain(text):
        return map(str.split, text.split("\n"))
    return ([f for f in _BLANKS.split(raw.strip(" \t\r\f\v")) if f] for raw in text.split("\n"))


def numbered(source: Source, name: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of every line that is not blank or a ``#`` comment: what
    ``files.qrels_of`` and ``files.run_of`` check, to name a bad line."""
    line = 1
    for text in texts(source, name):
        for number, fields in enumerate(rows(text), start=line):
            if fields and not fields[0].startswith("#"):
                yield number, fields
        line += text.count("\n")


def _plain(text: str) -> bool:
    """No character str.split() splits on that C's isspace() does not (``files._OTHER_SPACE``)."""
    if text.isascii():
        return not ("\x1c" in text or "\x1d" in text or "\x1e" in text or "\x1f" in text)
    return _OTHER_SPACE.search(text) is None


@dataclass
class CompactQrels:
    """qid -> (docnos joined by ``\\n``, their grades), in file order: a few bytes a judgement.

    ``negative`` counts grades below 0; ``positive(qid)`` is what the float measures read."""

    source: str
    queries: dict[str, tuple[str, array]] = field(default_factory=dict)
    negative: int = 0

    def judgements(self, qid: str) -> dict[str, int]:
        docs, grades = self.queries[qid]
        return dict(zip(docs.split("\n"), grades, strict=True))

    def positive(self, qid: str) -> dict[str, int]:
        docs, grades = self.queries[qid]
        return {d: g for d, g in zip(docs.split("\n"), grades, strict=True) if g > 0}


def read_qrels(source: Source, name: str) -> CompactQrels:
    """The judgements of a qrels file, held compactly (raises Invalid on any bad line)."""
    qrels = CompactQrels(name)
    store = qrels.queries
    cur: str | None = None
    docs: list[str] = []
    grades: list[str] = []

    def flush() -> None:
        if cur is None:
            return
        text = "".join(grades)
        if not text.isascii() or "_" in text:  # int() would take them; trec_eval would not
            raise Invalid
        try:
            values = list(map(int, grades))
        except ValueError:
            raise Invalid from None
        if max(values) > MAX_RELEVANCE:
            raise Invalid
        if min(values) < -(10**9):  # files.parse_qrels' clamp: the grade only says "unjudged"
            values = [max(g, -(10**9)) for g in values]
        qrels.negative += sum(1 for g in values if g < 0)
        if cur in store:  # the query's lines are not together: merge
            before, old = store[cur]
            docs[:0] = before.split("\n")
            values[:0] = old
        if len(set(docs)) != len(docs):
            raise Invalid
        store[cur] = ("\n".join(docs), array("i", values))

    for text in texts(source, name):
        for fs in rows(text):
            if len(fs) != 4:
                if not fs or fs[0].startswith("#"):
                    continue
                raise Invalid
            qid = fs[0]
            if qid != cur:
                if qid.startswith("#"):
                    continue
                flush()
                cur, docs, grades = qid, [], []
                add_doc, add_grade = docs.append, grades.append
            add_doc(fs[2])
            add_grade(fs[3])
    flush()
    if not store:
        raise TrecError(f"{name} has no judgements (expected lines like: 301 0 DOC-1 1)")
    return qrels


Block = tuple[str, list[str], list[float]]  # qid, docnos, scores in file order


def run_blocks(source: Source, name: str, progress: Progress | None = None) -> Iterator[Block]:
    """Each run of consecutive lines of one query, as (qid, docnos, scores). A query whose
    lines are not together comes as several blocks: the caller joins them. Raises Invalid
    on a bad line (too few fields, a score that is not a finite decimal number)."""
    cur: str | None = None
    docs: list[str] = []
    scores: list[str] = []
    for text in texts(source, name, progress):
        for fs in rows(text):
            if len(fs) < 6:
                if not fs or fs[0].startswith("#"):
                    continue
                raise Invalid
            qid = fs[0]
            if qid != cur:
                if qid.startswith("#"):
                    continue
                if docs:
                    yield cur, docs, _scores(scores)  # type: ignore[misc]
                cur, docs, scores = qid, [], []
                add_doc, add_score = docs.append, scores.append
            add_doc(fs[2])
            add_score(fs[4])
    if docs:
        yield cur, docs, _scores(scores)  # type: ignore[misc]


def _scores(texts: list[str]) -> list[float]:
    """Decimal numbers as C writes them, finite (files._score's rule, for a whole block)."""
    text = "".join(texts)
    # float() also takes nan, inf, 1_000 and other scripts' digits; C's atof does not
    if not text.isascii() or "_" in text or "n" in text or "N" in text or "i" in text or "I" in text:
        raise Invalid
    try:
        values = list(map(float, texts))
    except ValueError:
        raise Invalid from None
    if max(values) == _INF or min(values) == -_INF:
        raise Invalid
    return values
