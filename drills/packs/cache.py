"""A cache of parsed packs, so a quiz starts without reading YAML again.

``$DRILLS_HOME/cache/packs.json`` maps each pack file (its resolved path, size and
modification time, and whether it is built in) to what ``load_pack`` made of it, for packs
that loaded without errors, with the exact answer of each fixed numeric question (30
significant digits): the planner needs them to keep one question from giving another's
answer away (drills.packs.leaks), and would otherwise compute them at every launch. A file
that changed is parsed again; a cache that cannot be read, is from another version of
drills or is over its size cap is ignored and rewritten.

The cache is data: JSON decoded into a fixed set of types (the dataclasses below, tuples,
dicts), never pickle, so a file in DRILLS_HOME still cannot run code. Text from a cached
pack reaches the terminal through the same output gate as any other.

The cache is only a cache: each entry is sealed with a checksum (CRC-32) of its text, and every
field is type-checked as it is decoded (drills.packs.cacheschema), in one pass as the JSON
reader reads it (``_loads``; its recursion limit bounds the nesting; ``decode``, for values
already read, stops at ``MAX_DEPTH``). An entry that fails either (damage, a hand edit, an injected question)
is dropped, its pack is read again from its YAML (and validated), and the cache rewritten;
``damaged`` counts them for one notice. The seal stops damage and edits, not a determined
attacker who recomputes it: one who can write DRILLS_HOME can edit the packs there too.

A wheel also ships the built-in packs already parsed, in this same format
(``drills/_bank.json``, written at build time by ``build_hooks/prebuilt_bank.py`` with
``build_prebuilt``): each entry is keyed by the SHA-256 of its pack file's bytes, so a
newcomer's first launch reads no YAML, and a pack file that differs from the one built (an
edited or an editable install) simply finds no entry and is parsed. It is read like the cache,
sealed and type-checked, and never written at run time.
"""

from __future__ import annotations

import dataclasses
import json
import os
import zlib
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from drills import __version__, paths
from drills.engine.problem import Problem
from drills.model import (
    Example,
    KeyPoint,
    Misconception,
    Narrowing,
    Option,
    Part,
    Question,
    Rubric,
    Source,
    Tolerance,
)
from drills.packs import leaks
from drills.packs.cacheschema import Schema, build
from drills.packs.meta import PackMeta

PREBUILT = "_bank.json"  # in the package folder, next to drills/questions
FORMAT = 8  # bump when a cached type changes shape (4: each pack's exact answers; 5: defaults left out;
# 6: scenarios' steps and parts; 7: concept rubrics; 8: entries sealed, {"sum", "text"})
MAX_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64  # a question nests a scenario's steps, rubrics, problems: far less than this
_TYPES: dict[str, type] = {t.__name__: t for t in
                           (Question, Option, Problem, Tolerance, Narrowing, Source, Part, PackMeta,
                            Rubric, KeyPoint, Misconception, Example)}
_LAZY_TYPES = {"CodeTask": "drills.coding.task"}  # imported when a cached pack has one


def _type(name: str) -> type | None:
    if name in _LAZY_TYPES and name not in _TYPES:
        import importlib  # stdlib, already loaded: the lazy part is the module named

        _TYPES[name] = getattr(importlib.import_module(_LAZY_TYPES[name]), name)
    return _TYPES.get(name)


class CacheError(ValueError):
    """The cached text is not what this version of drills wrote."""


_SCHEMA = Schema()
_DAMAGE = (CacheError, KeyError, TypeError, ValueError, AttributeError, ArithmeticError,
           RecursionError, UnicodeError)  # ProblemError is a ValueError


def encode(value: Any) -> Any:
    """A JSON-able form that keeps dataclasses, tuples and non-string dict keys apart."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if _type(name) is None:
            raise CacheError(f"cannot cache a {name}")
        # a field at its default is left out (most of a Question's are): a smaller file, a faster load
        return {"@": name, **{f.name: encode(v) for f in dataclasses.fields(value)
                              if not _is_default(f, v := getattr(value, f.name))}}
    if isinstance(value, tuple):
        return {"@t": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, Mapping):
        return {"@d": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, Fraction):  # RBP's persistence
        return {"@f": str(value)}
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise CacheError(f"cannot cache a {type(value).__name__}")


def _is_default(f: dataclasses.Field, value: Any) -> bool:
    if f.default is not dataclasses.MISSING:
        return type(value) is type(f.default) and value == f.default
    if f.default_factory is not dataclasses.MISSING:
        default = f.default_factory()
        return type(value) is type(default) and value == default
    return False


_PLAIN = (str, int, float, bool, type(None))


def decode(value: Any, depth: int = 0) -> Any:
    """The value ``encode`` made, each record's fields type-checked; CacheError otherwise."""
    if type(value) in _PLAIN:  # most values: return at once
        return value
    if depth > MAX_DEPTH:
        raise CacheError("the pack cache nests too deep")
    if isinstance(value, list):
        return [decode(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return _object(value, lambda v: decode(v, depth + 1))
    raise CacheError("a value of an unknown type in the pack cache")


def _same(value: Any) -> Any:
    return value


def _loads(text: str) -> Any:
    """``decode(json.loads(text))`` in one pass: the JSON reader hands each object to
    ``_object`` as it is read, innermost first, so no second walk over every value. An object
    without a tag may only be the outermost one (the entry itself: read last). Depth is
    bounded by the JSON reader, whose RecursionError is damage like any other."""
    outer: list[dict[str, Any]] = []

    def hook(value: dict[str, Any]) -> Any:
        if outer:  # an untagged object was read before this one: it was not the outermost
            raise CacheError("an untagged object inside a pack cache entry")
        if "@t" in value or "@f" in value or "@d" in value or "@" in value:
            return _object(value, _same)
        outer.append(value)
        return value

    return json.loads(text, object_hook=hook)


def _object(value: dict[str, Any], inner: Any) -> Any:
    """A tagged object: a tuple, a fraction, a mapping or a record, its parts decoded by
    ``inner`` (``_same`` when the JSON reader decoded them already)."""
    if "@t" in value:
        items = value["@t"]
        if not isinstance(items, list):
            raise CacheError("a damaged tuple in the pack cache")
        return tuple(items) if inner is _same else tuple(map(inner, items))
    if "@f" in value:
        try:
            return Fraction(value["@f"])
        except (TypeError, ValueError, ZeroDivisionError):
            raise CacheError("a damaged fraction in the pack cache") from None
    if "@d" in value:
        pairs = value["@d"]
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise CacheError("a damaged mapping in the pack cache")
        try:
            return dict(pairs) if inner is _same else {inner(k): inner(v) for k, v in pairs}
        except TypeError:  # an unhashable key
            raise CacheError("a damaged mapping key in the pack cache") from None
    name = value.get("@", "")
    cls = _type(name) if isinstance(name, str) else None
    if cls is None:
        raise CacheError("unknown record in the pack cache")
    if inner is _same:  # the JSON reader's own fresh object: decoded already
        fields = value
        del fields["@"]
    else:
        fields = {k: inner(v) for k, v in value.items() if k != "@"}
    task = fields.get("task") if cls is Question else None  # annotated Any: a CodeTask or None
    if task is not None and type(task).__name__ != "CodeTask":
        raise CacheError("a damaged code task in the pack cache")
    bad = _SCHEMA.bad_field(cls, fields)
    if bad is not None:
        raise CacheError(f"a {name} with a damaged field {bad!r} in the pack cache")
    try:
        return build(cls, fields)
    except _DAMAGE as exc:
        raise CacheError(str(exc)) from None


def key_of(path: Path, builtin: bool) -> str | None:
    """The cache key of a pack file, or None when it cannot be looked at."""
    try:
        real = path.resolve()
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
        self.used: dict[str, Any] = {}
        self.dirty = False
        self.damaged = 0  # entries dropped as damaged (read again from their YAML)
        if path is not None:
            self._read(path)

    def _read(self, path: Path) -> None:
        try:
            if path.stat().st_size > MAX_BYTES:
                return
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            self.dirty = True
            return
        if isinstance(data, dict) and data.get("version") == f"{__version__}/{FORMAT}":
            entries = data.get("entries")
            if isinstance(entries, dict):
                self.entries = entries

    def get(self, key: str) -> tuple[PackMeta, tuple[Question, ...]] | None:
        sealed = self.entries.get(key)
        if sealed is None:
            return None
        try:
            raw = _unseal(sealed)  # decoded as it is read (_loads)
            meta, questions = raw["meta"], raw["questions"]
            if not isinstance(meta, PackMeta) or not isinstance(questions, tuple) or not all(
                    isinstance(q, Question) for q in questions):
                raise CacheError("not a pack")
        except _DAMAGE:
            self.dirty = True
            self.damaged += 1
            return None
        self.used[key] = sealed
        _remember(_answered(questions), raw.get("answers"))
        return meta, questions

    def put(self, key: str, meta: PackMeta, questions: tuple[Question, ...]) -> None:
        if self.path is None:  # no cache to write: nothing to keep
            return
        try:
            self.used[key] = _entry(meta, questions)
        except CacheError:
            return
        self.dirty = True

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
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({"version": f"{__version__}/{FORMAT}", "entries": self.used}),
                           encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:  # a full disk, say: the history needs the room more than the cache
            try:
                tmp.unlink()
            except OSError:
                pass


def _entry(meta: PackMeta, questions: tuple[Question, ...]) -> dict[str, str]:
    """One pack's sealed entry, with its exact answers (computed once per parse, for the planner)."""
    answered = _answered(questions)  # a scenario's steps have answers too
    answers = [leaks.answer_digits(q) for q in answered]
    _remember(answered, answers)
    return _seal({"meta": encode(meta), "questions": encode(questions), "answers": answers})


def _seal(raw: dict[str, Any]) -> dict[str, str]:
    text = json.dumps(raw, separators=(",", ":"))
    return {"sum": _sum(text), "text": text}


def _sum(text: str) -> str:
    """CRC-32 of the text: it detects damage and edits; no checksum could stop a forger who can
    write DRILLS_HOME (the packs there are as open), so a fast one serves."""
    return f"{zlib.crc32(text.encode('utf-8', 'surrogatepass')):08x}"


def _unseal(sealed: Any) -> dict[str, Any]:
    """The entry a seal holds, if its text is what was sealed; CacheError otherwise."""
    if not isinstance(sealed, dict) or not isinstance(sealed.get("text"), str) \
            or not isinstance(sealed.get("sum"), str):
        raise CacheError("an unsealed pack cache entry")
    text = sealed["text"]
    if _sum(text) != sealed["sum"]:
        raise CacheError("a pack cache entry that was changed")
    raw = _loads(text)
    if not isinstance(raw, dict):
        raise CacheError("a damaged pack cache entry")
    return raw


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
    """``$DRILLS_HOME/cache/packs.json``; None when DRILLS_HOME is not a usable folder."""
    folder = paths.home()
    return folder / "cache" / "packs.json" if folder.is_dir() else None


def prebuilt_path() -> Path | None:
    """``drills/_bank.json``, the built-in packs parsed when the wheel was built; None in a
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


def build_prebuilt(folder: Path) -> dict[str, Any]:
    """The document ``drills/_bank.json`` holds for the built-in packs in ``folder``: each pack
    that loads without errors, parsed as built in and sealed, under its ``content_key``.
    The wheel's build hook calls it; so does the test that checks it against a fresh parse."""
    from drills.packs.load import expand, load_pack  # the YAML reader: a build-time need

    files, _ = expand([folder])
    entries: dict[str, Any] = {}
    for f in files:
        pack = load_pack(f, builtin=True)
        key = content_key(f)
        if pack.ok and pack.meta is not None and key is not None:
            entries[key] = _entry(pack.meta, pack.questions)
    return {"version": f"{__version__}/{FORMAT}", "entries": entries}
