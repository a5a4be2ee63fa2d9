"""Text from packs, file names and the learner, made safe to show in a terminal.

A terminal obeys control characters: ESC starts sequences that can set the clipboard
(OSC 52), plant links (OSC 8), set the title, clear the screen or hide text; a C1
character (U+0080-U+009F) can do the same on terminals that read them; a carriage
return overwrites a line; bidirectional overrides reorder what is shown (Trojan
Source). Everything drills prints that it did not write itself passes through
``visible``, which shows such characters instead of sending them: ESC as ``^[``, other
C0 characters in caret notation (``^G``, ``^M``), DEL as ``^?``, C1 as ``\\x9b`` and
the invisible bidi and zero-width controls as ``<U+202E>``. Newline and tab are kept.

``terminal_text`` is the last gate before the screen: it lets through only the colour
sequences drills itself writes (``Style.paint``) and shows every other control.
Pure: no terminal library, no I/O.
"""

from __future__ import annotations

import json
import re
from typing import Any

# C0 but newline and tab, DEL, C1; the bidi embeddings, overrides and isolates; the
# zero-width and direction marks that hide or reorder text; the BOM mid-text.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e"
                     "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]")
# Only the colour sequences drills writes: bold, dim, red, green, yellow, cyan, reset.
_OWN_SGR = re.compile(r"\x1b\[(?:(?:1|2|31|32|33|36)(?:;(?:1|2|31|32|33|36))*|0)m")


def _show(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return "^" + chr(code + 0x40)  # ESC -> ^[, BEL -> ^G, CR -> ^M
    if code == 0x7F:
        return "^?"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def visible(text: str) -> str:
    """``text`` with every control character shown as printable text, not sent."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(lambda m: _show(m.group(0)), text)


def first_control(text: str) -> str | None:
    """The first unsafe character as ``U+001B`` (for pack validation), or None."""
    m = _UNSAFE.search(text)
    return None if m is None else f"U+{ord(m.group(0)):04X}"


def shorten(text: str, width: int, placeholder: str = "...") -> str:
    """At most ``width`` characters of visible text; a cut ends in ``placeholder``.

    The text is made visible first and each shown control (``^[``, ``<U+202E>``) is one
    unit, so a cut never leaves half of one.
    """
    units = [_show(ch) if _UNSAFE.match(ch) else ch for ch in text]
    if sum(len(u) for u in units) <= width:
        return "".join(units)
    room, out = max(0, width - len(placeholder)), []
    for unit in units:
        if len(unit) > room:
            break
        out.append(unit)
        room -= len(unit)
    return "".join(out) + placeholder


def terminal_text(text: str) -> str:
    """The last gate: drills' own colour codes pass, every other control is shown."""
    if "\x1b" not in text:
        return visible(text)
    out, pos = [], 0
    for m in _OWN_SGR.finditer(text):
        out.append(visible(text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(visible(text[pos:]))
    return "".join(out)


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064"
                          "\u2066-\u2069\ufeff\ud800-\udfff]")


def json_text(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` that escapes C1 and bidi controls too (json escapes only C0).

    Those characters appear only inside JSON strings, where ``\\u0085`` is a valid
    escape, so the result parses to the same value.
    """
    text = json.dumps(value, **kwargs)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``1 question``, ``2 questions``; ``many`` for irregular plurals."""
    return f"{n:,} {noun if n == 1 else many or noun + 's'}"
