"""Install packs from a path or a git repository into ``$DRILLS_HOME/packs/NAME/``.

Nothing is installed or replaced before every pack validates; the work is done in a hidden
folder (discovery skips it) and ends with a rename. Only the pack files are kept (from a
clone too), as new plain files; symbolic links are refused. git: no shell, the source one
argument after ``--``, https/ssh/local only, no prompt, a timeout. ``.drills-source.json``
records the source; ``update`` and ``remove`` touch only folders that have one. Accepted
sources and the copying: drills.packs.sources.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from drills.packs.cache import PackCache, default_path
from drills.packs.errors import shown
from drills.packs.load import (
    WORKSPACE_PREFIX,
    LoadedPack,
    cross_pack_errors,
    load_pack,
    load_paths,
    pack_files,
)
from drills.packs.sources import (
    NAME_RE,
    USAGE,
    InstallError,
    Source,
    classify,
    copy_file,
    copy_packs,
    default_name,
    invalid,
    redact,
    slug,
    where,
)
from drills.packs.sources import InvalidPack as InvalidPack  # the CLI's core.InvalidPack, as before
from drills.paths import builtin_packs_dir, packs_dir

MANIFEST = ".drills-source.json"
GIT_TIMEOUT = 120.0  # seconds for one git command
# git itself refuses any other transport, also on an https redirect (defence in depth)
_PROTOCOLS = ("-c", "protocol.allow=never", "-c", "protocol.https.allow=always",
              "-c", "protocol.ssh.allow=always", "-c", "protocol.file.allow=always")
_TMP = WORKSPACE_PREFIX


@dataclass(frozen=True)
class Result:
    """What an install or update did: the pack set, its folder, source and commit, what it holds."""

    name: str
    folder: Path
    source: Source
    commit: str | None
    packs: int
    questions: int
    old_commit: str | None = None
    changed: bool = True


def _check_name(name: str, builtin: list[LoadedPack]) -> None:
    if not NAME_RE.match(name):
        hint = f" (say --name {slug(name)})" if NAME_RE.match(slug(name)) else ""
        raise InstallError(f"bad name {shown(name)!r}: use a-z, 0-9 and -, starting with a letter or "
                           f"digit, at most 64 characters{hint}", USAGE)
    folder = packs_dir() / name
    if os.path.lexists(folder):
        how = f"or `drills packs update {name}`" if read_manifest(folder) is not None else "(not made by install)"
        raise InstallError(f"{name!r} is already taken by {shown(str(folder))}: choose another --name {how}",
                           USAGE)
    if any(p.meta is not None and p.meta.name == name for p in builtin):
        raise InstallError(f"{name!r} is the name of a built-in pack: choose another --name", USAGE)


@contextmanager
def _workspace() -> Iterator[Path]:
    """A hidden folder inside the packs folder (same file system: the final rename is atomic),
    with an ``owner`` file (this process) and, for an update's renames, a ``journal``: what
    ``recover`` needs to finish or undo the work of a process that was killed."""
    root = packs_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
        recover(root)
        work = Path(tempfile.mkdtemp(prefix=_TMP, dir=root))
        (work / "owner").write_text(str(os.getpid()), encoding="utf-8")
    except OSError as exc:
        raise InstallError(f"cannot write in {shown(str(root))}: {exc.strerror or exc}") from None
    try:
        yield work
    finally:  # the old version after an update, a removed folder, a refused clone
        shutil.rmtree(work, ignore_errors=True)


def recover(root: Path | None = None) -> int:
    """Finish or undo what a killed install, update or remove left in ``root`` (the packs
    folder), then delete its workspace; the number of workspaces cleaned. An update killed
    between its two renames (its folder moved to ``old``, the new ``tree`` not yet in
    place) is finished when the new tree is whole, else the old folder is put back: the
    next run finds the old version or the new one, never neither. A workspace whose owner
    is still running is left alone."""
    root = packs_dir() if root is None else root
    try:
        leftovers = [e for e in os.scandir(root) if e.name.startswith(_TMP) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return 0
    cleaned = 0
    for entry in leftovers:
        work = Path(entry.path)
        if _alive(work / "owner"):
            continue
        with suppress(OSError, ValueError):
            name = json.loads((work / "journal").read_text(encoding="utf-8"))["update"]
            folder = root / name
            if NAME_RE.match(name) and not os.path.lexists(folder):
                new = work / "tree"
                os.rename(new if (new / MANIFEST).is_file() else work / "old", folder)
        shutil.rmtree(work, ignore_errors=True)
        cleaned += not work.exists()
    return cleaned


def _alive(owner: Path) -> bool:
    """The process named in ``owner`` is running (this one included)."""
    try:
        os.kill(int(owner.read_text(encoding="utf-8")), 0)
    except PermissionError:
        return True  # running, as another user
    except (OSError, ValueError):
        return False  # no owner file (an older drills, or killed before writing it), or gone
    return True


def _fetch(source: Source, work: Path) -> tuple[Path, str | None]:
    """The source's pack files in ``work/tree`` (nothing else: no symbolic link, no other
    file, no hidden folder), and the commit for a git source."""
    tree = work / "tree"
    try:
        if source.kind == "git":
            clone, local = work / "clone", source.location.startswith("/")
            depth = ["--no-hardlinks"] if local else ["--depth", "1"]  # --depth is ignored locally
            _git(["clone", *depth, "--quiet", "--", source.location, str(clone)], "git clone")
            try:
                commit: str | None = _git(["-C", str(clone), "rev-parse", "HEAD"], "git rev-parse")
            except InstallError:  # an empty repository: no commit, no packs (validation says so)
                commit = None
            copy_packs(clone, tree, source, lambda rel: rel.as_posix())  # as the author knows them
            shutil.rmtree(clone, ignore_errors=True)
            return tree, commit
        origin = Path(source.location)  # a folder: only its packs, what discovery would load
        if origin.is_dir():
            copy_packs(origin, tree, source, lambda rel: str(origin / rel))
        elif not copy_file(origin, tree / origin.name, follow=True):  # one file, named by the user
            raise InstallError(f"{where(source)} is not a regular file", USAGE)
    except OSError as exc:
        raise InstallError(f"cannot copy {where(source)}: {exc.strerror or exc}") from None
    return tree, None


def _git(args: list[str], what: str) -> str:
    """Run git (no shell, no prompt, no tty, a timeout); its output, or its last error line."""
    exe = shutil.which("git")
    if exe is None:
        raise InstallError("git is not installed: install it, or install from a local folder of packs")
    env = {**{k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_WORK_TREE")},
           "GIT_TERMINAL_PROMPT": "0"}
    try:  # a new session: no terminal for ssh to prompt on, and one group to kill
        proc = subprocess.Popen([exe, *_PROTOCOLS, *args], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                start_new_session=True)
    except OSError as exc:
        raise InstallError(f"cannot run git: {exc.strerror or exc}") from None
    try:
        out, err = proc.communicate(timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise InstallError(f"{what} took longer than {GIT_TIMEOUT:g} s and was stopped "
                           "(an unreachable host or a slow network?); nothing changed") from None
    except BaseException:  # Ctrl-C: git is in its own session and would not see it
        _kill(proc)
        raise
    if proc.returncode != 0:
        lines = [x.strip() for x in err.decode("utf-8", "replace").splitlines() if x.strip()]
        line = next((x for x in lines if x.startswith(("fatal:", "error:"))), lines[-1] if lines else "")
        raise InstallError(f"{what} failed: {shown(redact(line) or f'exit status {proc.returncode}')}")
    return out.decode("utf-8", "replace").strip()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()


def _check(tree: Path, source: Source, builtin: list[LoadedPack],
           replacing: Path | None) -> list[LoadedPack]:
    """The packs in ``tree``; InvalidPack with every problem, shown at the source's own paths."""
    packs, errors = load_paths([tree])  # plain files only: _fetch copied no symbolic link
    for pack in packs:
        errors.extend(pack.errors)
    others = [*builtin, *(p for p in load_paths([packs_dir()])[0]
                          if replacing is None or not Path(p.path).is_relative_to(replacing))]
    mine = {p.path for p in packs}
    errors.extend(e for e in cross_pack_errors([*others, *packs]) if e.path in mine)
    if errors:  # shown at the files as the author knows them
        git, prefix = source.kind == "git", str(tree) + os.sep
        base = source.location if not git and os.path.isdir(source.location) else ""

        def fix(text: str) -> str:
            return re.sub(re.escape(prefix) + r"([^\s:]+)", lambda m: m.group(1) if git else os.path.join(
                base, m.group(1)) if base else source.location, source.location if text == str(tree) else text)

        raise invalid([replace(e, path=fix(e.path), message=fix(e.message)) for e in errors], source)
    return packs


def _builtin() -> list[LoadedPack]:
    return load_paths([root])[0] if (root := builtin_packs_dir()) is not None else []


def _digest(tree: Path) -> str:  # of the pack files (plain files: _fetch copies no link)
    h = hashlib.sha256()
    for f in pack_files(tree):
        h.update(f.relative_to(tree).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest of an installed folder, or None (absent, unreadable or not what install writes)."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(data, dict) and data.get("kind") in ("git", "path") and isinstance(data.get("source"), str)
    if ok and data["kind"] == "git":  # one written before URL credentials were refused: never shown
        data["source"] = redact(data["source"])  # (and update then refuses it, pointing to a helper)
    return data if ok else None


def _finish(tree: Path, source: Source, commit: str | None, installed_at: Any = None) -> None:
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    manifest = {"source": source.location, "kind": source.kind, "commit": commit,
                "installed_at": str(installed_at or now), "digest": _digest(tree)}
    if installed_at:
        manifest["updated_at"] = now
    (tree / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def install(text: str, name: str | None = None) -> Result:
    """Validate, then install ``text`` (a path or git URL) as ``$DRILLS_HOME/packs/NAME``."""
    source, builtin = classify(text), _builtin()
    if name is None and source.kind == "path" and os.path.isfile(source.location):
        meta = load_pack(source.location).meta  # one file: named after its pack
        name = meta.name if meta is not None else Path(source.location).stem
    name = name if name is not None else default_name(source)
    _check_name(name, builtin)
    with _workspace() as work:
        tree, commit = _fetch(source, work)
        packs = _check(tree, source, builtin, None)
        _finish(tree, source, commit)
        dest = packs_dir() / name
        try:
            os.rename(tree, dest)  # fails if NAME appeared meanwhile
        except OSError as exc:
            raise InstallError(f"cannot install into {shown(str(dest))}: {exc.strerror or exc}") from None
    _forget_cached(dest)
    return Result(name, dest, source, commit, len(packs), sum(len(p.questions) for p in packs))


def installed() -> list[str]:
    """The names of the folders ``install`` made, sorted."""
    root = packs_dir()
    try:
        names = sorted(e.name for e in os.scandir(root) if e.is_dir(follow_symlinks=False))
    except OSError:
        return []
    return [n for n in names if NAME_RE.match(n) and read_manifest(root / n) is not None]


def _installed_folder(name: str) -> tuple[Path, dict[str, Any]]:
    folder = packs_dir() / name
    if not NAME_RE.match(name) or not os.path.lexists(folder):
        have = ", ".join(installed()) or "none"
        raise InstallError(f"no installed pack {shown(name)!r} (installed: {have})", USAGE)
    manifest = read_manifest(folder) if folder.is_dir() and not folder.is_symlink() else None
    if manifest is None:
        raise InstallError(f"{shown(str(folder))} was not made by `drills packs install` (no {MANIFEST}); "
                           "drills leaves it alone", USAGE)
    return folder, manifest


def update(name: str) -> Result:
    """Fetch ``name``'s source again; replace the folder only when every pack validates."""
    folder, manifest = _installed_folder(name)
    location = manifest["source"]
    if manifest["kind"] == "git":
        try:  # a hand-edited manifest gets the same checks as a typed URL
            source = classify(location)
        except InstallError as exc:  # the manifest's fault, not the command line's: exit 1
            raise InstallError(str(exc)) from None
        if source.kind != "git":
            raise InstallError(f"{where(source)} is no longer a git repository")
    else:
        source = Source("path", location)
        if not os.path.exists(location):
            raise InstallError(f"{where(source)} no longer exists; nothing changed")
    old = manifest.get("commit") if isinstance(manifest.get("commit"), str) else None
    with _workspace() as work:
        tree, commit = _fetch(source, work)
        packs = _check(tree, source, _builtin(), folder)
        count = sum(len(p.questions) for p in packs)
        if _digest(tree) == manifest.get("digest") and commit == old and _only_packs(folder):
            return Result(name, folder, source, commit, len(packs), count, old, changed=False)
        _newer_than(folder, tree)
        _finish(tree, source, commit, manifest.get("installed_at") or "?")
        try:  # two renames: the folder is missing for an instant, never half-written
            (work / "journal").write_text(json.dumps({"update": name}), encoding="utf-8")
            os.rename(folder, work / "old")
            try:
                os.rename(tree, folder)
            except OSError:
                os.rename(work / "old", folder)
                raise
        except OSError as exc:
            raise InstallError(f"cannot replace {shown(str(folder))}: {exc.strerror or exc}") from None
    _forget_cached(folder)
    return Result(name, folder, source, commit, len(packs), count, old)


def remove(name: str) -> Source:
    """Delete an installed folder (only one ``install`` made); what it was installed from."""
    folder, manifest = _installed_folder(name)
    with _workspace() as work:
        try:
            os.rename(folder, work / "gone")  # out of discovery's sight at once; deleted on exit
        except OSError as exc:
            raise InstallError(f"cannot remove {shown(str(folder))}: {exc.strerror or exc}") from None
    _forget_cached(folder)
    return Source(manifest["kind"], manifest["source"])


def _only_packs(folder: Path) -> bool:
    """Whether ``folder`` holds only its manifest and plain pack files (not a whole clone, as an
    older drills installed it: then even an unchanged source is installed again)."""
    packs = {f for f in pack_files(folder) if not f.is_symlink()}
    for root, dirs, files in os.walk(folder):
        if any(Path(root, f) not in packs for f in files if not (root == str(folder) and f == MANIFEST)):
            return False
        if any(Path(root, d).is_symlink() for d in dirs):
            return False
    return True


def _newer_than(old: Path, new: Path) -> None:
    """The pack cache keys on path, size and mtime: a replacement must not match all three."""
    for f in pack_files(new):
        try:
            before, after = (old / f.relative_to(new)).stat(), f.stat()
        except OSError:
            continue
        if before.st_size == after.st_size and after.st_mtime_ns <= before.st_mtime_ns:
            os.utime(f, ns=(after.st_atime_ns, before.st_mtime_ns + 2_000_000_000))


def _forget_cached(folder: Path) -> None:
    """Drop the pack cache's entries for files under ``folder`` (a reinstall starts fresh)."""
    path = default_path()
    if path is None or not path.is_file():
        return
    cache = PackCache(path)
    prefix = str(folder.resolve()) + os.sep
    if any(k.startswith(prefix) for k in cache.entries):
        cache.forget(lambda key: key.startswith(prefix))
