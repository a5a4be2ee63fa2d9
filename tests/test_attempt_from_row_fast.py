"""``attempt_from_row`` takes fast paths for plainly sound fields and builds the Attempt
without the frozen dataclass's __init__ (issue 25, point 4: 100,000 answers per import). Its
result, or its error message, must be exactly those of the function before (kept verbatim
below as the oracle) on every row: sound ones, and rows with each kind of fault, alone or
several at once (the first one found must be the same)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from drills.store.attempt import (
    DIFFICULTIES,
    MAX_PARAMS,
    SELF_GRADES,
    Attempt,
    _number,
    _short,
    _text,
    attempt_from_row,
    is_uid,
)
from drills.store.jsonvalues import plain, size
from drills.store.verdicts import VERDICTS

WHEN = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=timezone.utc)
UID = "0123456789abcdef0123456789abcdef"


def reference_from_row(row: Any, answered_at: datetime) -> Attempt:
    """attempt_from_row as it was before its fast paths (drills 5d0bb86), verbatim."""
    if not isinstance(row, dict):
        raise ValueError(f"an answer must be an object, not {_short(row)}")
    if not is_uid(row.get("uid")):
        raise ValueError(f"uid must be 32 lowercase hex digits, not {_short(row.get('uid'))}")
    seconds = _number(row, "seconds", optional=False)
    if seconds is None or seconds < 0:
        raise ValueError(f"seconds must be 0 or more, not {_short(row.get('seconds'))}")
    misconceptions = row.get("misconceptions")
    if not (isinstance(misconceptions, list) and len(misconceptions) <= 100
            and all(isinstance(m, str) and 0 < len(m) <= 200 for m in misconceptions)):
        raise ValueError(f"misconceptions must be a list of ids, not {_short(misconceptions)}")
    params = row.get("params")
    if params is not None and not isinstance(params, dict):
        raise ValueError(f"params must be an object, not {_short(params)}")
    if params is not None and (not plain(params) or size(params) > MAX_PARAMS):
        raise ValueError("params must hold finite numbers, nested at most 32 deep, "
                         f"at most {MAX_PARAMS // 1024} kB")
    step = row.get("step")
    if step is not None and (isinstance(step, bool) or not isinstance(step, int) or step > 10_000):
        raise ValueError(f"step must be a whole number, not {_short(step)}")
    overridden = row.get("overridden", False)  # an export from before it existed has none
    if not isinstance(overridden, bool):
        raise ValueError(f"overridden must be true or false, not {_short(overridden)}")
    return Attempt(
        question_id=str(_text(row, "question_id", optional=False)),
        topic=str(_text(row, "topic", optional=False)),
        kind=str(_text(row, "kind", optional=False)),
        verdict=str(_text(row, "verdict", optional=False, choices=VERDICTS)),
        given=_text(row, "given"), expected=_text(row, "expected"),
        expected_value=_number(row, "expected_value", optional=True),
        misconceptions=tuple(misconceptions), seconds=seconds,
        generator=_text(row, "generator"), params=params,
        self_grade=_text(row, "self_grade", choices=SELF_GRADES),
        answered_at=answered_at,
        difficulty=_text(row, "difficulty", choices=DIFFICULTIES),
        scenario=_text(row, "scenario"), step=step, uid=row["uid"], overridden=overridden)


SOUND: dict[str, Any] = {
    "uid": UID, "seconds": 3.5, "misconceptions": ["log2_rank"], "params": None, "step": None,
    "overridden": False, "question_id": "q1", "topic": "conventions", "kind": "numeric",
    "verdict": "wrong", "given": "0.5", "expected": "1/2", "expected_value": 0.5,
    "generator": None, "self_grade": None, "difficulty": "easy", "scenario": None,
}
ODD: dict[str, list[Any]] = {  # sound and unsound values for each field
    "uid": [UID.upper(), UID[:-1], 7, None, UID + "0", "g" * 32],
    "seconds": [0, 0.0, 7, -1, -0.5, float("nan"), float("inf"), True, "3", None, 10**400, 2**63],
    "misconceptions": [[], ["a"] * 101, [""], ["x" * 201], [3], "log2_rank", None, ("a",)],
    "params": [{"n": 5}, {"x": float("nan")}, [], "p", {"deep": [[[[1]]]]}, {"big": "x" * 70_000}],
    "step": [1, 0, -3, 10_000, 10_001, True, 2.0, "2"],
    "overridden": [True, 0, 1, "false", None],
    "question_id": ["", "x" * 100_001, 3, None, "q" * 100_000],
    "topic": ["", None, ["t"]],
    "kind": ["", None, 1.5],
    "verdict": ["correct", "consistent", "partial", "bogus", "", None, 1],
    "given": ["", None, 5, "x" * 100_001],
    "expected": ["", None, False],
    "expected_value": [None, 1, 0.25, float("nan"), True, "0.5", 10**400, -(2**63)],
    "generator": ["ndcg_at_k", "", 3],
    "self_grade": [None, "again", "easy", "", "meh", 2],
    "difficulty": [None, "hard", "", "extreme", 1],
    "scenario": [None, "", "scene", 5],
}
for key in ("difficulty", "self_grade", "verdict"):
    ODD[key] += list({"difficulty": DIFFICULTIES, "self_grade": SELF_GRADES, "verdict": VERDICTS}[key])


class Str(str):
    """A str subclass: isinstance says text, type() is not str (the fast path falls back)."""


def _outcome(fn: Any, row: Any) -> tuple[str, Any]:
    try:
        attempt = fn(row, WHEN)
    except (ValueError, TypeError, OverflowError) as exc:
        return type(exc).__name__, str(exc)
    assert type(attempt) is Attempt
    return "ok", {f.name: (type(getattr(attempt, f.name)), getattr(attempt, f.name))
                  for f in dataclasses.fields(Attempt)}


rows = st.lists(st.sampled_from(sorted(ODD)), max_size=4).flatmap(lambda keys: st.tuples(
    st.just(keys), st.tuples(*(st.sampled_from(ODD[k]) for k in keys)),
    st.lists(st.sampled_from(sorted(SOUND)), max_size=2), st.booleans()))


def row_of(case: Any) -> dict[str, Any]:
    """The SOUND row with a drawn case applied: odd values set, keys dropped, a str subclass."""
    keys, values, dropped, subclass = case
    row = dict(SOUND)
    for key, value in zip(keys, values, strict=True):
        row[key] = value
    for key in dropped:
        row.pop(key, None)
    if subclass:
        row["topic"] = Str(row["topic"]) if isinstance(row.get("topic"), str) else row.get("topic")
    return row


@settings(max_examples=600, deadline=None)
@given(rows)
def test_the_same_attempt_or_the_same_message_as_before(case):
    row = row_of(case)
    got, want = _outcome(attempt_from_row, row), _outcome(reference_from_row, row)
    if want[0] == "ok":
        assert got[0] == "ok", got
        # the same values of the same types; NaN never passes, so == is safe
        assert got[1] == want[1]
    else:
        assert got == want


def test_every_field_is_set_as_the_dataclass_would():
    row = dict(SOUND, step=2, scenario="scene", params={"n": 3}, generator="ndcg_at_k")
    fast = attempt_from_row(row, WHEN)
    slow = Attempt(**{f.name: getattr(fast, f.name) for f in dataclasses.fields(Attempt)})
    assert vars(fast) == vars(slow)
    assert fast == slow and hash(fast) == hash(slow)
    assert fast.misconceptions == ("log2_rank",) and fast.answered_at == WHEN


def test_not_a_dict_and_scenario_without_step():
    for row in (None, [], "row", 3):
        assert _outcome(attempt_from_row, row) == _outcome(reference_from_row, row)
    row = dict(SOUND, scenario="scene")  # Attempt's own check: scenario and step together
    assert _outcome(attempt_from_row, row) == _outcome(reference_from_row, row)
    assert _outcome(attempt_from_row, row)[1] == "scenario and step go together: give both or neither"


@settings(max_examples=200)
@given(st.fixed_dictionaries({
    "uid": st.just(UID), "seconds": st.floats(0, 100), "misconceptions": st.just([]),
    "question_id": st.just("q"), "topic": st.just("t"), "kind": st.just("numeric"),
    "verdict": st.sampled_from(VERDICTS), "given": st.none(), "expected": st.none(),
    "scenario": st.one_of(st.none(), st.just(""), st.just("sc")),
    "step": st.one_of(st.none(), st.integers(-2, 3))}))
def test_checked_values_is_the_attempt_as_a_row(row):
    """An import writes ``checked_values`` straight to a row (issue 25): the same row as the
    Attempt's, and the same error, from Attempt's own checks too (scenario and step)."""
    from drills.store.attempt import attempt_of, checked_values
    from drills.store.database import attempt_row, values_row

    try:
        want = attempt_row(7, reference_from_row(row, WHEN))
    except ValueError as exc:
        try:
            checked_values(row, WHEN)
        except ValueError as mine:
            assert str(mine) == str(exc)
        else:  # pragma: no cover
            raise AssertionError(f"checked_values accepted what Attempt refuses: {exc}") from None
        return
    values = checked_values(row, WHEN)
    assert values_row(7, values) == want and attempt_row(7, attempt_of(values)) == want
