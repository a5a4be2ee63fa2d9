"""Checks every built-in pack must pass, whatever its topic: it loads with no error, its
header, unique ids and the shape of each kind.

Each pack's numbers and library claims are checked by its own test file (test_bank.py for
the NDCG packs, test_coding_pack.py, test_bank_<pack>.py for the others).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from drills.model import TOPICS
from drills.packs import load_pack
from tests.bank_text import point_texts

QUESTION_DIR = Path(__file__).resolve().parent.parent / "questions"
FILES = sorted(QUESTION_DIR.glob("*.yaml"))
RAW = {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in FILES}
# The NDCG packs keep their `ndcg-` names; the packs beyond NDCG are named as their topic.
NDCG_TOPICS = ("hand-computation", "gain-and-discount", "normalization", "binary-vs-graded",
               "ndcg-vs-mrr", "conventions", "lambdarank")
ALL = [(stem, q) for stem, pack in RAW.items() for q in pack.get("questions", [])]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_pack_loads_without_errors(path):
    pack = load_pack(path, builtin=True)
    assert pack.errors == [], [str(e) for e in pack.errors]
    assert len(pack.questions) == len(RAW[path.stem]["questions"])


@pytest.mark.parametrize("stem", sorted(RAW))
def test_pack_header(stem):
    head = RAW[stem]["pack"]
    want = f"ndcg-{stem}" if stem in NDCG_TOPICS and not stem.startswith("ndcg-") else stem
    assert head["name"] == want
    assert re.fullmatch(r"\d+\.\d+\.\d+", str(head["version"]))
    assert head.get("author") == "drills"
    assert head["description"].strip()


def test_ids_unique_across_every_pack():
    counts = Counter(q["id"] for _, q in ALL)
    assert [i for i, c in counts.items() if c > 1] == []


@pytest.mark.parametrize("item", ALL, ids=lambda item: item[1].get("id", "?"))
def test_question_shape(item):
    stem, q = item
    assert q["topic"] in TOPICS
    # a topic pack holds its own topic; the scenarios pack spans the topics (issue 15)
    assert stem in (*NDCG_TOPICS, "scenarios") or q["topic"] == stem
    kind = q["kind"]
    if kind == "choice":
        options = q["options"]
        assert 2 <= len(options) <= 5 and sum(o.get("correct") is True for o in options) == 1
        assert all(o.get("explanation", "").strip() for o in options), "every option explained"
        assert len({o["text"] for o in options}) == len(options)
    elif kind == "concept":
        assert len(q["model_answer"]) > 200 and 3 <= len(point_texts(q["key_points"])) <= 6
    elif kind == "numeric":
        assert q.get("explanation", "").strip() and q.get("hints"), "explained, with a hint"
    assert q["prompt"].strip() and q.get("explanation", "x").strip()


def test_breadth():
    """Issue 14: at least 320 questions over at least 17 topics, each topic beyond NDCG with at
    least 12, and every pack answerable with more than one kind of question."""
    topics = Counter(q["topic"] for _, q in ALL)
    assert len(ALL) >= 320, len(ALL)
    assert len(topics) >= 17, sorted(topics)
    beyond = [t for t in TOPICS if t not in NDCG_TOPICS]
    assert {t: topics[t] for t in beyond if topics[t] < 12} == {}
    for stem, pack in RAW.items():  # a scenario's steps are of several kinds
        kinds = {s["kind"] for q in pack["questions"] for s in q.get("steps") or [q]}
        assert len(kinds) >= 2, stem
