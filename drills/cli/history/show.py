"""The text of ``drills history list`` and ``drills history show``: a table of sessions,
and one session's report card again (the mock report's sections, then every answer).

Everything from the history is shown through ``visible``/``shorten``; colour only when
``Style.color`` says so (``drills.display.use_color``). A scenario's step is listed under
``<scenario id>#<step>``, the id its step question has in the pack. Every line is wrapped
to ``Style.width`` (the terminal's, at most 100; unwrapped on a pipe), never a word broken.
"""

from __future__ import annotations

from typing import Any

from drills.cli.style import fill, slip_titles
from drills.display import Style, clock_text
from drills.model import counted_slips
from drills.safetext import shorten, visible
from drills.store.connection import parse_utc
from drills.store.sessions import step_label
from drills.store.verdicts import is_right

MISS_COLORS = {"correct": "green", "consistent": "green", "close": "yellow",
               "partial": "yellow"}  # else: red
GIVEN_WIDTH = 60


def local_time(text: Any) -> str:
    """A stored UTC timestamp as local ``YYYY-MM-DD HH:MM``; damaged text shown as it is."""
    try:
        return parse_utc(text).astimezone().strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError, OverflowError):
        return visible(str(text))


def _seed(session: dict[str, Any]) -> str:
    """The seed to rerun with; a review has none (its items come from the schedule)."""
    seed = session["seed"]
    return "-" if seed is None or session["mode"] == "review" else visible(str(seed))


def _state(session: dict[str, Any]) -> str:
    if session["recovered"]:
        return "recovered"
    state = "not ended" if session["ended_at"] is None else ""
    if session.get("imported"):
        state = f"imported, {state}" if state else "imported"
    return state


def list_lines(sessions: list[dict[str, Any]], total: int, style: Style) -> list[str]:
    """A heading, one row per session (id, local start, mode, score, seed), a footer when cut."""
    lines = [style.paint(f"{'ID':>5}  {'WHEN (local)':<16}  {'MODE':<8}  {'SCORE':>7}  SEED", "bold")]
    for s in sessions:
        score = f"{s['correct']}/{s['answered']}"
        state = _state(s)
        lines.append(f"{s['id']:>5}  {local_time(s['started_at']):<16}  "
                     f"{visible(str(s['mode'])):<8}  {score:>7}  {_seed(s)}"
                     + (f"  ({state})" if state else ""))
    if len(sessions) < total:
        lines.append(f"Showing the {len(sessions)} most recent of {total:,} sessions; "
                     "--limit N shows more.")
    return lines


def _counts(answers: list[dict[str, Any]]) -> str:
    counts: dict[str, int] = {}
    for a in answers:
        counts[str(a["verdict"])] = counts.get(str(a["verdict"]), 0) + 1
    parts = [f"{counts[v]} {v}" for v in ("close", "partial", "wrong", "skipped", "timeout")
             if counts.get(v)]
    if counts.get("consistent"):  # right, so among the correct ones: said as part of them
        parts.insert(0, f"{counts['consistent']} of them consistent")
    return f" ({', '.join(parts)})" if parts else ""


def _seconds(answer: dict[str, Any]) -> float:
    """Time taken; 0 for a damaged value (a blob, text), which is not worth a traceback."""
    value = answer["seconds"]
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
    return float(value) if ok and 0 <= value < 1e9 else 0.0


def _limit(options: dict[str, Any]) -> float | None:
    value = options.get("per_question")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _say(text: str, style: Style, *names: str, hang: int = 2) -> list[str]:
    """One line of the report wrapped to the style's width, painted ``names``."""
    return fill([(text, names)], style.width, style.paint, hang)


def headline(s: dict[str, Any], style: Style) -> list[str]:
    """The session's title and its score: the report's first lines, said again last when a
    report printed without a pager scrolled them away."""
    title = f"Session {s['id']} · {visible(str(s['mode']))} · {local_time(s['started_at'])}"
    seed = _seed(s)
    lines = _say(title + (f" · seed {seed}" if seed != "-" else ""), style, "bold", "cyan")
    secs = sum(_seconds(a) for a in s["answers"])
    return lines + _say(f"Score: {s['correct']}/{s['answered']} correct{_counts(s['answers'])}; "
                        f"{clock_text(secs)} answering.", style)


def _head(s: dict[str, Any], style: Style) -> list[str]:
    lines = headline(s, style)
    planned = s["options"].get("count")
    if s["recovered"]:
        lines += _say("Recovered from a damaged history: the session's own record was lost.", style)
    elif s["ended_at"] is None:
        lines += _say("Not ended: drills stopped before its summary (or it is still running).", style)
    elif s["quit_early"] and isinstance(planned, int) and planned > s.get("items", s["answered"]):
        lines += _say(f"Ended early: answered {s.get('items', s['answered'])} of {planned} "
                      "questions.", style)
    return lines


def _slips(answers: list[dict[str, Any]], style: Style) -> list[str]:
    """The wrong formulas used (slips) and the wrong beliefs stated (a concept answer's
    misconception ids), most frequent first."""
    hits: tuple[dict[str, int], dict[str, int]] = ({}, {})
    for a in answers:
        found = hits[1 if a["kind"] == "concept" else 0]
        for m in counted_slips(a["kind"], a["misconceptions"]):
            found[m] = found.get(m, 0) + 1
    if not any(hits):
        return []
    titles = slip_titles()
    lines = []
    for heading, found in (("Wrong formulas you used", hits[0]),
                           ("Wrong beliefs you stated", hits[1])):
        if not found:
            continue
        lines += ["", style.paint(heading, "bold")]
        for mid, n in sorted(found.items(), key=lambda kv: (-kv[1], kv[0])):
            title = titles.get(mid) if found is hits[0] else None
            lines += _say(f"  {visible(mid)} x{n}" + (f": {title}" if title else ""), style, hang=4)
    return lines


def _answer(i: int, a: dict[str, Any], style: Style) -> list[str]:
    verdict = str(a["verdict"])
    grade = f", self-graded {a['self_grade']}" if a["self_grade"] else ""
    if a.get("overridden"):  # the verdict is the learner's: the grader said otherwise
        grade += " (you overruled the grader)"
    where = ", ".join(visible(str(x)) for x in (a["topic"], a["difficulty"]) if x)
    label = step_label(a) or str(a["question_id"])
    head = f"  {i:>2}. {visible(label)} ({where}): "
    lines = fill([(head, ()), (visible(verdict) + grade, (MISS_COLORS.get(verdict, "red"),))],
                 style.width, style.paint, hang=6)
    given = str(a["given"] or "").strip()
    shown = shorten(given.splitlines()[0], GIVEN_WIDTH) if given else "(nothing)"
    if len(given.splitlines()) > 1 and not shown.endswith("..."):
        shown += " ..."
    lines += _say(f"      you answered: {shown}", style, hang=8)
    expected = str(a["expected"] or "").strip()
    if expected and (a["kind"] != "concept" or verdict != "correct"):
        answer = shorten(expected.splitlines()[0], GIVEN_WIDTH)
        if isinstance(a["expected_value"], (int, float)) and expected != f"{a['expected_value']:.6g}":
            answer += f" = {a['expected_value']:.6g}"
        label = "model answer" if a["kind"] == "concept" else "the answer"
        lines += _say(f"      {label}: {answer}", style, hang=8)
    if verdict == "consistent":
        lines += _say("      right from your own earlier numbers: the slip was in an earlier step",
                      style, hang=6)
    if a["misconceptions"]:
        label = "wrong beliefs" if a["kind"] == "concept" else "diagnosis"
        lines += _say(f"      {label}: {visible(', '.join(a['misconceptions']))}", style, hang=8)
    return lines


def report_text(s: dict[str, Any], style: Style) -> str:
    """The report card of one session (``drills.store.sessions.session_report``)."""
    answers = s["answers"]
    lines = _head(s, style)
    if not answers:
        lines += _say("No question was answered in this session.", style)
        return "\n".join(lines)
    topics: dict[str, list[int]] = {}
    for a in answers:
        t = topics.setdefault(str(a["topic"]), [0, 0])
        t[0] += is_right(a["verdict"])
        t[1] += 1
    lines += ["", style.paint("Score by topic", "bold")]
    for topic, (right, n) in sorted(topics.items()):
        lines += _say(visible(f"  {topic:<22} {right}/{n}"), style, hang=4)
    limit = _limit(s["options"])
    lines += ["", style.paint("Time per question", "bold")]
    for i, a in enumerate(answers, start=1):
        step = a.get("step") if a.get("scenario") is not None else None
        # a scenario's steps share its time (the per-question limit times its steps): no limit per step
        of = f" of {clock_text(limit)}" if limit and step is None else ""
        where = f"  (scenario step {step})" if step is not None else ""
        lines += _say(visible(f"  {i:>2}. {str(a['topic']):<22} "
                              f"{clock_text(_seconds(a)):>5}{of}  {a['verdict']}{where}"), style, hang=6)
    lines += _slips(answers, style)
    lines += ["", style.paint("What to review next", "bold")]
    for item in s["review"] or ["nothing missed"]:
        lines += _say(visible(f"  - {item}"), style, hang=4)
    lines += ["", style.paint("Answers", "bold")]
    for i, a in enumerate(answers, start=1):
        lines += _answer(i, a, style)
    return "\n".join(lines)
