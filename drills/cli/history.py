"""``drills history``: your recorded answers, for export to a spreadsheet or a script."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click

from drills.cli.common import Exit, fail, history_store


@click.group()
def history() -> None:
    """Your answer history (stored under DRILLS_HOME)."""


@history.command("export")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv",
              show_default=True, help="Output format.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True, path_type=Path),
              default=None, help="Write to FILE instead of standard output.")
def export_cmd(fmt: str, output: Path | None) -> None:
    """Export every answer with stable columns (see docs/history.md).

    \b
    Columns: attempt_id, session_id, answered_at, question_id, topic, kind,
    generator, verdict, given, expected, expected_value, misconceptions, seconds,
    self_grade, params. In CSV, misconceptions are ';'-joined and params is a
    JSON string; in JSON they are a list and an object.
    """
    from drills.store.export import export

    with history_store() as store:
        if output is None:
            export(store, fmt, sys.stdout)
            return
        # Write beside the target and rename, so a failed export leaves no half file.
        try:
            fd, tmp = tempfile.mkstemp(dir=output.parent or Path("."), prefix=f".{output.name}.")
        except OSError as exc:
            fail(f"cannot write {output}: {exc.strerror or exc}", Exit.FAILED)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
                n = export(store, fmt, out)
            os.replace(tmp, output)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        click.echo(f"Exported {n} answer{'' if n == 1 else 's'} to {output}", err=True)
