"""Cached questions read at first use (issue 25, the first question): a cache hit gives
questions of which only the head is read; any other field reads the whole question, which
then is a plain Question in every way (class, equality, hash, repr, replace). A practice
plan reads only the questions it draws."""

from __future__ import annotations

import dataclasses

import pytest

from drills.model import Question
from drills.packs import discover
from drills.packs.cached.unread import HEAD, Unread, is_read, read
from drills.quiz.plan import plan


@pytest.fixture
def cached(drills_home):
    drills_home.mkdir(parents=True)
    fresh = {q.id: q for q in discover(cache=False).questions}
    discover()  # writes the cache
    hit = discover().questions
    return fresh, hit


def test_a_cache_hit_reads_only_the_heads(cached):
    fresh, hit = cached
    assert len(hit) == len(fresh) > 500
    assert all(type(q) is Unread and not is_read(q) for q in hit)
    for q in hit:  # the head is there, unread: the same values as a fresh parse
        assert all(q.__dict__[name] == getattr(fresh[q.id], name) for name in HEAD)
    assert not any(is_read(q) for q in hit)


def test_any_other_field_reads_the_whole_question_and_makes_it_plain(cached):
    fresh, hit = cached
    by_kind = {}
    for q in hit:
        by_kind.setdefault(q.kind, q)
    assert {"numeric", "choice", "concept", "scenario", "generated", "code"} <= set(by_kind)
    for kind, q in by_kind.items():
        prompt = q.prompt  # one field beyond the head
        assert type(q) is Question and is_read(q), kind
        assert prompt == fresh[q.id].prompt
        assert q.__dict__ == fresh[q.id].__dict__  # every field, and nothing else kept
        assert repr(q) == repr(fresh[q.id])


def test_an_unread_question_compares_hashes_prints_and_replaces_as_its_parse(cached):
    fresh, hit = cached
    qs = [q for q in hit if q.kind in ("numeric", "choice")][:4]
    a, b, c, d = qs
    assert a == fresh[a.id] and type(a) is Question  # compared: read first
    assert fresh[b.id] == b and type(b) is Question  # from the other side too
    assert repr(c) == repr(fresh[c.id]) and type(c) is Question
    changed = dataclasses.replace(d, prompt="edited")
    assert type(changed) is Question and changed.prompt == "edited"
    assert dataclasses.replace(changed, prompt=fresh[d.id].prompt) == fresh[d.id]
    with pytest.raises(dataclasses.FrozenInstanceError):
        unread_one = next(q for q in hit if not is_read(q))
        unread_one.prompt = "x"  # type: ignore[misc]
    hashable = Question(id="h", topic="t", kind="concept", prompt="p", params=())  # type: ignore[arg-type]
    assert hash(read(hashable)) == hash(hashable)


def test_a_plan_reads_only_what_it_draws(cached):
    _, hit = cached
    items = plan(hit, seed=5, count=4)
    assert len(items) == 4
    read_ids = {q.id for q in hit if is_read(q)}
    assert 4 <= len(read_ids) <= 12, len(read_ids)  # the drawn ones and a few passed over
    assert {i.id.split("#")[0] for i in items} <= read_ids | {q.id for q in hit if q.kind == "generated"}


def test_the_plan_from_unread_questions_is_the_plan_from_a_parse(cached):
    fresh, hit = cached
    parsed = list(fresh.values())
    for seed in (1, 2, 3):
        assert plan(hit, seed=seed, count=10) == plan(parsed, seed=seed, count=10)


def test_a_cached_head_holds_exactly_the_head_fields(cached):
    _, hit = cached
    assert all(set(q.__dict__) == {*HEAD, "_drills_unread"} for q in hit)


def test_two_threads_reading_one_question_both_get_it_whole():
    import threading
    import time

    from drills.model import Source
    from drills.packs.cached.unread import unread

    whole = Question(id="q", topic="t", kind="concept", prompt="Why divide by IDCG?",
                     model_answer="To scale to [0, 1].")
    calls = []

    def slow_reader(head, text, answers):
        calls.append(text)
        time.sleep(0.02)  # both threads are inside the read at once
        return whole

    head = {"id": "q", "topic": "t", "kind": "concept", "difficulty": "medium", "pack": "",
            "source": Source()}
    q = unread(head, "text", None, slow_reader)
    seen = []
    threads = [threading.Thread(target=lambda: seen.append((q.prompt, q.model_answer))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [("Why divide by IDCG?", "To scale to [0, 1].")] * 4
    assert type(q) is Question and q == whole and 1 <= len(calls) <= 4


def test_an_unread_question_copies_and_pickles_as_its_parse(cached):
    import copy
    import pickle

    fresh, hit = cached
    a, b, c = [q for q in hit if q.kind == "numeric" and not is_read(q)][:3]
    assert copy.deepcopy(a) == fresh[a.id] and type(a) is Question
    assert pickle.loads(pickle.dumps(b)) == fresh[b.id] and type(b) is Question
    assert copy.copy(c) == fresh[c.id]


def test_replace_given_every_field_is_a_plain_question(cached):
    import dataclasses

    from drills.packs.cached.unread import HEAD as head_fields

    fresh, hit = cached
    q = next(q for q in hit if q.kind == "numeric" and not is_read(q))
    every = {f.name: getattr(fresh[q.id], f.name) for f in dataclasses.fields(Question)
             if f.name not in head_fields}
    made = dataclasses.replace(q, **every)  # nothing of q read: made by Unread's own __init__
    assert made == fresh[q.id] and repr(made) == repr(fresh[q.id]) and type(made) is Question
