"""The quiz's in-session commands (``:hint``, ``:steps`` ...): a registry the Session's methods
fill by decorator, and the parsing of a typed ``:word``. No I/O."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Handler = Callable[[Any], "list[Any]"]  # a Session method returning events
# In-quiz commands (":hint" ...), registered by decorator on Session's methods: name -> (help, handler).
COMMANDS: dict[str, tuple[str, Handler]] = {}
ALIASES = {"q": "quit", "h": "hint", "s": "steps"}  # :q, :h, :s


def command_name(text: str) -> str | None:
    """The command a ``:word`` names (aliases resolved), or None for an unknown one."""
    words = text.strip()[1:].split()
    name = words[0].lower() if words else ""
    name = ALIASES.get(name, name)
    return name if name in COMMANDS else None


def command(name: str, help: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        COMMANDS[name] = (help, fn)
        return fn
    return deco


def help_text() -> str:
    """``:help``: each command, its alias and what it does."""
    short = {name: alias for alias, name in ALIASES.items()}
    names = {n: f":{n}" + (f" (:{short[n]})" if n in short else "") for n in COMMANDS}
    width = max(map(len, names.values())) + 1
    return "\n".join(f"{names[n].ljust(width)} {h}" for n, (h, _) in COMMANDS.items())
