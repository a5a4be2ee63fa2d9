"""Read a pack file into plain Python values without trusting it.

Packs come from other people, so we never construct arbitrary YAML objects:
libyaml's event stream (CSafeLoader's parser, SafeLoader's as a fallback) is
turned into dicts, lists and scalars here, which lets us

- keep the line of every value, for ``file:line`` errors;
- reject duplicate keys (safe_load silently keeps the last one);
- reject every tag that is not a plain YAML type (``!!python/...`` included)
  before anything is built, so nothing in the file can run;
- stop alias bombs and absurd nesting early: aliases share the already-built
  value, their expanded size is counted arithmetically, and the event stream is
  abandoned as soon as a cap is crossed (composing a deeply nested document
  crashes libyaml's composer and is quadratic in depth);
- remember the source text of scalars YAML 1.1 retyped (``NO`` -> False,
  ``1.10`` -> 1.1) so error messages can quote what the author wrote.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import yaml

from drills.packs.errors import PackError, field_name
from drills.packs.yamlbuild import INVALID, Builder, Document, Stop

MAX_FILE_BYTES = 2 * 1024 * 1024  # checked with fstat() first; never more than this + 1 is read
MAX_ALIASES = 100  # alias uses (*name) per file
MAX_NODES = 2_000_000  # values after alias expansion; a 2 MiB file without aliases stays under
MAX_DEPTH = 64  # nesting of lists/mappings; real packs use about 6
NOT_REGULAR = "not a regular file (a pack is a .yaml file, not a device, FIFO or folder)"

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

__all__ = ["INVALID", "Document", "MAX_ALIASES", "MAX_DEPTH", "MAX_FILE_BYTES", "MAX_NODES",
           "parse_text", "read_file"]


def read_file(path: str | Path, name: str | None = None) -> Document:
    """Read and parse ``path``: a regular file (after symlinks), at most MAX_FILE_BYTES, UTF-8.

    Devices and FIFOs are refused before they are opened (a FIFO would block on open,
    /dev/zero never ends), and at most MAX_FILE_BYTES + 1 bytes are ever read.
    """
    shown = name if name is not None else str(path)
    doc = Document(shown)
    try:
        data = _read_capped(path)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise Stop(data.count(b"\n", 0, exc.start) + 1,
                       f"not UTF-8 text (byte 0x{data[exc.start]:02x}); save the file as UTF-8") from None
    except Stop as stop:
        doc.errors.append(PackError(shown, stop.line, "", stop.message))
        doc.fatal = True
        return doc
    except OSError as exc:
        why = "a symbolic link loop" if exc.errno == errno.ELOOP else f"cannot read: {exc.strerror or exc}"
        doc.errors.append(PackError(shown, 0, "", why))
        doc.fatal = True
        return doc
    return parse_text(text, shown, doc)


def _too_big(size: int | None) -> Stop:
    what = f"is {size:,} bytes" if size is not None else f"is more than {MAX_FILE_BYTES:,} bytes"
    return Stop(0, f"file {what}; packs are limited to {MAX_FILE_BYTES:,} bytes (split it into several packs)")


def _read_capped(path: str | Path) -> bytes:
    """The bytes of the regular file ``path``; Stop if it is anything else or too big."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise Stop(0, NOT_REGULAR)
    # O_NONBLOCK: should the path become a FIFO after the check, open still returns at once.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Stop(0, NOT_REGULAR)
        if st.st_size > MAX_FILE_BYTES:  # say how big, without reading it
            raise _too_big(st.st_size)
        data = fh.read(MAX_FILE_BYTES + 1)  # the size may be wrong (still growing, /proc)
    if len(data) > MAX_FILE_BYTES:
        raise _too_big(None)
    return data


def parse_text(text: str, name: str = "<string>", doc: Document | None = None) -> Document:
    """Parse YAML ``text`` into a Document; every problem becomes a PackError."""
    doc = doc if doc is not None else Document(name)
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:  # a lone surrogate (say "\ud800" from surrogateescape)
        doc.errors.append(PackError(name, text.count("\n", 0, exc.start) + 1, "",
                                    f"not UTF-8 text (a lone surrogate U+{ord(text[exc.start]):04X}); "
                                    "save the file as UTF-8"))
        doc.fatal = True
        return doc
    if size > MAX_FILE_BYTES:
        doc.errors.append(PackError(name, 0, "", f"more than {MAX_FILE_BYTES:,} bytes of YAML"))
        doc.fatal = True
        return doc
    try:
        Builder(doc, max_aliases=MAX_ALIASES, max_nodes=MAX_NODES,
                max_depth=MAX_DEPTH).run(text, _LOADER)
    except Stop as stop:
        doc.errors.append(PackError(name, stop.line, field_name(stop.path), stop.message))
        doc.fatal = True
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = str(exc.problem or exc.context or "cannot parse")
        if exc.context and exc.problem:
            what += f" {exc.context}"
            if exc.context_mark and mark and exc.context_mark.line != mark.line:
                what += f" that starts at line {exc.context_mark.line + 1}"
        if "mapping values are not allowed" in what:  # the commonest slip: "prompt: DCG@2: ..."
            what += " (text that contains ': ' must be quoted, or written as a | block)"
        if "nesting depth" in what:  # newer libyaml builds stop deep nesting before we see it
            what = f"nested more than {MAX_DEPTH} levels deep"
        else:
            what = f"invalid YAML: {what}"
        doc.errors.append(PackError(name, mark.line + 1 if mark else 0, "", what))
        doc.fatal = True
    except yaml.YAMLError as exc:  # ReaderError (control characters) has no mark
        position = getattr(exc, "position", None)
        line = text.count("\n", 0, position) + 1 if isinstance(position, int) else 0
        reason = getattr(exc, "reason", None) or str(exc)
        doc.errors.append(PackError(name, line, "", f"invalid YAML: {reason}"))
        doc.fatal = True
    if doc.fatal:
        doc.data = None  # a partly built document is never checked or used
    elif doc.data is None:
        doc.errors.append(PackError(name, 1, "", "the file is empty (expected a pack: `pack:` and `questions:`)"))
        doc.fatal = True
    return doc
