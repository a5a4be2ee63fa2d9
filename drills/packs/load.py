"""Load pack files and folders; check ids across packs.

Nothing here raises for a bad pack: every problem is a PackError, so the CLI can
print them all and the quiz can skip a broken pack while the others still load.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from drills.model import Question
from drills.packs.errors import PackError
from drills.packs.meta import PackMeta
from drills.paths import builtin_packs_dir

PACK_SUFFIXES = (".yaml", ".yml")
# the hidden workspace of `drills packs install` in the packs folder (never loaded: hidden)
WORKSPACE_PREFIX = ".drills-tmp-"


@dataclass
class LoadedPack:
    """One pack file: its header (None if unreadable), the good questions, every problem."""

    path: str
    meta: PackMeta | None
    questions: tuple[Question, ...] = ()
    errors: list[PackError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def resolved(path: Path) -> Path | None:
    """``path`` with its symbolic links followed, or None when that fails (a link loop)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop: RuntimeError up to Python 3.12, OSError after
        return None


def _is_builtin(path: Path) -> bool:
    root = builtin_packs_dir()
    where, home = resolved(path), resolved(root) if root is not None else None
    return where is not None and home is not None and where.is_relative_to(home)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Loading allocates many small acyclic objects; cyclic GC passes would cost ~30%."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_pack(path: str | os.PathLike[str], *, builtin: bool | None = None) -> LoadedPack:
    """Read, check and build one pack file.

    ``builtin`` (default: whether the file lies in the built-in packs folder) makes
    topics strict: built-in packs must use the project's fixed topic list.
    """
    from drills.packs.schema import build_pack  # the YAML reader: not needed on a cache hit
    from drills.packs.yamlsafe import read_file  # deferred too: it imports yaml

    shown = os.fspath(path)
    strict = _is_builtin(Path(shown)) if builtin is None else builtin
    with _gc_paused():
        doc = read_file(shown)
        meta, questions = build_pack(doc, builtin=strict)
    errors = sorted(doc.errors, key=lambda e: e.line)
    return LoadedPack(shown, meta, tuple(questions), errors)


def pack_files(folder: str | os.PathLike[str]) -> list[Path]:
    """Every .yaml/.yml file under ``folder``, sorted, skipping hidden files and folders."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):  # does not follow symlinked folders: no loops
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(Path(root, f) for f in sorted(files)
                     if f.endswith(PACK_SUFFIXES) and not f.startswith("."))
    return found


def expand(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[PackError]]:
    """Files named directly or found in folders, each once, plus errors for empty/missing paths."""
    files: list[Path] = []
    errors: list[PackError] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = pack_files(path)
            if not found:
                errors.append(PackError(str(path), 0, "", "no .yaml or .yml pack files in this folder"))
        elif path.exists() or path.is_symlink():  # a link loop: read_file says so
            found = [path]
        else:
            errors.append(PackError(str(path), 0, "", "no such file or folder"))
            continue
        for f in found:
            key = resolved(f) or f.absolute()
            if key not in seen:
                seen.add(key)
                files.append(f)
    return files, errors


def load_paths(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[LoadedPack], list[PackError]]:
    """Load every pack under ``paths``; the errors are about the paths themselves."""
    files, errors = expand(paths)
    return [load_pack(f) for f in files], errors


def cross_pack_errors(packs: Sequence[LoadedPack]) -> list[PackError]:
    """Ids and pack names must be unique across packs: the later place is the error."""
    errors: list[PackError] = []
    ids: dict[str, Question] = {}
    names: dict[str, LoadedPack] = {}
    for pack in packs:
        if pack.meta is not None:
            first = names.setdefault(pack.meta.name, pack)
            if first is not pack:
                errors.append(PackError(pack.path, pack.meta.line, "pack.name",
                                        f"pack name {pack.meta.name!r} is also used by {first.path}"))
        for q in pack.questions:
            seen = ids.setdefault(q.id, q)
            if seen is not q and seen.source.path != q.source.path:
                errors.append(duplicate_id(q, seen))
    return errors


def duplicate_id(q: Question, first: Question) -> PackError:
    return PackError(q.source.path, q.source.line, "id",
                     f"duplicate id {q.id!r}: already used at {first.source} (ids must be unique across packs)")


def validate_paths(paths: Iterable[str | os.PathLike[str]], *,
                   with_builtin: bool = True) -> list[PackError]:
    """Every problem in the packs under ``paths`` (files or folders), across packs too."""
    return check_paths(paths, with_builtin=with_builtin)[1]


def check_paths(paths: Iterable[str | os.PathLike[str]], *, with_builtin: bool = True,
                builtin: Sequence[LoadedPack] | None = None) -> tuple[list[LoadedPack], list[PackError]]:
    """Load and check ``paths``: each pack's own errors, then clashes between packs.

    With ``with_builtin`` the built-in packs take part in the clash check (a pack that
    reuses a built-in id or pack name would be skipped in a quiz): ``builtin``, as the
    caller loaded them (``drills.packs.discovery.builtin_packs``: from the pack cache when
    unchanged), else read from their YAML here. A built-in pack that is itself being
    checked (the same file, or a copy of it: same file and pack name, as when the source
    tree's questions/ is checked against an installed copy) stands aside.
    """
    packs, errors = load_paths(paths)
    for pack in packs:
        errors.extend(pack.errors)
    others: list[LoadedPack] = []
    root = builtin_packs_dir() if with_builtin else None
    if root is not None:
        mine = {_identity(p) for p in packs}
        found = load_paths([root])[0] if builtin is None else builtin
        others = [p for p in found if _identity(p) not in mine]
    errors.extend(cross_pack_errors([*others, *packs]))
    return packs, errors


def _identity(pack: LoadedPack) -> tuple[str, str]:
    return Path(pack.path).name, pack.meta.name if pack.meta is not None else ""
