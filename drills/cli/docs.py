"""``drills docs [TOPIC]``: the documentation, shipped inside the wheel, in the terminal."""

from __future__ import annotations

from pathlib import Path

import click

from drills.cli.errors import fail
from drills.tui.terminal import is_terminal


def docs_dir() -> Path | None:
    """``drills/docs`` in a wheel (force-included), else ``docs/`` beside the package."""
    package = Path(__file__).resolve().parents[1]
    for where in (package / "docs", package.parent / "docs"):
        if where.is_dir() and any(where.glob("*.md")):
            return where
    return None


def topics() -> list[str]:
    where = docs_dir()
    return sorted(p.stem for p in where.glob("*.md")) if where else []


def _complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    return [t for t in topics() if t.startswith(incomplete)]


@click.command()
@click.argument("topic", required=False, shell_complete=_complete)
def docs(topic: str | None) -> None:
    """Print a documentation page (paged on a terminal); without TOPIC, list them.

    \b
    Examples:
      drills docs            # the pages
      drills docs answers    # answer forms, tolerance, verdicts
      drills docs diagnosis  # the wrong formulas drills recognises
    """
    where = docs_dir()
    known = topics()
    if where is None or not known:
        fail("no documentation is installed with this copy of drills "
             "(see the docs/ folder of the source distribution)", 1)
    if topic is None:
        for name in known:
            first = (where / f"{name}.md").read_text(encoding="utf-8").splitlines()[0]
            click.echo(f"{name:<12} {first.lstrip('# ').strip()}")
        return
    if topic not in known:
        import difflib

        close = difflib.get_close_matches(topic, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        fail(f"no page {topic!r}{hint} (pages: {', '.join(known)})")
    text = (where / f"{topic}.md").read_text(encoding="utf-8")
    if is_terminal():
        from drills.tui import pager  # lazy: subprocess, needed only on a terminal

        if pager.make_pager(pager.terminal_rows)(text):
            return
    click.echo(text, nl=False)
