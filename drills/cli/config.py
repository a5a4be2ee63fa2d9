"""``drills config``: the settings in force and where each comes from; ``path``; ``init``."""

from __future__ import annotations

from typing import Any

import click

from drills import config as cfg
from drills import display
from drills.cli.errors import Exit, fail

# What each setting is when nothing sets it (as the commands document it).
DEFAULTS: dict[str, dict[str, str]] = {
    "practice": {"count": "10", "tolerance": "each question's own, else max(0.005, 0.5%)",
                 "feedback": "brief on a terminal, full when piped", "topics": "all",
                 "difficulty": "any"},
    "mock": {"minutes": "no limit", "count": "8",
             "per_question": "minutes * 60 / count, else 90", "feedback": "end"},
    "display": {"color": "auto", "width": "the terminal's, at most 100",
                "pager": "$PAGER, else less -R -X -F"},
    "review": {"daily_limit": "no limit"},
    "profile": {"learner": "the login name"},
    "code": {"python": "drills' own (with numpy)"},
}


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "(none)"
    return str(value)


@click.group(invoke_without_command=True)
@click.pass_context
def config(ctx: click.Context) -> None:
    """Show the settings in force, and where each comes from.

    \b
    The file is $DRILLS_HOME/config.toml (see `drills config path`); `drills config init`
    writes a commented starter. A command-line option always wins over the file.
    Tables: [practice] count tolerance feedback topics difficulty; [mock] minutes count
    per_question feedback; [display] color width pager; [review] daily_limit;
    [profile] learner (your name in history exports).
    """
    if ctx.invoked_subcommand is not None:
        return
    error = ctx.meta.get("drills.config_error")
    if error:
        fail(error)
    settings = ctx.meta.get("drills.settings") or cfg.load()
    where = str(settings.path) if settings.path else None
    click.echo(f"config file: {where or f'{cfg.path()} (not there: defaults in force)'}")
    for table, keys in cfg.SCHEMA.items():
        click.echo(f"\n[{table}]")
        for key in keys:
            value = settings.get(table, key)
            if table == "display" and key == "color" and ctx.meta.get("drills.color"):
                line, source = ctx.meta["drills.color"], "--color"
            elif table == "display" and key == "color" and value is None:
                line, source = display.color_source(), "default"
            elif value is not None:
                line, source = _shown(value), "config file"
            elif table == "profile" and key == "learner":
                line, source = f"{cfg.learner(settings)} (the login name)", "default"
            else:
                line, source = DEFAULTS[table][key], "default"
            click.echo(f"  {key:<13} {line}   ({source})")


@config.command("path")
def config_path() -> None:
    """Print the config file's path (whether or not it exists)."""
    click.echo(str(cfg.path()))


@config.command("init")
def config_init() -> None:
    """Write a commented starter config.toml (never over an existing file)."""
    import os

    where = cfg.path()
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        fail(f"{where} exists already; edit it, or move it away first", Exit.FAILED)
    except OSError as exc:
        fail(f"cannot write {where}: {exc.strerror or exc}", Exit.FAILED)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(cfg.STARTER)
    click.echo(f"wrote {where}")
