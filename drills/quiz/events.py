"""What the quiz state machine emits: records of graded questions and the events the
front ends render. No I/O.

``Record`` (a question's result, completed as it is saved) is a dataclass. ``Options``,
``Summary`` and the events are NamedTuples: immutable records, read by attribute, that the
front ends tell apart by their type (none is compared by value). A NamedTuple class is
made in about a seventh of a frozen dataclass's time, and twelve are made before the first
question is shown (issue 25).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from drills.model import Question, Tolerance, counted_slips


class Options(NamedTuple):
    """How a session runs; ``seed`` is only carried through to the summary."""

    mode: str = "practice"  # practice | mock
    # brief: a miss shows a compact card (verdict, diagnosis, the step that went wrong), the
    # worked solution on :steps; full: the worked solution at once; end: in the report only.
    feedback: str = "brief"
    pause: bool = False  # after a miss, wait (Waiting) until the learner goes on: terminals only
    offset: int = 0  # a resumed session: questions already answered before it (for numbering)
    seconds: float | None = None  # per-question limit
    limits: tuple[float, ...] | None = None  # per-question limits, one per item (mock, by kind)
    minutes: float | None = None  # whole-session limit (mock)
    tolerance: Tolerance | None = None
    seed: int | None = None


@dataclass
class Record:
    """One question's result: what the store, the transcript and the report need."""

    index: int
    question: Question
    verdict: str  # correct | consistent (a scenario step) | close | wrong | skipped | timeout
    given: str = ""
    seconds: float = 0.0
    limit: float | None = None
    expected: str = ""
    expected_value: float | None = None
    misconceptions: tuple[str, ...] = ()
    self_grade: str | None = None
    hints: int = 0
    outcome: Any = None  # drills.grading.check.Outcome for auto-graded answers
    explanation: str = ""  # full text: verdict, diagnosis, worked solution
    would_have: str | None = None  # a timeout whose typed, unsent answer was graded: its verdict
    item: int = -1  # the planned item (0-based) it belongs to: a scenario's steps share one
    concept: Any = None  # drills.grading.concept.grade.ConceptGrade of a concept answer with a rubric
    overridden: bool = False  # the learner overruled the grader's verdict (:override)


class Summary(NamedTuple):
    """The end of a session: totals, plus the mock report card's ingredients."""

    mode: str
    seed: int | None
    asked: int
    total: int
    score: int
    best_streak: int
    counts: dict[str, int]
    by_topic: dict[str, tuple[int, int]]  # topic -> (correct, answered)
    misconceptions: dict[str, int]
    review: tuple[str, ...]
    records: tuple[Record, ...]
    deferred: bool
    quit_early: bool
    planned: int = 0  # questions planned (a scenario one, however many steps; 0: as ``total``)
    planned_asked: int = 0  # of those, how many were asked (a scenario cut short counts)


def summarize(options: Options, records: Sequence[Record], total: int, score: int, best_streak: int,
              deferred: bool, quit_early: bool, planned: int = 0) -> Summary:
    """The Summary of a session's ``records``: counts, by topic, slips, what to review next."""
    from drills.grading.scenario import RIGHT  # deferred: not needed before the first question

    counts = Counter(r.verdict for r in records)
    topics: dict[str, list[int]] = {}
    for r in records:
        t = topics.setdefault(r.question.topic, [0, 0])
        t[0] += r.verdict in RIGHT
        t[1] += 1
    hits = Counter(m for r in records for m in counted_slips(r.question.kind, r.misconceptions))
    weak = sorted((c / n, topic) for topic, (c, n) in topics.items() if c < n)
    review = tuple(t for _, t in weak) + tuple(f"misconception {m}" for m, _ in hits.most_common(3))
    return Summary(options.mode, options.seed, len(records), total, score, best_streak, dict(counts),
                   {k: (v[0], v[1]) for k, v in topics.items()}, dict(hits), review,
                   tuple(records), deferred, quit_early, planned or total,
                   len({r.item if r.item >= 0 else r.index for r in records}))


class QuestionShown(NamedTuple):
    """A question is asked: its position, the plan's length, and its time limit."""

    index: int  # 0-based
    total: int
    question: Question
    limit: float | None


class Recorded(NamedTuple):
    """Base of the events that carry a saved Record (store and transcript write these)."""

    record: Record
    deferred: bool = False  # mock with feedback=end: say "recorded", explain in the report
    brief: bool = False  # feedback=brief: the compact card, the worked solution on :steps


class Graded(Recorded):
    """An answer (or a concept self-grade) was graded."""


class Skipped(Recorded):
    """:skip or Ctrl-C: recorded as skipped; the answer is shown."""


class TimedOut(Recorded):
    """The question's time ran out: recorded as timeout."""


class Undone(NamedTuple):
    """``:undo``: the session's last answer was taken back (``record``); its question is asked
    again. ``number`` is the question's as the learner counts it (the toolbar's)."""

    record: Record
    number: int


class InvalidAnswer(NamedTuple):
    """An answer that cannot be read (not a number, an unknown choice): asked again."""

    message: str


class HintShown(NamedTuple):
    """``:hint``: the hint ``number`` of ``of``."""

    text: str
    number: int
    of: int


class StepsShown(NamedTuple):
    """``:steps`` or ``s``: the worked solution of the last answer (``record``)."""

    text: str
    record: Record | None = None


class Revealed(NamedTuple):
    """A concept answer was submitted: the model answer, which key points it covered and,
    with a rubric, its grade (drills.grading.concept.grade.ConceptGrade)."""

    question: Question
    model_answer: str
    key_points: tuple[tuple[str, bool], ...]
    grade: Any = None


class Notice(NamedTuple):
    """A line to say, e.g. what a command did."""

    text: str


class Waiting(NamedTuple):
    """After a miss, on a terminal: the next question waits for Enter (s: the worked steps)."""

    next: str = "question"  # "step": the same scenario's next step; "summary": it was the last


class Finished(NamedTuple):
    """The session is over: its summary."""

    summary: Summary


Event = Any  # any of the events above
RECORD_EVENTS = (Recorded,)
