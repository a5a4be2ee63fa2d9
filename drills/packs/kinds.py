"""The fields of the numeric, choice, concept and generated question kinds, checked and converted.

Each check (a ``fieldreader.Check``, registered in schema.REGISTRY) returns the Question
fields it owns; problems go through the FieldReader, so they carry the file, line and
field like every other pack error. The code kind is in codekind.py, the scenario kind
in scenariokind.py (whose steps use the checks here).
"""

from __future__ import annotations

import functools
from typing import Any

from drills.answers.parser import AnswerError, parse
from drills.engine.metrics.registry import metric_value, names
from drills.engine.problem import ProblemError
from drills.generators import REGISTRY
from drills.model import Option
from drills.packs import problems, rubrickind
from drills.packs.document import INVALID, described
from drills.packs.errors import FieldPath, excerpt, suggest
from drills.packs.fieldreader import FieldReader
from drills.packs.meta import PackMeta
from drills.packs.problems import field_errors

SWAP_METRICS = names(taking="swap")  # delta_ndcg, discount_ratio
# The metrics computed when a pack loads: they check what NDCG's own checks do not (k is the
# rank asked about, a gain ratio compares two grades, a pool need only hold relevant grades).
SELF_CHECKED = names(family="quantity") + names(measured=True) + ("ndcg_difference",)
OPTION_FIELDS = ("text", "correct", "explanation")


def numeric(c: FieldReader, item: dict, p: FieldPath, meta: PackMeta | None) -> dict[str, Any]:
    """An exact ``answer``, a ``problem`` + ``metric`` the engine solves, or both: an answer
    with the problem it is about, so that its wrong-formula slips are checked too."""
    out: dict[str, Any] = {"unit": c.text(item, p, "unit")}
    has_answer, has_problem = "answer" in item, "problem" in item
    if has_answer and has_problem and "metric" not in item:
        c.err((*p, "metric"), "a `problem` beside an `answer` needs `metric:` too (what the answer is "
                              "the value of), so that its slips can be checked")
        return out
    if has_answer and has_problem:
        out["answer"] = checked_answer(c, item["answer"], (*p, "answer"))
    elif has_answer:
        if "metric" in item:
            c.err((*p, "metric"), "`metric` goes with `problem`; an `answer` is already the value")
        out["answer"] = checked_answer(c, item["answer"], (*p, "answer"))
        return out
    if not has_problem:
        c.err(p, "a numeric question needs `answer: \"...\"` or `problem:` + `metric:`")
        return out
    metric = c.choice(item, p, "metric", names(), required=True)
    reported = len(c.doc.errors)
    raw = item["problem"] if isinstance(item["problem"], dict) else {}
    if metric is not None and not field_errors(c, raw, (*p, "problem"), metric):
        return out
    problem = problems.problem(c, item["problem"], (*p, "problem"), meta.gain if meta else "exponential",
                               metric)
    if problem is None and len(c.doc.errors) == reported:  # never drop a question silently
        c.err((*p, "problem"), "`problem` could not be read: give `relevance: [...]` and "
                               "optionally `judged`, `k`, `gain`")
    if problem is not None and metric is not None:
        if metric in SWAP_METRICS and problem.swap is None:
            c.err((*p, "problem"), f"metric {metric} needs `swap: [i, j]` (two 1-based ranks)")
        elif metric not in SWAP_METRICS and problem.swap is not None:
            c.err((*p, "problem", "swap"), "`swap` is only used by metrics delta_ndcg and discount_ratio")
        elif metric in SELF_CHECKED:
            try:  # k is the rank asked about, a gain ratio compares two grades, ...
                metric_value(problem, metric)
            except (ProblemError, ZeroDivisionError) as exc:
                c.err((*p, "problem"), f"metric {metric}: {exc}")
    out.update(problem=problem, metric=metric)
    return out


def checked_answer(c: FieldReader, value: Any, p: FieldPath) -> str | None:
    """A fixed ``answer:``: text the safe parser reads to an exact decimal (else None, reported)."""
    if value is INVALID:
        return None
    if value is None:
        c.err(p, "`answer` is empty; write it in quotes, e.g. answer: \"15/7\"")
        return None
    typed, shown = c.doc.text(p, value), c.doc.shown(p, value)  # compared, quoted
    if isinstance(value, bool):
        c.err(p, f"YAML 1.1 read {shown} as the boolean {str(value).lower()}; a numeric answer is a "
                 "number or expression in quotes, e.g. answer: \"1\" (a yes/no question is a choice "
                 "question with options True and False)")
        return None
    if isinstance(value, float):
        if typed != repr(value) and typed.lower() not in (".inf", "-.inf", ".nan"):
            why = f"YAML read {shown} as the float {value!r}, losing what you wrote"
        else:
            why = f"YAML read {shown} as a binary float, which is not exact"
        c.err(p, f"{why}; write the answer in quotes: answer: \"{shown}\"")
        return None
    if isinstance(value, int):
        if typed != str(value):  # 0x10, 0o17, 1_000, 12:30 (YAML 1.1 base 60)
            c.err(p, f"YAML read {shown} as the number {excerpt(value)}; write the answer in quotes: "
                     f"answer: \"{shown}\"")
            return None
        value = str(value)
    if not isinstance(value, str):
        c.err(p, f"`answer` must be text such as \"15/7\" or \"0.7592\", got {shown}")
        return None
    problem = _syntax_problem(value)
    if problem is not None:
        c.err(p, f"not a valid answer expression: {problem}")
        return None
    return value


@functools.lru_cache(maxsize=4096)
def _syntax_problem(text: str) -> str | None:
    """The safe parser's complaint about ``text``, if any (cached: packs repeat answers)."""
    try:
        parse(text).decimal()  # the grader needs its exact decimal, so it must have one
    except AnswerError as exc:
        return str(exc)
    return None


def _kind(value: Any) -> str:
    return described(value) if not isinstance(value, str) else f"text {excerpt(value)!r}"


def choice(c: FieldReader, item: dict, p: FieldPath, meta: PackMeta | None) -> dict[str, Any]:
    """At least two options, exactly one correct, each explained when it is picked."""
    raw = item.get("options")
    q = (*p, "options")
    if raw is INVALID:
        return {"options": None}
    if raw is not None and not isinstance(raw, list):
        c.err(q, f"`options` must be a list (- text: ...), got {_kind(raw)}")
        return {"options": None}
    if not raw or len(raw) < 2:
        c.err(q if "options" in item else p, "a choice question needs `options:` with at least two options")
        return {"options": None}
    options: list[Option] = []
    seen: dict[str, int] = {}
    ok = True
    for i, entry in enumerate(raw):
        o = (*q, i)
        m = c.mapping(entry, o, OPTION_FIELDS, "an option")
        if m is None:
            ok = False
            continue
        text = c.text(m, o, "text", required=True)
        explanation = c.text(m, o, "explanation")
        correct = m.get("correct", False)
        if correct is not INVALID and not isinstance(correct, bool):
            got = c.doc.shown((*o, "correct"), correct)
            c.err((*o, "correct"), "`correct` must be true or false (no quotes), got "
                  + (repr(got) if isinstance(correct, str) else got))
            ok = False
        if text is None or correct is INVALID or ("explanation" in m and explanation is None):
            ok = False
            continue
        if text in seen:
            c.err((*o, "text"), f"the same option text appears twice (first at line {seen[text]})")
            ok = False
        seen[text] = c.doc.line(o)
        options.append(Option(text, correct is True, explanation))
    right = sum(opt.correct for opt in options)
    if ok and right != 1:
        c.err(q, "no option is marked `correct: true`" if not right else
              f"{right} options are marked `correct: true`; exactly one must be (a question "
              "answered by one letter has one right answer: merge them or use \"both of the above\")")
        ok = False
    return {"options": tuple(options) if ok else None}


def concept(c: FieldReader, item: dict, p: FieldPath, meta: PackMeta | None) -> dict[str, Any]:
    """The model answer and the points a good answer must make, with the rubric that grades
    an answer (drills.packs.rubrickind) when the question has one."""
    model = c.text(item, p, "model_answer", required=True)
    return {"model_answer": model, **rubrickind.rubric(c, item, p)}


def generated(c: FieldReader, item: dict, p: FieldPath, meta: PackMeta | None) -> dict[str, Any]:
    """A registered generator; its own ``validate`` checks the params."""
    name = c.text(item, p, "generator", required=True)
    params = item.get("params", {})
    if params is INVALID:
        return {"generator": None}
    if params is None:
        params = {}
    if not isinstance(params, dict):
        c.err((*p, "params"), "`params` must be a mapping, e.g. params: {n: 5, k: 3}")
        return {"generator": None}
    if name is None:
        return {"generator": None}
    gen = REGISTRY.get(name)
    if gen is not None and gen.kind == "scenario":
        c.err((*p, "generator"), f"{name!r} makes a whole scenario: use it with `kind: scenario`")
        return {"generator": None}
    if gen is None:
        known = ", ".join(sorted(REGISTRY)) or "none are registered"
        c.err((*p, "generator"), f"unknown generator {excerpt(name)!r}{suggest(name, REGISTRY)}; known: {known} "
                                 "(see `drills generate --help`)")
        return {"generator": None}
    # A value already reported (a bad tag, a control character) never reaches the generator's
    # own checks, whose messages would show the internal placeholder.
    broken = [key for key, value in params.items() if _has_invalid(value)]
    problems = gen.validate({k: v for k, v in params.items() if k not in broken})
    for key, message in problems:
        c.err((*p, "params", key), message)
    ok = not problems and not broken
    return {"generator": name if ok else None, "params": dict(params)}


def _has_invalid(value: Any) -> bool:
    """Whether ``value`` is, or holds, a value already reported as an error."""
    stack, seen = [value], set()
    while stack:  # no recursion: aliases can nest values deeper than the parser allows
        v = stack.pop()
        if v is INVALID:
            return True
        if isinstance(v, (list, dict)) and id(v) not in seen:  # shared by aliases: once
            seen.add(id(v))
            stack.extend(v.values() if isinstance(v, dict) else v)
    return False

