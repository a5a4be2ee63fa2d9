"""Pack text as the HTML of an Anki field: control characters removed, escaped, and prose
reflowed (``flowing``): the lines a YAML author hard-wrapped joined into paragraphs, so a
phone wraps them, while real breaks stay (a blank line, a list item, an indented table,
one equation under another, a short line that ends a statement); inline code in backticks
becomes ``<code>``, and no backtick is left raw.

Pure text (imports only the standard library); ``drills.publish.anki`` builds the notes.
"""

from __future__ import annotations

import html
import re

# C0 controls but newline and tab, DEL, C1, bidi and zero-width controls, BOM, lone surrogates.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e"
                      "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]")
_LIST_ITEM = re.compile(r"([-*]|\d+[.)]|[a-h]\))\s+")  # "p) is" ends a parenthesis
_EQUATION = re.compile(r"\S{1,14}\s+=\s")  # "DCG@4 = ...": a line of a computation
_CODE = re.compile(r"(`+)(.+?)\1", re.S)  # `x`, or ``x`` around a backtick
_STRAY = re.compile(r" ?`+")  # a backtick with no pair: dropped
HARD_WRAPPED = 60  # a line at least this long, followed by more of its paragraph, was wrapped by hand


def clean(text: str) -> str:
    """Text with control characters removed, line ends as newlines and tabs as spaces."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n")).expandtabs(4)


def esc(text: str) -> str:
    """Pack text for a field: escaped (``<k>`` stays text), newlines as ``<br>``."""
    return html.escape(clean(text).strip("\n"), quote=False).replace("\n", "<br>")


def pre(text: str) -> str:
    """A block shown as written (code, a worked table): escaped, in ``<pre>``."""
    return f"<pre>{esc(text)}</pre>" if text.strip() else ""


def _joins(line: str, after: str) -> bool:
    """Does ``after`` continue the paragraph of ``line`` (a hard-wrapped line)?"""
    if not after.strip() or after[0].isspace() or _LIST_ITEM.match(after) or after.startswith("Answer:"):
        return False
    if line.rstrip()[-1:].islower() or line.rstrip().endswith(","):  # mid-sentence, unless a
        return not (_LIST_ITEM.match(line) and after[0].isupper())  # short item, then a new line
    # "DCG = ..." after a full line starts a computation: kept on a line of its own
    return len(line.rstrip()) >= HARD_WRAPPED and not _EQUATION.match(after)


def paragraphs(text: str) -> list[str]:
    """The logical lines of ``text``: hard-wrapped prose joined (a list item with its
    indented continuation lines); blank, indented and statement lines kept as they are."""
    out: list[str] = []
    last = ""  # the last physical line of out[-1]
    item = 0  # the width of the open list item's marker, 0 outside a list item
    for line in clean(text).strip("\n").splitlines():
        line = line.rstrip()
        if out and line.strip() and (
                (item and len(line) - len(line.lstrip()) == item and not last[0].isspace()
                 and not _LIST_ITEM.match(line.lstrip()))
                or (last.strip() and not last[0].isspace() and _joins(last, line))):
            out[-1] += " " + line.strip()
            last = line.strip()
            continue
        marker = _LIST_ITEM.match(line)
        item = marker.end() if marker else 0
        out.append(line)
        last = line
    return out


def _code(match: re.Match[str]) -> str:
    """Inline code: its spaces collapsed, a backtick inside it as an entity."""
    return f"<code>{' '.join(match.group(2).split()).replace('`', '&#96;')}</code>"


def flowing(text: str) -> str:
    """Prose for a field: reflowed (``paragraphs``), escaped, inline code in ``<code>``,
    line breaks as ``<br>``; an unpaired backtick is dropped."""
    body = html.escape("\n".join(paragraphs(text)), quote=False)
    return _STRAY.sub("", _CODE.sub(_code, body)).replace("\n", "<br>")
