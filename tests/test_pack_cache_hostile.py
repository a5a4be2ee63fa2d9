"""A tampered or damaged pack cache (issue 26, point 1): an injected question, fields of the
wrong type, deep nesting. None is served, none gives a traceback, the damaged entry is read
again from its YAML with one notice, and the next run is clean."""

from __future__ import annotations

import json
import zlib

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.packs import discover
from drills.packs.cache import CacheError, decode


def _cache(home):
    return home / "cache" / "packs.json"


@pytest.fixture
def warm(drills_home):
    drills_home.mkdir(parents=True)
    fresh = discover(cache=False).questions
    discover()  # writes the cache
    return drills_home, fresh


def _edit(home, change, reseal: bool):
    """Apply ``change(entry)`` to the first entry with a numeric question; reseal it if asked."""
    path = _cache(home)
    data = json.loads(path.read_text())
    for sealed in data["entries"].values():
        entry = json.loads(sealed["text"])
        if '"numeric"' in sealed["text"]:
            change(entry)
            text = json.dumps(entry).replace('"@@DEEP@@"', DEEP)
            sealed["text"] = text
            if reseal:
                sealed["sum"] = f"{zlib.crc32(text.encode()):08x}"
            break
    path.write_text(json.dumps(data))


def _first_numeric(entry):
    return next(q for q in entry["questions"]["@t"] if q.get("kind") == "numeric")


def _inject(entry):
    entry["questions"]["@t"].append({"@": "Question", "id": "injected", "topic": "x", "kind": "numeric",
                                     "prompt": "INJECTED unvalidated: answer is 42", "answer": "42"})


def _set(field, value):
    def change(entry):
        _first_numeric(entry)[field] = value
    return change


def _tolerance(entry):
    _first_numeric(entry)["tolerance"] = {"@": "Tolerance", "absolute": "x"}


def _options(entry):
    q = next(q for q in entry["questions"]["@t"] if q.get("kind") == "choice")
    q["options"] = {"@t": [1, 2]}


DEEP = '{"@t": [' * 5000 + "1" + "]}" * 5000  # 5,000-deep nesting, as JSON text


def _deep(entry):
    _first_numeric(entry)["hints"] = "@@DEEP@@"


ATTACKS = {"injected question": _inject, "id a list": _set("id", ["x"]),
           "tolerance text": _tolerance, "options ints": _options, "5,000 deep": _deep}


@pytest.mark.parametrize("reseal", [False, True], ids=["edited", "edited and resealed"])
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_tampered_cache_is_never_served_and_never_a_traceback(warm, attack, reseal):
    home, fresh = warm
    if attack == "injected question" and reseal:
        # a resealed, well-typed question is indistinguishable from drills' own: documented
        # limit (docs/packs.md); the unsealed edit is what the cache stops
        pytest.skip("a resealed injection is the documented limit")
    _edit(home, ATTACKS[attack], reseal)
    runner = CliRunner()
    listed = runner.invoke(cli, ["packs", "list"])
    assert listed.exit_code == 0, listed.output
    assert "Traceback" not in listed.output
    assert "pack cache had 1 damaged entry" in listed.stderr
    again = discover()  # rewritten: clean, and the same questions as a fresh parse
    assert again.notices == [] and again.questions == fresh
    assert all(q.id != "injected" for q in again.questions)


def test_a_session_never_serves_an_injected_question(warm):
    home, _ = warm
    _edit(home, _inject, reseal=False)
    got = CliRunner().invoke(cli, ["practice", "--question", "injected"], input="42\n")
    assert "INJECTED" not in got.output
    assert got.exit_code == 2


def test_a_cache_too_deep_for_json_is_rebuilt(warm):
    home, fresh = warm
    _cache(home).write_text("[" * 100_000 + "]" * 100_000)
    assert discover().questions == fresh
    assert json.loads(_cache(home).read_text())["entries"]  # rewritten


@pytest.mark.parametrize("value", [
    {"@": "Question", "id": ["x"], "topic": "t", "kind": "numeric", "prompt": "p"},
    {"@": "Tolerance", "absolute": "x"},
    {"@": "Option", "text": 3},
    {"@d": [[["unhashable"], 1]]},
    {"@t": "not a list"},
    {"@": "Question", "id": "q", "topic": "t", "kind": "code", "prompt": "p", "task": {"a": 1}},
    {"@": ["Question"]},
    object(),
])
def test_decode_refuses_what_it_did_not_write(value):
    with pytest.raises(CacheError):
        decode(value)
