"""The pack cache's file: one JSON line of entries, then the questions' texts as raw bytes.

A launch parses only the first line: each pack's sealed head (its meta, its questions'
heads, their exact answers, and where each question's text lies in the pack's *chunk*)
and where that chunk lies in the data after the line. The questions' texts (nine tenths
of the bytes) are not scanned as JSON until one is read (drills.packs.cached.unread).

    {"version": "<drills>/<format>", "entries": {key: {"sum", "text", "base", "size"}}}\\n
    <chunk of the first entry><chunk of the second>...

An entry's ``sum`` is the CRC-32 of its head text followed by that of its chunk, so a
changed head, chunk, base or size is found as the entry is read (``unseal``); the data
section of a damaged file seals nothing. Everything here is data: no code runs from it.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from typing import Any

Chunk = bytes | memoryview


class LayoutError(ValueError):
    """Not a pack cache file, or an entry that is not what was sealed."""


def seal(head: str, chunk: Chunk) -> str:
    """CRC-32 of an entry's head text and of its chunk: it detects damage and edits; no
    checksum could stop a forger who can write DRILLS_HOME (the packs there are as open),
    so a fast one serves."""
    return f"{zlib.crc32(head.encode('utf-8', 'surrogatepass')):08x}{zlib.crc32(chunk):08x}"


def file_bytes(version: str, used: Mapping[str, tuple[dict[str, str], Chunk]]) -> bytes:
    """The file for ``used`` (key -> ({"sum", "text"}, chunk)): the chunks laid end to end."""
    entries: dict[str, Any] = {}
    chunks: list[Chunk] = []
    base = 0
    for key, (sealed, chunk) in used.items():
        entries[key] = {"sum": sealed["sum"], "text": sealed["text"], "base": base, "size": len(chunk)}
        chunks.append(chunk)
        base += len(chunk)
    line = json.dumps({"version": version, "entries": entries}, separators=(",", ":"))
    return line.encode("utf-8") + b"\n" + b"".join(chunks)


def parse_file(raw: bytes, version: str) -> tuple[dict[str, Any], memoryview]:
    """The entries of a file of ``version`` and its data section; LayoutError otherwise."""
    end = raw.find(b"\n")
    if end < 0:
        raise LayoutError("not a pack cache file")
    doc = json.loads(raw[:end])  # ValueError (and RecursionError) for a damaged line
    if not isinstance(doc, dict) or doc.get("version") != version or not isinstance(doc.get("entries"), dict):
        raise LayoutError("a pack cache file of another version")
    return doc["entries"], memoryview(raw)[end + 1:]


def unseal(sealed: Any, data: Chunk) -> tuple[str, Chunk]:
    """The head text and the chunk of an entry of ``data``'s file, if they are what was
    sealed; LayoutError otherwise."""
    if not isinstance(sealed, dict):
        raise LayoutError("an unsealed pack cache entry")
    text, total, base, size = sealed.get("text"), sealed.get("sum"), sealed.get("base"), sealed.get("size")
    if type(text) is not str or type(total) is not str or type(base) is not int or type(size) is not int \
            or base < 0 or size < 0 or base + size > len(data):
        raise LayoutError("an unsealed pack cache entry")
    chunk = data[base:base + size]
    if seal(text, chunk) != total:
        raise LayoutError("a pack cache entry that was changed")
    return text, chunk


__all__ = ["Chunk", "LayoutError", "file_bytes", "parse_file", "seal", "unseal"]
