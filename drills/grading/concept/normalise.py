"""An answer's text made regular before it is read, keeping where each character came from.

Lower case, NFKC, one spelling for symbols (``≥`` is ``>=``, ``λ`` is ``lambda``), a dash
between words read as a comma, contractions written out (``doesn't`` is ``does not``).
Each character of the result remembers the offset of the character of the original text
it came from, so that the words quoted as evidence are the learner's own, at their place.
"""

from __future__ import annotations

import re
import unicodedata

# One character -> its spelling (only where the length changes or the meaning needs it).
SYMBOLS = {
    "’": "'", "‘": "'", "≥": ">=", "≤": "<=", "≠": "!=", "−": "-", "×": "x", "≈": "~",
    "—": ",", "λ": "lambda ", "α": "alpha ", "β": "beta ", "γ": "gamma ", "δ": "delta ",
    "Δ": "delta ", "μ": "mu ", "σ": "sigma ", "Σ": "sum ", "∑": "sum ", "→": "->", "⇒": "->",
}
# A dash between spaces separates clauses as a comma does ("the log - not the base - matters").
_SPACED_DASH = re.compile(r"(?<=\s)[-–](?=\s)")
_CONTRACTION = re.compile(
    r"\b(ca|wo|do|does|did|is|are|was|were|has|have|had|could|should|would|need|must)n't\b")
_CANNOT = re.compile(r"\bcannot\b")
_NT = re.compile(r"n't\b")


def normalise(text: str) -> tuple[str, list[int]]:
    """The regular text and, per character, its offset in ``text``."""
    if text.isascii():  # NFKC and the symbols change nothing here: one offset per character
        norm, where = _SPACED_DASH.sub(",", text.lower()), list(range(len(text)))
        if "'" not in norm and "cannot" not in norm:
            return norm, where
        return _contractions(norm, where)
    chars: list[str] = []
    where = []
    for i, ch in enumerate(text):
        out = SYMBOLS.get(ch) or unicodedata.normalize("NFKC", ch).lower()
        out = SYMBOLS.get(out, out) if len(out) == 1 else out
        chars.append(out)
        where.extend([i] * len(out))
    norm = "".join(chars)
    norm = _SPACED_DASH.sub(",", norm)  # same length: the offsets stay
    return _contractions(norm, where)


def _contractions(norm: str, where: list[int]) -> tuple[str, list[int]]:
    norm, where = _sub(_CONTRACTION, lambda m: {"ca": "can", "wo": "will"}.get(m.group(1), m.group(1))
                       + " not", norm, where)
    norm, where = _sub(_CANNOT, lambda m: "can not", norm, where)
    return _sub(_NT, lambda m: " not", norm, where)


def _sub(pattern: re.Pattern[str], repl, text: str, where: list[int]) -> tuple[str, list[int]]:
    """``pattern.sub(repl, text)`` that carries the offsets: the replacement's characters
    take the offsets of the characters they replace (the last one's beyond the end)."""
    parts: list[str] = []
    offsets: list[int] = []
    at = 0
    for m in pattern.finditer(text):
        parts.append(text[at:m.start()])
        offsets.extend(where[at:m.start()])
        new = repl(m)
        span = where[m.start():m.end()]
        parts.append(new)
        offsets.extend(span[min(k, len(span) - 1)] for k in range(len(new)))
        at = m.end()
    parts.append(text[at:])
    offsets.extend(where[at:])
    return "".join(parts), offsets
