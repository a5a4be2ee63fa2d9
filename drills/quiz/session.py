"""The quiz state machine: questions in, events out, no I/O.

The prompt_toolkit front end, the plain line front end and the tests all drive the
same ``Session``: they pass typed text in and render the events that come back. The
clock is injected so timeouts are testable. ``drills.grading.check`` (and through it
sympy) is imported on the first answer, never before, so the first question appears
before sympy is loaded.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from drills.grading.reveal import answer_for
from drills.grading.scenario import RIGHT, flatten, named_once, regrade
from drills.model import Question
from drills.quiz.commands import ALIASES, COMMANDS, command, command_name, help_text  # noqa: F401 - re-exported
from drills.quiz.concept import GRADE_VERDICT, GRADES, Concepts  # noqa: F401 - re-exported
from drills.quiz.events import (  # noqa: F401 - re-exported: the front ends import them from here
    RECORD_EVENTS,
    Event,
    Finished,
    Graded,
    HintShown,
    InvalidAnswer,
    Notice,
    Options,
    QuestionShown,
    Record,
    Recorded,
    Revealed,
    Skipped,
    StepsShown,
    Summary,
    TimedOut,
    Undone,
    Waiting,
    summarize,
)
from drills.quiz.steps import Steps
from drills.quiz.undo import TakeBack, Undo

FEEDBACK: tuple[str, ...] = ("brief", "full", "end")
_SURROGATE = re.compile("[\ud800-\udfff]")
# A concept answer is a few sentences; a numeric or choice answer is capped by the parser
# (drills.answers.parser.MAX_LENGTH). Longer text is refused before any work is done on it.
MAX_CONCEPT_LENGTH = 10_000
MAX_CODE_LENGTH = 100_000  # a solution file


class Session(Steps, Concepts, Undo):
    """Ask ``items`` in order; ``submit`` and the commands return events to render."""

    def __init__(self, items: list[Question], options: Options | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 code_grader: Callable[[Question, str], Any] | None = None) -> None:
        if not items:
            raise ValueError("a session needs at least one question")
        # A scenario is one planned item; its steps are asked one at a time (``items``), and
        # ``_owner[i]`` is the planned item that step ``i`` belongs to.
        self.planned = list(items)
        self.items, self._owner = flatten(self.planned)
        self.options = options or Options()
        self.clock = clock
        self.code_grader = code_grader  # runs code answers elsewhere (injected like the clock)
        self.take_back: TakeBack | None = None  # :undo's change to the history (drills.quiz.undo)
        self.kept = 0  # answers restored from before a resume (never taken back)
        self.records: list[Record] = []
        self.index = 0
        self.streak = 0
        self.best_streak = 0
        self.started = False
        self.finished = False
        self.quit_early = False
        self._hints = 0
        self._shown_at = 0.0
        self._item_at = 0.0  # when the current planned item (a scenario's first step) was shown
        self._waited_from = 0.0  # when the feedback of a miss began to wait for Enter
        self._limit: float | None = None
        self._started = clock()
        self._pending: Revealed | None = None  # concept answer revealed, awaiting a self-grade
        self._override = False  # the learner overruled the pending concept verdict (:override)
        self._given = ""
        self._answer_seconds = 0.0
        self._waiting = False
        if self.options.feedback not in FEEDBACK:
            raise ValueError(f"feedback must be one of {', '.join(FEEDBACK)}, not {self.options.feedback!r}")

    @property
    def mock(self) -> bool:
        return self.options.mode == "mock"

    @property
    def deferred(self) -> bool:
        return self.options.feedback == "end"

    @property
    def score(self) -> int:
        return sum(r.verdict in RIGHT for r in self.records)

    @property
    def brief(self) -> bool:
        return self.options.feedback == "brief"

    @property
    def awaiting_grade(self) -> bool:
        return self._pending is not None

    @property
    def waiting(self) -> bool:
        """A miss was just explained; the next question is shown when the learner goes on."""
        return self._waiting

    def current(self) -> Question | None:
        """The question being asked; None once finished, or after the last while its miss waits."""
        return None if self.finished or self.index >= len(self.items) else self.items[self.index]

    def deadline(self) -> float | None:
        """Clock time when the current question runs out (None: untimed or grading)."""
        if self.finished or self._pending is not None or self._waiting:
            return None
        ends = []
        limit = self.item_limit()
        if limit:
            ends.append(self._item_at + limit)
        if self.options.minutes:
            ends.append(self._started + self.options.minutes * 60)
        return min(ends) if ends else None

    def remaining(self) -> float | None:
        end = self.deadline()
        return None if end is None else max(0.0, end - self.clock())

    def elapsed(self) -> float:
        return self.clock() - self._started

    def start(self) -> list[Event]:
        """The first question; the per-question clock starts here."""
        self._started = self.clock()
        self.started = True
        return [self._show()]

    def submit(self, text: str) -> list[Event]:
        """Typed text: an in-quiz command, an answer, or (concept) a self-grade."""
        if self.finished:
            return []
        # Undecodable input bytes arrive as lone surrogates (surrogateescape): they would
        # fail to encode when the answer is saved, so they become U+FFFD here.
        text = _SURROGATE.sub("\ufffd", text)
        if len(text) > self.input_limit():
            return self.too_long(len(text))
        stripped = text.strip()
        if self._waiting:
            return self._while_waiting(stripped)
        if stripped.startswith(":"):
            name = command_name(stripped)
            if name is not None:
                return COMMANDS[name][1](self)
            return [InvalidAnswer(f"unknown command {stripped.split()[0]}; type :help for the commands")]
        if self._pending is None and stripped.lower() in COMMANDS:  # "hint" for ":hint"
            return [InvalidAnswer(f"did you mean :{stripped.lower()}? Commands start with a colon "
                                  "(:help lists them).")]
        if self._pending is not None:
            return self.self_grade(stripped)
        if self._expired():
            return self.timeout(stripped)  # a late answer: kept, but recorded as a timeout
        if not stripped:
            return [InvalidAnswer("empty answer; type an answer, or :skip, :hint, :help")]
        q = self.items[self.index]
        if q.kind == "concept":
            return self._reveal(text)
        from drills.grading.check import (  # deferred: not needed before the first question
            check,
            explain,
        )

        if q.kind == "code":
            if self.code_grader is None:
                return [InvalidAnswer("code questions need drills' runner: answer them in "
                                      "`drills practice` or check a file with `drills code check`")]
            outcome = self.code_grader(q, text.rstrip() + "\n")
        else:
            outcome = check(q, stripped, self.options.tolerance)
        if not outcome.counted:
            return [InvalidAnswer(outcome.summary)]
        if q.part is not None:  # a scenario's step: carry-forward from the learner's earlier steps
            outcome = regrade(outcome, q, [(r.question, r.verdict, r.given) for r in self._chain()])
            outcome = named_once(outcome, [(r.question, r.misconceptions) for r in self._chain()])
        full = explain(outcome, steps=True)
        rec = self._record(outcome.verdict, stripped, expected=outcome.expected,
                           expected_value=outcome.expected_value,
                           misconceptions=tuple(outcome.misconceptions), outcome=outcome,
                           explanation=full)
        events: list[Event] = [Graded(rec, self.deferred, brief=self.brief)]
        missed = outcome.verdict not in RIGHT
        if missed and self.brief and not self.options.pause and not self.deferred:
            events.append(Notice("(:steps shows the full worked solution)"))
        return events + self._advance(wait=missed)

    def go_on(self) -> list[Event]:
        """Enter after a miss: the next question."""
        if not self._waiting:
            return []
        self._waiting = False
        if self.index >= len(self.items):  # the last question's miss, read: the summary
            return self.quit(early=False)
        if self._next() == "step":  # reading the feedback does not use up the scenario's time
            self._item_at += self.clock() - self._waited_from
        return [self._show()]

    def _while_waiting(self, text: str) -> list[Event]:
        word = text.lower()
        if not word:
            return self.go_on()
        if word in ("s", "steps"):
            return self.steps()
        if word.startswith(":"):
            name = command_name(word)
            if name is not None and name != "hint":
                return COMMANDS[name][1](self)
        nxt = self._next()
        what = "the summary" if nxt == "summary" else f"the next {nxt}"
        return [Notice(f"Press Enter for {what}, or s for the worked solution."), Waiting(nxt)]

    def input_limit(self) -> int:
        """The longest answer the current question takes (front ends cap their input here)."""
        q = self.current()
        if q is not None and q.kind == "concept" and self._pending is None:
            return MAX_CONCEPT_LENGTH
        if q is not None and q.kind == "code":
            return MAX_CODE_LENGTH
        from drills.answers.parser import (
            MAX_LENGTH,  # deferred: not needed before the first question
        )

        return MAX_LENGTH

    def too_long(self, length: int) -> list[Event]:
        """An answer of ``length`` characters was refused unread (a paste of any size)."""
        return [InvalidAnswer(f"answer too long ({length:,} characters, at most "
                              f"{self.input_limit():,})")]

    @command("hint", "show the next hint (one at a time)")
    def hint(self) -> list[Event]:
        q = self.current()
        if q is None:
            return []
        if self.mock:
            return [Notice("no hints in a mock interview")]
        if self._hints >= len(q.hints):
            return [Notice("no more hints for this question" if q.hints else "this question has no hints")]
        self._hints += 1
        return [HintShown(q.hints[self._hints - 1], self._hints, len(q.hints))]

    @command("steps", "show the full worked solution of the question just graded")
    def steps(self) -> list[Event]:
        """The full worked solution of the question just graded (a correct answer shows one line)."""
        if self._pending is not None:  # a concept card: its model answer
            return self.model_answer()
        if not self.records:
            return [Notice("nothing graded yet: answer first (or :skip to see the answer)")]
        if self.deferred and not self.finished:
            return [Notice("explanations come in the report at the end of the mock")]
        events: list[Event] = [StepsShown(self.records[-1].explanation, self.records[-1])]
        if self._waiting:
            events.append(Waiting(self._next()))
        elif not self.finished and self._pending is None:  # the question still waiting, again
            number, total = self.position()
            events.append(QuestionShown(number - 1, total, self.items[self.index], self.remaining()))
        return events

    @command("skip", "skip this question (recorded as skipped; shows the answer)")
    def skip(self) -> list[Event]:
        if self.finished:
            return []
        if self._waiting:  # Ctrl-C on the feedback: go on, never skip a question not yet seen
            return self.go_on()
        if self._pending is not None:  # a concept answer already typed: keep it (concept.py)
            graded = self._pending.grade is not None
            rec = self._ungraded()
            return [Graded(rec, self.deferred) if graded else Skipped(rec, self.deferred), *self._advance()]
        rec = self._record("skipped", "", **answer_for(self.items[self.index]))
        return [Skipped(rec, self.deferred, brief=self.brief), *self._advance()]

    @command("undo", "take back your last answer and be asked that question again")
    def undo(self) -> list[Event]:
        return self.undo_last()

    def timeout(self, typed: str = "") -> list[Event]:
        """The front end's timer ran out (or a late answer arrived); ``typed``: text so far."""
        if self.finished:
            return []
        self._pending = None
        q = self.items[self.index]
        rec = self._record("timeout", typed.strip(), **answer_for(q))
        rec.seconds = round(rec.limit, 3) if rec.limit is not None else rec.seconds
        if q.kind == "numeric" and typed.strip():  # typed but not sent: what it would have scored
            from drills.grading.check import check

            outcome = check(q, typed.strip(), self.options.tolerance)
            rec.would_have = outcome.verdict if outcome.counted else None
        events: list[Event] = [TimedOut(rec, self.deferred)]
        while q.part is not None and self.index + 1 < len(self.items) and \
                self._owner[self.index + 1] == self._owner[self.index]:  # the scenario's time is up
            self.index += 1
            self._shown_at = self.clock()
            events.append(TimedOut(self._record("timeout", "", **answer_for(self.items[self.index])),
                                   True))
        if self.options.minutes and self.elapsed() >= self.options.minutes * 60:
            return events + [Notice("time is up for the mock"), *self.quit(early=False)]
        return events + self._advance()

    @command("quit", "end the session now and show the summary")
    def quit(self, early: bool = True) -> list[Event]:
        if self.finished:
            return []
        events: list[Event] = []
        if self._pending is not None:  # a typed concept answer is saved, not lost
            graded = self._pending.grade is not None
            rec = self._ungraded()
            events.append(Graded(rec, True) if graded else Skipped(rec, True))
        self.finished = True
        self.quit_early = early and len(self.records) < len(self.items)
        return [*events, Finished(self.summary())]

    @command("help", "list these commands")
    def help(self) -> list[Event]:
        return [Notice(help_text())]

    def _expired(self) -> bool:
        end = self.deadline()
        return end is not None and self.clock() >= end

    def _show(self, spent: float = 0.0) -> QuestionShown:
        """The current question; ``spent``: seconds it already took (asked again by :undo)."""
        self._hints = 0
        self._shown_at = self.clock() - spent
        q = self.items[self.index]
        if q.part is None or q.part.step == 1:
            self._item_at = self._shown_at
        end = self.deadline()
        self._limit = None if end is None else max(0.0, end - self._shown_at)
        if q.kind == "numeric":  # narrowed when shown, not all at plan time (core/narrowing)
            from drills.grading.narrowing import prepared

            q = self.items[self.index] = prepared(q)
        number, total = self.position()
        return QuestionShown(number - 1, total, q, self.remaining() if spent else self._limit)

    def _record(self, verdict: str, given: str, *, seconds: float | None = None, **fields: Any) -> Record:
        q = self.items[self.index]
        took = self.clock() - self._shown_at if seconds is None else seconds
        rec = Record(self.index, q, verdict, given, round(took, 3), self._limit,
                     hints=self._hints, item=self._owner[self.index], **fields)
        self.records.append(rec)
        self.streak = self.streak + 1 if verdict in RIGHT else 0
        self.best_streak = max(self.best_streak, self.streak)
        return rec

    def _advance(self, wait: bool = False) -> list[Event]:
        """On to the next question; after a miss on a terminal, a wait for Enter first (the
        last question's too: its worked solution stays one key away before the summary)."""
        self.index += 1
        if wait and self.options.pause and not self.deferred:
            self._waiting, self._waited_from = True, self.clock()
            return [Waiting(self._next())]
        if self.index >= len(self.items):
            return self.quit(early=False)
        return [self._show()]

    def restore(self, records: list[Record]) -> None:
        """Go on from a session cut short: ``records`` are its answers to the first planned
        items, whole (a scenario's every step), so that the score, the streak, the summary
        and the retry offer count the whole plan. Before ``start``."""
        done = {r.item for r in records}
        self.records = list(records)
        self.kept = len(records)
        self.index = next((i for i, owner in enumerate(self._owner) if owner not in done),
                          len(self.items))
        for r in records:
            self.streak = self.streak + 1 if r.verdict in RIGHT else 0
            self.best_streak = max(self.best_streak, self.streak)
        if self.index >= len(self.items):
            raise ValueError("nothing left to ask in this session")

    def summary(self) -> Summary:
        return summarize(self.options, self.records, len(self.items), self.score, self.best_streak,
                         self.deferred, self.quit_early, len(self.planned))
