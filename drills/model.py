"""The question model shared by packs, generators, the session and the CLI.

Plain frozen dataclasses: packs build them from YAML, generators build concrete
numeric/choice items from them, the session asks them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from drills.engine.problem import Problem

KINDS: tuple[str, ...] = ("numeric", "generated", "choice", "concept", "code", "scenario")
# The kinds a scenario's step may be.
STEP_KINDS: tuple[str, ...] = ("numeric", "choice", "concept", "code")
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")
LETTERS = "abcdefghijklmnopqrstuvwxyz"  # choice options are answered a), b), ...
TOPICS: tuple[str, ...] = (
    "hand-computation",
    "gain-and-discount",
    "normalization",
    "binary-vs-graded",
    "ndcg-vs-mrr",
    "conventions",
    "lambdarank",
    "coding",
    "map-and-recall",
    "mrr-and-err",
    "online-evaluation",
    "position-bias",
    "learning-to-rank",
    "recsys-evaluation",
    "significance",
    "metric-design",
    "diversity",
    "incomplete-judgements",
    "variance-reduction",
    "experiment-health",
    "interference-and-sequential",
    "off-policy-evaluation",
    "ads-metrics",
    "candidate-generation",
    "precision-recall",
    "beyond-accuracy",
    "judging-at-scale",
)



@dataclass(frozen=True)
class Tolerance:
    """Accept an answer within max(absolute, relative * |exact|) of the exact value."""

    absolute: float = 0.005
    relative: float = 0.005

    def allowed(self, exact: float) -> float:
        return max(self.absolute, self.relative * abs(exact))


@dataclass(frozen=True)
class Narrowing:
    """A tolerance narrowed because it would have accepted a known slip's value.

    ``tolerance`` is the narrowed rule (half a unit in the ``decimals``-th place, less
    than half the distance to the nearest slip); ``before`` the rule that accepted
    ``slip``'s ``value`` (shown to decimals + 1 places).
    """

    tolerance: Tolerance
    before: Tolerance
    decimals: int
    slip: str
    value: str
    reason: str  # "0.4118 would be the 1/i discount"

    @property
    def instruction(self) -> str:
        """The sentence the prompt ends with."""
        return f"Give the answer to {self.decimals} decimal places."


@dataclass(frozen=True)
class Source:
    """Where a question came from, for error messages: file and line."""

    path: str = "<memory>"
    line: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass(frozen=True)
class Option:
    """One choice of a choice question; ``explanation`` is shown when it is picked."""

    text: str
    correct: bool = False
    explanation: str | None = None


@dataclass(frozen=True)
class Part:
    """Where a step sits in its scenario (drills.grading.scenario): the scenario's id, the step's
    number (1-based) of ``of``, the name later steps' ``uses`` refer to, the steps it uses, the
    change it makes to the shared problem (as (field, value) pairs), and the shared setup text
    shown above every step."""

    scenario: str
    step: int = 1
    of: int = 1
    name: str = ""
    uses: tuple[str, ...] = ()
    change: tuple[tuple[str, Any], ...] = ()
    setup: str = ""


@dataclass(frozen=True)
class KeyPoint:
    """One point of a concept question's rubric: the ways a candidate says it
    (``accept`` phrasings, drills.grading.concept.phrasing) and whether a correct answer
    must make it."""

    text: str
    required: bool = False
    accept: tuple[str, ...] = ()


@dataclass(frozen=True)
class Misconception:
    """A wrong belief candidates hold about a concept question: a stable snake_case
    ``id`` (stored like a slip id), a one-line ``correction`` and the phrasings that
    signal it."""

    id: str
    correction: str
    signals: tuple[str, ...] = ()


@dataclass(frozen=True)
class Example:
    """A sample answer and how its rubric must grade it (a question test, run by lint)."""

    answer: str
    verdict: str
    points: tuple[str, ...] | None = None  # None: not checked
    misconceptions: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True)
class Rubric:
    """How a concept answer is graded: key points (some required), wrong beliefs, examples."""

    points: tuple[KeyPoint, ...]
    misconceptions: tuple[Misconception, ...] = ()
    examples: tuple[Example, ...] = ()


@dataclass(frozen=True)
class Question:
    """A question as written in a pack (or made by a generator).

    numeric:   ``answer`` (exact expression text, safe-parsed) or ``problem`` + ``metric``
               (the engine computes the answer and the worked solution).
    generated: ``generator`` + ``params``; ``drills.generators`` turns it into a
               concrete numeric or choice Question for a seed.
    choice:    ``options`` (one or more correct).
    concept:   ``model_answer`` + ``key_points`` (+ a ``rubric``: graded by
               drills.grading.concept; without one the learner grades).
    code:      ``function`` + ``signature`` + ``task``; the learner's function is run on
               hidden cases by drills.coding.grade (in a separate process).
    scenario:  ``steps`` (each a question of a STEP_KINDS kind with its ``part``) over one shared
               ``problem`` (or one a ``generator`` draws); asked one step at a time and graded
               with carry-forward (drills.grading.scenario).
    """

    id: str
    topic: str
    kind: str
    prompt: str
    difficulty: str = "medium"
    hints: tuple[str, ...] = ()
    explanation: str = ""
    answer: str | None = None
    problem: Problem | None = None
    metric: str | None = None
    unit: str | None = None
    options: tuple[Option, ...] = ()
    model_answer: str | None = None
    key_points: tuple[str, ...] = ()
    # concept: how an answer is graded (None: an old pack without one; the learner grades).
    rubric: Rubric | None = None
    generator: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    tolerance: Tolerance | None = None
    # The slip ids a generator declares for what it asks (empty: every slip for the metric).
    slips: tuple[str, ...] = ()
    # Set when the question was built (drills.grading.narrowing.prepared): the tolerance would
    # have accepted a slip, so ``tolerance`` is narrowed and the prompt asks for decimals.
    narrowing: Narrowing | None = None
    # code: the function the learner writes (its name, the signature shown) and what it must
    # compute (a drills.coding.task.CodeTask). ``code`` on a choice or numeric question is
    # a snippet shown with line numbers (find the bug), never run.
    function: str | None = None
    signature: str | None = None
    task: Any = None
    code: str | None = None
    # scenario: its steps; a step: where it sits in its scenario.
    steps: tuple[Question, ...] = ()
    part: Part | None = None
    pack: str = ""
    source: Source = field(default_factory=Source)
    # A deliberate variant of the question with this id (lint's duplicate check allows it).
    variant_of: str | None = None

    @property
    def decimals(self) -> int | None:
        """Decimal places the prompt asks for (None: any answer within the tolerance)."""
        return self.narrowing.decimals if self.narrowing else None

    @property
    def prose(self) -> str:
        """The explanation as shown beside the engine's own answer line.

        Authors may end a numeric explanation with ``Answer: ...`` (the bank does, and
        its tests check those against an independent computation); the grader already
        prints the exact answer from the engine, so that line is dropped, not repeated.
        """
        text = self.explanation.strip()
        if self.kind != "numeric":
            return text
        lines = text.splitlines()
        while lines and (lines[-1].strip().startswith("Answer:") or not lines[-1].strip()):
            lines.pop()
        return "\n".join(lines)


def counted_slips(kind: str, ids: Sequence[str]) -> tuple[str, ...]:
    """The misconception ids one answer is counted under in stats, reports and history.

    A concept answer's ids are wrong beliefs it stated, each its own claim: all count. Any
    other answer's ids are the slips that give its number, the primary (most specific)
    first: only that one counts, so one answer is one slip.
    """
    return tuple(ids) if kind == "concept" else tuple(ids[:1])
