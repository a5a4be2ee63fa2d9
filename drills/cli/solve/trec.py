"""``drills solve --qrels QRELS --run RUN``: evaluate a TREC run as trec_eval does.

Thin glue: open the two files (one-line errors, exit 2), hand their bytes in pieces to
``drills.trec.reading`` / ``drills.trec.stream`` (one query in memory at a time, floats),
print trec_eval -q's lines, or the worked solution of one query with docnos (exact forms,
built for that query only), or JSON (exact forms for the queries it reports). An invalid
file is read again by ``drills.trec.files``' checks, which name every bad line.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Iterator
from itertools import islice
from typing import BinaryIO, NoReturn

import click

from drills.cli.errors import Exit
from drills.cli.style import echo_prose, screen_rows, wrap_width
from drills.engine.problem import MAX_LIST
from drills.safetext import json_text, visible
from drills.trec.evaluate import Evaluation, QueryEvaluation, Value
from drills.trec.files import TrecError, qrels_of, run_of
from drills.trec.names import DEFAULT, parse_measures
from drills.trec.reading import Invalid, Source, numbered, read_qrels
from drills.trec.report import View, json_data, stream_lines, worked_query
from drills.trec.stream import Streamed, evaluate_stream

MAX_BYTES: int | None = None  # no limit: files are read in pieces, one query at a time
CHUNK = 1 << 20


def _fail(lines: tuple[str, ...] | list[str]) -> NoReturn:
    for line in lines:
        click.echo(f"Error: {line}", err=True)
    sys.exit(int(Exit.USAGE))


def open_source(path: str, option: str) -> Source:
    """A fresh iterator over the file's bytes, each call (a shell pipe is copied to a
    temporary file first, so that it can be read twice), or a one-line error naming it."""
    import os
    import stat

    shown = visible(path)
    try:
        if os.path.isdir(path):
            _fail([f"{option} {shown} is a directory, not a file"])
        st = os.stat(path)
        # a pipe from the shell (--run <(zcat run.gz): /dev/fd/N) is read; a named FIFO
        # could wait forever for a writer, and a device never ends: both refused
        piped = stat.S_ISFIFO(st.st_mode) and path.startswith(("/dev/fd/", "/proc/self/fd/"))
        if not (stat.S_ISREG(st.st_mode) or piped):
            _fail([f"{option} {shown} is not a regular file (a FIFO, device or socket); "
                   "give a file, or a shell pipe such as <(zcat run.gz)"])
        if MAX_BYTES is not None and st.st_size > MAX_BYTES:
            _fail([f"{option} {shown} is over {MAX_BYTES // 2**20} MiB; drills reads at most that "
                   "(evaluate fewer queries at a time)"])
        if piped:
            import shutil
            import tempfile

            spool = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the command)
            with open(path, "rb") as f:
                shutil.copyfileobj(f, spool, CHUNK)
            return lambda: _spooled(spool)
        with open(path, "rb"):
            pass
    except FileNotFoundError:
        _fail([f"{option}: no such file: {shown}"])
    except PermissionError:
        _fail([f"{option}: cannot read {shown}: permission denied"])
    except OSError as exc:
        _fail([f"{option}: cannot read {shown}: {exc.strerror or exc}"])
    return lambda: _chunks(path, option)


def _chunks(path: str, option: str) -> Iterator[bytes]:
    try:
        with open(path, "rb") as f:
            while chunk := f.read(CHUNK):
                yield chunk
    except OSError as exc:
        _fail([f"{option}: cannot read {visible(path)}: {exc.strerror or exc}"])


def _spooled(spool: BinaryIO) -> Iterator[bytes]:
    spool.seek(0)
    while chunk := spool.read(CHUNK):
        yield chunk


class _Progress:
    """After a second on a terminal: one line saying how far the run has been read, then one
    every few seconds (stderr, through echo_prose)."""

    def __init__(self, name: str, size: int) -> None:
        self.name, self.size = visible(name), size
        self.start = time.monotonic()
        self.next = self.start + 1.0

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if now < self.next:
            return
        self.next = now + 5.0
        share = f"{min(done / self.size, 1):.0%} of " if self.size else ""
        echo_prose(f"solve: {share}{self.name} read ({done / 2**20:,.0f} MiB, "
                   f"{now - self.start:.0f} s) ...", err=True)


def _progress(path: str) -> _Progress | None:
    import os

    if not sys.stderr.isatty():
        return None
    try:
        return _Progress(path, os.stat(path).st_size)
    except OSError:
        return None


def solve_files(qrels: str, run_file: str, query_ids: tuple[str, ...],
                measure_names: tuple[str, ...], threshold: int, as_json: bool,
                all_rows: bool, complete: bool = False, depth: int | None = None) -> None:
    enabled = gc.isenabled()
    gc.disable()  # millions of short-lived strings, no cycles: the collector only costs time
    try:
        ev = _evaluate(qrels, run_file, query_ids, measure_names, threshold, as_json, complete,
                       depth)
    finally:
        if enabled:
            gc.enable()
    if as_json:
        past = [qid for qid, q in ev.exact.items() if q is None]
        if past:
            many = f"{len(past):,} quer{'y ranks' if len(past) == 1 else 'ies rank'}"
            ev.notes.append(f"{many} more than {MAX_LIST:,} documents: "
                            f"\"exact\" is null there, the value a float (-M {MAX_LIST} keeps "
                            f"the first {MAX_LIST:,})")
        click.echo(json_text(json_data(_as_evaluation(ev), whole=all_rows), indent=2))
        return
    if len(ev.rows) == 1:
        _worked(ev, qrels, run_file, all_rows)
    else:
        _echo_lines(stream_lines(ev))
    for note in ev.notes:
        echo_prose(f"note: {note}", err=True)


def _evaluate(qrels: str, run_file: str, query_ids: tuple[str, ...],
              measure_names: tuple[str, ...], threshold: int, as_json: bool, complete: bool,
              depth: int | None) -> Streamed:
    """The files evaluated (exact forms for --json's queries and a worked query), or exit 2
    with one line per error."""
    try:
        measures = parse_measures(measure_names or DEFAULT)
        judged_source, run_source = open_source(qrels, "--qrels"), open_source(run_file, "--run")
        try:
            judged = read_qrels(judged_source, qrels)
        except Invalid:
            qrels_of(numbered(judged_source, qrels), qrels)  # names the bad lines
            raise TrecError(f"{qrels}: cannot be read as qrels") from None
        one = len(query_ids) == 1
        wanted = set(query_ids) if (as_json or one) else set()
        exact_for = (lambda qid: True) if as_json and not query_ids else wanted.__contains__
        try:
            ev = evaluate_stream(judged, run_source, run_file, measures, threshold, query_ids,
                                 complete, depth, exact_for, _progress(run_file))
            if len(ev.rows) == 1 and not as_json and ev.rows[0][0] not in ev.exact:
                ev = evaluate_stream(judged, run_source, run_file, measures, threshold,
                                     (ev.rows[0][0],), complete, depth, lambda qid: True)
        except Invalid:
            run_of(numbered(run_source, run_file), run_file, keep=False)
            raise TrecError(f"{run_file}: cannot be read as a run") from None
    except TrecError as exc:
        _fail(exc.lines)
    return ev


def _echo_lines(lines: Iterator[str], batch: int = 4096) -> None:
    """Print lines a batch at a time: 100,000 queries' lines are never all in memory."""
    chunk = list(islice(lines, batch))
    while chunk:
        click.echo("\n".join(chunk))
        chunk = list(islice(lines, batch))


def _as_evaluation(ev: Streamed) -> Evaluation:
    """The exact evaluations of ``ev`` as ``report`` takes them (None: past the engine's
    limits, given its floats and no exact forms)."""
    queries = []
    for qid, values in ev.rows:
        q = ev.exact.get(qid)
        if q is None:
            q = QueryEvaluation(qid, (), (), (), (), 0, 0)
            for m, v in zip(ev.measures, values, strict=True):
                q.values[m.name] = Value("", v, None)
        queries.append(q)
    return Evaluation(ev.measures, ev.threshold, tuple(queries), ev.mean, tuple(ev.notes))


def _worked(ev: Streamed, qrels: str, run_file: str, all_rows: bool) -> None:
    qid = ev.rows[0][0]
    query = ev.exact.get(qid)
    if query is None or not query.docnos:
        why = ("it has no ranking in the run (-c scores it 0)" if query is not None else
               f"it ranks more than {MAX_LIST:,} documents (-M {MAX_LIST} keeps the first {MAX_LIST:,})")
        echo_prose(f"Query {visible(qid)}: no worked solution: {why}.")
        click.echo("\n".join(stream_lines(ev)))
        return
    width = min(wrap_width(), 100) if sys.stdout.isatty() else 80
    several = len(ev.measures) > 1
    rows = 10**6 if all_rows else 12 if several else max(8, screen_rows() - 14)
    view = View(max_rows=rows, exact_width=None if all_rows else max(40, width - 20),
                whole_docnos=all_rows, narrow=width < 100, width=None if all_rows else width - 1)
    whole = _as_evaluation(ev)
    click.echo(worked_query(whole, whole.queries[0], view, qrels, run_file))
    click.echo("\nAs trec_eval -q prints it:")
    click.echo("\n".join(stream_lines(ev)))
