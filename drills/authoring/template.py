"""The starter pack ``drills packs new`` writes: one question of each kind, commented.

Authors copy from it, so it must validate as written (a test checks that, for every
name ``drills packs new`` accepts: the name is quoted, so ``no`` or ``12`` stay text).
"""

from __future__ import annotations

import re

# Stricter than a pack file's name (schema.NAME_RE): the starter derives its ids from the
# name, and ids must start with a-z or 0-9 and stay under schema.MAX_ID_LENGTH.
STARTER_NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]*")
MAX_STARTER_NAME = 50

STARTER = '''\
# A drills question pack. Check it with:   drills packs validate {filename}
# Put it in your packs folder ({packs_dir}) or use it with --pack {filename}.
# Format reference: docs/packs.md. Quote text that YAML could retype:
# NO/yes/on/off become booleans and 1.10 becomes 1.1 unless written in quotes.

pack:
  name: "{name}"               # a-z, 0-9 and -; unique among your packs
  version: "0.1.0"             # a string: keep the quotes
  description: My own NDCG interview questions.
  author: me

defaults:                      # optional; each question may override these
  tolerance: {{absolute: 0.005, relative: 0.005}}   # accept |answer - exact| <= max(abs, rel * |exact|)
  gain: exponential            # exponential (2^rel - 1) or linear (rel), for `problem:` questions
  difficulty: medium           # easy | medium | hard

questions:
  # numeric with an exact answer: a quoted expression (+ - * / ^, log2, ln, sqrt ...)
  - id: "{name}.gain-ratio"    # unique across every pack you load
    topic: gain-and-discount
    kind: numeric
    difficulty: easy
    prompt: |
      With exponential gain 2^rel - 1, how many times larger is the gain of a
      grade-4 document than the gain of a grade-3 document? Give a fraction.
    answer: "15/7"             # always quote answers: "0.75", never a bare 0.75
    hints:
      - "2^4 - 1 = 15 and 2^3 - 1 = 7."
    explanation: "15 / 7 ~ 2.14; the ratio tends to 2 as grades grow, never above 3."

  # numeric computed by the engine: ranked grades, judged pool, cut-off k, metric
  - id: "{name}.worked-ndcg"
    topic: hand-computation
    kind: numeric
    prompt: |
      Grades in ranked order [2, 1, 3, 0]; the query's judged pool is [3, 2, 1, 0].
      With gain 2^rel - 1 and discount log2(i + 1), what is NDCG@4?
    problem: {{relevance: [2, 1, 3, 0], judged: [3, 2, 1, 0], k: 4, gain: exponential}}
    metric: ndcg               # dcg | idcg | ndcg | rr | precision | hit | delta_ndcg
    tolerance: {{absolute: 0.001, relative: 0}}  # the wider of the two counts: ±0.001 alone

  # choice: at least two options, exactly one correct; explain every option
  - id: "{name}.ideal-order"
    topic: normalization
    kind: choice
    prompt: "IDCG@k is the DCG@k of which ordering?"
    options:
      - text: "All judged documents sorted by relevance, descending, then cut at k"
        correct: true
        explanation: "The ideal uses every judged document, retrieved or not."
      - text: "The retrieved documents in the model's own order"
        explanation: "That is DCG itself; dividing by it always gives 1."
      - text: "The retrieved documents sorted by relevance, descending"
        explanation: "Tempting, but it ignores relevant documents the model never retrieved."

  # concept: self-graded against a model answer and its key points
  - id: "{name}.why-normalize"
    topic: normalization
    kind: concept
    difficulty: hard
    prompt: "Why do we normalize DCG into NDCG before averaging over queries?"
    model_answer: |
      DCG grows with the number and grades of relevant documents, so raw DCG values are
      not comparable across queries. Dividing by the best achievable DCG (IDCG) puts every
      query on a 0..1 scale, so easy and hard queries weigh the same in the mean.
    key_points:
      - "DCG depends on how many relevant documents a query has"
      - "IDCG is the best possible DCG for that query"
      - "NDCG is in [0, 1], comparable across queries"

  # generated: a fresh problem each time, from a registered generator
  # (list them with `drills generate --help`)
  - id: "{name}.random-ndcg"
    topic: hand-computation
    kind: generated
    prompt: "NDCG@k of a random ranking"   # a title: the generator writes the full prompt
    generator: ndcg-hand
    params: {{n: 5, k: 3, metric: ndcg}}
'''


def starter_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a starter pack (None if it can)."""
    if len(name) > MAX_STARTER_NAME:
        return (f"pack name is {len(name)} characters long; at most {MAX_STARTER_NAME} "
                "(it starts every question id)")
    if not STARTER_NAME_RE.fullmatch(name):
        return (f"pack name {name!r} must start with a lowercase letter a-z or a digit "
                "and use only lowercase letters a-z, digits and -")
    return None


def starter_pack(name: str, *, filename: str = "", packs_dir: str = "$DRILLS_HOME/packs") -> str:
    """The starter pack text for pack ``name`` (ValueError unless starter_name_problem accepts it)."""
    problem = starter_name_problem(name)
    if problem is not None:
        raise ValueError(problem)
    return STARTER.format(name=name, filename=_comment_text(filename or f"{name}.yaml"),
                          packs_dir=_comment_text(packs_dir))


def _comment_text(text: str) -> str:
    """``text`` safe inside a one-line YAML comment: no line breaks or other control characters."""
    return "".join(c if c.isprintable() else "?" for c in text)
