"""Session events -> text. Pure strings, so both front ends and the tests share them.

Colour, wrapping and widths are ``drills.display.Style``'s: plain ANSI, and only when the
output is a terminal and NO_COLOR is unset (https://no-color.org).
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from drills.display import Style, clock_text
from drills.model import LETTERS, Question
from drills.quiz.session import (
    Finished,
    Graded,
    HintShown,
    InvalidAnswer,
    Notice,
    QuestionShown,
    Record,
    Revealed,
    Skipped,
    StepsShown,
    Summary,
    TimedOut,
    Undone,
    Waiting,
)
from drills.safetext import shorten, visible
from drills.tui.chains import chain_lines, number, time_lines
from drills.tui.conceptcard import concept_card

FORMS = {
    "code": "your function, in your editor ($VISUAL or $EDITOR; :edit reopens it) or typed here, "
            "ending with a line :end",
    "numeric": "a number or exact expression, e.g. 0.7592 or 13/2 + 1/log2(3)",
    "choice": "a letter",
    "concept": "a few sentences",
}


def elide(text: str, width: int) -> str:
    """A long exact form cut between whole terms (``15/2 + ... + 1/log2(31)``); whole in :steps."""
    from drills.engine.table import Layout  # lazy: the worked tables, after the first question

    return Layout(exact_width=width).exact(text)


PLAIN = Style()  # no colour, 80 columns


def render(event: Any, style: Style = PLAIN) -> str:
    """The text for one event (may be several lines, no trailing newline)."""
    fn = _RENDERERS.get(type(event))
    return fn(event, style) if fn is not None else ""


def code_lines(q: Question, indent: str = "") -> list[str]:
    """A snippet's numbered lines, or a code question's signature and examples, verbatim
    (never reflowed: indentation is meaning), each line sanitised."""
    if not q.code and q.kind != "code":
        return []
    from drills.coding.text import code_lines as lines  # lazy: for a code question only

    return [indent + visible(line) if line else "" for line in lines(q)]


def question(ev: QuestionShown, style: Style) -> str:
    q = ev.question
    step = f" · step {q.part.step}/{q.part.of}" if q.part else ""
    head = visible(f"Question {ev.index + 1}/{ev.total}{step} · {q.topic} · {q.difficulty}")
    if ev.limit:
        head += f" · {clock_text(ev.limit)} to answer"
    lines = [style.paint(style.wrap(head), "bold", "cyan")]
    if q.part is not None:  # the scenario's shared setup stays on screen above every step
        lines += [style.reflow(q.part.setup), style.paint(style.wrap(f"Step {q.part.step}/{q.part.of}:"), "bold")]
    lines += [style.reflow(q.prompt), *code_lines(q)]
    if q.kind == "choice":
        width = max(20, style.width - 1)
        lines += ["\n".join(textwrap.wrap(visible(f"{LETTERS[i]}) {o.text}"), width, initial_indent="  ",
                                           subsequent_indent="     "))
                  for i, o in enumerate(q.options)]
        form = f"a letter, a to {LETTERS[len(q.options) - 1]}"
    elif q.kind == "concept":
        form = f"{FORMS['concept']}; {style.concept_end}"
    elif q.kind == "code":
        form = FORMS["code"]
    else:
        form = FORMS["numeric"] + (f" ({q.unit})" if q.unit else "")
    lines.append(style.paint(style.wrap(f"Answer: {form}  (:help)"), "dim"))
    return "\n".join(lines)


def graded(ev: Graded, style: Style) -> str:
    r = ev.record
    if ev.deferred:
        return style.paint("Answer recorded; feedback comes in the report at the end.", "dim")
    if r.concept is not None:
        why = " (your override)" if r.overridden else ""
        rated = f", recall rated {r.self_grade}" if r.self_grade else ""
        return style.paint(f"Recorded: {r.verdict}{why}{rated}.", "dim")
    if r.self_grade is not None:
        return style.paint(f"Recorded: you graded it {r.self_grade}.", "dim")
    if r.verdict in ("correct", "consistent"):
        return style.paint(style.wrap(_correct_line(r)), "green")
    color = "yellow" if r.verdict == "close" else "red"
    if ev.brief and r.outcome is not None:
        return card(r, style, color)
    head, _, rest = r.explanation.partition("\n")
    head = head[:1].upper() + head[1:]
    text = style.paint(style.wrap(head), color, "bold") + ("\n" + explanation(r, style, rest) if rest else "")
    recap = recap_of(r, style, text)
    return text + ("\n\n" + recap if recap else "")


def recap_of(r: Record, style: Style, text: str) -> str:
    """The verdict said again under a worked solution ``text`` taller than 16 lines, else ""."""
    if text.count("\n") <= 15 or r.expected_value is None:
        return ""
    color = "yellow" if r.verdict == "close" else "red"
    recap = f"=> {r.verdict.capitalize()}: you answered {r.given}, the answer is {r.expected_value:.6g}"
    if r.misconceptions:
        recap += f" (diagnosis: {r.misconceptions[0]})"
    return style.paint(style.wrap(recap), color, "bold")


def card(r: Record, style: Style, color: str) -> str:
    """A miss in brief: the verdict, the named slip and the step that went wrong; about 12 lines."""
    from drills.grading.check import explain as outcome_text  # lazy: the grader

    head, _, rest = outcome_text(r.outcome, steps=False).partition("\n")
    head = head[:1].upper() + head[1:]
    room = max(24, style.width - 40)  # the exact form may not take the verdict line over
    if r.expected and len(r.expected) > room and r.expected in head:
        head = head.replace(r.expected, elide(r.expected, room), 1)
    lines = [style.paint(style.wrap(head), color, "bold")]
    for line in rest.splitlines():
        if line.startswith("Diagnosis: "):
            lines.append(style.paint(style.wrap(line), "bold"))
        elif line.strip():
            lines.append(style.wrap(line))
    return "\n".join(lines)


def narrow_tables(text: str, question: Any, width: int) -> str:
    """Under 72 columns, the worked tables in ``text`` in their narrow layout (rows never wrap)."""
    # lazy: the worked tables, after the first question
    from drills.engine.table import NARROW_BELOW, Layout
    from drills.grading.solution import worked_for

    if width >= NARROW_BELOW or question.problem is None or not question.metric:
        return text
    wide = worked_for(question)
    return text.replace(wide, worked_for(question, Layout(narrow=True)) or wide) if wide else text


def explanation(r: Record, style: Style, text: str | None = None) -> str:
    """Engine text wrapped line by line; the pack's own prose re-flowed to the width."""
    text = narrow_tables(r.explanation if text is None else text, r.question, style.width)
    if r.question.kind == "concept":
        return style.reflow(text)
    prose = r.question.prose
    if prose and prose in text:
        before, after = text.split(prose, 1)
        parts = [style.wrap(before.rstrip("\n")), style.reflow(prose), style.wrap(after.strip("\n"))]
        return "\n\n".join(p for p in parts if p)
    return style.wrap(text)


def _correct_line(r: Record) -> str:
    o = r.outcome
    if r.question.kind == "choice":
        if o is None:
            return "Correct."
        why = f"\n{o.diagnosis[0]}" if o.diagnosis else ""  # the option's own explanation
        return f"Correct: {o.expected}{why}"
    return o.summary.splitlines()[0] if o is not None else "Correct."


def skipped(ev: Skipped | TimedOut, style: Style) -> str:
    r = ev.record
    if isinstance(ev, TimedOut):
        head = f"Time is up ({clock_text(r.limit or r.seconds)}): recorded as timeout."
        if r.question.part is not None:  # a scenario's time is shared by its steps
            head = "Time is up for this scenario: this step and the rest are recorded as timeout."
        if r.would_have == "correct":
            head += f" What you had typed, {r.given}, would have been correct."
    else:
        head = "Skipped (recorded as skipped)."
    if ev.deferred or (r.question.kind == "concept" and r.given):  # model answer just shown
        return style.paint(head, "yellow")
    if ev.brief and isinstance(ev, Skipped):  # a card, as a miss gets: the rest on :steps
        return style.paint(head, "yellow") + "\n" + skip_card(r, style)
    return style.paint(head, "yellow") + "\n" + explanation(r, style)


SKIP_CARD_LINES = 8  # the answer's lines on a skip's card (the question stays on screen)


def skip_card(r: Record, style: Style) -> str:
    """A skipped question in brief: the answer (its first paragraph: the value, the letter,
    the model answer), the worked solution's first line (what it rests on), and how to see
    the whole solution."""
    first, _, rest = r.explanation.strip("\n").partition("\n\n")
    if r.expected and len(r.expected) > style.width - 30 and r.expected in first:
        first = first.replace(r.expected, elide(r.expected, max(24, style.width - 30)), 1)
    head, _, more = first.partition("\n")  # the answer's line; a choice's or concept's prose
    lines = style.wrap(head).splitlines() + (style.reflow(more).splitlines() if more.strip() else [])
    if len(lines) > SKIP_CARD_LINES:
        lines = [*lines[:SKIP_CARD_LINES - 1], "..."]
    key = rest.strip("\n").partition("\n")[0]
    if key and r.question.kind == "numeric" and key != r.question.prose.strip().partition("\n")[0]:
        lines += style.wrap(key).splitlines()
    if rest.strip():
        whole = ("the whole model answer and its key points" if r.question.kind == "concept"
                 else "the full worked solution")
        lines.append(style.paint(style.wrap(f"(:steps shows {whole})"), "dim"))
    return "\n".join(lines)


def revealed(ev: Revealed, style: Style) -> str:
    if ev.grade is not None:  # graded by its rubric: the card (the model answer on s)
        return concept_card(ev.grade, style)
    return "\n".join(p for p in revealed_parts(ev, style) if p)


def revealed_parts(ev: Revealed, style: Style) -> tuple[str, str]:
    """A concept answer without a rubric: the model answer, then what must stay on screen
    (the key points, the grade prompt) even when a pager showed the model answer."""
    lines: list[str] = []
    if ev.key_points:
        got = sum(ok for _, ok in ev.key_points)
        lines.append(style.paint(f"Key points you covered ({got}/{len(ev.key_points)}):", "bold"))
        for point, ok in ev.key_points:
            mark = style.paint("[x]", "green") if ok else style.paint("[ ]", "red")
            lines.append("  " + mark + " " + style.wrap(point, "      ").lstrip())
    lines.append(style.paint("Grade yourself: again, hard, good or easy (1-4)", "cyan"))
    return (style.paint("Model answer:", "bold") + "\n" + style.reflow(ev.model_answer, "  "),
            "\n".join(lines))


def kept(ev: Any, style: Style) -> tuple[str, str] | None:
    """(body, tail) of an event whose end must survive a pager quit early (``q`` on the first
    page): the front end pages the body, then prints the tail. None: no such end."""
    if isinstance(ev, Revealed) and ev.grade is None:
        return revealed_parts(ev, style)
    if isinstance(ev, Graded) and not ev.deferred:
        body, gap, tail = render(ev, style).rpartition("\n\n")
        if gap and tail and tail == recap_of(ev.record, style, body):
            return body, tail
    return None


def summary(s: Summary, style: Style) -> str:
    if s.mode == "mock":
        return report(s, style)
    first, *rest = _totals(s, style)  # painted after wrapping: wrap shows raw escapes as text
    return style.paint(first, "bold") + "\n" + style.wrap("\n".join(rest))


def _totals(s: Summary, style: Style) -> list[str]:
    c = s.counts
    parts = [f"{c[v]} {v}" for v in ("consistent", "close", "partial", "wrong", "skipped", "timeout") if c.get(v)]
    extra = f" ({', '.join(parts)})" if parts else ""
    steps = any(r.question.part is not None for r in s.records)  # a scenario's steps count one each
    counted = "answers correct" if steps else "correct"
    head = f"Score: {s.score}/{s.asked} {counted}{extra}; best streak {s.best_streak}."
    if s.asked < s.total:
        head += f" Answered {s.planned_asked} of {s.planned} questions."
    lines = ["Session over.", head]
    if s.seed is not None:
        lines.append(f"Seed {s.seed}: run again with --seed {s.seed} for the same questions.")
    return lines


def review_line(item: str, records: Any) -> str:
    """One "what to review next" item with the command that practises it."""
    if item.startswith("misconception "):
        mid = item.removeprefix("misconception ")
        topic = next((r.question.topic for r in records if mid in r.misconceptions), None)
        return f"{item}: `drills practice --topic {topic}`" if topic else item
    return f"{item}: `drills practice --topic {item}`"


def report(s: Summary, style: Style) -> str:
    """The mock report card: by topic, time vs limit, wrong formulas, what next, explanations."""
    lines = [style.paint("Mock interview report", "bold", "cyan"),
             style.wrap("\n".join(_totals(s, style)[1:])), ""]
    if s.records:  # a mock quit at once has no topic and no time to show
        lines.append(style.paint("Score by topic", "bold"))
        for topic, (right, n) in sorted(s.by_topic.items()):
            lines.append(visible(f"  {topic:<22} {right}/{n}"))
        lines += ["", style.paint("Time per question", "bold"), *time_lines(s.records)]
    lines += chain_lines(s.records, style)
    beliefs = {m.id: m.correction for r in s.records if r.concept is not None and not r.overridden
               for m in r.concept.misconceptions}
    slips = {m: n for m, n in s.misconceptions.items() if m not in beliefs}
    if slips:
        from drills.grading.diagnose import CATALOG  # lazy: the slip catalog, for a report only

        lines += ["", style.paint("Wrong formulas you used", "bold")]
        for mid, n in sorted(slips.items(), key=lambda kv: -kv[1]):
            title = CATALOG[mid].title if mid in CATALOG else ""
            lines.append(f"  {mid} x{n}" + (f": {title}" if title else ""))
    if beliefs:
        lines += ["", style.paint("Wrong beliefs you stated", "bold")]
        for mid, correction in beliefs.items():
            lines.append(style.wrap(f"  {mid}: {correction}", "    "))
    lines += ["", style.paint("What to review next", "bold")]
    if s.review:
        lines += [style.wrap(f"  - {review_line(item, s.records)}") for item in s.review]
    elif not s.records:
        lines.append("  - no question was answered: run the mock again when you have the time")
    elif len(s.records) < s.total:
        lines.append("  - nothing missed so far: finish a whole mock next time")
    else:
        lines.append("  - nothing missed: try a harder mock")
    if s.deferred:
        missed = [r for r in s.records if r.verdict not in ("correct", "consistent") or r.self_grade]
        if missed:
            lines += ["", style.paint("Explanations", "bold")]
        for r in missed:
            step = f" step {r.question.part.step}" if r.question.part else ""
            lines += ["", style.paint(visible(f"Q{number(r)}{step} ({r.question.topic}): {r.verdict}"), "bold"),
                      style.reflow(r.question.prompt, "  "), *code_lines(r.question, "  ")]
            if r.given:
                lines.append(f"  you answered: {shorten(r.given.splitlines()[0], 60)}")
            lines.append(explanation(r, style))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines))  # no gap left by an empty section


_RENDERERS: dict[type, Any] = {
    QuestionShown: question,
    Graded: graded,
    InvalidAnswer: lambda ev, st: st.paint(st.wrap(ev.message), "yellow") + "\n"
    + st.paint("Not counted; try again.", "dim"),
    HintShown: lambda ev, st: st.reflow(f"Hint {ev.number}/{ev.of}: {ev.text}"),
    StepsShown: lambda ev, st: explanation(ev.record, st) if ev.record else st.reflow(ev.text),
    Revealed: revealed,
    Skipped: skipped,
    TimedOut: skipped,
    Notice: lambda ev, st: st.wrap(ev.text),
    Waiting: lambda ev, st: st.paint(
        f"Enter: {'the summary' if ev.next == 'summary' else 'next ' + ev.next}"
        "   s: the worked solution   :q quit", "dim"),
    Finished: lambda ev, st: summary(ev.summary, st),
    Undone: lambda ev, st: st.paint(st.wrap(took_back(ev)), "cyan"),
}


def took_back(ev: Undone) -> str:
    part = ev.record.question.part
    step = f", step {part.step}" if part is not None else ""
    what = "the skip of" if ev.record.verdict == "skipped" and not ev.record.given else "your answer to"
    return f"Took back {what} question {ev.number}{step}."
