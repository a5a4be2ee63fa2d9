"""What ``drills packs install`` accepts as a source, and how it copies a source's pack files.

``classify`` refuses (exit 2) anything but https, ssh, file URLs, scp-like ``USER@HOST:PATH``
and local paths, and any credentials in a URL (they would be stored in the manifest and
shown). ``redact`` hides a URL's secret in every message. ``copy_packs`` copies only the pack
files (what discovery loads) and refuses symbolic links among them unread.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from drills.packs.errors import PackError, shown
from drills.packs.load import PACK_SUFFIXES

FAILED, USAGE = 1, 2  # drills.cli.errors.Exit, without importing click
# A pack source is a few YAML files: these bound the walk and the copy before anything is read
MAX_FILES = 10_000  # files of any kind in the source, hidden folders left out
MAX_PACK_FILES = 1_000
MAX_PACK_BYTES = 64 * 1024 * 1024
NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
ACCEPTED = "https://HOST/PATH, ssh://[USER@]HOST/PATH, USER@HOST:PATH, file:///PATH or a local path"
SCP = re.compile(r"[A-Za-z0-9._][A-Za-z0-9._-]*@[A-Za-z0-9][A-Za-z0-9.-]*:[^\s-]\S*\Z")
_WHY = {"http": "http:// is unencrypted; use https://", "": "git remote helpers (X::...) are refused",
        "git": "git:// is unauthenticated; use https:// or ssh://"}
_CREDENTIALS = ("would be stored in .drills-source.json and shown by `drills packs list`: "
                "use a git credential helper or an ssh URL")
# userinfo ends at the first / ? # (RFC 3986, and git): scheme://USER[:SECRET]@...
_URL_USER = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)([^\s/?#@]*)@")
# scp-like USER:SECRET@HOST:PATH at the start of a word (not a Windows drive: no backslash)
_SCP_SECRET = re.compile(r"(?<![^\s'\"(])([^\s/\\:@'\"]+):[^\s/\\@'\"]*@")
_NOFOLLOW, _NONBLOCK = getattr(os, "O_NOFOLLOW", 0), getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block


class InstallError(Exception):
    """One line for the user; ``code`` 1 (something failed) or 2 (bad input)."""
    def __init__(self, message: str, code: int = FAILED) -> None:
        super().__init__(message)
        self.code = code


class InvalidPack(InstallError):
    """The packs have problems (``errors``, as file:line); nothing was installed or changed."""
    def __init__(self, message: str, errors: list[PackError]) -> None:
        super().__init__(message, FAILED)
        self.errors = errors


@dataclass(frozen=True)
class Source:
    """Where an installed pack set comes from: a git URL or a local path."""

    kind: str  # "git" | "path"
    location: str  # recorded in the manifest and shown: the URL, or an absolute path


def redact(text: str) -> str:
    """``text`` with every URL secret as ***: a password (``user:***@``), and a user without
    one outside ssh (``https://***@``: a token); an ssh user (``git@``) is kept."""
    def url(m: re.Match[str]) -> str:
        scheme, (user, _, secret) = m.group(1), m.group(2).partition(":")
        if secret:
            return f"{scheme}{user}:***@"
        return m.group(0) if scheme.lower() == "ssh://" else f"{scheme}***@"  # TOKEN@ or TOKEN:@

    return _SCP_SECRET.sub(r"\1:***@", _URL_USER.sub(url, text))


def where(source: Source) -> str:
    """The source for a message: a URL redacted, a path as it is."""
    return shown(redact(source.location) if source.kind == "git" else source.location)


def invalid(errors: list[PackError], source: Source) -> InvalidPack:
    files = len({e.path for e in errors})
    return InvalidPack(f"{len(errors)} problem{'s' * (len(errors) != 1)} in {files} "
                       f"file{'s' * (files != 1)} of {where(source)}; nothing changed", errors)


def classify(text: str) -> Source:
    """What ``text`` is, or an InstallError (exit 2) for anything outside the accepted forms."""
    def refuse(why: str) -> InstallError:
        return InstallError(f"refusing {shown(redact(text))!r}: {why}", USAGE)

    if not text or text.startswith("-"):
        raise refuse("not a path or URL but an option? (for a file named so, write ./ before it)")
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text):
        raise refuse("it contains control characters")
    scheme = text.split("://", 1)[0] if "://" in text else ""
    if scheme in ("https", "ssh", "file"):
        try:
            parts = urlsplit(text)
            host, _ = parts.hostname or "", parts.port
        except ValueError:
            raise refuse("not a valid URL") from None
        if any(c.isspace() for c in text):
            raise refuse("a URL cannot contain whitespace")
        if scheme == "file" and (parts.netloc not in ("", "localhost") or not parts.path.startswith("/")):
            raise refuse("write file:///ABSOLUTE/PATH")
        if scheme != "file" and (not host or host.startswith("-") or not parts.path.strip("/")):
            raise refuse("the URL needs a host and a path")
        if parts.password is not None:
            raise refuse(f"a password in a URL {_CREDENTIALS}")
        if scheme == "https" and "@" in parts.netloc:  # https://TOKEN@HOST/...: a token as the user
            raise refuse(f"credentials in an https URL (a user name or a token) {_CREDENTIALS}")
        return Source("git", text)
    if scheme or "::" in text:
        raise refuse(_WHY.get(scheme, f"{scheme}:// is not accepted") + f" (accepted: {ACCEPTED})")
    if SCP.match(text):
        return Source("git", text)
    path = Path(text).expanduser()
    if os.path.exists(path):
        repo = path.is_dir() and any(all((path / p).exists() for p in names)  # a work tree or a bare repo
                                     for names in ((".git",), ("HEAD", "objects", "refs")))
        return Source("git" if repo else "path", os.path.abspath(path))
    if ":" in text:
        raise refuse(f"not an accepted form ({ACCEPTED})")
    raise InstallError(f"no such file or folder: {shown(redact(text))}", USAGE)


def slug(text: str) -> str:
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9-]", "-", text.lower())).strip("-")[:64]


def default_name(source: Source) -> str:
    """The repository's name without .git, or the folder's name, as a valid NAME."""
    tail = source.location
    if "://" in tail:
        tail = urlsplit(tail).path
    elif SCP.match(tail):
        tail = tail.split(":", 1)[1]
    base = slug(os.path.basename(tail.rstrip("/")).removesuffix(".git"))
    if not NAME_RE.match(base):
        raise InstallError(f"cannot make a name from {where(source)!r}: give one with --name", USAGE)
    return base


def copy_packs(origin: Path, dest: Path, source: Source, show: Callable[[Path], str]) -> None:
    """Copy ``origin``'s pack files (.yaml/.yml outside hidden files and folders, what discovery
    loads) to ``dest`` at the same relative paths, as new plain files. A symbolic link among
    them, or a linked folder, is refused unread (InvalidPack, at ``show(relative path)``):
    a pack folder holds only what it holds."""
    files: list[Path] = []
    errors: list[PackError] = []
    seen, size = 0, 0
    for root, dirs, names in os.walk(origin):  # never follows a linked folder
        base = Path(root)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        seen += len(names) + len(dirs)
        if seen > MAX_FILES:
            raise InstallError(f"{where(source)} holds over {MAX_FILES:,} files and folders: "
                               "not a pack source (packs are a few .yaml files)")
        for d in dirs:
            if (base / d).is_symlink():
                errors.append(PackError(show((base / d).relative_to(origin)), 0, "",
                                        "a symbolic link to a folder: packs must be in plain folders"))
        for name in sorted(names):
            if name.endswith(PACK_SUFFIXES) and not name.startswith("."):
                f = base / name
                if f.is_symlink():
                    errors.append(PackError(show(f.relative_to(origin)), 0, "",
                                            "a symbolic link: packs must be plain files"))
                else:
                    size += f.lstat().st_size
                files.append(f.relative_to(origin))
        if len(files) > MAX_PACK_FILES:
            raise InstallError(f"{where(source)} holds over {MAX_PACK_FILES:,} pack files: "
                               "split it into several sources")
        if size > MAX_PACK_BYTES:
            raise InstallError(f"the pack files of {where(source)} are over "
                               f"{MAX_PACK_BYTES // (1024 * 1024)} MB together: not installed")
    if errors:
        raise invalid(errors, source)
    dest.mkdir(parents=True, exist_ok=True)
    for rel in files:
        if not copy_file(origin / rel, dest / rel):
            raise invalid([PackError(show(rel), 0, "", "not a regular file")], source)


def copy_file(src: Path, dst: Path, follow: bool = False) -> bool:
    """Copy one regular file to a new ``dst`` (a new mtime: no stale hit in the pack cache);
    False for anything else. Without ``follow``, a link put in its place meanwhile fails."""
    fd = os.open(src, os.O_RDONLY | _NONBLOCK | (0 if follow else _NOFOLLOW))
    with os.fdopen(fd, "rb") as reader:
        if not stat.S_ISREG(os.fstat(reader.fileno()).st_mode):
            return False
        dst.parent.mkdir(parents=True, exist_ok=True)
        with open(dst, "xb") as writer:
            shutil.copyfileobj(reader, writer)
    return True
