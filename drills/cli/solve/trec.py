"""``drills solve --qrels QRELS --run RUN``: evaluate a TREC run as trec_eval does.

Thin glue: read the two files (one-line errors, exit 2), hand their text to
``drills.trec.files`` / ``trec_eval``, print ``trec_explain``'s text or JSON. One query: the
worked solution of each measure with docnos; several: trec_eval -q's lines and the means.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from drills.cli.errors import Exit
from drills.cli.style import screen_rows, wrap_width
from drills.safetext import json_text, visible
from drills.trec.evaluate import evaluate
from drills.trec.files import TrecError, parse_qrels, parse_run
from drills.trec.names import DEFAULT, parse_measures
from drills.trec.report import View, json_data, trec_lines, worked_query

MAX_BYTES = 64 * 1024 * 1024


def _fail(lines: tuple[str, ...] | list[str]) -> NoReturn:
    for line in lines:
        click.echo(f"Error: {line}", err=True)
    sys.exit(int(Exit.USAGE))


def read_text(path: str, option: str) -> str:
    """The file as UTF-8 text (a BOM dropped), or a one-line error naming it and why."""
    import os

    shown = visible(path)
    try:
        if os.path.isdir(path):
            _fail([f"{option} {shown} is a directory, not a file"])
        import stat

        mode = os.stat(path).st_mode
        # a pipe from the shell (--run <(zcat run.gz): /dev/fd/N) is read; a named FIFO
        # could wait forever for a writer, and a device never ends: both refused
        piped = stat.S_ISFIFO(mode) and path.startswith(("/dev/fd/", "/proc/self/fd/"))
        if not (stat.S_ISREG(mode) or piped):
            _fail([f"{option} {shown} is not a regular file (a FIFO, device or socket); "
                   "give a file, or a shell pipe such as <(zcat run.gz)"])
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        _fail([f"{option}: no such file: {shown}"])
    except PermissionError:
        _fail([f"{option}: cannot read {shown}: permission denied"])
    except OSError as exc:
        _fail([f"{option}: cannot read {shown}: {exc.strerror or exc}"])
    if len(data) > MAX_BYTES:
        _fail([f"{option} {shown} is over {MAX_BYTES // 2**20} MiB; drills reads at most that "
               "(evaluate fewer queries at a time)"])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        _fail([f"{shown}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); "
               "save the file as UTF-8"])
    return text[1:] if text.startswith("\ufeff") else text


def solve_files(qrels: str, run_file: str, query_ids: tuple[str, ...],
                measure_names: tuple[str, ...], threshold: int, as_json: bool,
                all_rows: bool) -> None:
    try:
        measures = parse_measures(measure_names or DEFAULT)
        judged = parse_qrels(read_text(qrels, "--qrels"), qrels)
        run = parse_run(read_text(run_file, "--run"), run_file)
        ev = evaluate(judged, run, measures, threshold, query_ids)
    except TrecError as exc:
        _fail(exc.lines)
    if as_json:
        click.echo(json_text(json_data(ev, whole=all_rows), indent=2))
        return
    if len(ev.queries) == 1:
        _worked(ev, qrels, run_file, all_rows)
    else:
        click.echo("\n".join(trec_lines(ev)))
    for note in ev.notes:
        click.echo(f"note: {note}", err=True)


def _worked(ev, qrels: str, run_file: str, all_rows: bool) -> None:  # noqa: ANN001
    width = min(wrap_width(), 100) if sys.stdout.isatty() else 80
    several = len(ev.measures) > 1
    rows = 10**6 if all_rows else 12 if several else max(8, screen_rows() - 14)
    view = View(max_rows=rows, exact_width=None if all_rows else max(40, width - 20),
                whole_docnos=all_rows, narrow=width < 100, width=None if all_rows else width - 1)
    click.echo(worked_query(ev, ev.queries[0], view, qrels, run_file))
    click.echo("\nAs trec_eval -q prints it:")
    click.echo("\n".join(trec_lines(ev)))
