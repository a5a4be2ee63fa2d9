"""The concept step that closes each generated scenario (drills.generators.scenarios): topic,
prompt, model answer and the rubric that grades a free-text answer (drills.grading.concept).

Key point texts are fixed (history refers to them by text). Phrasings (drills.grading.concept.
phrasing): a key point's words in any order within one claim, a wrong belief's in order; ``a|b``
alternatives, ``a_b`` one multi-word alternative, ``w*`` a prefix; a negation matches only a
negated claim. Each example names the key points it makes by index ("013").
"""

from __future__ import annotations

from drills.generators.scenario_concept_base import Concept
from drills.generators.scenario_concepts_lambda_rr import WHAT_RR_IGNORES, WHY_LAMBDA
from drills.generators.scenario_concepts_ndcg import WHAT_IS_LOST, WHY_IDCG

__all__ = ["CONCEPTS", "Concept"]

CONCEPTS: dict[str, Concept] = {"why_idcg": WHY_IDCG, "what_is_lost": WHAT_IS_LOST, "why_lambda": WHY_LAMBDA,
                               "what_rr_ignores": WHAT_RR_IGNORES}
