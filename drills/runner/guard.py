"""What a check may write, watched from the parent.

- ``usage``: the bytes in the check's temporary directory (every file's size plus 4 KiB for
  each file or directory), measured while the child runs and at the end, against the
  check's write budget (``Limits.disk_bytes``; RLIMIT_FSIZE alone is per file).
- ``Package``: drills' own files, noted before the child starts and compared after it: a
  file the learner's code changed, added or removed is reported ("tampered") and put back
  (its bytes were read before the child started), so the next check runs the drills that
  was installed. A development tree (a ``.git`` next to the package) is not watched: the
  developer's own edits (and other processes' caches) land there while a check runs, and
  git holds what it should be.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
ENTRY = 4096  # bytes counted for each file or directory besides its size (a block)


def usage(root: str, budget: int) -> int:
    """Bytes under ``root`` (symlinks not followed); stops counting past ``budget``."""
    total, stack = 0, [root]
    while stack and total <= budget:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            total += ENTRY
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                pass
    return total


def _cache(name: str) -> bool:
    return "__pycache__" in Path(name).parts


class Package:
    """drills' files as they were before a check."""

    def __init__(self, root: Path = PACKAGE) -> None:
        self.root = root
        self.watched = not (root.parent / ".git").exists()
        self.files: dict[str, tuple[int, int, int]] = {}
        self.data: dict[str, bytes] = {}
        for rel, stat in self._walk() if self.watched else ():
            self.files[rel] = stat
            if not _cache(rel):
                try:
                    self.data[rel] = (root / rel).read_bytes()
                except OSError:
                    pass

    def _walk(self) -> list[tuple[str, tuple[int, int, int]]]:
        found = []
        for folder, _, names in os.walk(self.root):
            for name in names:
                path = os.path.join(folder, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                found.append((os.path.relpath(path, self.root), (st.st_mtime_ns, st.st_size,
                                                                 st.st_ino)))
        return found

    def changes(self) -> list[str]:
        """The files changed, added or removed since, as ``drills/...`` paths; in an installed
        copy each is put back (a cached .pyc deleted, to be compiled again)."""
        if not self.watched:
            return []
        now = dict(self._walk())
        changed = sorted({rel for rel in now if self.files.get(rel) != now[rel]}
                         | {rel for rel in self.files if rel not in now})
        really = []
        for rel in changed:
            path = self.root / rel
            if rel in self.data and rel in now:
                try:
                    if path.read_bytes() == self.data[rel]:
                        continue  # touched, not changed
                except OSError:
                    pass
            really.append(f"{self.root.name}/{rel}")
            self._put_back(rel, path)
        return really

    def _put_back(self, rel: str, path: Path) -> None:
        try:
            if path.is_symlink() or path.exists():
                path.unlink()
            if rel in self.data:
                path.write_bytes(self.data[rel])
        except OSError:
            pass
