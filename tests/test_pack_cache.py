"""The parsed-pack cache: the same questions as a fresh parse, re-parsed when a file changes,
ignored when damaged or foreign, and no YAML read on a hit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from drills.packs import discover
from drills.packs.cache import CacheError, decode, encode
from tests import cache_files
from tests.test_pty import TINY_PACK

ROOT = Path(__file__).resolve().parents[1]


def test_a_cached_catalog_equals_a_fresh_parse(drills_home):
    drills_home.mkdir(parents=True)
    first = discover()
    assert (drills_home / "cache" / "packs.cache").is_file()
    again = discover()
    fresh = discover(cache=False)
    assert again.questions == fresh.questions == first.questions
    assert again.packs == fresh.packs and len(fresh.questions) > 50


def test_encode_keeps_tuples_dataclasses_and_keys():
    from drills.engine.problem import Problem

    value = {"p": Problem(relevance=(2, 1), judged=(2, 1, 0)), 3: [1, (2, 3)], "t": ("a",)}
    assert decode(json.loads(json.dumps(encode(value)))) == value
    try:
        decode({"@": "Popen", "args": ["sh"]})
    except CacheError:
        pass
    else:  # pragma: no cover
        raise AssertionError("an unknown type must not be built")


def test_a_changed_pack_is_parsed_again(drills_home, tmp_path):
    drills_home.mkdir(parents=True)
    pack = tmp_path / "tiny.yaml"
    pack.write_text(TINY_PACK, encoding="utf-8")
    before = {q.id: q.prompt for q in discover([pack]).questions if q.pack == "tiny-test"}
    text = TINY_PACK.replace("TINY-CHOICE:", "TINY-CHOICE (edited):")
    pack.write_text(text, encoding="utf-8")
    os.utime(pack, ns=(1, 1))  # a different mtime even on a coarse clock
    after = {q.id: q.prompt for q in discover([pack]).questions if q.pack == "tiny-test"}
    assert before["tiny-choice"].startswith("TINY-CHOICE:")
    assert after["tiny-choice"].startswith("TINY-CHOICE (edited):")


def test_a_damaged_or_foreign_cache_is_ignored(drills_home):
    drills_home.mkdir(parents=True)
    fresh = discover(cache=False).questions
    cache = cache_files.cache_path(drills_home)
    cache.parent.mkdir()
    for text in ("{not json", "{not json\n", json.dumps({"version": "0/0", "entries": {}}) + "\n",
                 json.dumps({"version": "x", "entries": {"k": {"meta": {"@": "Nope"}}}}) + "\n",
                 "", "\n\n", '{"version": 1}\n' + "x" * 1000):
        cache.write_text(text)
        assert discover().questions == fresh
    version, entries = cache_files.read(cache)  # rewritten by the last run: now a good cache
    key = next(iter(entries))
    entries[key]["head"]["meta"] = {"@": "Popen", "args": ["sh"]}  # tampered, and resealed
    cache_files.write(cache, version, entries)
    assert discover().questions == fresh
    version, entries = cache_files.read(cache)
    entries[key]["head"]["at"] = [[10**9, 5]] * len(entries[key]["questions"])  # out of the chunk
    cache_files.write(cache, version, entries)
    assert discover().questions == fresh


def test_format_8s_file_is_deleted_when_the_cache_is_written(drills_home):
    old = drills_home / "cache" / "packs.json"
    old.parent.mkdir(parents=True)
    old.write_text('{"version": "0.1.0/8", "entries": {}}')
    discover()
    assert not old.exists() and cache_files.cache_path(drills_home).is_file()


def test_a_cache_hit_reads_no_yaml(drills_home):
    drills_home.mkdir(parents=True)
    discover()
    code = "import sys; from drills.packs import discover; discover(); print('yaml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT),
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.stdout.strip() == "False", out.stderr


def test_a_cache_that_cannot_be_written_leaves_nothing_behind(drills_home, monkeypatch):
    import errno

    drills_home.mkdir(parents=True)
    real = Path.write_bytes

    def full_disk(self, data, *args, **kwargs):
        real(self, data[:100], *args, **kwargs)  # part written, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", full_disk)
    assert discover().questions  # the quiz goes on without a cache
    left = [p.name for p in (drills_home / "cache").iterdir()]
    assert left in ([], ["entry-points.json"])  # the partial cache file is gone (the memo, whole)


def test_an_entry_decodes_as_it_is_read_and_untagged_objects_inside_are_damage():
    from drills.engine.problem import Problem
    from drills.packs.cache import _loads

    value = {"p": Problem(relevance=(2, 1), judged=(2, 1, 0)), 3: [1, (2, 3)], "t": ("a",)}
    entry = {"meta": encode(value), "answers": ["0.5", None]}
    assert _loads(json.dumps(entry)) == {"meta": value, "answers": ["0.5", None]}
    for text in ('{"meta": {"@t": [{"x": 1}]}}',  # an untagged object inside a tuple
                 '{"meta": {"x": 1}, "questions": {"@t": []}}',  # inside, read before a tagged one
                 '{"meta": {"@": "Popen", "args": ["sh"]}}',
                 '{"meta": {"@d": [[[1], 2]]}}'):  # an unhashable key
        try:
            _loads(text)
        except CacheError:
            continue
        raise AssertionError(text)  # pragma: no cover


def test_the_fast_build_makes_what_the_dataclass_init_makes():
    """cache._build fills a record's __dict__ at once (issue 25): the same fields, defaults
    and default factories as ``cls(**fields)``, equal and hashing alike; a missing required
    field still goes through __init__, which refuses it."""
    import dataclasses

    import pytest

    from drills.engine.problem import Problem
    from drills.model import Option, Question, Source
    from drills.packs.cached.checks import build as _build

    cases = [(Question, {"id": "q", "topic": "conventions", "kind": "concept", "prompt": "Why?"}),
             (Question, {"id": "q", "topic": "conventions", "kind": "numeric", "prompt": "?",
                         "problem": Problem((2, 1)), "metric": "ndcg", "params": {"a": 1}}),
             (Option, {"text": "a", "correct": True}), (Source, {}), (Problem, {"relevance": (1, 0)})]
    for cls, fields in cases:
        fast, slow = _build(cls, dict(fields)), cls(**fields)
        assert type(fast) is cls and fast == slow and fast.__dict__ == slow.__dict__
        try:
            assert hash(fast) == hash(slow)
        except TypeError:  # a Question holds a dict (params): neither hashes
            pass
        other = _build(cls, dict(fields))
        for f in dataclasses.fields(cls):  # a default factory gives each record its own value
            if f.default_factory is not dataclasses.MISSING and f.name not in fields \
                    and isinstance(getattr(fast, f.name), (dict, list)):
                assert getattr(fast, f.name) is not getattr(other, f.name)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(fast, dataclasses.fields(cls)[0].name, None)
    with pytest.raises(TypeError):
        _build(Option, {"correct": True})


def test_forget_drops_the_entries_named_and_keeps_the_rest_sealed(drills_home):
    from drills.packs.cache import PackCache

    drills_home.mkdir(parents=True)
    fresh = discover().questions
    path = cache_files.cache_path(drills_home)
    _, before = cache_files.read(path)
    gone = next(iter(before))
    PackCache(path).forget(lambda key: key == gone)
    _, after = cache_files.read(path)
    assert set(after) == set(before) - {gone}
    assert all(after[k]["questions"] == before[k]["questions"] for k in after)
    again = discover()  # the forgotten pack parsed again, the others read from the cache
    assert again.questions == fresh and again.notices == []


def test_write_cache_replaces_whole_or_leaves_nothing(tmp_path):
    from drills.paths import write_cache

    target = tmp_path / "a" / "b.cache"
    assert write_cache(target, b"one") and target.read_bytes() == b"one"  # the folder made
    assert write_cache(target, b"two") and target.read_bytes() == b"two"
    (tmp_path / "file").write_text("x")
    assert not write_cache(tmp_path / "file" / "c.cache", b"three")  # its folder is a file
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["b.cache"]
