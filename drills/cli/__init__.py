"""The ``drills`` command line: a lazy click group, one module or folder per command group.

Subcommands are imported only when invoked (``COMMANDS``), so ``drills`` starts fast. The
command groups (solve/, stats/, review/, history/, packs/, quiz/ and the one-module
commands) share only the modules below them: ``errors`` (one-line errors, exit codes),
``options`` (option checks), ``store_access`` (the history opened for a command), ``style``
(painting, tables, times, the pager), ``catalog`` (loading the packs) and ``completion``;
a command never imports another command's module (review -> quiz.due is the one
planned edge). May import every lower layer: tui, publish, quiz, store, packs, and below.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
from typing import Any

import click

from drills import __version__
from drills.gate import gated

# command name -> "module:attribute"; each module holds one command or group.
COMMANDS: dict[str, str] = {
    "solve": "drills.cli.solve.solve:solve",
    "stats": "drills.cli.stats.stats:stats",
    "history": "drills.cli.history.history:history",
    "review": "drills.cli.review.review:review",
    "packs": "drills.cli.packs.packs:packs",
    "practice": "drills.cli.quiz.practice:practice",
    "mock": "drills.cli.quiz.mock:mock",
    "generate": "drills.cli.generate:generate",
    "config": "drills.cli.config:config",
    "completion": "drills.cli.completion:completion",
    "docs": "drills.cli.docs:docs",
    "code": "drills.cli.quiz.code:code",
    "export": "drills.cli.export:export",
    "grade": "drills.cli.grade:grade",
}


# One line each for `drills --help`, so the list is never cut with "...".
SHORT_HELP: dict[str, str] = {
    "code": "The coding round: implement a metric, graded on hidden cases.",
    "completion": "Print a shell completion script (bash, zsh, fish).",
    "config": "Show the settings in force; config path, config init.",
    "docs": "Read the documentation in the terminal.",
    "export": "Export the question packs as an Anki deck.",
    "generate": "Print a worksheet with an answer key.",
    "grade": "Grade one answer to a question by id (concept, numeric, choice).",
    "history": "List, show, export and import your past sessions.",
    "mock": "A timed mock interview with a report card.",
    "packs": "List, check, create, install and update question packs.",
    "practice": "Practise questions with feedback (the default).",
    "review": "Spaced review of what you missed.",
    "solve": "Solve NDCG@k step by step; check an answer.",
    "stats": "Accuracy by topic, trend, usual slips; a class from exports.",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, SHORT_HELP.get(name, "")) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Bare ``drills`` is practice, with practice's options too: ``drills --seed 11`` is
        ``drills practice --seed 11`` (the group's own options stay before it)."""
        i = 0
        while i < len(args) and args[i] in ("--color", "-h", "--help", "--version") or (
                i < len(args) and args[i].startswith("--color=")):
            i += 2 if args[i] == "--color" else 1
        if i < len(args) and args[i].startswith("-") and args[i] != "--":
            args = [*args[:i], "practice", *args[i:]]
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in COMMANDS:
            import difflib

            close = difflib.get_close_matches(name, list(COMMANDS), n=1, cutoff=0.5)
            starts = [c for c in sorted(COMMANDS) if c.startswith(name)]
            guess = starts[0] if len(starts) == 1 else close[0] if close else None
            hint = f" Did you mean {guess!r}?" if guess else ""
            ctx.fail(f"No such command {name!r}.{hint} (commands: {', '.join(sorted(COMMANDS))})")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ValueError as exc:  # a question read from a resealed, forged pack cache
            from drills.packs.cached.records import CacheError  # lazy: rarely needed

            if not isinstance(exc, CacheError):
                raise
            from drills.cli.errors import Exit, fail  # lazy: as above

            fail(str(exc), Exit.FAILED)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        return getattr(importlib.import_module(module_name), attr)


@click.group(cls=LazyGroup, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="drills")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default=None,
              help="Colour: auto (in a terminal; NO_COLOR and FORCE_COLOR respected), always or never.")
@click.pass_context
def cli(ctx: click.Context, color: str | None) -> None:
    """Drill NDCG and ranking-metric interview questions in your terminal.

    Run `drills` alone to start a practice session (it takes practice's options:
    `drills --seed 11`), or `drills solve 2,1,3,0` for a worked NDCG solution.
    """
    ctx.with_resource(gated())  # every line printed from here on passes the sanitiser
    _settings(ctx, color)
    if ctx.invoked_subcommand is None:
        practice = cli.get_command(ctx, "practice")
        if practice is None:
            click.echo(ctx.get_help())
            return
        ctx.invoke(practice)


def _settings(ctx: click.Context, color: str | None) -> None:
    """config.toml's defaults for the commands (the command line wins) and the display."""
    from drills import config as cfg  # lazy: --help and --version need neither (tomllib)
    from drills import display  # lazy: as above

    try:
        settings = cfg.load()
    except cfg.ConfigError as exc:
        if ctx.invoked_subcommand != "config":  # `drills config path` still finds the file to fix
            from drills.cli.errors import fail  # lazy: only for a bad config file

            fail(str(exc))
        ctx.meta["drills.config_error"] = str(exc)
        settings = cfg.Settings()
    shown = settings.values.get("display", {})
    display.configure(color or shown.get("color"), shown.get("width"), shown.get("pager"))
    ctx.default_map = cfg.default_map(settings)
    ctx.meta["drills.settings"] = settings
    ctx.meta["drills.color"] = color


def main() -> None:
    try:
        try:
            with gated():
                cli.main(prog_name="drills")
        finally:
            sys.stdout.flush()  # here, not at exit, so a full disk is reported below
    except KeyboardInterrupt:  # pragma: no cover - a Ctrl-C outside the quiz loop
        click.echo("\ninterrupted", err=True)
        sys.exit(130)
    except OSError as exc:
        _output_failed(exc)


def _output_failed(exc: OSError) -> None:
    """Standard output failed (a full disk, a closed pipe): one line on stderr, exit 1."""
    try:  # nothing more can be written there; keep the interpreter's final flush quiet
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    if exc.errno != errno.EPIPE:  # a reader that stopped early needs no message
        try:
            click.echo(f"Error: cannot write the output: {exc.strerror or exc}", err=True)
        except OSError:
            pass
    sys.exit(1)
