"""Worksheets: the planned questions and an answer key, as plain text or Markdown.

Pure presentation (no click, no files): ``drills generate`` prints what these return.
Both renderings draw on one ``Key`` per question (answer, the engine's worked steps,
option notes, model answer, prose), so the two formats cannot drift apart.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from drills.coding.text import code_lines
from drills.display import Style
from drills.engine.exact import decimal_text, with_value
from drills.engine.table import NARROW_BELOW, Layout
from drills.grading.check import correct_answer
from drills.grading.reference import reference
from drills.grading.solution import worked_for
from drills.model import LETTERS, Question

WIDTH = 78
KEEP_WIDTH = 100  # an author's own line breaks are kept up to this width
# Never break a line inside (...) or [...]: "log2(i + 1)" and "[2, 1, 3, 0]" stay whole.
_GROUP = re.compile(r"\((?:[^()]|\([^()]*\)){0,40}\)|\[[^\[\]]{0,60}\]")
_GLUE = "\x00"


@dataclass(frozen=True)
class Key:
    """What the answer key says about one question."""

    answer: str  # "13/2 + 1/log2(3) = 7.13...", "b) 2^rel - 1", "(self-graded) model answer"
    worked: str | None = None  # the engine's worked steps (numeric)
    notes: tuple[str, ...] = ()  # the right option's own explanation (choice)
    model: str | None = None  # concept questions
    points: tuple[str, ...] = ()
    prose: str | None = None  # the question's explanation, unless an option note says it


def key(q: Question) -> Key:
    if q.kind == "numeric":
        ref = reference(q)
        return Key(with_value(ref.text, decimal_text(ref.decimal(), 15)), worked=worked_for(q),
                   prose=q.prose or None)
    if q.kind == "choice":
        notes = tuple(o.explanation for o in q.options if o.correct and o.explanation)
        return Key(correct_answer(q), notes=notes, prose=None if notes else (q.prose or None))
    if q.kind == "concept":
        return Key("(self-graded) model answer:", model=(q.model_answer or "").strip(),
                   points=q.key_points, prose=q.prose or None)
    if q.kind == "code":
        return Key(f"(code) check your file with: drills code check FILE --question {q.id}",
                   prose=q.prose or None)
    return Key(f"({q.kind})", prose=q.prose or None)


def _code(q: Question, indent: str) -> list[str]:
    """A snippet's numbered lines or a code question's signature and examples, verbatim."""
    if not q.code and q.kind != "code":
        return []
    return [indent + line if line else "" for line in code_lines(q)]


def entries(items: Sequence[Question]) -> list[tuple[str, Question, Question | None]]:
    """(label, question, the scenario it opens) per question: a scenario's steps are ``3.1``,
    ``3.2`` ..., the first carrying its scenario (whose shared setup is printed once)."""
    out: list[tuple[str, Question, Question | None]] = []
    for n, q in enumerate(items, 1):
        if q.kind != "scenario":
            out.append((str(n), q, None))
            continue
        out += [(f"{n}.{i}", step, q if i == 1 else None) for i, step in enumerate(q.steps, 1)]
    return out


def _opening(label: str, q: Question, scenario: Question | None) -> tuple[str, str | None]:
    """The title line of a question (a scenario's, before its first step) and its setup."""
    if scenario is None:
        return f"{label}. [{q.topic}, {q.difficulty}] {q.id}", None
    n = label.split(".")[0]
    return (f"{n}. [{scenario.topic}, {scenario.difficulty}] {scenario.id} "
            f"(scenario, {len(scenario.steps)} steps)"), scenario.prompt


def header(items: Sequence[Question], seed: int) -> str:
    topics = sorted({q.topic for q in items})
    return f"seed {seed}, {len(items)} questions, topics: {', '.join(topics)}"


def logical_lines(text: str) -> list[str]:
    """Join lines a YAML author broke mid-sentence; keep blank, indented and sentence-ending breaks."""
    out: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            out.append(" ".join(current))
            current.clear()

    for line in text.strip("\n").splitlines():
        if not line.strip() or line.startswith((" ", "-", "*")):
            flush()
            out.append(line.rstrip())
            continue
        current.append(line.strip())
        if line.rstrip().endswith((".", "?", "!", ":")):
            flush()
    flush()
    return out


def _wrap(text: str, indent: str, reflow: bool = True, width: int = WIDTH) -> list[str]:
    """Wrap prose to WIDTH; indented lines (rankings, tables) stay as they are.

    ``reflow=False`` keeps the author's line breaks (explanations are often aligned
    computations) and only wraps lines that are too long.
    """
    lines = logical_lines(text) if reflow else text.strip("\n").splitlines()
    keep = width if reflow else (KEEP_WIDTH if width >= WIDTH else width)
    room = width - len(indent)

    def keep_whole(m: re.Match[str]) -> str:
        """A bracket group glued into one word, when it fits a line."""
        return m.group(0).replace(" ", _GLUE) if len(m.group(0)) <= room else m.group(0)

    out: list[str] = []
    for line in lines:
        if not line.strip():
            out.append("")
        elif line.startswith(" ") and len(indent + line) > width and "; " in line:
            # an aligned line (a query's ranking and its pool) too wide: break after "; "
            head, tail = line.split("; ", 1)
            lead = line[: len(line) - len(line.lstrip())]
            out += [(indent + head + ";").rstrip(), (indent + lead + "  " + tail).rstrip()]
        elif line.startswith(" ") or len(indent + line) <= keep:
            out.append((indent + line).rstrip())
        else:
            glued = _GROUP.sub(keep_whole, line)
            out.extend(w.replace(_GLUE, " ") for w in textwrap.wrap(
                glued, width, initial_indent=indent, subsequent_indent=indent,
                break_long_words=False, break_on_hyphens=False))
    return out


def text_sheet(items: Sequence[Question], seed: int, width: int = WIDTH) -> str:
    """Numbered questions, then the answer key: plain text for a printer or a pager.

    ``width`` is 78 for a file (the same bytes for a seed, whatever the terminal); a
    narrower terminal gets its own width and narrow tables.
    """
    if width < WIDTH:
        return _narrow_sheet(items, seed, width)
    lines = ["NDCG drills worksheet", header(items, seed), "", "Questions", "=========", ""]
    for n, q, opens in entries(items):
        title, setup = _opening(n, q, opens)
        if q.part is None or setup is not None:
            lines.append(title)
        if setup is not None:
            lines += _wrap(setup, "   ") + [""]
        if q.part is not None:
            lines.append(f"   {n}. (step {q.part.step}/{q.part.of})")
        lines += _wrap(q.prompt, "   ") + _code(q, "   ")
        for i, o in enumerate(q.options):
            lines += _wrap(f"{LETTERS[i]}) {o.text}", "   ")
        lines.append("")
    lines += ["Answer key", "==========", ""]
    for n, q, _ in entries(items):
        k = key(q)
        lines.append(f"{n}. {k.answer}")
        if k.worked:
            lines += [""] + [("   " + line).rstrip() for line in k.worked.splitlines()]
        for note in k.notes:
            lines += _wrap(note, "   ", reflow=False)
        if k.model is not None:
            lines += _wrap(k.model, "   ", reflow=False)
            lines += _wrap("\n".join(f"- {p}" for p in k.points), "   ")
        if k.prose:
            lines += [""] + _wrap(k.prose, "   ", reflow=False)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _narrow_sheet(items: Sequence[Question], seed: int, width: int) -> str:
    """The text sheet for a terminal narrower than 78 columns."""
    layout = Layout(narrow=width < NARROW_BELOW)
    lines = ["NDCG drills worksheet", *_wrap(header(items, seed), "", width=width), "",
             "Questions", "=========", ""]
    for n, q, opens in entries(items):
        title, setup = _opening(n, q, opens)
        if q.part is None or setup is not None:
            lines += _wrap(title, "", width=width)
        if setup is not None:
            lines += _wrap(setup, "   ", width=width) + [""]
        if q.part is not None:
            lines.append(f"   {n}. (step {q.part.step}/{q.part.of})")
        lines += _wrap(q.prompt, "   ", width=width) + _code(q, "   ")
        for i, o in enumerate(q.options):
            lines += _wrap(f"{LETTERS[i]}) {o.text}", "   ", width=width)
        lines.append("")
    lines += ["Answer key", "==========", ""]
    for n, q, _ in entries(items):
        k = key(q)
        lines += _wrap(f"{n}. {k.answer}", "", width=width)
        worked = worked_for(q, layout) if k.worked else None
        if worked:
            lines += [""] + Style(width=width + 1).wrap(worked, "   ").splitlines()
        for note in k.notes:
            lines += _wrap(note, "   ", width=width)
        if k.model is not None:
            lines += _wrap(k.model, "   ", width=width)
            lines += _wrap("\n".join(f"- {p}" for p in k.points), "   ", width=width)
        if k.prose:
            lines += [""] + _wrap(k.prose, "   ", width=width)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _md_prompt(prompt: str) -> list[str]:
    out: list[str] = []
    for line in logical_lines(prompt):
        if line.startswith(" ") and line.strip():
            out.append(f"- `{line.strip()}`")
        elif line.strip():
            out += [line, ""]
    return out


def markdown_sheet(items: Sequence[Question], seed: int) -> str:
    """The same sheet as Markdown: headings per question, worked solutions in code blocks."""
    lines = ["# NDCG drills worksheet", "", header(items, seed), "", "## Questions", ""]
    for n, q, opens in entries(items):
        title, setup = _opening(n, q, opens)
        if opens is not None and setup is not None:
            lines += [f"### {n.split('.')[0]}. {opens.id} (scenario, {len(opens.steps)} steps)", ""]
            lines += _md_prompt(setup)
        if q.part is not None:
            lines += [f"#### {n}. step {q.part.step}/{q.part.of}", ""]
        else:
            lines += [f"### {n}. {q.id} ({q.topic}, {q.difficulty})", ""]
        lines += _md_prompt(q.prompt)
        code = _code(q, "")
        if code:
            lines += ["```", *code[1:], "```", ""]
        if q.options:
            lines += [f"- {LETTERS[i]}) {o.text}" for i, o in enumerate(q.options)] + [""]
    lines += ["## Answer key", ""]
    for n, q, _ in entries(items):
        k = key(q)
        lines += [f"### {n}. {q.id}", ""]
        if q.kind == "numeric":
            lines += [f"**Answer:** `{k.answer}`", ""]
        elif q.kind == "concept":
            lines += ["**Model answer:**", ""]
        else:
            lines += [f"**Answer:** {k.answer}", ""]
        if k.worked:
            lines += ["```text", k.worked, "```", ""]
        lines += [note + "\n" for note in k.notes]
        if k.model is not None:
            lines += [k.model, ""] + [f"- {p}" for p in k.points] + [""]
        if k.prose:
            lines += ["```text", k.prose, "```", ""]
    return "\n".join(lines).rstrip("\n") + "\n"
