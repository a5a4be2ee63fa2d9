"""``drills packs``: list, validate and start question packs (thin over drills.packs)."""

from __future__ import annotations

import errno
import importlib
import importlib.util
import os
from pathlib import Path

import click

from drills.authoring.template import starter_name_problem, starter_pack
from drills.cli.errors import Exit, fail
from drills.display import terminal_size
from drills.packs import check_paths, discover
from drills.packs.discovery import PackInfo, builtin_packs
from drills.packs.errors import shown
from drills.paths import packs_dir
from drills.safetext import json_text

# subcommand -> "module:attribute"; ``lint`` and install/update/remove live in their own
# modules (imported on use).
PACK_COMMANDS: dict[str, str] = {
    "list": "drills.cli.packs.packs:list_packs",
    "validate": "drills.cli.packs.packs:validate",
    "new": "drills.cli.packs.packs:new",
    "lint": "drills.cli.packs.lint:lint",
    "install": "drills.cli.packs.install:install",
    "update": "drills.cli.packs.install:update",
    "remove": "drills.cli.packs.install:remove",
}


class LazyPacksGroup(click.Group):
    """Subcommands imported on first use; a module not (yet) present is simply not listed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name, target in PACK_COMMANDS.items() if _exists(target))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = PACK_COMMANDS.get(cmd_name)
        if target is None or not _exists(target):
            return None
        module_name, attr = target.split(":")
        return getattr(importlib.import_module(module_name), attr)


def _exists(target: str) -> bool:
    try:
        return importlib.util.find_spec(target.split(":")[0]) is not None
    except (ImportError, ValueError):
        return False


@click.group(cls=LazyPacksGroup)
def packs() -> None:
    """List, check, create and install question packs (YAML files; see docs/packs.md).

    \b
    Packs load from: the built-in packs, $DRILLS_HOME/packs (where `packs install`
    puts packs from a path or a git URL), each --pack PATH, then packs installed
    by other Python packages ("drills.packs" entry points).
    """


def _middle(text: str, width: int = 36) -> str:
    """A long source (an installed pack's URL or folder) cut in the middle: its ends say most."""
    return text if len(text) <= width else text[:14] + "…" + text[-(width - 15):]


@click.command("list")
@click.option("--pack", "extra", multiple=True, metavar="PATH",
              help="Also load this pack file or folder (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: {packs: [...], errors: [...]}.")
def list_packs(extra: tuple[str, ...], as_json: bool) -> None:
    """Show every pack drills would load: name, version, source, questions, topics.

    SOURCE: builtin, user, path (--pack), entry-point, or for a pack that
    `drills packs install` put in $DRILLS_HOME/packs, git:URL or path:FOLDER.
    A broken pack is skipped and named on stderr in one line; run
    `drills packs validate PATH` to see all of its problems.
    """
    check_exist(extra)

    catalog = discover(extra)
    origins = _origins(catalog.packs)
    if as_json:  # json_text: C0, C1 and bidi controls escaped, never sent
        click.echo(json_text({
            "packs": [{"name": p.name, "version": p.version, "source": p.source, "path": p.path,
                       "questions": p.questions, "topics": list(p.topics), "description": p.description,
                       "installed_from": origins.get(p.path)}
                      for p in catalog.packs],
            "errors": [str(e) for e in catalog.errors],
        }, indent=2))
    elif catalog.packs:
        import sys

        tty = sys.stdout.isatty()  # a terminal gets a table of its width; a pipe every character
        cut = _middle if tty else str
        rows = [("NAME", "VERSION", "SOURCE", "QUESTIONS", "TOPICS")]
        rows += [tuple(shown(c) for c in (p.name, p.version, cut(_source(p.source, origins.get(p.path))),
                                          str(p.questions), ", ".join(p.topics)))
                 for p in catalog.packs]
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        room = terminal_size().columns - sum(widths) - 9 if tty else 0
        for r in rows:  # on a terminal the topics are cut to its width (--json has them all)
            topics = r[4] if room < 4 or len(r[4]) <= room else r[4][: room - 1] + "…"
            click.echo("  ".join([*(c.ljust(w) for c, w in zip(r[:4], widths, strict=True)), topics]).rstrip())
    else:
        click.echo(f"no packs found (put .yaml packs in {shown(str(packs_dir()))} or pass --pack PATH)",
                   err=True)
    for notice in catalog.notices:  # stderr: --json's stdout stays one document
        click.echo(f"note: {notice}", err=True)
    if not as_json:
        for error in catalog.errors:
            click.echo(str(error), err=True)  # PackError's str shows control characters


def _origins(packs: list[PackInfo]) -> dict[str, dict[str, str | None]]:
    """pack path -> where `drills packs install` got it from, for the user packs it installed."""
    root, manifests, found = packs_dir(), {}, {}
    for p in packs:
        try:
            parts = Path(p.path).relative_to(root).parts if p.source == "user" else ()
        except ValueError:
            continue
        if len(parts) > 1:
            if parts[0] not in manifests:
                from drills.packs.install import read_manifest  # lazy: slow; installed packs only

                manifests[parts[0]] = read_manifest(root / parts[0])
            if (m := manifests[parts[0]]) is not None:
                commit = m.get("commit")
                found[p.path] = {"kind": m["kind"], "source": m["source"],
                                 "commit": commit if isinstance(commit, str) else None}
    return found


def _source(source: str, origin: dict[str, str | None] | None) -> str:
    return f"{origin['kind']}:{origin['source']}" if origin else source


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
def validate(paths: tuple[str, ...]) -> None:
    """Check pack files (or folders of them) and print every problem as file:line: field: message.

    Ids and pack names must also be unique against the built-in packs (a clash would be
    skipped in a quiz). Exit codes: 0 every pack is valid, 1 problems were found, 2 a PATH does not exist.
    """
    check_exist(paths)
    loaded, errors = check_paths(paths, builtin=builtin_packs())
    for error in errors:
        click.echo(str(error))  # file names, fields and quoted pack text with controls shown
    if errors:
        files = len({e.path for e in errors})
        click.echo(f"{_plural(len(errors), 'error')} in {_plural(files, 'file')}")
        raise SystemExit(int(Exit.FAILED))
    questions = sum(len(p.questions) for p in loaded)
    click.echo(f"ok: {_plural(len(loaded), 'pack')}, {_plural(questions, 'question')}")


def check_exist(paths: tuple[str, ...]) -> None:
    """``Error: pack not found: PATH`` and exit 2 for the first PATH that does not exist."""
    for path in paths:
        if not os.path.exists(path):  # os.path: False, never OSError, for odd or long names
            fail(f"pack not found: {shown(path)}{_why_missing(path)}")


def _why_missing(path: str) -> str:
    """Why a PATH that is a symbolic link does not exist, else ''."""
    if not os.path.islink(path):
        return ""
    try:
        os.stat(path)
    except OSError as exc:
        return " (a symbolic link loop)" if exc.errno == errno.ELOOP else " (a broken symbolic link)"
    return ""


@click.command()
@click.argument("name")
@click.option("--output", "-o", type=click.Path(path_type=str), default=None,
              help="File to write, or a folder to write NAME.yaml into (default: ./NAME.yaml).")
def new(name: str, output: str | None) -> None:
    """Write a commented starter pack NAME.yaml with one question of each kind.

    NAME: a-z, 0-9 and -, starting with a letter or digit, at most 50 characters.
    Never overwrites a file and never creates folders. Check your edits with
    `drills packs validate NAME.yaml`.
    """
    for suffix in (".yaml", ".yml"):
        name = name.removesuffix(suffix)
    problem = starter_name_problem(name)
    if problem is not None:
        fail(problem)
    if output == "":
        fail("cannot write '': --output needs a file or folder name", Exit.FAILED)
    target = Path(output) if output is not None else Path(f"{name}.yaml")
    created = False
    try:
        if target.is_dir() or (output or "").endswith(("/", os.sep)):  # "dir/" names a folder
            target = target / f"{name}.yaml"
        folder = target.parent
        if not folder.is_dir():
            where = shown(str(folder))
            reason = f"{where} is not a folder" if os.path.lexists(folder) else f"no folder {where}"
            fail(f"cannot write {shown(str(target))}: {reason} (folders are not created)", Exit.FAILED)
        text = starter_pack(name, filename=str(target), packs_dir=str(packs_dir()))
        with target.open("x", encoding="utf-8") as fh:  # "x": never overwrite, even in a race
            created = True
            fh.write(text)
    except FileExistsError:
        fail(f"{shown(str(target))} already exists; not overwriting it (choose another NAME or --output)", Exit.FAILED)
    except OSError as exc:
        if created:  # a half-written starter would block the next try ("already exists")
            target.unlink(missing_ok=True)
        fail(f"cannot write {shown(str(target))}: {exc.strerror or exc}", Exit.FAILED)
    click.echo(f"wrote {shown(str(target))}: a starter pack with one question of each kind")
    click.echo(f"edit it, then check it with: drills packs validate {shown(str(target))}")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
