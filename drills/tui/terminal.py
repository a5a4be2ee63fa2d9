"""Whether this is a terminal: stdin and stdout both ttys. Decides the front end (a pipe gets
plain lines), the first run's welcome and paging; kept apart so a command asks it cheaply."""

from __future__ import annotations

import sys
from typing import IO, Any


def is_terminal(stdin: IO[Any] | None = None, stdout: IO[Any] | None = None) -> bool:
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    try:
        return bool(stdin.isatty() and stdout.isatty())
    except (AttributeError, ValueError):
        return False
