"""The ``scenario`` question kind: one shared ``problem`` (or a scenario ``generator`` that draws
one) and ``steps``, each a question of an existing kind, checked field by field with
file:line errors (see drills.grading.scenario and docs/scenarios.md).

A numeric step names a ``metric`` (its answer is the engine's, on the shared problem with the
step's ``change`` applied) or, in a fixed scenario, a fixed ``answer``; ``uses`` names the
earlier steps its value is recomputed from when the learner's earlier numbers were wrong.
"""

from __future__ import annotations

import re
from typing import Any

from drills.engine.metrics.registry import metric_value, names
from drills.engine.problem import GAINS, ProblemError
from drills.generators import REGISTRY
from drills.generators.instantiate import GenerationError, instantiate, item_rng
from drills.grading.scenario import CHANGES, MAX_STEPS, MIN_STEPS, ScenarioError, bind, changed
from drills.model import STEP_KINDS, TOPICS, Part, Question, Source
from drills.packs import codekind, kinds, problems
from drills.packs.document import INVALID
from drills.packs.errors import FieldPath, excerpt, suggest
from drills.packs.fieldreader import Check, FieldReader
from drills.packs.meta import PackMeta

SCENARIO_FIELDS = ("problem", "generator", "params", "steps", "tolerance")
_KIND_FIELDS = {
    "numeric": ("metric", "answer", "unit", "tolerance", "code"),
    "choice": ("options", "code"),
    "concept": ("model_answer", "key_points", "misconceptions", "examples"),
    "code": codekind.CODE_FIELDS,
}
STEP_COMMON = ("name", "kind", "topic", "prompt", "hints", "explanation", "uses", "change")
STEP_FIELDS = STEP_COMMON + tuple(dict.fromkeys(f for fs in _KIND_FIELDS.values() for f in fs))
# A step is a question of an existing kind: its check (numeric steps are read by _numeric).
STEP_CHECKS: dict[str, Check] = {"choice": kinds.choice, "concept": kinds.concept, "code": codekind.code}
STEP_NAME = re.compile(r"[a-z][a-z0-9_]{0,30}")
DRAWS = 5  # draws of a generated scenario that `packs validate` checks


def scenario(c: FieldReader, item: dict, p: FieldPath, meta: PackMeta | None) -> dict[str, Any]:
    """``problem`` xor ``generator`` (+ ``params``), and ``steps`` (a generator may bring its own)."""
    has_problem, has_generator = "problem" in item, "generator" in item
    out: dict[str, Any] = {"steps": None}
    if has_problem == has_generator:
        c.err(p, "a scenario needs either `problem:` (the shared ranking) or `generator:` (a "
                 "scenario generator that draws one), not " + ("both" if has_problem else "neither"))
        return out
    default = meta.tolerance if meta else None
    tolerance = c.tolerance(item["tolerance"], (*p, "tolerance"), default) if "tolerance" in item else default
    if "tolerance" in item and tolerance is None:
        return out
    problem = None
    if has_problem:
        problem = problems.problem(c, item["problem"], (*p, "problem"), meta.gain if meta else "exponential")
        if problem is None:
            return out
        if "params" in item:
            c.err((*p, "params"), "`params` go with `generator:`")
    else:
        out.update(_generator(c, item, p))
        if out.get("generator") is None:
            return out
    raw = item.get("steps")
    if raw is None and has_generator:
        out["steps"] = ()  # the generator's own steps
        return out
    if raw is INVALID:
        return out
    if not isinstance(raw, list) or not (MIN_STEPS <= len(raw) <= MAX_STEPS):
        c.err((*p, "steps") if "steps" in item else p,
              f"a scenario needs `steps:`, a list of {MIN_STEPS} to {MAX_STEPS} steps (- name: ..., "
              "kind: ..., prompt: ...)")
        return out
    steps = [_step(c, s, (*p, "steps", i), meta, problem, has_generator, tolerance)
             for i, s in enumerate(raw)]
    if any(s is None for s in steps):
        return out
    out.update(problem=problem, steps=tuple(s for s in steps if s is not None))
    return out


def _generator(c: FieldReader, item: dict, p: FieldPath) -> dict[str, Any]:
    name = c.text(item, p, "generator", required=True)
    params = item.get("params") or {}
    if name is None or params is INVALID:
        return {"generator": None}
    if not isinstance(params, dict):
        c.err((*p, "params"), "`params` must be a mapping, e.g. params: {n: 5, k: 3}")
        return {"generator": None}
    gen = REGISTRY.get(name)  # imports the generator's own module only (drills.generators.registry)
    if gen is None or gen.kind != "scenario":
        scenarios = sorted(n for n, g in REGISTRY.items() if g.kind == "scenario")
        what = "is a question generator (kind: generated)" if gen else "is not a generator"
        c.err((*p, "generator"), f"{excerpt(name)!r} {what}; scenario generators: {', '.join(scenarios)}"
                                 + ("" if gen else suggest(name, scenarios)))
        return {"generator": None}
    problems_ = gen.validate(params)
    for key, message in problems_:
        c.err((*p, "params", key), message)
    return {"generator": None if problems_ else name, "params": dict(params)}


def _step(c: FieldReader, raw: Any, p: FieldPath, meta: PackMeta | None, problem: Any,
          generated: bool, tolerance: Any) -> Question | None:
    m = c.mapping(raw, p, STEP_FIELDS, "a step")
    if m is None:
        return None
    before = len(c.doc.errors)
    name = c.text(m, p, "name", required=True)
    if name is not None and not STEP_NAME.fullmatch(name):
        c.err((*p, "name"), f"step name {excerpt(name)!r}: a-z first, then a-z, 0-9 or _, at most 31 "
                            "characters (later steps' `uses` refer to it)")
    kind = c.choice(m, p, "kind", STEP_KINDS, required=True)
    if kind is not None:
        for key in m:
            if key in STEP_FIELDS and key not in STEP_COMMON and key not in _KIND_FIELDS[kind]:
                c.err((*p, key), f"`{key}` is not used by a {kind} step")
    topic = c.text(m, p, "topic")
    if topic is not None and c.builtin and topic not in TOPICS:
        c.err((*p, "topic"), f"unknown topic {excerpt(topic)!r} for a built-in pack" + suggest(topic, TOPICS))
    uses = _names(c, m, p)
    change = _change(c, m, p)
    fields: dict[str, Any] = {}
    if kind == "numeric":
        fields = _numeric(c, m, p, problem, generated, change)
        if "tolerance" in m:
            fields["tolerance"] = c.tolerance(m["tolerance"], (*p, "tolerance"), tolerance)
        else:
            fields["tolerance"] = tolerance
    elif kind is not None:
        fields = STEP_CHECKS[kind](c, m, p, meta)
    if kind in ("numeric", "choice") and "code" in m:
        fields["code"] = codekind.snippet(c, m, p)
    if "change" in m and kind != "numeric":
        c.err((*p, "change"), "`change` changes the shared problem for a numeric step's metric")
    prompt = c.text(m, p, "prompt", required=True)
    hints = c.text_list(m, p, "hints")
    if len(c.doc.errors) > before or None in (name, kind, prompt, hints, uses, change):
        return None
    part = Part("", name=name or "", uses=uses or (), change=tuple((change or {}).items()))
    return Question(id="", topic=topic or "", kind=kind or "", prompt=prompt or "",
                    difficulty=meta.difficulty if meta else "medium", hints=hints or (),
                    explanation=c.text(m, p, "explanation") or "", part=part,
                    source=Source(c.doc.name, c.doc.line(p)), **fields)


def _names(c: FieldReader, m: dict, p: FieldPath) -> tuple[str, ...] | None:
    if "uses" not in m:
        return ()
    names = c.text_list(m, p, "uses")
    if names == ():
        c.err((*p, "uses"), "`uses` lists earlier steps by name, e.g. uses: [dcg, idcg]")
        return None
    return names


def _change(c: FieldReader, m: dict, p: FieldPath) -> dict[str, Any] | None:
    if "change" not in m:
        return {}
    q = (*p, "change")
    raw = c.mapping(m["change"], q, CHANGES, "change")
    if raw is None:
        return None
    out: dict[str, Any] = {}
    ok = True
    for key, value in raw.items():
        if key not in CHANGES or value is INVALID:
            ok = False
        elif key == "k":
            out[key] = None if value is None else c.integer(value, (*q, key), minimum=1)
            ok = ok and (value is None or out[key] is not None)
        elif key == "gain":
            out[key] = c.choice(raw, q, "gain", GAINS, required=True)
            ok = ok and out[key] is not None
        elif key == "binarise":
            if not isinstance(value, bool):
                c.err((*q, key), "`binarise` is true or false (no quotes)")
                ok = False
            out[key] = value
        elif key == "swap":
            if not isinstance(value, list) or len(value) != 2:
                c.err((*q, key), "`swap` is two 1-based ranks, e.g. swap: [1, 3]")
                ok = False
            else:
                ranks = [c.integer(r, (*q, key, i), minimum=1) for i, r in enumerate(value)]
                ok = ok and None not in ranks
                out[key] = tuple(r or 0 for r in ranks)
        elif key == "judged":
            if value is None:
                c.err((*q, key), "`judged` is another judged pool, e.g. judged: [3, 2, 2, 1, 0]")
                ok = False
                continue
            grades = problems.grades(c, value, (*q, key), required=True)
            ok = ok and grades is not None
            out[key] = grades
    return out if ok else None


def _numeric(c: FieldReader, m: dict, p: FieldPath, problem: Any, generated: bool,
             change: dict[str, Any] | None) -> dict[str, Any]:
    if ("metric" in m) == ("answer" in m):
        c.err(p, "a numeric step needs `metric:` (the engine computes it on the shared problem) "
                 "or, in a scenario with a fixed `problem`, a fixed `answer:`; not both")
        return {}
    if "answer" in m:
        if generated:
            c.err((*p, "answer"), "a generated scenario's numeric step needs `metric:`: its answer "
                                  "depends on the drawn problem")
            return {}
        return {"answer": kinds.checked_answer(c, m["answer"], (*p, "answer")), "unit": c.text(m, p, "unit")}
    metric = c.choice(m, p, "metric", names(), required=True)
    if metric is not None and problem is not None and change is not None:
        try:
            metric_value(changed(problem, change, metric), metric)
        except (ProblemError, ScenarioError, ZeroDivisionError, ValueError) as exc:
            c.err((*p, "metric"), f"metric {metric} on the shared problem"
                                  + (" with this change" if change else "") + f": {exc}")
    return {"metric": metric, "unit": c.text(m, p, "unit")}


def finish(c: FieldReader, q: Question, p: FieldPath) -> Question | None:
    """The scenario with its steps bound to its problem (a fixed one now; a generated one is
    drawn once, seed 0, to check its steps can be built)."""
    try:
        if q.problem is not None:
            return bind(q, q.problem, q.steps)
        for seed in range(DRAWS):  # the lint tries many more
            instantiate(q, item_rng(seed, 0, q.id))
    except ScenarioError as exc:
        c.err((*p, "steps", exc.step) if exc.step is not None else (*p, "steps"), str(exc))
        return None
    except GenerationError as exc:  # the draw, or a step on the drawn problem, failed
        cause = exc.__cause__
        where = getattr(cause, "step", None)
        c.err((*p, "steps", where) if where is not None else (*p, "generator"),
              f"{exc.message} (drawn with seed {seed})")
        return None
    return q
