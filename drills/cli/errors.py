"""How a command fails: ``fail`` prints one line ``Error: ...`` on stderr and exits with an
``Exit`` code (1: a check failed, 2: bad options or input); ``silence_stdout`` when standard
output is gone (a closed pipe). May import only click."""

from __future__ import annotations

import enum
import os
import sys
from typing import NoReturn

import click


class Exit(enum.IntEnum):
    OK = 0
    FAILED = 1  # a check failed: wrong answer, invalid pack
    USAGE = 2  # bad options or input


def fail(message: str, code: int = Exit.USAGE) -> NoReturn:
    """Print ``Error: message`` on stderr (one line) and exit with ``code``."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(int(code))


def silence_stdout() -> None:
    """Standard output is gone (a closed pipe): point it at /dev/null so nothing more fails there."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
