"""Find every pack the quiz can use, in a fixed order, skipping broken ones.

Order: built-in packs, the user's folder ($DRILLS_HOME/packs), each ``--pack``
path, then packs installed by other distributions through the ``drills.packs``
entry-point group. A broken pack costs one line in ``Catalog.errors`` and is
skipped; the others still load. An id already taken by an earlier pack is
skipped too (earlier wins), so a user pack can never shadow a built-in one.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drills.model import Question
from drills.packs.cache import PackCache, content_key, default_path, key_of, prebuilt_path
from drills.packs.errors import PackError
from drills.packs.load import (
    WORKSPACE_PREFIX,
    LoadedPack,
    duplicate_id,
    expand,
    load_pack,
    resolved,
)
from drills.paths import builtin_packs_dir, packs_dir, write_cache

ENTRY_POINT_GROUP = "drills.packs"
ENTRY_POINTS_MEMO = "entry-points.json"  # next to the pack cache: whether any distribution declares one


@dataclass(frozen=True)
class PackInfo:
    """One loaded pack, as ``drills packs list`` shows it."""

    name: str
    version: str
    source: str  # builtin | user | path | entry-point
    path: str
    questions: int
    topics: tuple[str, ...]
    description: str = ""


@dataclass
class Catalog:
    """Every pack loaded: the packs, their questions, the broken packs' errors and notices."""

    packs: list[PackInfo] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    errors: list[PackError] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # e.g. damaged pack cache entries, re-read

    def by_id(self) -> dict[str, Question]:
        return {q.id: q for q in self.questions}


def summarize(pack: LoadedPack) -> PackError:
    """One line for a broken pack: its first problem and how to see the rest."""
    first = pack.errors[0]
    more = f"{len(pack.errors)} problems, first shown" if len(pack.errors) > 1 else "1 problem"
    return PackError(first.path, first.line, first.field,
                     f"{first.message} [pack skipped: {more}; run `drills packs validate {pack.path}`]")


def discover(extra: Sequence[str | os.PathLike[str]] = (), *, entry_points: bool = True,
             cache: bool = True) -> Catalog:
    """Load the built-in, user, ``extra`` and installed packs into one Catalog.

    With ``cache`` a pack file unchanged since it was last parsed comes from
    ``$DRILLS_HOME/cache/packs.cache`` (see drills.packs.cache) instead of its YAML, and a
    built-in one the wheel's ``drills/_bank.cache`` holds (same bytes) from there.
    """
    catalog = Catalog()
    ids: dict[str, Question] = {}
    names: dict[str, str] = {}
    seen: set[Path] = set()
    store = PackCache(default_path() if cache else None)
    prebuilt = _Prebuilt(cache)

    def add(source: str, paths: Iterable[str | os.PathLike[str]], report_missing: bool) -> None:
        files, errors = expand(paths)
        if report_missing:
            catalog.errors.extend(errors)
        for f in files:
            real = resolved(f)
            key = real or f.absolute()
            if key in seen:  # e.g. --pack pointing into the user folder
                continue
            seen.add(key)
            _admit(catalog, _load(store, f, source == "builtin", prebuilt, real), source, ids, names)

    builtin = builtin_packs_dir()
    if builtin is not None:
        add("builtin", [builtin], report_missing=False)
    user = packs_dir()
    if user.is_dir():
        _finish_killed_installs(user)
        add("user", [user], report_missing=False)
    add("path", extra, report_missing=True)
    if entry_points:
        memo = store.path.with_name(ENTRY_POINTS_MEMO) if store.path is not None else None
        for paths in _entry_point_paths(catalog.errors, memo):
            add("entry-point", paths, report_missing=True)
    store.save()
    if store.damaged:
        catalog.notices.append(
            f"the pack cache had {store.damaged} damaged "
            f"entr{'y' if store.damaged == 1 else 'ies'}: read again from the packs, cache rewritten")
    return catalog


def builtin_packs(*, cache: bool = True) -> list[LoadedPack]:
    """The built-in packs as ``discover`` loads them: from the pack cache (or the wheel's
    prebuilt bank) when unchanged, else parsed from their YAML. What ``drills packs
    validate`` checks clashes against: the built-in bank's questions need not be parsed
    again for each check. The cache is only read: a check writes nothing."""
    root = builtin_packs_dir()
    if root is None:
        return []
    store = PackCache(default_path() if cache else None, writable=False)
    prebuilt = _Prebuilt(cache)
    files, _errors = expand([root])
    return [_load(store, f, True, prebuilt) for f in files]


def _finish_killed_installs(user: Path) -> None:
    """A workspace a killed ``drills packs install``/``update`` left (``.drills-tmp-*``):
    finish or undo its work first, so an update killed between its renames never leaves the
    pack missing (drills.packs.install.recover). One look at the folder when there is none."""
    try:
        leftover = any(e.name.startswith(WORKSPACE_PREFIX) for e in os.scandir(user))
    except OSError:
        return
    if leftover:
        from drills.packs.install import recover  # deferred: git and the installer, rarely needed

        recover(user)


class _Prebuilt:
    """The wheel's prebuilt bank, read at the first built-in pack the user's cache lacks."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bank: PackCache | None = None

    def get(self, store: PackCache, key: str, path: Path) -> Any:
        """``path``'s pack if the bank holds its very bytes, kept in ``store`` too; else None."""
        if not self.enabled:
            return None
        if self.bank is None:
            where = prebuilt_path()
            self.enabled = where is not None
            if where is None:
                return None
            self.bank = PackCache(where, writable=False)
        digest = content_key(path)
        hit = self.bank.get(digest, path, True) if digest is not None else None
        if hit is not None:
            store.adopt(key, self.bank, digest)
        return hit


def _load(store: Any, path: Path, builtin: bool, prebuilt: _Prebuilt | None = None,
          real: Path | None = None) -> LoadedPack:
    """One pack file, from the cache when it is unchanged (a built-in one from the prebuilt
    bank when its bytes match); a good parse is cached."""
    key = key_of(path, builtin, real)
    hit = store.get(key, path, builtin) if key is not None else None
    if hit is None and builtin and key is not None and prebuilt is not None:
        hit = prebuilt.get(store, key, path)
    if hit is not None:
        return LoadedPack(os.fspath(path), hit[0], hit[1], [])
    pack = load_pack(path, builtin=builtin)
    if key is not None and pack.ok and pack.meta is not None:
        store.put(key, pack.meta, pack.questions)
    return pack


def _admit(catalog: Catalog, pack: LoadedPack, source: str,
           ids: dict[str, Question], names: dict[str, str]) -> None:
    if pack.errors or pack.meta is None:
        if pack.errors:
            catalog.errors.append(summarize(pack))
        return
    meta = pack.meta
    if meta.name in names:
        catalog.errors.append(PackError(pack.path, meta.line, "pack.name",
                                        f"pack name {meta.name!r} is already loaded from "
                                        f"{names[meta.name]} [pack skipped; rename it]"))
        return
    names[meta.name] = pack.path
    kept: list[Question] = []
    for q in pack.questions:
        first = ids.get(q.id)
        if first is not None:
            catalog.errors.append(duplicate_id(q, first))
            continue
        ids[q.id] = q
        kept.append(q)
    catalog.questions.extend(kept)
    topics = tuple(sorted({q.topic for q in kept}))
    catalog.packs.append(PackInfo(meta.name, meta.version, source, pack.path, len(kept), topics,
                                  meta.description))


def _folders() -> list[list[Any]]:
    """Each folder on sys.path but the working one, with its modification time: installing
    or removing a distribution adds or removes an entry there, which changes it."""
    found = []
    for folder in sys.path:
        if folder in ("", "."):  # the working folder changes all the time: looked at live
            continue
        try:
            found.append([folder, os.stat(folder).st_mtime_ns])
        except OSError:
            continue
    return found


def _stamps(files: list[str]) -> list[list[Any]]:
    """Each ``entry_points.txt`` with its modification time (an edit in place, as an
    editable install's egg-info gets, changes no folder); a missing one is None."""
    stamped: list[list[Any]] = []
    for name in files:
        try:
            stamped.append([name, os.stat(name).st_mtime_ns])
        except OSError:
            stamped.append([name, None])
    return stamped


def _declared_remembered(memo: Path | None) -> bool:
    """``_declared_anywhere``, the folders of sys.path but the working one remembered in
    ``memo`` (JSON) until one of them or one of their ``entry_points.txt`` changes: a stat
    each at a launch instead of listing the folders."""
    if memo is None:
        return _declared_anywhere()
    live = [f for f in sys.path if f in ("", ".")]
    if live and _declared_anywhere(live):
        return True
    folders = _folders()
    try:
        known = json.loads(memo.read_text(encoding="utf-8"))
        if isinstance(known, dict) and known.get("folders") == folders \
                and isinstance(known.get("declared"), bool) and isinstance(known.get("files"), list) \
                and all(isinstance(f, list) and len(f) == 2 and isinstance(f[0], str) for f in known["files"]) \
                and _stamps([f[0] for f in known["files"]]) == known["files"]:
            return known["declared"]
    except (OSError, ValueError, RecursionError):
        pass
    seen: list[str] = []
    declared = _declared_anywhere([f for f, _ in folders], seen)
    # only a memo: a failure to write it costs the next launch a look, never this one
    kept = json.dumps({"folders": folders, "files": _stamps(seen), "declared": declared})
    write_cache(memo, kept.encode("utf-8", "surrogatepass"))
    return declared


def _declared_anywhere(folders: list[str] | None = None, seen: list[str] | None = None) -> bool:
    """Does any installed distribution declare ``drills.packs`` entry points (in ``folders``,
    by default every folder on sys.path)? ``seen`` collects each ``entry_points.txt`` read.

    A look at the ``entry_points.txt`` files only: importing importlib.metadata and
    listing every distribution costs about 40 ms of start-up, paid only when one does.
    """
    marker = f"[{ENTRY_POINT_GROUP}]"
    for folder in sys.path if folders is None else folders:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            path = os.path.join(folder or ".", name, "entry_points.txt")
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read(1 << 16)
            except OSError:
                continue
            if seen is not None:
                seen.append(path)
            if marker in text:
                return True
    return False


def _entry_point_paths(errors: list[PackError], memo: Path | None = None) -> list[list[str]]:
    """Paths from installed ``drills.packs`` entry points; a failing one is an error, not a crash."""
    if not _declared_remembered(memo):
        return []
    from importlib.metadata import entry_points  # deferred: slow, and only when a pack declares one

    found: list[list[str]] = []
    try:
        eps = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
    except Exception as exc:  # a broken distribution's metadata must not stop the quiz
        errors.append(PackError(f"entry points {ENTRY_POINT_GROUP}", 0, "", f"cannot list: {exc}"))
        return found
    for ep in eps:
        label = f"entry point {ep.name} ({ep.value})"
        try:
            target: Any = ep.load()
            if callable(target):
                target = target()
            found.append(_as_paths(target))
        except Exception as exc:  # third-party code: report and go on
            errors.append(PackError(label, 0, "", f"failed: {type(exc).__name__}: {exc}"))
    return found


def _as_paths(target: Any) -> list[str]:
    if isinstance(target, (str, os.PathLike)):
        return [os.fspath(target)]
    if isinstance(target, (list, tuple)) and all(isinstance(t, (str, os.PathLike)) for t in target):
        return [os.fspath(t) for t in target]
    raise TypeError(f"expected a path or a list of paths, got {type(target).__name__}")
