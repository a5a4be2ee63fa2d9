"""``drills generate``: a printable worksheet (plain text, Markdown or JSON) with an answer key.

It calls ``drills.core.plan.plan`` with the same options ``drills practice`` takes, so a
sheet made with a seed lists exactly the questions that seed's practice session asks.
Output is a pure function of the seed and the options (byte-identical on a rerun).
"""

from __future__ import annotations

import json
import random
import re
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from drills.cli.catalog import check_topics, load_questions
from drills.cli.common import check_count, check_difficulty, check_seed, fail

if TYPE_CHECKING:
    from drills.core.questions import Question

WIDTH = 78
KEEP_WIDTH = 100  # an author's own line breaks are kept up to this width
# Never break a line inside (...) or [...]: "log2(i + 1)" and "[2, 1, 3, 0]" stay whole.
_GROUP = re.compile(r"\((?:[^()]|\([^()]*\)){0,40}\)|\[[^\[\]]{0,60}\]")
_GLUE = "\x00"


@click.command()
@click.option("--seed", type=int, default=None,
              help="Seed for the selection and the generated variants (default: random, printed on stderr).")
@click.option("--count", type=int, default=10, show_default=True, help="Number of questions.")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC",
              help="Only this topic (repeatable).")
@click.option("--difficulty", default=None, metavar="LEVEL", help="Only easy, medium or hard questions.")
@click.option("--pack", "packs", multiple=True, metavar="P",
              help="Use only pack P: a pack name (see `drills packs list`) or a pack file or "
                   "folder (repeatable). Default: every pack.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of items with answers.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print Markdown instead of plain text.")
def generate(seed: int | None, count: int, topics: tuple[str, ...], difficulty: str | None,
             packs: tuple[str, ...], as_json: bool, as_markdown: bool) -> None:
    """Print a worksheet of questions with an answer key and worked solutions.

    \b
    Examples:
      drills generate --seed 7 --count 5
      drills generate --topic hand-computation --markdown > sheet.md
      drills generate --seed 7 --json
    The same seed and options print the same sheet; `drills practice` with that seed
    asks the same questions.

    \b
    Generators (used by packs' `generated` questions; see docs/generators.md):
      ndcg-hand, swap-delta, compare-rankings, binary-vs-graded, single-relevant,
      ndcg-at-1-binary, gain-ratio, discount-at-rank, edge-case
    """
    from drills.core.plan import GenerationError, plan

    if as_json and as_markdown:
        fail("choose one of --json and --markdown")
    check_count(count)
    check_seed(seed)
    check_difficulty(difficulty)
    questions = load_questions(packs)
    check_topics(topics, questions)
    if seed is None:
        seed = random.SystemRandom().randrange(1, 1_000_000)
        click.echo(f"seed {seed} (rerun with --seed {seed} for the same sheet)", err=True)
    try:
        items = plan(questions, seed=seed, count=count, topics=topics, difficulty=difficulty)
    except GenerationError as exc:
        fail(str(exc), 1)
    if not items:
        fail("no questions match these options")
    if as_json:
        from drills.core.plan import item_json

        click.echo(json.dumps([item_json(q) for q in items], indent=2, ensure_ascii=False))
    elif as_markdown:
        click.echo(markdown_sheet(items, seed), nl=False)
    else:
        click.echo(text_sheet(items, seed), nl=False)


def _header(items: Sequence[Question], seed: int) -> str:
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


def _wrap(text: str, indent: str, reflow: bool = True) -> list[str]:
    """Wrap prose to WIDTH; indented lines (rankings, tables) stay as they are.

    ``reflow=False`` keeps the author's line breaks (explanations are often aligned
    computations) and only wraps lines that are too long.
    """
    lines = logical_lines(text) if reflow else text.strip("\n").splitlines()
    keep = WIDTH if reflow else KEEP_WIDTH
    out: list[str] = []
    for line in lines:
        if not line.strip():
            out.append("")
        elif line.startswith(" ") or len(indent + line) <= keep:
            out.append((indent + line).rstrip())
        else:
            glued = _GROUP.sub(lambda m: m.group(0).replace(" ", _GLUE), line)
            out.extend(w.replace(_GLUE, " ") for w in textwrap.wrap(
                glued, WIDTH, initial_indent=indent, subsequent_indent=indent,
                break_long_words=False, break_on_hyphens=False))
    return out


def _answer(q: Question) -> str:
    from drills.core.exact import decimal_text
    from drills.core.reference import reference

    ref = reference(q)
    dec = decimal_text(ref.decimal(), 15)
    return dec if ref.text == dec else f"{ref.text} = {dec}"


def _worked(q: Question) -> str | None:
    """The engine's worked steps (DCG/IDCG/NDCG tables, the swap, RR ...)."""
    from drills.core.explain import worked_for

    return worked_for(q)


def _choice_answer(q: Question) -> tuple[str, list[str]]:
    from drills.core.questions import LETTERS

    right = [(LETTERS[i], o) for i, o in enumerate(q.options) if o.correct]
    head = "; ".join(f"{letter}) {o.text}" for letter, o in right)
    notes = [o.explanation for _, o in right if o.explanation]
    return head, notes


def text_sheet(items: Sequence[Question], seed: int) -> str:
    """Numbered questions, then the answer key: plain text for a printer or a pager."""
    from drills.core.questions import LETTERS

    lines = ["NDCG drills worksheet", _header(items, seed), "", "Questions", "=========", ""]
    for n, q in enumerate(items, 1):
        lines.append(f"{n}. [{q.topic}, {q.difficulty}] {q.id}")
        lines += _wrap(q.prompt, "   ")
        for i, o in enumerate(q.options):
            lines += _wrap(f"{LETTERS[i]}) {o.text}", "   ")
        lines.append("")
    lines += ["Answer key", "==========", ""]
    for n, q in enumerate(items, 1):
        lines += _key_lines(n, q)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _key_lines(n: int, q: Question) -> list[str]:
    lines: list[str] = []
    if q.kind == "numeric":
        lines.append(f"{n}. {_answer(q)}")
        worked = _worked(q)
        if worked:
            lines += [""] + [("   " + line).rstrip() for line in worked.splitlines()]
    elif q.kind == "choice":
        head, notes = _choice_answer(q)
        lines.append(f"{n}. {head}")
        for note in notes:
            lines += _wrap(note, "   ", reflow=False)
    elif q.kind == "concept":
        lines.append(f"{n}. (self-graded) model answer:")
        lines += _wrap(q.model_answer or "", "   ", reflow=False)
        lines += _wrap("\n".join(f"- {p}" for p in q.key_points), "   ")
    else:
        lines.append(f"{n}. ({q.kind})")
    if q.prose and (q.kind != "choice" or not q.options or not _choice_answer(q)[1]):
        lines.append("")
        lines += _wrap(q.prose, "   ", reflow=False)
    return lines


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
    from drills.core.questions import LETTERS

    lines = ["# NDCG drills worksheet", "", _header(items, seed), "", "## Questions", ""]
    for n, q in enumerate(items, 1):
        lines += [f"### {n}. {q.id} ({q.topic}, {q.difficulty})", ""]
        lines += _md_prompt(q.prompt)
        if q.options:
            lines += [f"- {LETTERS[i]}) {o.text}" for i, o in enumerate(q.options)] + [""]
    lines += ["## Answer key", ""]
    for n, q in enumerate(items, 1):
        lines += [f"### {n}. {q.id}", ""]
        if q.kind == "numeric":
            lines += [f"**Answer:** `{_answer(q)}`", ""]
            worked = _worked(q)
            if worked:
                lines += ["```text", worked, "```", ""]
        elif q.kind == "choice":
            head, notes = _choice_answer(q)
            lines += [f"**Answer:** {head}", ""] + [note + "\n" for note in notes]
        elif q.kind == "concept":
            lines += ["**Model answer:**", "", (q.model_answer or "").strip(), ""]
            lines += [f"- {p}" for p in q.key_points] + [""]
        if q.prose and (q.kind != "choice" or not _choice_answer(q)[1]):
            lines += ["```text", q.prose, "```", ""]
    return "\n".join(lines).rstrip("\n") + "\n"
