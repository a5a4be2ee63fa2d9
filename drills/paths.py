"""Where drills keeps user files, and where the built-in packs live.

One environment variable, DRILLS_HOME, moves every user file (tests point it at
a temporary directory). Nothing here creates directories: callers that write
create what they need, so merely importing or listing never touches the disk
(``write_cache`` makes its file's folder when it is asked to write one).
"""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "DRILLS_HOME"


def home() -> Path:
    """The user's drills directory: $DRILLS_HOME, else the platform's user data dir."""
    value = os.environ.get(HOME_ENV, "").strip()
    if value:
        return Path(value).expanduser()
    import platformdirs  # imported lazily: only needed when DRILLS_HOME is unset

    return Path(platformdirs.user_data_dir("drills", appauthor=False))


def packs_dir() -> Path:
    """The user's own question packs (searched after the built-in ones)."""
    return home() / "packs"


def builtin_packs_dir() -> Path | None:
    """The packs shipped with drills, or None when there are none.

    In a wheel, hatch force-includes the repository's top-level ``questions/`` as
    ``drills/questions``. In a source checkout (or editable install) it is the
    ``questions/`` folder beside the package; the pyproject.toml check keeps an
    unrelated ``site-packages/questions`` from being picked up.
    """
    package = Path(__file__).resolve().parent
    inside = package / "questions"
    if inside.is_dir():
        return inside
    root = package.parent
    beside = root / "questions"
    if beside.is_dir() and (root / "pyproject.toml").is_file():
        return beside
    return None


def write_cache(path: Path, data: bytes) -> bool:
    """Replace ``path`` with ``data`` whole (written beside it, then renamed), making its
    folder if need be. For caches and memos, which are only ever a saving: any failure (a
    full disk, a folder that is a file) leaves nothing behind and is only told by the
    result, False."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # e.g. the folder is a file: there is no tmp to remove
            pass
        return False
