"""A cache of parsed packs, so a quiz starts without reading YAML again.

``$DRILLS_HOME/cache/packs.cache`` maps each pack file (its resolved path, size and
modification time, and whether it is built in) to what ``load_pack`` made of it, for packs
that loaded without errors, with the exact answer of each fixed numeric question (30
significant digits): the planner needs them to keep one question from giving another's
answer away (drills.packs.leaks), and would otherwise compute them at every launch. A file
that changed is parsed again; a cache that cannot be read, is from another version of
drills or is over its size cap is ignored and rewritten.

The cache is data: JSON decoded into a fixed set of types (drills.packs.cached.records),
never pickle, so a file in DRILLS_HOME still cannot run code. Text from a cached pack
reaches the terminal through the same output gate as any other.

An entry is a head (the pack's meta, each question's head: id, topic, kind, difficulty,
pack, source; the exact answers) and a chunk of the questions' own texts, kept after the
file's one JSON line (drills.packs.cached.layout). A launch parses that line, decodes the
heads, and reads only the questions it uses, at their first use
(drills.packs.cached.unread): a practice session reads a handful of the bank's 553.

The cache is only a cache: each entry is sealed with a checksum (CRC-32) of its head and
of its chunk, checked when it is read, and every field is type-checked as it is decoded
(drills.packs.cached.checks), in one pass as the JSON reader reads it (``_loads``; its
recursion limit bounds the nesting; ``decode``, for values already read, stops at
``MAX_DEPTH``). An entry whose seal or head fails (damage, a hand edit, an injected
question) is dropped, its pack is read again from its YAML (and validated), and the cache
rewritten; ``damaged`` counts them for one notice. The seal stops damage and edits, not a
determined attacker who recomputes it: one who can write DRILLS_HOME can edit the packs
there too. A question text that fails its checks when it is read (a resealed edit) is
never served: that question is read from its pack's YAML and the cache deleted
(``_Reader``). The file of format 8, ``packs.json``, is deleted when this one is written.

A wheel also ships the built-in packs already parsed, in this same format
(``drills/_bank.cache``, written at build time by ``build_hooks/prebuilt_bank.py`` with
``build_prebuilt``): each entry is keyed by the SHA-256 of its pack file's bytes, so a
newcomer's first launch reads no YAML, and a pack file that differs from the one built (an
edited or an editable install) simply finds no entry and is parsed. It is read like the cache,
sealed and type-checked, and never written at run time.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drills import __version__, paths
from drills.model import Question, Source
from drills.packs import leaks
from drills.packs.cached.layout import Chunk, LayoutError, file_bytes, parse_file, seal, unseal
from drills.packs.cached.records import DAMAGE as _DAMAGE
from drills.packs.cached.records import MAX_DEPTH, CacheError, decode, encode
from drills.packs.cached.records import loads as _loads
from drills.packs.cached.unread import HEAD, unread
from drills.packs.meta import PackMeta

PREBUILT = "_bank.cache"  # in the package folder, next to drills/questions
NAME, OLD_NAME = "packs.cache", "packs.json"  # in $DRILLS_HOME/cache/ (packs.json: format 8)
FORMAT = 9  # bump when a cached type changes shape (4: each pack's exact answers; 5: defaults left out;
# 6: scenarios' steps and parts; 7: concept rubrics; 8: entries sealed, {"sum", "text"};
# 9: each question its own text, read at first use, beside the pack's heads; after the JSON line)
VERSION = f"{__version__}/{FORMAT}"
MAX_BYTES = 16 * 1024 * 1024

__all__ = ["FORMAT", "MAX_DEPTH", "CacheError", "PackCache", "build_prebuilt", "content_key",
           "decode", "default_path", "encode", "key_of", "prebuilt_path"]


def key_of(path: Path, builtin: bool, real: Path | None = None) -> str | None:
    """The cache key of a pack file, or None when it cannot be looked at; ``real``: its
    resolved path when the caller has it (resolving costs a stat per folder)."""
    try:
        real = real or path.resolve()
        info = os.stat(real)
    except (OSError, RuntimeError):
        return None
    return f"{real}|{info.st_size}|{info.st_mtime_ns}|{int(builtin)}"


class PackCache:
    """Read once, looked up per pack file, written back when something was parsed anew."""

    def __init__(self, path: Path | None, *, writable: bool = True) -> None:
        self.path = path
        self.writable = writable  # the prebuilt bank is read, never written
        self.entries: dict[str, Any] = {}
        self.data: Chunk = b""  # the file's data section: each entry's chunk of question texts
        self.used: dict[str, tuple[dict[str, str], Chunk]] = {}
        self.dirty = False
        self.damaged = 0  # entries dropped as damaged (read again from their YAML)
        if path is not None:
            self._read(path)

    def _read(self, path: Path) -> None:
        try:
            if path.stat().st_size > MAX_BYTES:
                return
            self.entries, self.data = parse_file(path.read_bytes(), VERSION)
        except (OSError, ValueError, RecursionError):  # missing or unreadable; LayoutError is a ValueError
            self.dirty = True

    def get(self, key: str, pack: Path | None = None,
            builtin: bool = False) -> tuple[PackMeta, tuple[Question, ...]] | None:
        """The pack cached under ``key``: its meta and its questions, each read at first use
        (drills.packs.cached.unread); a question whose text proves damaged then is read
        from ``pack``'s YAML instead. None when there is no entry or it is damaged."""
        sealed = self.entries.get(key)
        if sealed is None:
            return None
        try:
            text, chunk = unseal(sealed, self.data)
            raw = _loads(text)  # the head, decoded as it is read
            if not isinstance(raw, dict):
                raise CacheError("a damaged pack cache entry")
            meta, heads, answers, at = raw["meta"], raw["heads"], raw.get("answers"), raw["at"]
            if not isinstance(meta, PackMeta) or type(heads) is not list or type(at) is not list \
                    or len(heads) != len(at):
                raise CacheError("not a pack")
            if type(answers) is not list or len(answers) != len(at) or not all(
                    type(a) is list for a in answers):
                answers = [None] * len(at)  # computed when needed (drills.packs.leaks)
            reader = _Reader(pack, builtin)
            questions = tuple(unread(_head(h), _place(where, chunk), a, reader)
                              for h, where, a in zip(heads, at, answers, strict=True))
        except _DAMAGE:
            self.dirty = True
            self.damaged += 1
            return None
        self._keep(key, sealed, text, chunk)
        return meta, questions

    def put(self, key: str, meta: PackMeta, questions: tuple[Question, ...]) -> None:
        if self.path is None or not self.writable:  # no cache to write: nothing to keep
            return
        try:
            self.used[key] = _entry(meta, questions)
        except CacheError:
            return
        self.dirty = True

    def forget(self, gone: Callable[[str], bool]) -> None:
        """Drop the entries whose key is ``gone`` and write the rest back (each as it was,
        a damaged one dropped too)."""
        for key, sealed in self.entries.items():
            if not gone(key):
                try:
                    self._keep(key, sealed, *unseal(sealed, self.data))
                except LayoutError:
                    continue
        self.dirty = True
        self.save()

    def _keep(self, key: str, sealed: dict[str, Any], text: str, chunk: Chunk) -> None:
        """Write the entry back as it was read (its seal holds: the text and chunk are its own)."""
        self.used[key] = ({"sum": sealed["sum"], "text": text}, chunk)

    def adopt(self, key: str, other: PackCache, other_key: str) -> None:
        """Keep ``other``'s entry (just read from it by ``get``) under ``key`` here too."""
        if self.path is not None and other_key in other.used:
            self.used[key] = other.used[other_key]
            self.dirty = True

    def save(self) -> None:
        """Write what this run used (stale entries drop out); any failure is ignored."""
        if self.path is None or not self.writable or not (
                self.dirty or set(self.used) != set(self.entries)):
            return
        # a full disk, say: the history needs the room more than the cache
        if paths.write_cache(self.path, file_bytes(VERSION, self.used)):
            with contextlib.suppress(OSError):
                self.path.with_name(OLD_NAME).unlink(missing_ok=True)  # format 8's file, if any


def _entry(meta: PackMeta, questions: tuple[Question, ...]) -> tuple[dict[str, str], bytes]:
    """One pack's sealed entry: its head (the meta, each question's head, exact answers
    computed once per parse for the planner, and where each question's text is in the
    chunk) and its chunk, the questions' texts end to end."""
    answers = []
    for q in questions:
        answered = _answered((q,))  # a scenario's steps have answers too
        digits = [leaks.answer_digits(x) for x in answered]
        _remember(answered, digits)
        answers.append(digits)
    # plain JSON lists: the reader's object hook (a record's checks) is not called for them
    heads = [[q.id, q.topic, q.kind, q.difficulty, q.pack, q.source.path, q.source.line]
             for q in questions]
    texts = [json.dumps(encode(q), separators=(",", ":")).encode("utf-8") for q in questions]
    at, start = [], 0
    for t in texts:
        at.append([start, len(t)])
        start += len(t)
    head = json.dumps({"meta": encode(meta), "heads": heads, "answers": answers, "at": at},
                      separators=(",", ":"))
    chunk = b"".join(texts)
    return {"sum": seal(head, chunk), "text": head}, chunk


def _place(where: Any, chunk: Chunk) -> tuple[Chunk, int, int]:
    """Where a question's text lies in its (sealed) chunk: ``[start, length]``, checked."""
    if type(where) is not list or len(where) != 2:
        raise CacheError("a damaged question place in the pack cache")
    start, length = where
    if type(start) is not int or type(length) is not int or start < 0 or length < 0 \
            or start + length > len(chunk):
        raise CacheError("a damaged question place in the pack cache")
    return chunk, start, length


def _head(values: Any) -> dict[str, Any]:
    """A question's HEAD fields from its cached head, each type-checked; CacheError otherwise."""
    if type(values) is not list or len(values) != 7:
        raise CacheError("a damaged question head in the pack cache")
    qid, topic, kind, difficulty, pack, path, line = values
    if type(line) is not int or type(qid) is not str or type(topic) is not str or type(kind) is not str \
            or type(difficulty) is not str or type(pack) is not str or type(path) is not str:
        raise CacheError("a damaged question head in the pack cache")
    return {"id": qid, "topic": topic, "kind": kind, "difficulty": difficulty, "pack": pack,
            "source": Source(path, line)}  # HEAD's fields


class _Reader:
    """Reads one pack's cached questions at first use (drills.packs.cached.unread.Reader):
    the text decoded and type-checked, its head the one already read, its exact answers
    handed to the planner. A text that fails (a cache resealed after an edit: the seal
    stops any other change) is dropped for the question in ``pack``'s YAML, and the
    user's cache is deleted, to be rebuilt; with no such question, CacheError."""

    def __init__(self, pack: Path | None, builtin: bool) -> None:
        self.pack = pack
        self.builtin = builtin

    def __call__(self, head: Question, place: Any, answers: Any) -> Question:
        try:
            chunk, start, length = place
            whole = _loads(bytes(chunk[start:start + length]).decode("utf-8"))
            if type(whole) is not Question or any(
                    getattr(whole, name) != head.__dict__[name] for name in HEAD):
                raise CacheError("a question that is not its head")
        except _DAMAGE:
            whole, answers = self._from_yaml(head), None
        _remember(_answered((whole,)), answers)
        return whole

    def _from_yaml(self, head: Question) -> Question:
        qid = head.__dict__["id"]
        where = default_path()
        if where is not None:
            where.unlink(missing_ok=True)
        if self.pack is not None:
            from drills.packs.load import load_pack  # deferred: the YAML reader, for damage only

            found = [q for q in load_pack(self.pack, builtin=self.builtin).questions if q.id == qid]
            if found:
                return found[0]
        raise CacheError(f"question {qid!r} of the pack cache is damaged and is in no pack file; "
                         "the cache was deleted: run the command again")


def _answered(questions: tuple[Question, ...]) -> tuple[Question, ...]:
    """The questions whose exact answers the cache keeps: each, and each scenario's steps."""
    return tuple(x for q in questions for x in ((q, *q.steps) if q.kind == "scenario" else (q,)))


def _remember(questions: tuple[Question, ...], answers: Any) -> None:
    """Hand the cached exact answers to drills.packs.leaks, which keeps only plain numbers
    (and null: no answer); a missing or damaged one means the planner computes it if needed."""
    if isinstance(answers, list) and len(answers) == len(questions):
        for q, digits in zip(questions, answers, strict=True):
            if q.kind == "numeric":
                leaks.remember(q, digits)


def default_path() -> Path | None:
    """``$DRILLS_HOME/cache/packs.cache``; None when DRILLS_HOME is not a usable folder."""
    folder = paths.home()
    return folder / "cache" / NAME if folder.is_dir() else None


def prebuilt_path() -> Path | None:
    """``drills/_bank.cache``, the built-in packs parsed when the wheel was built; None in a
    source checkout or an editable install, which parse their YAML (and cache it) instead."""
    path = Path(__file__).resolve().parent.parent / PREBUILT
    return path if path.is_file() else None


def content_key(path: Path) -> str | None:
    """A prebuilt entry's key: the SHA-256 of the pack file's bytes; None when unreadable."""
    import hashlib  # deferred: needed only when the user's cache has no entry for a built-in pack

    try:
        data = path.read_bytes()
    except OSError:
        return None
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def build_prebuilt(folder: Path) -> bytes:
    """The file ``drills/_bank.cache`` is for the built-in packs in ``folder``: each pack that
    loads without errors, parsed as built in and sealed, under its ``content_key``, in the
    cache's own layout. The wheel's build hook calls it; so does the test that checks it
    against a fresh parse."""
    from drills.packs.load import expand, load_pack  # the YAML reader: a build-time need

    files, _ = expand([folder])
    entries: dict[str, tuple[dict[str, str], Chunk]] = {}
    for f in files:
        pack = load_pack(f, builtin=True)
        key = content_key(f)
        if pack.ok and pack.meta is not None and key is not None:
            entries[key] = _entry(pack.meta, pack.questions)
    return file_bytes(VERSION, entries)
