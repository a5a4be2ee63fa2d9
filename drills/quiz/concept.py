"""The part of the quiz state machine that takes concept answers. No I/O.

With a rubric (drills.grading.concept) an answer is graded at once: the verdict, the points
made and missed, the wrong beliefs named. The card waits for the learner's recall rating
(again/hard/good/easy, the review schedule's input); ``:override`` overrules the verdict
first (recorded as overridden) and ``s`` shows the model answer. In a mock with feedback at
the end the answer is recorded with its verdict and the card waits for the report.
Without a rubric (an old pack) the learner's own grade is the verdict, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drills.grading.keypoints import covered
from drills.grading.reveal import concept_text
from drills.quiz.commands import command
from drills.quiz.events import Graded, InvalidAnswer, Notice, Revealed, StepsShown

if TYPE_CHECKING:
    from drills.model import Question
    from drills.quiz.events import Event, Record

GRADES: tuple[str, ...] = ("again", "hard", "good", "easy")
# Without a rubric the learner's own grade is the verdict. As in spaced repetition: "hard"
# is a recall, with effort; only "again" is a miss.
GRADE_VERDICT = {"again": "wrong", "hard": "correct", "good": "correct", "easy": "correct"}
GRADE_ALIASES = {"1": "again", "2": "hard", "3": "good", "4": "easy",
                 "a": "again", "h": "hard", "g": "good", "e": "easy"}


def overruled(verdict: str) -> str:
    """What ``:override`` turns the grader's verdict into: a miss becomes correct, a correct
    answer becomes wrong (the learner knows it was a lucky phrasing)."""
    return "wrong" if verdict == "correct" else "correct"


class Concepts:
    """Mixed into ``drills.quiz.session.Session`` (which sets these attributes)."""

    items: list[Question]
    index: int
    records: list[Record]
    _pending: Revealed | None
    _given: str
    _answer_seconds: float
    _shown_at: float
    _override: bool

    clock: Any
    options: Any
    deferred: bool
    finished: bool

    def _record(self, verdict: str, given: str, *, seconds: float | None = None,
                **fields: Any) -> Record: ...

    def _advance(self, wait: bool = False) -> list[Event]: ...

    def _reveal(self, text: str) -> list[Event]:
        q = self.items[self.index]
        self._given = text.strip()
        self._answer_seconds = self.clock() - self._shown_at
        self._override = False
        if q.rubric is not None:  # the rubric grader and its phrasings: not before the first question
            from drills.grading.concept.grade import grade_concept

            grade = grade_concept(q.rubric, text)
        else:
            grade = None
        points = (tuple((p.text, p.covered) for p in grade.points) if grade is not None else
                  tuple((p, covered(p, text)) for p in q.key_points))
        self._pending = Revealed(q, (q.model_answer or "").strip(), points, grade)
        if grade is not None and self.deferred:  # feedback in the report: no card, no rating
            return [Graded(self._concept_record(None), True), *self._advance()]
        if grade is not None and self.options.feedback == "full":  # the model answer, then the card
            return [StepsShown(concept_text(q, points)), self._pending]
        return [self._pending]

    def self_grade(self, grade: str) -> list[Event]:
        """again | hard | good | easy (or 1-4) after a concept answer was shown its card."""
        if self._pending is None:
            return [InvalidAnswer("nothing to grade yet: answer the question first")]
        word = grade.strip().lower()
        if word in ("s", "steps", "m"):
            return self.model_answer()
        name = GRADE_ALIASES.get(word, word)
        if name not in GRADES:
            what = "rate your recall" if self._pending.grade is not None else "grade yourself"
            return [InvalidAnswer(f"{what}: again, hard, good or easy (or 1-4)"
                                  + ("; s: the model answer; :override to overrule the verdict"
                                     if self._pending.grade is not None else ""))]
        rec = self._concept_record(name)
        return [Graded(rec, False), *self._advance(wait=False)]

    def _concept_record(self, rating: str | None, verdict: str | None = None) -> Record:
        """The pending answer's record: the rubric's verdict (or the overruled one, or the
        learner's own grade without a rubric), ``rating`` as the self-grade."""
        pending, self._pending = self._pending, None
        assert pending is not None
        q, grade = pending.question, pending.grade
        overridden = False
        beliefs: tuple[str, ...] = ()
        if verdict is None and grade is not None:
            verdict = grade.verdict
            if self._override:
                verdict, overridden = overruled(grade.verdict), True
            if not overridden or verdict != "correct":
                beliefs = tuple(m.id for m in grade.misconceptions)
        elif verdict is None:
            verdict = GRADE_VERDICT[rating or "again"]
        return self._record(verdict, self._given, expected=(q.model_answer or "").strip(),
                            self_grade=rating, seconds=self._answer_seconds, misconceptions=beliefs,
                            concept=grade, overridden=overridden,
                            explanation=concept_text(q, pending.key_points, grade))

    def _ungraded(self) -> Record:
        """A concept answer whose card was left without a rating (:skip, :quit): with a
        rubric it keeps its verdict; without one it is recorded as skipped."""
        assert self._pending is not None
        if self._pending.grade is not None:
            return self._concept_record(None)
        return self._concept_record(None, verdict="skipped")

    @command("override", "overrule the grader's verdict on your concept answer (recorded as such)")
    def override(self) -> list[Event]:
        pending = self._pending
        if pending is None or pending.grade is None:
            return [Notice(":override applies to a graded concept answer, before you rate it")]
        self._override = not self._override
        if not self._override:
            return [Notice(f"Override withdrawn: the verdict stays {pending.grade.verdict}. "
                           "Rate your recall: 1-4.")]
        return [Notice(f"Overruled: your answer counts as {overruled(pending.grade.verdict)} "
                       "(recorded as your override; :override again to withdraw). "
                       "Rate your recall: 1-4.")]

    def model_answer(self) -> list[Event]:
        """``s`` on a concept card: the model answer and the points, the card still waiting."""
        pending = self._pending
        assert pending is not None
        return [StepsShown(concept_text(pending.question, pending.key_points, pending.grade)),
                Notice("Rate your recall: again, hard, good or easy (1-4)"
                       + (", or :override" if pending.grade is not None else ""))]
