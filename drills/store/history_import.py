"""Reading another machine's history export: the file's shape first, then each row.

An export is untrusted input: it is read with a size cap, decoded with ``json.loads``
only, and must have the shape ``drills history export --format json`` writes (see
drills.store.history_export and docs/history.md), or the bare list of answers an older drills
wrote. A file that is not an export at all is an ``ExportError`` (one line, before
anything is written); a row that is damaged (a missing field, a wrong type, an unknown
verdict) is only that row: ``check_session``, ``check_card`` and
``drills.store.attempt.attempt_from_row`` raise ValueError for it and the caller skips
it. Light: no sqlite3, no fsrs until a card is checked.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from drills.store.attempt import MODES, is_uid
from drills.store.connection import parse_utc, utc_text
from drills.store.history_export import EXPORT_VERSION
from drills.store.jsonvalues import plain, size

MAX_BYTES = 128 * 1024 * 1024  # a 100,000-answer export is about 60 MB
MAX_SEED = 2**63 - 1
MAX_OPTIONS = 64 * 1024  # a session's options as JSON: a few hundred bytes in practice
MAX_REPORT = 1024 * 1024  # a mock's report: a few kB per question
MAX_INTERVAL_DAYS = 36_500  # fsrs' longest interval: a card due later than this is damaged
MAX_REVIEWS = 1_000_000


class _NonFinite:
    """What NaN or Infinity in an export reads as: no row holding one is stored."""

    def __repr__(self) -> str:
        return "NaN"


NON_FINITE = _NonFinite()
_LEGACY_KEYS = ("attempt_id", "session_id", "answered_at", "question_id", "verdict")


class ExportError(ValueError):
    """The file is not a drills export (or cannot be read): one line naming it."""


@dataclass
class Export:
    """One export file as read: its rows still unchecked (they are checked one by one)."""

    path: str
    learner: str | None
    attempts: list[Any] = field(default_factory=list)
    sessions: list[Any] = field(default_factory=list)
    review_cards: list[Any] = field(default_factory=list)
    legacy: bool = False  # the bare list of answers written before exports had uids


def read_export(path: str) -> Export:
    """Read and shape-check the export ``path``; ExportError says why it is not one."""
    data = _load(path, _read_bytes(path))
    if isinstance(data, list):
        return _legacy(path, data)
    if not isinstance(data, dict):
        kind = {str: "a string", bool: "true or false", type(None): "null"}.get(
            type(data), "a number")
        raise ExportError(f"{path} is not a drills export (JSON {kind}, not an object)")
    if "drills_export" not in data:
        raise ExportError(f'{path} is not a drills export (a JSON object without "drills_export")')
    version = data["drills_export"]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ExportError(f"{path} is not a drills export (drills_export is {version!r})")
    if version > EXPORT_VERSION:
        raise ExportError(f"{path} was written by a newer drills (export format {version}); "
                          "upgrade drills to import it")
    learner = data.get("learner")
    if learner is not None and not isinstance(learner, str):
        raise ExportError(f"{path} is not a drills export (learner is not text)")
    lists = {}
    for key in ("attempts", "sessions", "review_cards"):
        value = data.get(key, [])
        if not isinstance(value, list):
            raise ExportError(f"{path} is not a drills export ({key} is not a list)")
        lists[key] = value
    name = " ".join(learner.split())[:80] if learner else None
    return Export(path, name or None, **lists)


def _read_bytes(path: str) -> bytes:
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise ExportError(f"{path} is a folder, not an export file")
        if not stat.S_ISREG(st.st_mode):
            raise ExportError(f"{path} is not a regular file")
        if st.st_size > MAX_BYTES:
            raise ExportError(f"{path} is larger than {MAX_BYTES // (1024 * 1024)} MB; "
                              "that is not a drills export")
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ExportError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:  # it grew while we looked
        raise ExportError(f"{path} is larger than {MAX_BYTES // (1024 * 1024)} MB; "
                          "that is not a drills export")
    return raw


def _load(path: str, raw: bytes) -> Any:
    if b"\x00" in raw[:8192]:
        raise ExportError(f"{path} is not a drills export (a binary file)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ExportError(f"{path} is not a drills export (not UTF-8 text: byte "
                          f"{exc.start})") from None
    if text.lstrip().startswith("attempt_id,"):
        raise ExportError(f"{path} is the CSV export; a drills export to read is the JSON "
                          "one (drills history export --format json)")
    try:  # NaN and Infinity are not JSON: read as a marker, so only their rows are damaged
        return json.loads(text, parse_constant=lambda _: NON_FINITE)
    except RecursionError:
        raise ExportError(f"{path} is not a drills export (JSON nested too deep)") from None
    except ValueError as exc:
        where = (f" at line {exc.lineno} column {exc.colno}"
                 if isinstance(exc, json.JSONDecodeError) else "")
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise ExportError(f"{path} is not a drills export (not JSON{where}: {why})") from None


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:32]


def _legacy(path: str, rows: list[Any]) -> Export:
    """The bare list of answers an older drills exported: uids are derived from each
    row's content (so importing the file twice adds nothing), and each of its session ids
    becomes a session started at its first answer (its mode is not known: practice)."""
    if rows and not (isinstance(rows[0], dict) and all(k in rows[0] for k in _LEGACY_KEYS)):
        raise ExportError(f"{path} is not a drills export (a JSON list, but not of answers)")
    firsts: dict[str, str] = {}
    for row in rows:
        if isinstance(row, dict) and isinstance(row.get("answered_at"), str):
            key = json.dumps(row.get("session_id"))
            firsts[key] = min(firsts.get(key, row["answered_at"]), row["answered_at"])
    sessions = {key: {"uid": _digest("session", key, first), "mode": "practice", "seed": None,
                      "options": {"legacy_export": True}, "started_at": first,
                      "ended_at": None, "score": None, "total": None, "report": None}
                for key, first in firsts.items()}
    attempts = []
    for row in rows:
        if isinstance(row, dict) and "uid" not in row:
            canon = json.dumps(row, sort_keys=True, ensure_ascii=False, default=str)
            session = sessions.get(json.dumps(row.get("session_id")))
            row = {**row, "uid": _digest("attempt", canon),
                   "session_uid": session["uid"] if session else None}
        attempts.append(row)
    return Export(path, None, attempts, list(sessions.values()), [], legacy=True)


def timestamp(value: Any, key: str) -> datetime:
    """A timestamp field as an aware UTC datetime; ValueError when it is not one."""
    if not isinstance(value, str) or len(value) > 64:
        raise ValueError(f"{key} must be a time, not {value!r}"[:120])
    try:
        when = parse_utc(value)
        if when.tzinfo is not timezone.utc:  # utc_text of a UTC time cannot fail: no need to try
            utc_text(when)
    except (ValueError, OverflowError):
        raise ValueError(f"{key} must be a time, not {value!r}"[:120]) from None
    return when


def _whole(row: dict[str, Any], key: str, high: int) -> int | None:
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise ValueError(f"{key} must be a whole number from 0 to {high}, not {value!r}"[:120])
    return value


def check_session(row: Any) -> dict[str, Any]:
    """An exported session, checked: ``uid, mode, seed, options, started_at, ended_at,
    score, total, report`` ready to store (times as ``utc_text``, objects as dicts)."""
    if not isinstance(row, dict):
        raise ValueError("a session must be an object")
    if not is_uid(row.get("uid")):
        raise ValueError(f"uid must be 32 lowercase hex digits, not {row.get('uid')!r}"[:120])
    if row.get("mode") not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {row.get('mode')!r}"[:120])
    options, report = row.get("options") or {}, row.get("report")
    if not isinstance(options, dict) or not (report is None or isinstance(report, dict)):
        raise ValueError("options and report must be objects")
    if not plain(options) or not plain(report):
        raise ValueError("options and report must hold finite numbers, nested at most 32 deep")
    if size(options) > MAX_OPTIONS or size(report) > MAX_REPORT:
        raise ValueError(f"options over {MAX_OPTIONS // 1024} kB or a report over "
                         f"{MAX_REPORT // (1024 * 1024)} MB")
    ended = row.get("ended_at")
    return {"uid": row["uid"], "mode": row["mode"], "seed": _whole(row, "seed", MAX_SEED),
            "options": options, "started_at": utc_text(timestamp(row.get("started_at"),
                                                                 "started_at")),
            "ended_at": None if ended is None else utc_text(timestamp(ended, "ended_at")),
            "score": _whole(row, "score", 10**9), "total": _whole(row, "total", 10**9),
            "report": report}


def check_card(row: Any) -> dict[str, Any]:
    """An exported review card, checked (fsrs must read the card): ``item_key, card``
    (the JSON text to store, as fsrs wrote it), ``due, reviews, updated_at``."""
    from fsrs import Card

    if not isinstance(row, dict):
        raise ValueError("a review card must be an object")
    key, card = row.get("item_key"), row.get("card")
    if not isinstance(key, str) or not 0 < len(key) <= 1000:
        raise ValueError(f"item_key must be text, not {key!r}"[:120])
    if not isinstance(card, dict) or not plain(card) or size(card) > 4096:
        raise ValueError("card must be an object of finite values")
    for name, low, high in (("stability", 0, 1e6), ("difficulty", 0, 11)):
        value = card.get(name)
        if value is not None and not (isinstance(value, (int, float)) and low <= value <= high):
            raise ValueError(f"card {name} must be from {low} to {high:g}")
    try:
        Card.from_dict(card)  # type: ignore[arg-type]
    except Exception as exc:  # noqa: BLE001 - whatever fsrs raises, the card is unusable
        raise ValueError(f"card is not one fsrs can read ({type(exc).__name__})") from None
    reviews = _whole(row, "reviews", MAX_REVIEWS)
    due, updated = timestamp(row.get("due"), "due"), timestamp(row.get("updated_at"), "updated_at")
    # a card from the future wins every later merge: refused like an answer from the future
    if updated > datetime.now(timezone.utc) + timedelta(days=1):
        raise ValueError("a review card updated in the future")
    if due > updated + timedelta(days=MAX_INTERVAL_DAYS + 1):
        raise ValueError(f"a review card due more than {MAX_INTERVAL_DAYS:,} days after its review")
    return {"item_key": key, "card": json.dumps(card, allow_nan=False), "due": utc_text(due),
            "reviews": reviews or 0, "updated_at": utc_text(updated)}
