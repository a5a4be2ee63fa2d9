"""Reading and rewriting a pack cache file in tests, independently of drills.packs.cache: a
JSON line of entries, then each entry's chunk of question texts (drills.packs.cached.layout).

``read`` gives {key: {"head": the head as a dict, "questions": each question as a dict,
"sum": the seal}}; ``write`` lays them out again, each sealed anew but those named ``stale``,
which keep the seal they had: an edit of those is caught by it."""

from __future__ import annotations

import json
import zlib
from collections.abc import Collection
from pathlib import Path
from typing import Any


def cache_path(home: Path) -> Path:
    return home / "cache" / "packs.cache"


def read(path: Path) -> tuple[str, dict[str, dict[str, Any]]]:
    raw = path.read_bytes()
    line, _, data = raw.partition(b"\n")
    doc = json.loads(line)
    entries = {}
    for key, sealed in doc["entries"].items():
        chunk = data[sealed["base"]:sealed["base"] + sealed["size"]]
        head = json.loads(sealed["text"])
        questions = [json.loads(chunk[start:start + length]) for start, length in head["at"]]
        entries[key] = {"head": head, "questions": questions, "sum": sealed["sum"]}
    return doc["version"], entries


def write(path: Path, version: str, entries: dict[str, dict[str, Any]], *, stale: Collection[str] = (),
          raw_questions: dict[tuple[str, int], str] | None = None) -> None:
    """``raw_questions``: (key, index) -> a question's text as given (e.g. not JSON at all)."""
    out: dict[str, Any] = {}
    chunks, base = [], 0
    for key, entry in entries.items():
        texts = [(raw_questions or {}).get((key, i)) or json.dumps(q) for i, q in enumerate(entry["questions"])]
        blobs = [t.encode() for t in texts]
        at, start = [], 0
        for b in blobs:
            at.append([start, len(b)])
            start += len(b)
        head = dict(entry["head"], at=at)
        text, chunk = json.dumps(head), b"".join(blobs)
        total = entry["sum"] if key in stale else f"{zlib.crc32(text.encode()):08x}{zlib.crc32(chunk):08x}"
        out[key] = {"sum": total, "text": text, "base": base, "size": len(chunk)}
        chunks.append(chunk)
        base += len(chunk)
    path.write_bytes(json.dumps({"version": version, "entries": out}).encode() + b"\n" + b"".join(chunks))
