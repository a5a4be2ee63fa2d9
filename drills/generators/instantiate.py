"""A concrete question from a written one: a generated template drawn with a seeded Random.

``instantiate(template, item_rng(seed, index, template_id))`` is what a plan asks at
position ``index`` (drills.quiz.plan), what a pack check draws to prove a generated
scenario can be built (drills.packs.scenariokind), what lint and the Anki export draw.
Fixed choice questions get their options shuffled (so a letter carries no hint), a
generated scenario is drawn by its scenario generator, and anything else passes through.
"""

from __future__ import annotations

import random
from dataclasses import replace

from drills.model import Question


class GenerationError(ValueError):
    """A generated template that could not be turned into a concrete question."""

    def __init__(self, question_id: str, message: str) -> None:
        super().__init__(f"{question_id}: {message}")
        self.question_id = question_id
        self.message = message


def item_rng(seed: int, index: int, template_id: str) -> random.Random:
    """The Random for item ``index`` made from ``template_id`` (stable across Python runs)."""
    return random.Random(f"{seed}:{index}:{template_id}")


_ORDERED = {"true", "false", "yes", "no"}


def shuffle_options(question: Question, rng: random.Random) -> Question:
    """A fixed choice question with its options in a seeded order, so the answer's letter
    carries no hint; True/False and "... of the above" options keep their written order."""
    texts = [o.text.strip().lower() for o in question.options]
    if any(t in _ORDERED or "of the above" in t for t in texts):
        return question
    options = list(question.options)
    rng.shuffle(options)
    return replace(question, options=tuple(options))


def instantiate(template: Question, rng: random.Random) -> Question:
    """A concrete numeric/choice question from a generated template; fixed choice
    questions get their options shuffled; other questions pass through.

    A fixed numeric question is narrowed (its interval never holds a slip's value: see
    drills.grading.narrowing) by ``prepared``, which the session calls when it shows the question
    and ``drills generate`` calls for its whole sheet: so the first question of a session
    does not wait for the slips of all the others.
    """
    if template.kind == "choice":
        return shuffle_options(template, rng)
    if template.kind == "scenario":
        return _scenario(template, rng)
    if template.kind != "generated":
        return template
    from drills.generators.registry import REGISTRY  # lazy: a written question needs none

    gen = REGISTRY.get(template.generator or "")
    if gen is not None and gen.kind == "scenario":
        raise GenerationError(template.id, f"{gen.name!r} makes a whole scenario: use it with kind: scenario")
    if gen is None:
        known = ", ".join(sorted(REGISTRY))
        raise GenerationError(template.id, f"unknown generator {template.generator!r} (known: {known})")
    problems = gen.validate(template.params)
    if problems:
        raise GenerationError(template.id, "; ".join(f"{k}: {m}" for k, m in problems))
    try:
        return gen.make(template, gen.resolved(template.params), rng)
    except (ValueError, ArithmeticError) as exc:
        raise GenerationError(template.id, f"generator {gen.name} failed: {exc}") from exc


def _scenario(template: Question, rng: random.Random) -> Question:
    """A scenario as asked: a fixed one with its choice steps' options shuffled; a generated
    one drawn by its scenario generator (the pack's own ``steps``, if any, over the drawn problem)."""
    def shuffled(steps: tuple[Question, ...]) -> list[Question]:
        return [shuffle_options(s, rng) if s.kind == "choice" else s for s in steps]

    if not template.generator:
        return replace(template, steps=tuple(shuffled(template.steps)))
    from drills.generators.registry import REGISTRY  # lazy: as above
    from drills.grading.scenario import ScenarioError, bind, check_values  # scenarios only

    gen = REGISTRY.get(template.generator)
    if gen is None or gen.kind != "scenario":
        raise GenerationError(template.id, f"{template.generator!r} is not a scenario generator")
    problems = gen.validate(template.params)
    if problems:
        raise GenerationError(template.id, "; ".join(f"{k}: {m}" for k, m in problems))
    try:
        made = gen.make(template, gen.resolved(template.params), rng)
        if template.steps:  # the pack's own steps over the drawn problem
            made = bind(replace(template, params=made.params), made.problem, shuffled(template.steps),
                        setup=made.prompt)
        check_values(made)  # a pack's change may not suit every drawn problem
    except (ScenarioError, ValueError, ArithmeticError) as exc:
        raise GenerationError(template.id, f"generator {gen.name} failed: {exc}") from exc
    return made
