"""What a generated scenario's concept step is (drills.generators.scenario_concepts), and the
compact form its rubric is written in."""

from __future__ import annotations

from typing import NamedTuple

from drills.model import Example, KeyPoint, Misconception, Rubric


class Concept(NamedTuple):
    topic: str
    prompt: str
    model_answer: str
    rubric: Rubric

    @property
    def key_points(self) -> tuple[str, ...]:
        return tuple(p.text for p in self.rubric.points)


def rubric(points: tuple, beliefs: tuple, samples: tuple) -> Rubric:
    """(text, required, accept)..., (id, correction, signals)..., (answer, verdict, "013", ids)..."""
    kps = tuple(KeyPoint(text, required, accept) for text, required, accept in points)
    return Rubric(kps, tuple(Misconception(mid, fix, signals) for mid, fix, signals in beliefs),
                  tuple(Example(answer, verdict, tuple(kps[int(i)].text for i in made), ids)
                        for answer, verdict, made, ids in samples))
