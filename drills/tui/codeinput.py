"""Getting a code answer: the learner's editor on a scaffold file, or lines ending with :end.

The scaffold lives in ``$DRILLS_HOME/code/<question id>.py`` and is kept, so ``:edit``
(or a later session, or ``drills code ID``) reopens what was written. The editor is
``$VISUAL`` or ``$EDITOR``, run as a command line (``code --wait``, ``vim``) on the file.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Iterable
from pathlib import Path

from drills.coding.text import SourceError, scaffold, source_text
from drills.model import Question
from drills.paths import home

END = ":end"  # a typed code answer ends with this line
QUIT = (":quit", ":q")  # typed instead, they cancel (``drills code ID``)


def editor() -> list[str] | None:
    """The editor's command line from $VISUAL or $EDITOR (None: neither is set)."""
    for name in ("VISUAL", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:
                words = [value]
            if words:
                return words
    return None


def code_file(question: Question) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in question.id)
    return home() / "code" / f"{safe}.py"


def scaffold_file(question: Question) -> Path:
    """The question's file, written with the scaffold unless it is already there."""
    path = code_file(question)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(scaffold(question), encoding="utf-8")
    return path


class EditorError(RuntimeError):
    """The editor could not be started or the file not read: a one-line reason."""


def edit(question: Question, command: list[str]) -> str | None:
    """Open the question's file in ``command``; its text afterwards, or None when the learner
    left the scaffold as it was (nothing to grade). An editor that exits with an error
    status (vim's :cq) cancels: nothing is submitted."""
    try:
        path = scaffold_file(question)
    except OSError as exc:
        raise EditorError(f"cannot write the code file: {exc.strerror or exc}") from None
    try:
        status = subprocess.run([*command, str(path)], check=False).returncode
    except OSError as exc:
        raise EditorError(f"cannot start the editor {command[0]!r}: {exc.strerror or exc}") from None
    if status != 0:
        raise EditorError(f"the editor exited with status {status}: nothing submitted "
                          f"(your file is kept: {path})")
    try:
        text = source_text(path.read_bytes(), str(path))
    except SourceError as exc:
        raise EditorError(str(exc)) from None
    except FileNotFoundError:
        raise EditorError(f"the editor removed {path}: nothing to submit") from None
    except OSError as exc:
        raise EditorError(f"cannot read {path}: {exc.strerror or exc}") from None
    if text.strip() == scaffold(question).strip():
        return None
    return text


def typed_code(lines: list[str]) -> str | None:
    """The code typed so far when its last line is :end (None: not finished yet)."""
    if not lines or lines[-1].strip().lower() != END:
        return None
    return "\n".join(lines[:-1]) + "\n"


def read_typed(lines: Iterable[str]) -> str | None:
    """A function typed line by line up to a line :end (``drills code ID`` with no editor).
    None: cancelled by :quit, or nothing typed. Input that ends without :end gives what was
    typed, as piped practice does."""
    pending: list[str] = []
    for line in lines:
        text = line.rstrip("\r\n")
        if text.strip().lower() in QUIT:
            return None
        pending.append(text)
        code = typed_code(pending)
        if code is not None:
            return code if code.strip() else None
    return "\n".join(pending) + "\n" if any(line.strip() for line in pending) else None
