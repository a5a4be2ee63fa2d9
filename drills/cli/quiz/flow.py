"""What a quiz asks, shared by practice, mock and review: the options every quiz command
takes, the planner's pick (one line and exit 1 when it fails), the first run's welcome, a
short plan said at the start, resuming an interrupted session, and the retry round of the
questions just missed.

The quiz itself stays in ``drills.quiz.session`` (pure) and ``drills.cli.quiz.run.run_quiz``;
this module decides what to ask and reads the history for it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click

from drills.cli.completion import complete_packs
from drills.cli.errors import Exit, fail
from drills.display import Style, display_width
from drills.generators.instantiate import GenerationError, instantiate, item_rng
from drills.model import Question
from drills.quiz.plan import plan, repeated
from drills.safetext import plural

WELCOME = (
    "Welcome to drills: practice for ranking-metrics interviews.\n"
    "Each question says what to answer: a number (0.7592) or an exact expression "
    "(13/2 + 1/log2(3)), a letter, or a few sentences. A miss names the slip your number "
    "matches; then Enter goes on and s shows the worked solution.\n"
    "Keys: :hint, :skip (or Ctrl-C), :steps, :quit (or Ctrl-D), :help; Tab completes.\n"
    "This first session starts with the easy questions.")


def plan_items(questions: Sequence[Question], seed: int, count: int, topics: Sequence[str],
               difficulty: str | None, recent: Sequence[str] = (),
               easy_first: bool = False) -> list[Question]:
    """The planner's pick for a quiz, or one line and exit 1 when it cannot draw them."""
    try:
        return plan(questions, seed=seed, count=count, topics=tuple(topics), difficulty=difficulty,
                    recent=frozenset(recent), easy_first=easy_first)
    except GenerationError as exc:
        fail(str(exc), Exit.FAILED)


@dataclass(frozen=True)
class History:
    """What a new session's plan takes from the history: ``recent``, the questions answered
    in the last sessions (planned only once the others run out), and ``easy_first``."""

    recent: list[str]
    easy_first: bool


def planning_history(store: Any, mode: str, seed: int | None, first: bool) -> History:
    """The history a plan for ``seed`` is made with, so that a seed reproduces a session.

    ``--seed`` given and a ``mode`` session with that seed already in the history: that
    session's own (its options keep them), so the same questions come back. Otherwise the
    recent questions as of now (``drills.store.progress.recent_questions``), and a first
    session (``first``) starts easy.
    """
    from drills.store.progress import recent_questions  # lazy: only to plan a new session

    def read() -> History:
        if seed is not None:
            row = store.conn.execute(
                "SELECT options FROM sessions WHERE mode = ? AND seed = ? AND json_valid(options) "
                "ORDER BY id DESC LIMIT 1", (mode, seed)).fetchone()
            if row is not None:
                opts = json.loads(row[0])
                opts = opts if isinstance(opts, dict) else {}
                kept = opts.get("recent")
                ids = [str(i) for i in kept] if isinstance(kept, list) else []
                return History(ids, opts.get("ramp") == EASY_FIRST)
        return History(sorted(recent_questions(store)), first)

    try:
        return store.reading(read)
    except Exception:  # noqa: BLE001 - a history that cannot be read plans as a fresh one
        return History([], first)


EASY_FIRST = "easy-first"  # options["ramp"] of a first session planned easy first


def repeat_note(items: Sequence[Question], recent: Sequence[str]) -> str | None:
    """``2 of these 10 questions were answered in your last sessions: ...`` or None."""
    n = repeated(items, frozenset(recent))
    if not n:
        return None
    return (f"{n} of these {len(items)} questions {'was' if n == 1 else 'were'} answered in your "
            "last sessions: too few others match these options, so they came back.")


def quiz_options(fn: Any) -> Any:
    """The options every quiz command takes: --pack, --seed and --transcript."""
    fn = click.option("--transcript", metavar="FILE", default=None,
                      help="Write one JSON line per question as it is graded.")(fn)
    fn = click.option("--seed", type=int, default=None,
                      help="Same seed, same questions in the same order (default: random, shown at the end).")(fn)
    fn = click.option("--pack", "packs", multiple=True, metavar="P", shell_complete=complete_packs,
                      help="Use only pack P: a pack name (see `drills packs list`) or a pack file "
                           "or folder (repeatable). Default: every pack.")(fn)
    return fn


def welcome_text() -> str:
    """WELCOME wrapped to the terminal."""
    return Style(width=display_width()).wrap(WELCOME)


def shortfall(asked: int, count: int, topics: Sequence[str], difficulty: str | None) -> str | None:
    """``Only 1 easy lambdarank question matches; asking 1.`` when fewer than --count match."""
    if asked >= count:
        return None
    what = " ".join(x for x in (difficulty or "", "/".join(topics)) if x)
    noun = f"{what} question" if what else "question"
    verb = "matches" if asked == 1 else "match"
    return f"Only {plural(asked, noun)} {verb} (--count {count}); asking {asked}."


def first_run(store: Any) -> bool:
    """No answer in the history yet."""
    def read() -> bool:
        return not store.conn.execute("SELECT EXISTS (SELECT 1 FROM attempts)").fetchone()[0]

    try:
        return bool(store.reading(read))
    except Exception:  # noqa: BLE001 - a welcome is never worth an error
        return False


@dataclass(frozen=True)
class Unfinished:
    """An interrupted practice session: its row, seed, options and how many were answered."""

    id: int
    seed: int
    options: dict[str, Any]
    answered: int


def last_unfinished(store: Any) -> Unfinished | None:
    """The newest practice session that was quit or cut off before its last question,
    unless a later session already resumed it (never one imported from another machine). ``answered`` counts answers (a scenario's
    steps each one: ``_resume`` maps them onto the plan); whether any question is left is
    counted in planned items, a scenario's steps being one (``items_answered``)."""
    from drills.store.sessions import items_answered  # lazy: only for --resume

    def read() -> Unfinished | None:
        rows = store.conn.execute(
            "SELECT s.id, s.seed, s.options, s.ended_at, s.report "
            "FROM sessions s WHERE s.mode = 'practice' AND (CASE WHEN json_valid(s.options) "
            "THEN json_extract(s.options, '$.imported') END) IS NULL "  # not another machine's
            "ORDER BY s.id DESC LIMIT 50").fetchall()
        resumed = set()
        for sid, seed, options, ended, report in rows:
            try:
                opts = json.loads(options or "{}")
                rep = json.loads(report or "{}")
            except ValueError:
                continue
            if not isinstance(opts, dict) or not isinstance(rep, dict):
                continue
            if isinstance(opts.get("resumed_from"), int):
                resumed.add(opts["resumed_from"])
            if sid in resumed or seed is None:
                continue
            planned = len(opts.get("plan") or []) or int(opts.get("count") or 0)
            cut_off = ended is None or bool(rep.get("quit_early"))
            if not cut_off:
                return None  # the newest practice session was finished: nothing to resume
            steps = store.conn.execute("SELECT scenario, step FROM attempts "
                                       "WHERE session_id = ? ORDER BY id", (sid,)).fetchall()
            sizes = opts.get("plan_steps")  # answers each planned item takes (a scenario: its steps)
            if isinstance(sizes, list) and sizes and all(type(x) is int for x in sizes):
                left = items_completed(steps, sizes) < len(sizes)  # a scenario cut short is left too
            else:
                left = items_answered(steps) < planned
            if left:
                return Unfinished(int(sid), int(seed), opts, len(steps))
        return None

    return store.reading(read)


def items_completed(steps: Sequence[tuple[Any, Any]], sizes: Sequence[int]) -> int:
    """How many planned items, from the first, the answers ``(scenario, step)`` complete: an
    ordinary item takes one answer, a scenario all its steps; a scenario answered again from
    its first step (after a resume) starts over."""
    done = progress = 0
    for _scenario, step in steps:
        if done >= len(sizes):
            break
        if sizes[done] == 1:
            done += 1
            continue
        progress = progress + 1 if step == progress + 1 else (1 if step == 1 else 0)
        if progress == sizes[done]:
            done, progress = done + 1, 0
    return done


def retry_items(missed: Sequence[Question], catalog: Sequence[Question], seed: int) -> list[Question]:
    """The missed questions again: fixed ones as they were, generated ones (and scenarios a
    generator drew) as fresh variants."""
    templates = {q.id: q for q in catalog if q.kind in ("generated", "scenario") and q.generator}
    out = []
    for i, q in enumerate(missed):
        template = templates.get(q.id) if q.generator else None
        out.append(instantiate(template, item_rng(seed, i, q.id)) if template is not None else q)
    return out
