"""The session plan: which concrete questions a session or a worksheet asks, for a seed.

``drills practice`` and ``drills generate`` both call ``plan`` with the same options,
so a practice session asks exactly what the worksheet lists (when none of its questions is
among the ``recent`` ones, answered lately: practice and mock plan those last). Each generated item gets
its own Random derived from (seed, position, template id): an item never depends on
how many draws the items before it used. No sympy, click or prompt_toolkit here:
the first question must appear fast. No plan holds two questions where one's text
states the other's answer (drills.packs.leaks; the exact answers come from the pack
cache, so this costs the launch almost nothing).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterator, Sequence
from dataclasses import replace
from itertools import islice
from typing import Any

from drills.generators.instantiate import (  # noqa: F401 - GenerationError re-exported: plan() raises it
    GenerationError,
    instantiate,
    item_rng,
)
from drills.model import DIFFICULTIES, LETTERS, Question
from drills.packs.leaks import Guard


def select(
    questions: Sequence[Question], *, topics: Sequence[str] = (), difficulty: str | None = None
) -> list[Question]:
    """The questions matching the filters, in a stable order (independent of load order)."""
    wanted = set(topics)
    out = [q for q in questions
           if (not wanted or q.topic in wanted) and (difficulty is None or q.difficulty == difficulty)]
    return sorted(out, key=lambda q: (q.id, q.pack, str(q.source)))


def _ordered(questions: Sequence[Question], seed: int, topics: Sequence[str] = (),
             difficulty: str | None = None, recent: Collection[str] = ()) -> list[Question]:
    """The matching questions shuffled by ``seed``, those in ``recent`` (ids answered in the
    learner's last sessions) moved to the end in their shuffled order: asked again only once
    the others run out."""
    order = select(questions, topics=topics, difficulty=difficulty)
    random.Random(seed).shuffle(order)
    if recent:
        order = [q for q in order if q.id not in recent] + [q for q in order if q.id in recent]
    return order


def _easy_first(order: Sequence[Question], count: int) -> list[Question]:
    """``order`` with its first easy questions, up to half of ``count`` (rounded up), moved to
    the front: a first session's plan."""
    easy = [q for q in order if q.difficulty == "easy"][: (count + 1) // 2]
    taken = {id(q) for q in easy}
    return easy + [q for q in order if id(q) not in taken]


def ramp(items: Sequence[Question]) -> list[Question]:
    """Easy first, then medium, then hard; the seeded order kept within each."""
    rank = {d: i for i, d in enumerate(DIFFICULTIES)}
    return sorted(items, key=lambda q: rank.get(q.difficulty, len(rank)))


def repeated(items: Sequence[Question], recent: Collection[str]) -> int:
    """How many planned items were answered in the last sessions (the pool ran out)."""
    return sum(1 for q in items if q.id in recent)


def _walk(order: Sequence[Question], seed: int, guard: Guard) -> Iterator[tuple[Question, Question]]:
    """(question as written, concrete item) in plan order: ``order`` once, then its generated
    templates in cycles, for as long as one is pulled. A question that would give away the
    answer of one ``guard`` has taken, or have its own given away, is passed over for this
    session (see drills.packs.leaks); the caller ``take``s what it keeps.
    """
    templates = [q for q in order if q.kind == "generated"]
    index = 0
    cycle: Sequence[Question] = order
    while cycle:
        kept = False
        for q in cycle:
            if guard.clash(q):
                continue
            yield q, instantiate(q, item_rng(seed, index, q.id))
            index += 1
            kept = True
        if not kept:  # every one left clashes (and clashes only grow): the plan ends here
            return
        cycle = templates


def _take(walk: Iterator[tuple[Question, Question]], count: int, guard: Guard) -> list[Question]:
    items: list[Question] = []
    for question, item in walk:
        guard.take(question)
        items.append(item)
        if len(items) >= count:
            break
    return items


def plan(
    questions: Sequence[Question],
    *,
    seed: int,
    count: int,
    topics: Sequence[str] = (),
    difficulty: str | None = None,
    recent: Collection[str] = (),
    easy_first: bool = False,
) -> list[Question]:
    """``count`` concrete questions for ``seed``.

    One shuffled order of the matching questions is walked in cycles: fixed questions
    are asked once (no replacement), generated templates come back on later cycles
    with fresh variants. With no generated template among the matches the plan stops
    when the fixed questions run out, so it can be shorter than ``count``. Two questions
    of which one states the other's answer never share a plan: the later one is passed over.
    ``recent``: ids answered in the last sessions, drawn only when the others run out.
    ``easy_first`` (a first session): up to half the plan from the easy questions, and the
    plan ordered easy, medium, hard. The same arguments always give the same plan.
    """
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    guard = Guard()
    order = _ordered(questions, seed, topics, difficulty, recent)
    if easy_first:
        order = _easy_first(order, count)
    items = _take(_walk(order, seed, guard), count, guard)
    return ramp(items) if easy_first else items


def weighted_plan(questions: Sequence[Question], seed: int, count: int,
                  weights: dict[str, float], difficulty: str | None = None,
                  recent: Collection[str] = ()) -> list[Question]:
    """``count`` items whose topics are drawn by ``weights`` (topic -> weight > 0), each
    topic's share then planned as ``plan`` would (``drills practice --adaptive``, ``recent``
    last); no two items, of any topics, where one states the other's answer."""
    topics = sorted(weights)
    if not topics:
        return []
    draws = random.Random(f"{seed}:adaptive").choices(topics, [weights[t] for t in topics], k=count)
    guard = Guard()
    walks = {t: _walk(_ordered(questions, seed, (t,), difficulty, recent), seed, guard)
             for t in sorted(set(draws))}
    items: list[Question] = []
    for t in draws:
        pulled = next(walks[t], None)
        if pulled is not None:
            guard.take(pulled[0])
            items.append(pulled[1])
    return items


def mock_plan(questions: Sequence[Question], seed: int, count: int,
              recent: Collection[str] = ()) -> list[Question]:
    """An interview mix: about half hand computation, a quarter 'why' questions (concept),
    a quarter conventions, and a scenario (follow-up chain) in place of a hand computation per
    8 questions; topped up from everything when a pack lacks a group. No two items where one
    states the other's answer; ``recent`` ids only once a group's others run out."""
    groups = [
        [q for q in questions if q.kind in ("numeric", "generated") and q.topic != "conventions"],
        [q for q in questions if q.kind == "concept"],
        [q for q in questions if q.topic == "conventions" and q.kind not in ("concept", "scenario")],
        [q for q in questions if q.kind == "scenario"],
    ]
    quarter = round(count / 4)
    # A whiteboard scenario (one ranking, follow-ups) in every mock of 4 or more questions, one
    # more per 8: it takes the place of a hand computation.
    chains = min(len(groups[3]), (count + 4) // 8) if count >= 4 else 0
    shares = [count - 2 * quarter - chains, quarter, quarter, chains]
    guard = Guard()
    items: list[Question] = []
    for group, n in zip(groups, shares, strict=True):
        if group and n:
            items += _take(_walk(_ordered(group, seed, recent=recent), seed, guard), n, guard)
    if len(items) < count:
        seen = {q.id for q in items}
        walk = _walk(_ordered(questions, seed + 1, recent=recent), seed + 1, guard)
        for question, item in islice(walk, count):  # the first ``count`` of that plan, as before
            if len(items) >= count:
                break
            if item.id not in seen:
                guard.take(question)
                items.append(item)
    random.Random(f"{seed}:mock").shuffle(items)
    return items


def _problem_json(q: Question) -> dict[str, Any]:
    assert q.problem is not None
    p = q.problem
    out: dict[str, Any] = {
        "relevance": list(p.relevance),
        "judged": list(p.judged) if p.judged is not None else list(p.relevance),
        "k": p.k,
        "gain": p.gain,
        "metric": q.metric,
    }
    if p.swap is not None:
        out["swap"] = list(p.swap)
    if p.versus is not None:
        out["versus"] = list(p.versus)
    # the metrics beyond NDCG: only the conventions that are not the defaults
    if p.threshold != 1:
        out["threshold"] = p.threshold
    if q.metric in ("ap", "map"):
        out["denominator"] = p.convention
    if p.persistence is not None:
        out["persistence"] = str(p.persistence)
    if p.max_grade is not None:
        out["max_grade"] = p.max_grade
    if p.queries:
        out["queries"] = [{"relevance": list(x.relevance),
                           "judged": list(x.judged) if x.judged is not None else list(x.relevance)}
                          for x in p.queries]
    return out


def scenario_params(q: Question) -> dict[str, Any]:
    """A scenario's shared problem as JSON: ``relevance``, ``judged``, ``k``, ``gain`` (and the
    conventions beyond NDCG's when they are not the defaults)."""
    params = _problem_json(replace(q, metric=None))
    params.pop("metric", None)
    params.pop("swap", None)
    return params


def _step_json(q: Question) -> dict[str, Any]:
    item = item_json(q)
    step: dict[str, Any] = {"step": q.part.step if q.part else None,
                            "name": q.part.name if q.part else None, "kind": q.kind, "prompt": q.prompt,
                            "topic": q.topic}
    if q.kind == "numeric":
        step["metric"] = q.metric
        if q.problem is not None and q.metric:
            step["params"] = item.get("params")
        step["uses"] = list(q.part.uses) if q.part else []
    for key in ("answer", "options", "correct", "model_answer", "key_points", "function",
                "signature", "code"):
        if key in item:
            step[key] = item[key]
    return step


def prepared_all(items: Sequence[Question]) -> list[Question]:
    """Every item as it is asked: fixed numeric questions narrowed where they need it."""
    from drills.grading.narrowing import prepared  # deferred: not needed before the first question

    return [prepared(q) if q.kind == "numeric" else
            replace(q, steps=tuple(prepared(s) if s.kind == "numeric" else s for s in q.steps))
            if q.kind == "scenario" else q for q in items]


def item_json(q: Question) -> dict[str, Any]:
    """A concrete question as JSON (``generate --json``, transcripts): prompt plus its answer."""
    out: dict[str, Any] = {
        "id": q.id,
        "topic": q.topic,
        "kind": q.kind,
        "difficulty": q.difficulty,
        "prompt": q.prompt,
        "generator": q.generator,
    }
    if q.kind == "numeric":
        from drills.grading.reference import reference  # deferred: only generate --json needs it

        if q.problem is not None and q.metric:
            out["params"] = _problem_json(q)
        ref = reference(q)
        out["answer"] = {"exact": ref.text, "value": float(ref.value)}
    elif q.kind == "choice":
        out["options"] = [{"letter": LETTERS[i], "text": o.text, "correct": o.correct}
                          for i, o in enumerate(q.options)]
        out["correct"] = ",".join(LETTERS[i] for i, o in enumerate(q.options) if o.correct)
    elif q.kind == "concept":
        out["model_answer"] = q.model_answer
        out["key_points"] = list(q.key_points)
    elif q.kind == "code":
        out.update(function=q.function, signature=q.signature)
    elif q.kind == "scenario":
        if q.problem is not None:
            out["params"] = scenario_params(q)
        out["steps"] = [_step_json(s) for s in q.steps]
    if q.code:
        out["code"] = q.code
    return out
