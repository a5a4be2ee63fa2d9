"""Refuse to write a user's output file over the history database.

``drills history export -o FILE`` and ``--transcript FILE`` truncate FILE. Pointed at
``drills.db`` (or its ``-wal``/``-shm``), directly, through a symlink, a hard link or an
open descriptor such as ``/dev/stdout``, that would destroy the history. Callers ask
``history_target(FILE)`` first and refuse with one line when it names a history file.
Pure apart from ``stat`` calls: nothing is created or opened.
"""

from __future__ import annotations

import os
from pathlib import Path

from drills import paths

DB_NAME = "drills.db"
HISTORY_FILES: tuple[str, ...] = (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm")


def history_files(home: Path | None = None) -> list[Path]:
    """``drills.db`` and its ``-wal`` and ``-shm`` under ``home`` (default: DRILLS_HOME)."""
    if home is None:
        home = paths.home()
    return [Path(home) / name for name in HISTORY_FILES]


def _real(path: str | os.PathLike[str]) -> str:
    """The absolute path with every symlink that exists resolved (a missing tail is kept)."""
    try:
        return os.path.normcase(os.path.realpath(os.fspath(path)))
    except (OSError, ValueError):  # a symlink loop on Python < 3.13 strict, a NUL byte
        return os.path.normcase(os.path.abspath(os.fspath(path)))


def _same(a: str | os.PathLike[str], b: Path) -> bool:
    """Both exist and are one file (same device and inode: hard links, /dev/fd/N too)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def history_target(path: str | os.PathLike[str], home: Path | None = None) -> Path | None:
    """The history file that writing to ``path`` would overwrite, else None.

    Compares ``path`` with ``drills.db``, ``drills.db-wal`` and ``drills.db-shm`` under
    ``home`` after resolving symlinks (so a name that does not exist yet, such as a -wal
    that SQLite has not created, still counts), and by device and inode where both exist
    (hard links, ``/dev/stdout`` redirected to the database).
    """
    try:
        if not os.fspath(path):
            return None
    except TypeError:
        return None
    target = _real(path)
    for candidate in history_files(home):
        if target == _real(candidate) or _same(path, candidate):
            return candidate
    return None
