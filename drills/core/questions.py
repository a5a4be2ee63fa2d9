"""The question model shared by packs, generators, the session and the CLI.

Plain frozen dataclasses: packs build them from YAML, generators build concrete
numeric/choice items from them, the session asks them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

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
)
GAINS: tuple[str, ...] = ("exponential", "linear")
# Metrics the exact engine can compute for a Problem.
METRICS: tuple[str, ...] = ("dcg", "idcg", "ndcg", "rr", "precision", "hit", "delta_ndcg",
                            "gain_ratio", "discount", "contribution", "discount_ratio",
                            "ndcg_difference", "ap", "recall", "rprec", "err", "rbp", "map", "mrr")
# The metrics ``drills solve --metric`` computes for one ranking (issue 12's names).
SOLVE_METRICS: tuple[str, ...] = ("ndcg", "dcg", "idcg", "ap", "precision", "recall", "rprec",
                                  "hit", "rr", "err", "rbp")
# Metrics over several queries: ``Problem.queries`` holds one Problem per query.
QUERY_METRICS: tuple[str, ...] = ("map", "mrr")
# The metrics of drills.core.measures (one exact result with worked rows each).
MEASURED_METRICS: tuple[str, ...] = ("precision", "recall", "rprec", "hit", "rr", "ap", "err", "rbp",
                                     "map", "mrr")
# AP's denominator conventions (drills.core.binary_metrics.AP_CONVENTIONS says whose each is).
AP_CONVENTION_NAMES: tuple[str, ...] = ("R", "min_k_R", "retrieved")


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
class Problem:
    """A ranking problem: relevance grades in ranked order, the judged pool, cut-off k.

    ``judged`` is the query's full judged pool (None: the ranked list itself).
    ``k`` None means no cut-off: DCG over the whole ranking, IDCG over the whole judged
    pool (NDCG@k cuts both at k). ``swap`` holds two 1-based ranks for ``delta_ndcg``.
    """

    relevance: tuple[int, ...]
    judged: tuple[int, ...] | None = None
    k: int | None = None
    gain: str = "exponential"
    swap: tuple[int, int] | None = None
    # A second ranking of the same documents, for ``ndcg_difference`` (NDCG - NDCG of versus).
    versus: tuple[int, ...] | None = None
    # Binary metrics (precision, recall, rprec, hit, rr, ap, map, mrr): relevant iff
    # grade >= threshold (trec_eval's -l). NDCG, ERR and RBP use the grades themselves.
    threshold: int = 1
    # AP's denominator: "R" (trec_eval map), "min_k_R" or "retrieved".
    convention: str = "R"
    # RBP's persistence p, 0 < p < 1 (None: 4/5).
    persistence: Fraction | None = None
    # ERR's and RBP's top grade g_max (None: the largest grade in the judged pool).
    max_grade: int | None = None
    # map / mrr: one Problem per query (its relevance and judged); this problem's own
    # relevance and judged repeat the first query's, so single-ranking code still works.
    queries: tuple[Problem, ...] = ()

    @property
    def cutoff(self) -> int:
        """Where DCG, RR and P stop: k, or the whole ranked list when k is None.

        (With k None IDCG takes the whole judged pool, which may be longer: see solve.)
        """
        return self.k if self.k is not None else len(self.relevance)


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
    """Where a step sits in its scenario (drills.core.scenario): the scenario's id, the step's
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
class Question:
    """A question as written in a pack (or made by a generator).

    numeric:   ``answer`` (exact expression text, safe-parsed) or ``problem`` + ``metric``
               (the engine computes the answer and the worked solution).
    generated: ``generator`` + ``params``; ``drills.core.generators`` turns it into a
               concrete numeric or choice Question for a seed.
    choice:    ``options`` (one or more correct).
    concept:   ``model_answer`` + ``key_points``; self-graded.
    code:      ``function`` + ``signature`` + ``task``; the learner's function is run on
               hidden cases by drills.core.codecheck (in a separate process).
    scenario:  ``steps`` (each a question of a STEP_KINDS kind with its ``part``) over one shared
               ``problem`` (or one a ``generator`` draws); asked one step at a time and graded
               with carry-forward (drills.core.scenario).
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
    generator: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    tolerance: Tolerance | None = None
    # The slip ids a generator declares for what it asks (empty: every slip for the metric).
    slips: tuple[str, ...] = ()
    # Set when the question was built (drills.core.narrowing.prepared): the tolerance would
    # have accepted a slip, so ``tolerance`` is narrowed and the prompt asks for decimals.
    narrowing: Narrowing | None = None
    # code: the function the learner writes (its name, the signature shown) and what it must
    # compute (a drills.core.codetask.CodeTask). ``code`` on a choice or numeric question is
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
