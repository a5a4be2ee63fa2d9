"""The shape every pack added for issue 27 keeps: it loads clean under one topic of its own
with numeric, choice and concept questions; its choice questions carry no cue (the correct
option the longest in at most a third, never 1.5x the longest wrong one, no absolutes only in
wrong options, no two options opening alike); every concept rubric is complete. Read with
yaml.safe_load, independent of drills' loader but for the load itself. (Each pack's own
facts are in tests/test_bank_<pack>.py.)"""

from __future__ import annotations

import pytest

from drills.packs import load_pack
from tests.experiments_bank import (
    QUESTIONS_DIR,
    absolutes_only_in_wrong,
    choice_cues,
    load,
    same_start,
)

PACKS = ("variance-reduction", "experiment-health", "interference-and-sequential",
         "off-policy-evaluation", "precision-recall", "ads-metrics", "candidate-generation",
         "beyond-accuracy", "judging-at-scale")


@pytest.mark.parametrize("stem", PACKS)
def test_the_pack_loads_under_its_own_topic_with_every_kind(stem):
    raw = load(stem)["questions"]
    pack = load_pack(QUESTIONS_DIR / f"{stem}.yaml")
    assert not pack.errors and len(pack.questions) == len(raw) >= 12
    assert {q["topic"] for q in raw} == {stem}
    assert {"numeric", "choice", "concept"} <= {q["kind"] for q in raw}


@pytest.mark.parametrize("stem", PACKS)
def test_its_choice_questions_carry_no_cue(stem):
    raw = load(stem)["questions"]
    counted, longest, blatant = choice_cues(raw)
    assert longest * 3 <= counted and blatant == []
    assert absolutes_only_in_wrong(raw) == [] and same_start(raw) == []


@pytest.mark.parametrize("stem", PACKS)
def test_its_concept_rubrics_are_complete(stem):
    for q in load(stem)["questions"]:
        if q["kind"] != "concept":
            continue
        assert any(p.get("required") for p in q["key_points"]), q["id"]
        assert all(p.get("accept") for p in q["key_points"]), q["id"]
        assert 4 <= len(q["misconceptions"]) <= 6, q["id"]
        verdicts = [e["verdict"] for e in q["examples"]]
        assert len(verdicts) >= 4 and {"correct", "partial", "wrong"} <= set(verdicts), q["id"]
