"""A tampered or damaged pack cache (issue 26, point 1): an injected question, fields of the
wrong type, deep nesting. None is served, none gives a traceback, the damaged entry (or,
for a resealed edit of a question's text, that question when it is read: issue 25's lazy
cache) is read again from its YAML, and the next run is clean."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.packs import discover
from drills.packs.cache import CacheError, decode
from tests import cache_files


def _cache(home):
    return cache_files.cache_path(home)


@pytest.fixture
def warm(drills_home):
    drills_home.mkdir(parents=True)
    fresh = discover(cache=False).questions
    discover()  # writes the cache
    return drills_home, fresh


def _edit(home, change, reseal: bool):
    """Apply ``change(entry)`` to the first entry with a numeric question, its head and each
    question's text decoded (``{"head": ..., "questions": [...]}``); reseal it if asked."""
    path = _cache(home)
    version, entries = cache_files.read(path)
    for key, entry in entries.items():
        if any(q.get("kind") == "numeric" for q in entry["questions"]):
            change(entry)
            raw = {(key, i): json.dumps(q).replace('"@@DEEP@@"', DEEP)
                   for i, q in enumerate(entry["questions"]) if "@@DEEP@@" in json.dumps(q)}
            cache_files.write(path, version, entries, stale=() if reseal else {key}, raw_questions=raw)
            return


def _first_numeric(entry):
    return next(q for q in entry["questions"] if q.get("kind") == "numeric")


def _inject(entry):
    entry["questions"].append({"@": "Question", "id": "injected", "topic": "x", "kind": "numeric",
                               "prompt": "INJECTED unvalidated: answer is 42", "answer": "42"})
    entry["head"]["heads"].append(["injected", "x", "numeric", "medium", "", "<memory>", 0])
    entry["head"]["answers"].append(["42"])


def _set(field, value):
    def change(entry):
        _first_numeric(entry)[field] = value
    return change


def _head_id(entry):
    entry["head"]["heads"][0][0] = ["x"]


def _tolerance(entry):
    _first_numeric(entry)["tolerance"] = {"@": "Tolerance", "absolute": "x"}


def _options(entry):
    q = next(q for q in entry["questions"] if q.get("kind") == "choice")
    q["options"] = {"@t": [1, 2]}


DEEP = '{"@t": [' * 5000 + "1" + "]}" * 5000  # 5,000-deep nesting, as JSON text


def _deep(entry):
    _first_numeric(entry)["hints"] = "@@DEEP@@"


ATTACKS = {"injected question": _inject, "id a list": _set("id", ["x"]), "head id a list": _head_id,
           "another id": _set("id", "mrr-single-relevant-identity"),
           "tolerance text": _tolerance, "options ints": _options, "5,000 deep": _deep}
IN_THE_HEAD = {"injected question", "head id a list"}  # found as the entry is read


@pytest.mark.parametrize("reseal", [False, True], ids=["edited", "edited and resealed"])
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_tampered_cache_is_never_served_and_never_a_traceback(warm, attack, reseal):
    """An edit the seal finds, or a head of the wrong type, drops the entry as it is read,
    with one notice; a resealed edit of a question's own text is found when that question
    is first read: it is read from its YAML instead and the cache deleted, to be rebuilt."""
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
    found_at_once = not reseal or attack in IN_THE_HEAD
    assert ("pack cache had 1 damaged entry" in listed.stderr) == found_at_once
    served = discover().questions
    assert served == fresh  # each read whole: a damaged one from its YAML
    assert all(q.id != "injected" for q in served)
    assert _cache(home).exists() == found_at_once  # a damaged text deletes the cache
    discover()  # rewritten, if it was deleted
    again = discover()  # clean: and the same questions as a fresh parse
    assert again.notices == [] and again.questions == fresh
    assert _cache(home).exists()


def test_a_session_never_serves_an_injected_question(warm):
    home, _ = warm
    _edit(home, _inject, reseal=False)
    got = CliRunner().invoke(cli, ["practice", "--question", "injected"], input="42\n")
    assert "INJECTED" not in got.output
    assert got.exit_code == 2


def test_a_resealed_question_in_no_pack_is_one_error_line(warm):
    """A forged question (head and a broken text, resealed) that no pack file holds: when
    it is read, one error line and exit 1, the cache deleted; the next run is clean."""
    home, fresh = warm

    def forge(entry):
        _inject(entry)
        entry["questions"][-1]["tolerance"] = {"@": "Tolerance", "absolute": "x"}

    _edit(home, forge, reseal=True)
    got = CliRunner().invoke(cli, ["practice", "--question", "injected"], input="42\n")
    assert got.exit_code == 1, got.output
    assert "INJECTED" not in got.output and "Traceback" not in got.output
    assert "question 'injected' of the pack cache is damaged" in got.stderr
    assert not _cache(home).exists()
    assert discover().questions == fresh


def test_a_cache_too_deep_for_json_is_rebuilt(warm):
    home, fresh = warm
    _cache(home).write_text("[" * 100_000 + "]" * 100_000)
    assert discover().questions == fresh
    assert cache_files.read(_cache(home))[1]  # rewritten


@pytest.mark.parametrize("value", [
    {"@": "Question", "id": ["x"], "topic": "t", "kind": "numeric", "prompt": "p"},
    {"@": "Tolerance", "absolute": "x"},
    {"@": "Option", "text": 3},
    {"@": "Option"},  # a required field missing: its __init__ refuses it
    {"@d": [[["unhashable"], 1]]},
    {"@t": "not a list"},
    {"@": "Question", "id": "q", "topic": "t", "kind": "code", "prompt": "p", "task": {"a": 1}},
    {"@": ["Question"]},
    object(),
])
def test_decode_refuses_what_it_did_not_write(value):
    with pytest.raises(CacheError):
        decode(value)
