"""Shell completion: ``drills completion bash|zsh|fish`` and the values options complete to.

Completing ``--topic`` or ``--pack`` loads the packs (skipping broken ones silently), the
same way the command will; nothing is printed, and any failure completes to nothing.
"""

from __future__ import annotations

from typing import Any

import click

from drills.cli import cli
from drills.model import DIFFICULTIES

SHELLS = ("bash", "zsh", "fish")


def _catalog() -> Any:
    from drills.packs import discover  # lazy: the packs load only when completing

    return discover([])


def complete_topics(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    try:
        topics = sorted({q.topic for q in _catalog().questions})
    except Exception:  # noqa: BLE001 - completion must never print a traceback into a shell
        return []
    return [t for t in topics if t.startswith(incomplete)]


def complete_packs(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    from click.shell_completion import CompletionItem

    try:
        names = sorted(i.name for i in _catalog().packs)
    except Exception:  # noqa: BLE001
        names = []
    items: list[Any] = [CompletionItem(n) for n in names if n.startswith(incomplete)]
    if not items or "/" in incomplete or incomplete.startswith("."):
        items.append(CompletionItem(incomplete, type="file"))  # a pack file or folder
    return items


def complete_generators(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    from drills.generators import REGISTRY  # lazy: slow, needed only when completing

    return sorted(name for name in REGISTRY if name.startswith(incomplete))


def complete_difficulty(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    return [d for d in DIFFICULTIES if d.startswith(incomplete)]


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> None:
    """Print the shell completion script for SHELL (bash, zsh or fish).

    \b
    Install it once, e.g.:
      bash: drills completion bash > ~/.local/share/bash-completion/completions/drills
      zsh:  drills completion zsh > "${fpath[1]}/_drills"
      fish: drills completion fish > ~/.config/fish/completions/drills.fish
    Commands, options, topics, pack names, generators and difficulties complete.
    """
    from click.shell_completion import get_completion_class

    cls = get_completion_class(shell)
    assert cls is not None
    click.echo(cls(cli, {}, "drills", "_DRILLS_COMPLETE").source())
