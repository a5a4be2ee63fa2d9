"""The card a graded concept answer gets: the verdict, each wrong belief named with its
correction and the learner's words, the points made (with their words) and missed, and
the keys: at most CARD_LINES lines at any width, so the verdict never scrolls away.
The model answer is one key away (``s``)."""

from __future__ import annotations

from typing import Any

from drills.display import Style
from drills.grading.reveal import verdict_line
from drills.safetext import shorten

CARD_LINES = 12
COLORS = {"correct": "green", "partial": "yellow", "wrong": "red"}
FOOTER = "s model answer  :override disagree  rate recall 1-4 again/hard/good/easy"


def _fit(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` wrapped to ``width`` in at most two lines (the second shortened)."""
    style = Style(False, width)
    lines = style.wrap(text, indent).splitlines() or [""]
    if len(lines) > 2:
        lines = [lines[0], shorten(" ".join(x.strip() for x in lines[1:]), width - 1 - len(indent))]
        lines[1] = indent + lines[1]
    return lines


def concept_card(grade: Any, style: Style, *, rated: bool = False) -> str:
    """The card for ``grade`` (drills.grading.concept.grade.ConceptGrade); ``rated``: the
    learner's rating is already in (a report or a replay), so no keys line."""
    width = max(30, style.width)
    color = COLORS.get(grade.verdict, "red")
    head = [style.paint(line, color, "bold") for line in _fit(verdict_line(grade), width)]
    beliefs: list[str] = []
    for m in grade.misconceptions[:2]:
        beliefs += [style.paint(line, "bold") if i == 0 else line
                    for i, line in enumerate(_fit(f"Wrong belief: {m.correction}", width, "  "))]
        beliefs += _fit(f'  you said: "{m.evidence}"', width, "    ")[:1]
    made = [f"  {style.paint('[x]', 'green')} " + shorten(f'{p.text} - "{p.evidence}"', width - 7)
            for p in grade.made]
    def miss(p: Any) -> str:
        return f"  {style.paint('[ ]', 'red')} " + shorten(p.text, width - 7)
    foot = [] if rated else [style.paint(shorten(FOOTER, width - 1), "cyan")]
    room = CARD_LINES - len(head) - len(foot)
    body = beliefs[:room]
    room -= len(body)
    # Missed required points first, then the points made, then the rest missed.
    required_missed = [miss(p) for p in grade.missed if p.required]
    rest_missed = [miss(p) for p in grade.missed if not p.required]
    for group, title in ((required_missed, "Missed (required):"), (made, "You made:"), (rest_missed, "Not mentioned:")):
        if not group or room < 2:
            continue
        shown = group[: room - 1]
        if len(shown) < len(group):
            shown[-1:] = [f"  ... and {len(group) - len(shown) + 1} more"]
        body += [style.paint(title, "bold"), *shown]
        room -= 1 + len(shown)
    return "\n".join(head + body + foot)
