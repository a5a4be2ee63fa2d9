"""One graded answer (``Attempt``) and the checks that keep a stored one sound.

Its own module below ``history`` (the Store) and ``review`` (the schedule), which both
need it. ``attempt_from_row`` is the gate for answers from outside (an export from another
machine, ``drills history import``): every field is type-checked here, then Attempt's own
checks run. Light: no sqlite3, no fsrs.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, dataclass, field, fields
from datetime import datetime
from typing import Any

from drills.store.jsonvalues import finite_number, plain, size
from drills.store.verdicts import MODES, SELF_GRADES, VERDICTS, new_uid  # noqa: F401 - new_uid re-exported

DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")
_HEX = "0123456789abcdef"  # a uid: 32 of these
MAX_TEXT = 100_000  # characters in one field of an imported answer (a typed answer, params)
MAX_PARAMS = 64 * 1024  # a generated question's parameters as JSON
MAX_SLIPS, MAX_SLIP_ID = 100, 200  # misconception ids in one answer, and characters in one
MAX_STEP = 10_000  # a scenario step's number


def is_uid(value: Any) -> bool:
    """True for an id as ``new_uid`` writes it (32 lowercase hex digits)."""
    return isinstance(value, str) and len(value) == 32 and not value.strip(_HEX)  # fast: 100,000 per import


@dataclass(frozen=True)
class Attempt:
    """One graded answer.

    ``verdict`` is one of VERDICTS. A self-graded concept question stores its grade in
    ``self_grade`` (again|hard|good|easy) with verdict "correct" for hard/good/easy and
    "wrong" for again, so accuracy stats need no special case.
    ``answered_at`` is UTC (a naive datetime is taken as UTC); None means now.
    ``difficulty`` is the question's (easy, medium, hard), None when not known.

    A step of a scenario (issue 15) is an attempt of its own with ``scenario`` (the
    scenario's question id) and ``step`` (1-based); the attempt of the scenario's last step
    also carries ``scenario_verdict``, the scenario's overall verdict ("correct" when every
    step was right, else "wrong"), which rates its one review card ``q:<scenario>``.
    ``scenario_verdict`` is not stored: it only drives that card update.

    ``uid`` is the answer's stable id across machines (issue 16): None means a fresh one
    is drawn when it is recorded; an import passes the exported one, so the same answer
    is never stored twice.

    ``overridden`` is True when the learner overruled the grader (the quiz's ``:override``):
    ``verdict`` is then the learner's, the one that counts, and the grader said otherwise.
    """

    question_id: str
    topic: str
    kind: str
    verdict: str
    given: str | None
    expected: str | None
    expected_value: float | None
    misconceptions: tuple[str, ...]
    seconds: float
    generator: str | None = None
    params: dict | None = field(default=None, hash=False)
    self_grade: str | None = None
    answered_at: datetime | None = None
    difficulty: str | None = None
    scenario: str | None = None
    step: int | None = None
    scenario_verdict: str | None = None
    uid: str | None = None
    overridden: bool = False

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, not {self.verdict!r}")
        if self.self_grade is not None and self.self_grade not in SELF_GRADES:
            raise ValueError(f"self_grade must be one of {', '.join(SELF_GRADES)}, "
                             f"not {self.self_grade!r}")
        check_scenario_step(self.scenario, self.step)
        if self.scenario_verdict is not None and (self.scenario_verdict not in VERDICTS
                                                  or self.scenario is None):
            raise ValueError(f"scenario_verdict (one of {', '.join(VERDICTS)}) goes on the last "
                             f"step of a scenario, not {self.scenario_verdict!r} here")
        if self.uid is not None and not is_uid(self.uid):
            raise ValueError(f"uid must be 32 lowercase hex digits, not {self.uid!r}")
        if not isinstance(self.overridden, bool):
            raise ValueError(f"overridden must be true or false, not {self.overridden!r}")
        if not isinstance(self.misconceptions, tuple):
            object.__setattr__(self, "misconceptions", tuple(self.misconceptions))


def check_scenario_step(scenario: Any, step: Any) -> None:
    """A scenario's step names both, its id and a whole step from 1; ValueError otherwise."""
    if (scenario is None) != (step is None):
        raise ValueError("scenario and step go together: give both or neither")
    if scenario is not None and (not isinstance(scenario, str) or not scenario):
        raise ValueError(f"scenario must be a question id, not {scenario!r}")
    if step is not None and (isinstance(step, bool) or not isinstance(step, int) or step < 1):
        raise ValueError(f"step must be a whole number from 1, not {step!r}")


def _text(row: dict[str, Any], key: str, *, optional: bool = True, choices: tuple[str, ...] = ()
          ) -> str | None:
    value = row.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or (not optional and not value) or len(value) > MAX_TEXT:
        raise ValueError(f"{key} must be {'text' if optional else 'non-empty text'}, "
                         f"not {_short(value)}")
    if choices and value not in choices:
        raise ValueError(f"{key} must be one of {', '.join(choices)}, not {_short(value)}")
    return value


def _number(row: dict[str, Any], key: str, *, optional: bool) -> float | None:
    value = row.get(key)
    if value is None and optional:
        return None
    if not finite_number(value):  # math.isfinite of a 401-digit integer raises OverflowError
        raise ValueError(f"{key} must be a number, not {_short(value)}")
    return float(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def attempt_from_row(row: Any, answered_at: datetime) -> Attempt:
    """An exported answer (a dict keyed by the export's columns) as an Attempt, checked
    field by field; ValueError says what is wrong. ``answered_at`` is the row's time,
    parsed by the caller (it is also the key the merge orders by)."""
    return _built(checked_values(row, answered_at))


def checked_values(row: Any, answered_at: datetime) -> dict[str, Any]:
    """``attempt_from_row``'s fields, every check of it and of Attempt's own made, without
    building the Attempt: a merge of 100,000 answers writes them straight to rows
    (``drills.store.database.values_row``). ValueError says what is wrong.

    100,000 per import (issue 25): each field takes a fast path when it is plainly sound
    (text within MAX_TEXT, None, an int or float in range) and the field's own check, with
    its message, otherwise; the checks run in the same order either way, so the first
    fault found is the same."""
    if not isinstance(row, dict):
        raise ValueError(f"an answer must be an object, not {_short(row)}")
    get = row.get
    uid = get("uid")
    if not is_uid(uid):
        raise ValueError(f"uid must be 32 lowercase hex digits, not {_short(uid)}")
    seconds = get("seconds")
    seconds = float(seconds) if type(seconds) is float and math.isfinite(seconds) else _number(
        row, "seconds", optional=False)
    if seconds is None or seconds < 0:
        raise ValueError(f"seconds must be 0 or more, not {_short(get('seconds'))}")
    misconceptions = get("misconceptions")
    if not (isinstance(misconceptions, list) and len(misconceptions) <= MAX_SLIPS
            and all(isinstance(m, str) and 0 < len(m) <= MAX_SLIP_ID for m in misconceptions)):
        raise ValueError(f"misconceptions must be a list of ids, not {_short(misconceptions)}")
    params = get("params")
    if params is not None and not isinstance(params, dict):
        raise ValueError(f"params must be an object, not {_short(params)}")
    if params is not None and (not plain(params) or size(params) > MAX_PARAMS):
        raise ValueError("params must hold finite numbers, nested at most 32 deep, "
                         f"at most {MAX_PARAMS // 1024} kB")
    step = get("step")
    if step is not None and (isinstance(step, bool) or not isinstance(step, int) or step > MAX_STEP):
        raise ValueError(f"step must be a whole number, not {_short(step)}")
    overridden = get("overridden", False)  # an export from before it existed has none
    if not isinstance(overridden, bool):
        raise ValueError(f"overridden must be true or false, not {_short(overridden)}")
    text = []  # the text fields, in the order Attempt's arguments checked them
    for key, optional, choices in _TEXT_FIELDS:
        value = get(key)
        if value is None and optional or (
                type(value) is str and len(value) <= MAX_TEXT and (optional or value)
                and (not choices or value in choices)):
            text.append(value)
        else:
            text.append(_text(row, key, optional=optional, choices=choices))
        if key == "expected":  # expected_value comes between expected and generator
            value = get("expected_value")
            text.append(value if value is None or (type(value) is float and math.isfinite(value))
                        else _number(row, "expected_value", optional=True))
    question_id, topic, kind, verdict, given, expected, expected_value, generator, self_grade, \
        difficulty, scenario = text
    check_scenario_step(scenario, step)  # Attempt's own check, which no Attempt built makes here
    return {**_DEFAULTS, **dict(
        question_id=str(question_id), topic=str(topic), kind=str(kind), verdict=str(verdict),
        given=given, expected=expected,
        expected_value=None if expected_value is None else float(expected_value),
        misconceptions=tuple(misconceptions), seconds=seconds,
        generator=generator, params=params, self_grade=self_grade,
        answered_at=answered_at, difficulty=difficulty,
        scenario=scenario, step=step, uid=uid, overridden=overridden)}


_DEFAULTS = {f.name: f.default for f in fields(Attempt) if f.default is not MISSING}
_REQUIRED = frozenset(f.name for f in fields(Attempt)) - set(_DEFAULTS)


def _built(values: dict[str, Any]) -> Attempt:
    """``Attempt(**values)``, three times faster: the frozen dataclass's __init__ sets its 19
    fields one ``object.__setattr__`` at a time. The same fields (the defaults, then
    ``values``, which must name every field without one) and the same ``__post_init__``
    checks; tests compare the two."""
    if not _REQUIRED <= values.keys() or not values.keys() <= _FIELDS:
        return Attempt(**values)  # the dataclass says what is missing or unknown
    attempt = object.__new__(Attempt)
    state = attempt.__dict__
    state.update(_DEFAULTS)
    state.update(values)
    attempt.__post_init__()
    return attempt


_FIELDS = frozenset(f.name for f in fields(Attempt))


def attempt_of(values: dict[str, Any]) -> Attempt:
    """The Attempt of ``checked_values``' fields (Attempt's checks run again)."""
    return _built(values)


# (key, optional, choices) of attempt_from_row's text fields, in the order it checks them.
_TEXT_FIELDS: tuple[tuple[str, bool, tuple[str, ...]], ...] = (
    ("question_id", False, ()), ("topic", False, ()), ("kind", False, ()),
    ("verdict", False, VERDICTS), ("given", True, ()), ("expected", True, ()),
    ("generator", True, ()), ("self_grade", True, SELF_GRADES), ("difficulty", True, DIFFICULTIES),
    ("scenario", True, ()))
