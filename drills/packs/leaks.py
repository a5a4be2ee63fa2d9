"""No answer given away: a question whose text states another question's answer.

A question's *answers*:

* a fixed numeric question: its exact value (``drills.grading.reference``: the answer text, or
  the engine's value of problem + metric). Generated templates have none: theirs change
  with the seed.
* a choice question: each number in a correct option that no wrong option also shows.
  Whatever the prompt asks, that number is what tells the right option from the others
  ("NDCG = 0.5, RR = 0.3333" answers with 0.3333): a learner who has just read it
  elsewhere picks the option with it. It is known only to the digits written there.

A question's *text*: its prompt, hints, options (text and explanation), explanation, model
answer and key points (not a code snippet: it is code, not prose).

A number written in a text *states* an answer when it has at least 3 significant digits
that are not trailing zeros and the answer rounds to it: 0.7592 and 0.759 state
0.759191..., 0.76 does not (2 digits), 0.7590 does not (0.7592 to 4 digits), and 1.000 or
0.500 never state anything (one informative digit: a round value gives nothing away).
Small integers (ranks, grades, lists such as [3, 2, 1, 0]) never count for the same
reason. Signs are ignored (a drop of 0.0512 states a difference of -0.0512); a percentage
is not read as a fraction (75.92% does not state 0.7592). Numbers are read as written,
plain decimals not inside a word (the 2 of log2 is not a number), and fractions of two
integers (``495/512``, ``15/16``) as their exact value, when written with 3 or more digits
and that value has 3 or more significant digits (15/16 = 0.9375 and 15/7 do; 2/3, 7/8 and
25/100 do not: small fractions, like small integers, are everyone's).

A question never leaks to itself (its explanation may end "Answer: 0.7592"). Two
questions with the same answer do leak to each other when one of them writes it out.

``find_leaks`` lists every pair for ``drills packs lint``; ``Guard`` answers the planner's
question (may these two share a session?) cheaply: texts are read with one regex, and an
exact answer is computed only when no pack cache has supplied it (``remember``).

Pure: no terminal, no files.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from decimal import Context, Decimal
from typing import Any

from drills.coding.text import code_lines
from drills.model import LETTERS, Question

MIN_DIGITS = 3  # significant digits (not trailing zeros) a number needs to give an answer away
STORED_DIGITS = 30  # significant digits of an exact answer kept in the pack cache
MAX_WRITTEN = 40  # characters: a longer digit string is not an answer written out
_NUMBER = re.compile(r"(?<![\w.])(?:\d+(?:\.\d+)?|\.\d+)(?!\w|\.\d)", re.ASCII)
_FRACTION = re.compile(r"(?<![\w./])\d{1,12}/\d{1,12}(?![\w/]|\.\d)", re.ASCII)
_EXACT = Decimal("1e-25")  # a written fraction is exact: it states what agrees to this
_CTX = Context(prec=2 * MAX_WRITTEN)  # exact for every comparison made here
_MEMO_CAP = 20_000


class _Record:
    """A small immutable record. Plain slotted classes, not dataclasses or NamedTuples: the
    planner imports this module at every launch, and each of those costs ~0.3-1.4 ms to make."""

    __slots__: tuple[str, ...] = ()

    def __init__(self, *values: Any) -> None:
        for name, value in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self._values()!r}"


class Number(_Record):
    """A number as written: its text, value, and half a unit in its last written place."""

    __slots__ = ("text", "value", "half_unit")
    text: str
    value: Decimal
    half_unit: Decimal


class Stated(_Record):
    """A number found in a question's text, and where: "prompt", "hint 2", "option b"..."""

    __slots__ = ("number", "where")
    number: Number
    where: str


class Answer(_Record):
    """An answer: exact (half_unit 0) or as written in a correct option (``option`` its letter)."""

    __slots__ = ("value", "half_unit", "option")
    value: Decimal
    half_unit: Decimal
    option: str | None


class Leak(_Record):
    """``question``'s text at ``where`` writes ``number``, which is ``answered``'s answer;
    ``option``: the answered choice question's correct option, when that is where it is."""

    __slots__ = ("question", "answered", "number", "where", "option")
    question: Question
    answered: Question
    number: str
    where: str
    option: str | None

    def message(self) -> str:
        """One lint line (without the leaking question's file and id)."""
        option = re.fullmatch(r"option (\w)'s explanation", self.where)
        where = f"the explanation of its option {option.group(1)}" if option else f"its {self.where}"
        at = f"{self.answered.source}" + (f", in its correct option {self.option}" if self.option else "")
        return f"states {self.number} (in {where}), the answer of {self.answered.id} ({at})"


def number(text: str) -> Number | None:
    """``text`` (digits, maybe one point) as a Number, or None with fewer than 3 informative digits."""
    if len(text) > MAX_WRITTEN:
        return None
    whole, _, frac = text.partition(".")
    digits = (whole + frac).lstrip("0")
    informative = digits.rstrip("0")
    if len(informative) < MIN_DIGITS:
        return None
    if frac or "." in text:
        exponent = -len(frac)
    else:  # an integer's trailing zeros are not significant: 1230 is 1234 to 3 digits
        exponent = len(digits) - len(informative)
    return Number(text, Decimal(text), Decimal(5).scaleb(exponent - 1))


def fraction(text: str) -> Number | None:
    """``text`` (``a/b``) as a Number, or None when a/b has fewer than 3 significant digits."""
    top, _, bottom = text.partition("/")
    if int(bottom) <= 1 or len(top.lstrip("0") + bottom) < MIN_DIGITS:
        return None
    value = _CTX.divide(Decimal(top), Decimal(bottom))
    return Number(text, value, _EXACT) if value and Context(prec=2).plus(value) != value else None


def numbers_in(text: str) -> list[Number]:
    """The numbers of ``text`` that could state an answer (at least 3 informative digits)."""
    found = [number(m.group()) for m in _NUMBER.finditer(text)]
    found += [fraction(m.group()) for m in _FRACTION.finditer(text)]
    return [n for n in found if n is not None]


def states(n: Number, answer: Answer) -> bool:
    """Does the written ``n`` round from (or agree to its digits with) ``answer``?"""
    gap = _CTX.abs(_CTX.subtract(n.value, _CTX.abs(answer.value)))
    return gap <= _CTX.add(n.half_unit, answer.half_unit)


def texts(q: Question) -> Iterator[tuple[str, str]]:
    """(where, text) for every text field of ``q``."""
    yield "prompt", q.prompt
    for i, hint in enumerate(q.hints, start=1):
        yield f"hint {i}", hint
    for letter, o in zip(LETTERS, q.options, strict=False):
        yield f"option {letter}", o.text
        if o.explanation:
            yield f"option {letter}'s explanation", o.explanation
    if q.explanation:
        yield "explanation", q.explanation
    if q.model_answer:
        yield "model answer", q.model_answer
    for i, point in enumerate(q.key_points, start=1):
        yield f"key point {i}", point
    for step in q.steps:  # a scenario: its steps' texts too
        for where, text in texts(step):
            yield f"step {step.part.step if step.part else '?'}'s {where}", text


def stated(q: Question) -> tuple[Stated, ...]:
    """Every number of ``q``'s text that could give an answer away, with where it is."""
    return tuple(Stated(n, where) for where, text in texts(q) for n in numbers_in(text))


# ------------------------------------------------------------------ answers


def _key(q: Question) -> tuple[Any, ...]:
    """What a numeric question's exact answer depends on (the memo's key)."""
    return (q.answer, q.problem, q.metric)


_memo: dict[tuple[Any, ...], Decimal | None] = {}


def _value(digits: object) -> Decimal | None:
    """``digits`` as a Decimal, or None unless it is a plain finite number of sane size."""
    if not isinstance(digits, str) or len(digits) > MAX_WRITTEN:
        return None
    try:
        value = Decimal(digits)
    except ArithmeticError:
        return None
    return value if value.is_finite() and abs(value.adjusted()) <= 300 else None


def remember(q: Question, digits: object) -> None:
    """Record a numeric question's exact answer as ``answer_digits`` gave it (None: it has
    none), e.g. from the pack cache, so the planner need not compute it. Anything else (a
    damaged cache) is not recorded: the answer is computed when it is needed."""
    if q.kind != "numeric":
        return
    value = _value(digits)
    if value is None and digits is not None:
        return
    if len(_memo) >= _MEMO_CAP:
        _memo.clear()
    try:
        _memo[_key(q)] = value
    except TypeError:  # an unhashable problem (built by hand): nothing to remember it by
        return


def _exact(q: Question) -> Decimal | None:
    try:
        return _memo[_key(q)]
    except KeyError:
        digits = answer_digits(q)
        remember(q, digits)
        return _value(digits)
    except TypeError:
        return _value(answer_digits(q))


def answer_digits(q: Question) -> str | None:
    """A fixed numeric question's exact answer to STORED_DIGITS digits (None: no answer)."""
    if q.kind != "numeric":
        return None
    from drills.grading.reference import reference  # deferred: a warm pack cache has the answers

    try:
        return str(Context(prec=STORED_DIGITS).plus(reference(q).decimal()))
    except Exception:  # noqa: BLE001 - a broken question has no answer here; lint reports it
        return None


def answers(q: Question) -> tuple[Answer, ...]:
    """``q``'s answers (see the module docstring): none for every kind but numeric and choice."""
    if q.kind == "numeric":
        value = _exact(q)
        return () if value is None else (Answer(value, Decimal(0), None),)
    if q.kind == "scenario":  # its steps' answers (a generated scenario's template has none)
        return tuple(a for step in q.steps for a in answers(step))
    if q.kind != "choice":
        return ()
    wrong = {n.value for o in q.options if not o.correct for n in numbers_in(o.text)}
    out: dict[Decimal, Answer] = {}
    for letter, o in zip(LETTERS, q.options, strict=False):
        if o.correct:
            for n in numbers_in(o.text):
                if n.value not in wrong:
                    out.setdefault(n.value, Answer(n.value, n.half_unit, letter))
    return tuple(out.values())


# ------------------------------------------------------------------ pairs


def _leak(a: Question, found: Sequence[Stated], b: Question, given: Sequence[Answer]) -> Iterator[Leak]:
    """Each place of ``a``'s text stating one of ``b``'s answers, once per place."""
    places: set[str] = set()
    for s in found:
        if s.where in places:
            continue
        for answer in given:
            if states(s.number, answer):
                places.add(s.where)
                yield Leak(a, b, s.number.text, s.where, answer.option)
                break


def find_leaks(questions: Sequence[Question]) -> list[Leak]:
    """Every (question, place) stating another question's answer, in the questions' order."""
    found = [(q, stated(q)) for q in questions]
    given = [(q, answers(q)) for q in questions]
    given = [(q, a) for q, a in given if a]
    return [leak for a, numbers in found if numbers for b, ans in given if b is not a
            for leak in _leak(a, numbers, b, ans)]


def leak_errors(questions: Sequence[Question]) -> list[str]:
    """``file:line: id: states ...`` lint lines, one per leak (within a scenario too)."""
    within = [line for q in questions if q.kind == "scenario" for line in scenario_leaks(q)]
    return [f"{leak.question.source}: {leak.question.id}: {leak.message()}"
            for leak in find_leaks(questions)] + within


def scenario_leaks(q: Question) -> list[str]:
    """A scenario's setup (on screen at every step) must state no step's answer, and a step's
    text (prompt, hints, options, explanation, a code step's examples) no later step's answer,
    as a number or as its exact form (``15/2 + 3/log2(3)``)."""
    out: list[str] = []
    steps = list(q.steps)
    setup = tuple(Stated(n, "setup") for n in numbers_in(q.prompt))
    for i, step in enumerate(steps):
        out += [f"{q.source}: {q.id}: {leak.message()}" for leak in _leak(q, setup, step, answers(step))]
        out += _exact_leaks(q, [("setup", q.prompt)], step)
        examples = _examples(step)
        shown = list(texts(step)) + examples
        mine = stated(step) + tuple(Stated(n, where) for where, text in examples for n in numbers_in(text))
        for later in steps[i + 1:]:
            out += [f"{step.source}: {step.id}: {leak.message()}"
                    for leak in _leak(step, mine, later, answers(later))]
            out += _exact_leaks(step, shown, later)
    return out


def _examples(q: Question) -> list[tuple[str, str]]:
    """A code question's signature and examples as shown (their values are answers too)."""
    if q.kind != "code" and not q.code:
        return []
    return [("examples", "\n".join(code_lines(q)))]


def _exact_leaks(a: Question, shown: Sequence[tuple[str, str]], b: Question) -> list[str]:
    """``a``'s texts writing out ``b``'s exact answer (a closed form of 5+ characters)."""
    exact = _exact_text(b)
    if exact is None:
        return []
    return [f"{a.source}: {a.id}: states {exact} (in its {where}), the exact answer of {b.id} "
            f"({b.source})" for where, text in shown if exact in " ".join(text.split())]


def _exact_text(q: Question) -> str | None:
    if q.kind != "numeric":
        return None
    from drills.grading.reference import reference  # deferred: lint's, not the planner's

    try:
        text = " ".join(reference(q).text.split())
    except Exception:  # noqa: BLE001 - a broken question has no answer here; lint reports it
        return None
    return text if len(text) >= 5 and not re.fullmatch(r"[\d.]+", text) else None


class Guard:
    """The questions a session has taken, and whether another may join them: neither's
    text may state the other's answer.

    Each question's numbers are read once; its answers are looked up (``remember``) or
    computed only when a number of another question could match them.
    """

    def __init__(self) -> None:
        self._taken: dict[int, Question] = {}
        self._stated: dict[int, tuple[Question, tuple[Stated, ...]]] = {}
        self._answers: dict[int, tuple[Question, tuple[Answer, ...]]] = {}

    def take(self, q: Question) -> None:
        self._taken.setdefault(id(q), q)

    def clash(self, q: Question) -> bool:
        """Does ``q`` state an answer of a question taken, or one of those ``q``'s?"""
        return any(c is not q and (self._one_way(q, c) or self._one_way(c, q))
                   for c in self._taken.values())

    def _numbers(self, q: Question) -> tuple[Stated, ...]:
        hit = self._stated.get(id(q))
        if hit is None or hit[0] is not q:
            hit = self._stated[id(q)] = (q, stated(q))
        return hit[1]

    def _given(self, q: Question) -> tuple[Answer, ...]:
        hit = self._answers.get(id(q))
        if hit is None or hit[0] is not q:
            hit = self._answers[id(q)] = (q, answers(q))
        return hit[1]

    def _one_way(self, a: Question, b: Question) -> bool:
        if b.kind not in ("numeric", "choice", "scenario"):
            return False
        numbers = self._numbers(a)
        return bool(numbers) and any(states(s.number, x) for x in self._given(b) for s in numbers)
