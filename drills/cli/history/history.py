"""``drills history``: your recorded answers, for export to a spreadsheet or a script."""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from typing import Any, NoReturn

import click

from drills.cli.errors import Exit, fail
from drills.cli.store_access import history_store
from drills.cli.style import wrap_width
from drills.display import Style, display_width, use_color
from drills.safetext import json_text, plural, shorten, visible
from drills.store import Store, history_export
from drills.store.guard import history_target

# Names of an already open descriptor (`-o /dev/stdout > file`): written to in place, even
# when they lead to a regular file, since replacing that file would bypass the descriptor.
_DESCRIPTOR = re.compile(r"/dev/(stdin|stdout|stderr|fd/\d+)|/proc/(self|thread-self|\d+)/fd/\d+")


@click.group()
def history() -> None:
    """Your sessions and answers (stored under DRILLS_HOME): list, show, export, import."""


@history.command("export")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv",
              show_default=True, help="Output format.")
@click.option("--output", "-o", type=click.Path(readable=False, path_type=str), metavar="FILE", default=None,
              help="Write to FILE instead of standard output.")
def export_cmd(fmt: str, output: str | None) -> None:
    """Export every answer (CSV or JSON) with stable columns.

    \b
    Columns: attempt_id, session_id, answered_at, question_id, topic, kind,
    generator, verdict, given, expected, expected_value, misconceptions, seconds,
    self_grade, params, difficulty, scenario, step (a scenario's id and the step's
    number, for its steps), uid, session_uid (stable ids across machines), overridden
    (you overruled the grader's verdict). In CSV, misconceptions are ';'-joined, params
    is a JSON string and overridden true or false; in JSON they are a list, an object
    and a boolean. The JSON export is one object: {"drills_export": 1, "learner",
    "exported_at", "attempts": [...], "sessions": [...], "review_cards": [...]}, what
    `drills history import` and `drills stats --from` read. See docs/history.md.
    """
    if output is not None:
        check_output(output)
    learner = _learner() if fmt == "json" else None
    with history_store(readonly=True) as store:
        if output is None:
            history_export.export(store, fmt, sys.stdout, learner)
            return
        n = write_export(store, fmt, output, learner)
        click.echo(f"Exported {n} answer{'' if n == 1 else 's'} to {output}", err=True)


@history.command("import")
@click.argument("files", metavar="FILE...", nargs=-1, required=True,
                type=click.Path(dir_okay=True, path_type=str))
def import_cmd(files: tuple[str, ...]) -> None:
    """Merge another machine's JSON export into your history.

    \b
    Answers already here (the same uid) are skipped; sessions are matched by their
    uid (created when missing); review cards by item: the later review wins.
    Importing a file twice adds nothing. Each file is merged in one transaction:
    whole or not at all. A file that is not a drills export is refused before
    anything is written (exit 2); a damaged row (a wrong type, NaN, a number out of
    range, a date in the future, oversize options) is skipped and counted, and the
    exit code is then 1. See docs/history.md.
    """
    import gc  # the collector is paused while files are read and merged: see below

    enabled = gc.isenabled()
    gc.disable()  # 100,000 answers are millions of live objects the collector would walk again and again
    try:
        _import(files)
    finally:
        if enabled:
            gc.enable()


def _import(files: tuple[str, ...]) -> None:
    from drills.store.history_import import ExportError, read_export  # lazy: only for import
    from drills.store.merge import merge  # lazy: only for import

    try:
        exports = [read_export(name) for name in files]
    except ExportError as exc:
        fail(str(exc))
    incomplete = False
    with history_store() as store:
        for data in exports:
            try:
                done = merge(store, data)
            except (ValueError, OverflowError, TypeError) as exc:
                # the file's transaction was rolled back: nothing of it is merged
                click.echo(f"Refused {visible(data.path)}: nothing of it merged ({shorten(str(exc), 120)})")
                incomplete = True
                continue
            click.echo(import_line(data.path, done))
            incomplete = incomplete or bool(done.damaged)
    if incomplete:
        raise SystemExit(1)


def import_line(name: str, done: Any) -> str:
    """'Imported from FILE: 37 attempts (12 already present), 3 sessions, 8 review cards
    updated; 1 damaged row skipped'."""
    line = (f"Imported from {visible(name)}: {plural(done.attempts, 'attempt')} "
            f"({done.present:,} already present), {plural(done.sessions, 'session')}")
    if done.sessions_updated:
        line += f" ({done.sessions_updated:,} updated)"
    line += f", {plural(done.cards, 'review card')} updated"
    if done.damaged:
        line += f"; {plural(done.damaged, 'damaged row')} skipped"
    return line


def _learner() -> str:
    """``[profile] learner`` from the config file in force, else the login name."""
    from drills import config as cfg  # lazy: only an export names its learner

    ctx = click.get_current_context(silent=True)
    settings = ctx.find_root().meta.get("drills.settings") if ctx is not None else None
    return cfg.learner(settings if settings is not None else cfg.Settings())


@history.command("list")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True,
              help="How many sessions to show, the most recent first.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")
def list_cmd(limit: int, as_json: bool) -> None:
    """List your sessions, newest first.

    One line each: id, when it started (local time), mode, score (correct answers out of
    answers given) and seed. `drills history show ID` shows one of them again in full.
    """
    from drills.cli.history.show import list_lines  # lazy: not for export or import
    from drills.store.sessions import list_sessions  # lazy: not for export or import

    with history_store(readonly=True) as store:
        sessions, total = list_sessions(store, limit)
    if as_json:
        click.echo(json_text(sessions, indent=2, ensure_ascii=False))
        return
    if not sessions:
        click.echo("No sessions recorded yet. Run `drills` to start a practice session.")
        return
    style = _style()
    click.echo("\n".join(list_lines(sessions, total, style)), color=style.color)


@history.command("show")
@click.argument("session_id", metavar="ID", type=int)
def show_cmd(session_id: int) -> None:
    """Show one session's report card again.

    Score, score by topic, time per question, wrong formulas, what to review next, and
    every answer with its verdict; paged on a terminal when taller than it (with no pager,
    the title and score are said again last).
    """
    from drills.cli.history.show import headline, report_text  # lazy: not for export or import
    from drills.store.sessions import session_report  # lazy: not for export or import

    report = None
    if 1 <= session_id <= 2**63 - 1:  # SQLite's INTEGER: a larger id is no session either
        with history_store(readonly=True) as store:
            report = session_report(store, session_id)
    if report is None:
        fail(f"no session {session_id} in the history; `drills history list` shows the sessions")
    style = Style(use_color(sys.stdout), wrap_width())  # the terminal's width; a pipe's unwrapped
    text = report_text(report, style)
    if _on_terminal():
        from drills.tui import pager  # lazy: subprocess, needed only on a terminal

        if pager.make_pager(pager.terminal_rows)(text):
            return
    click.echo(text, color=style.color)
    if _on_terminal() and text.count("\n") + 1 >= pager.terminal_rows() - 1:  # no pager: scrolled
        click.echo("")
        click.echo("\n".join(headline(report, style)), color=style.color)


def _style() -> Any:
    """How to draw history text: colour as ``drills.display`` decides, the usual width."""
    return Style(use_color(sys.stdout), display_width())


def _on_terminal() -> bool:
    try:
        return bool(sys.stdout.isatty())
    except (AttributeError, ValueError):
        return False


def check_output(output: str) -> None:
    """Usage errors (exit 2) before the history is even opened: a folder, or the history itself."""
    if not output:
        return  # write_export says what is wrong with an empty name
    target = history_target(output)
    if target is not None:
        fail(f"refusing to write over the history database {target}; choose another file")
    if output.endswith(("/", os.sep)) or (os.altsep is not None and output.endswith(os.altsep)):
        fail(f"--output {output} ends with a slash, so it names a folder; give a file name")
    if os.path.isdir(output):
        fail(f"--output {output} is a folder; give a file name")


def write_export(store: Store, fmt: str, output: str, learner: str | None = None) -> int:
    """Export to the file ``output``; any failure is one line and exit 1.

    A regular file (or a new one) is written beside its real target, through symlinks,
    and renamed over it, so a failed export leaves no half file; it keeps the mode of the
    file it replaces, and a new file gets the usual 0o666 less the umask. Anything else
    (a device, a FIFO, /dev/stdout) is written to directly.
    """
    if not output:
        fail("cannot write '': --output needs a file name", Exit.FAILED)
    try:
        st: os.stat_result | None = os.stat(output)  # follows symlinks
    except FileNotFoundError:
        st = None  # a new file (or a dangling symlink: its target is created)
    except (OSError, ValueError) as exc:
        _cannot_write(output, exc)
    if st is not None and stat.S_ISDIR(st.st_mode):
        _cannot_write(output, OSError(errno.EISDIR, os.strerror(errno.EISDIR)))
    if st is not None and (not stat.S_ISREG(st.st_mode) or _DESCRIPTOR.fullmatch(os.path.abspath(output))):
        return _export_in_place(store, fmt, output, learner)
    if st is not None and not os.access(output, os.W_OK):  # a rename would get past a read-only file
        _cannot_write(output, PermissionError(errno.EACCES, os.strerror(errno.EACCES)))
    return _export_replacing(store, fmt, output, st, learner)


def _export_in_place(store: Store, fmt: str, output: str, learner: str | None) -> int:
    try:
        with open(output, "w", encoding="utf-8", newline="") as out:
            return history_export.export(store, fmt, out, learner)
    except OSError as exc:  # ENOSPC on /dev/full comes from the final flush
        _cannot_write(output, exc)


def _export_replacing(store: Store, fmt: str, output: str, old: os.stat_result | None,
                      learner: str | None) -> int:
    real = os.path.realpath(output)
    try:
        fd, tmp = _create_beside(real, 0o600 if old is not None else 0o666)
    except OSError as exc:
        _cannot_write(output, exc)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            if old is not None:  # the data goes in under the owner and mode it will keep
                _keep_owner_and_mode(fd, old)
            n = history_export.export(store, fmt, out, learner)
        os.replace(tmp, real)
    except OSError as exc:
        _unlink(tmp)
        _cannot_write(output, exc)
    except BaseException:
        _unlink(tmp)
        raise
    return n


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        try:  # only root (or a member of the group) may; otherwise the file becomes ours
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:
            pass
    os.fchmod(fd, stat.S_IMODE(old.st_mode))  # after fchown, which may clear set-id bits


def _create_beside(path: str, mode: int) -> tuple[int, str]:
    """A new hidden file next to ``path``, created with ``mode`` (less the umask)."""
    import secrets  # lazy: only an export to a file (hmac, random: not for an import)

    folder, name = os.path.split(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".{name[:200]}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name")


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _cannot_write(output: str, exc: Exception) -> NoReturn:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    fail(f"cannot write {output}: {reason}", Exit.FAILED)
