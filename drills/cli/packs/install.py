"""``drills packs install / update / remove``: packs from a path or a git URL.

Thin over drills.packs.install, which does the work without click.
"""

from __future__ import annotations

import sys

import click

from drills.cli.errors import Exit, fail
from drills.packs import install as core
from drills.packs.errors import shown
from drills.safetext import plural

ACCEPTED_HELP = """\b
Accepted sources:
  a pack file or a folder of packs   copied
  a local git repository (folder)    cloned
  https://HOST/PATH, ssh://[USER@]HOST/PATH, USER@HOST:PATH, file:///PATH   cloned
Only the .yaml/.yml files outside hidden folders are kept (not the rest of a clone).
Refused: http://, git://, remote helpers (ext::...), anything starting with -,
credentials in a URL (use a git credential helper or ssh), pack files or
folders that are symbolic links."""


def _short(commit: str | None) -> str:
    return commit[:12] if commit else "no commit"


def _where(kind: str, location: str) -> str:
    return f"{kind}:{shown(location)}"


def _print_invalid(exc: Exception) -> None:
    for error in getattr(exc, "errors", []):
        click.echo(str(error), err=True)  # file:line: field: message, controls shown


@click.command(context_settings={"ignore_unknown_options": True}, epilog=ACCEPTED_HELP)
@click.argument("source", metavar="PATH|GIT_URL")
@click.option("--name", default=None, metavar="NAME",
              help="Folder name under $DRILLS_HOME/packs (default: the pack's name for one file, "
                   "the folder's or repository's name otherwise).")
def install(source: str, name: str | None) -> None:
    """Validate packs, then install them into $DRILLS_HOME/packs/NAME.

    Every pack must pass `drills packs validate` (ids and names unique against the
    built-in and the installed packs); otherwise nothing is installed. Exit codes:
    0 installed, 1 invalid packs or git failed, 2 a refused source or a taken NAME.
    """
    if sys.stderr.isatty():  # fetching and validating against the bank takes a second or two
        click.echo(f"installing {shown(source)}: fetching and validating ...", err=True)
    try:
        result = core.install(source, name)
    except core.InvalidPack as exc:
        _print_invalid(exc)
        fail(f"{exc}", Exit.FAILED)
    except core.InstallError as exc:
        fail(str(exc), exc.code)
    commit = f" at {_short(result.commit)}" if result.source.kind == "git" else ""
    click.echo(f"installed {result.name}: {_count(result.packs, result.questions)} from "
               f"{_where(result.source.kind, result.source.location)}{commit}")
    click.echo(f"  into {shown(str(result.folder))}")


@click.command()
@click.argument("name", required=False)
def update(name: str | None) -> None:
    """Fetch installed packs again and revalidate them (NAME, or all).

    A new version with any problem is refused and the installed one kept. Exit codes:
    0 all updated or up to date, 1 some update failed, 2 NAME is not installed.
    """
    names = [name] if name is not None else core.installed()
    if not names:
        click.echo("no packs installed with `drills packs install`")
        return
    failed = False
    for each in names:
        try:
            result = core.update(each)
        except core.InstallError as exc:
            if name is not None and exc.code == Exit.USAGE:
                fail(f"{each}: {exc}", exc.code)
            _print_invalid(exc)
            kept = "; the installed version is kept" if isinstance(exc, core.InvalidPack) else ""
            click.echo(f"Error: {each}: {exc}{kept}", err=True)
            failed = True
            continue
        counts = _count(result.packs, result.questions)
        if not result.changed:
            at = f" ({_short(result.commit)})" if result.source.kind == "git" else ""
            click.echo(f"{each}: up to date{at}")
        elif result.source.kind == "git":
            click.echo(f"{each}: {_short(result.old_commit)} -> {_short(result.commit)} ({counts})")
        else:
            click.echo(f"{each}: updated from {shown(result.source.location)} ({counts})")
    sys.exit(int(Exit.FAILED if failed else Exit.OK))


@click.command()
@click.argument("name")
def remove(name: str) -> None:
    """Delete an installed pack folder, $DRILLS_HOME/packs/NAME.

    Only a folder `drills packs install` made (it holds .drills-source.json);
    others are left alone. Exit codes:
    0 removed, 1 it could not be deleted, 2 NAME is not an installed pack.
    """
    try:
        source = core.remove(name)
    except core.InstallError as exc:
        fail(str(exc), exc.code)
    click.echo(f"removed {name} (installed from {_where(source.kind, source.location)})")


def _count(packs: int, questions: int) -> str:
    return f"{plural(packs, 'pack')}, {plural(questions, 'question')}"
