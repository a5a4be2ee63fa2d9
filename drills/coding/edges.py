"""Which edge cases a code question promises, and whether its hidden cases exercise them.

A hidden case that was *drawn* for an edge is not proof that it has it: a "query with no
relevant document" whose R still counted unretrieved relevant documents let every recall
function without an R = 0 guard pass. So each edge is a predicate on the call itself
(``exercises``), and a question must exercise:

- every edge its ``cases.include`` names;
- every edge its prompt promises a value for: "return 0.0 when R is 0", "a list of 0s has
  DCG 0.0", "0 when it has none" (R = 0, or no hit, for the binary metrics: a query with
  nothing relevant; every grade 0 for DCG, IDCG, NDCG, |dNDCG|, ERR and RBP), "k past the
  end" (k beyond every list of the call);
- k = 1 and k past the end whenever the function takes k (the off-by-ones at both ends).

``edge_errors`` says what is missing, for ``drills packs lint``. A prompt sentence
"return X when ..." that matches no known edge is an error too: drills cannot tell which
case would exercise it. Pure: no files, no processes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from drills.coding.task import EDGES, CodeTask, hidden_cases, problem_for
from drills.engine.problem import Problem
from drills.model import Question

# Metrics whose "nothing relevant" case is a list of 0s (IDCG = 0, or every stop
# probability 0); the binary metrics' is R = 0 at their threshold.
GRADED = ("dcg", "idcg", "ndcg", "delta_ndcg", "err", "rbp")
# What a prompt says when it promises the value of a query with nothing relevant.
NOTHING_RELEVANT = re.compile(
    r"\b0(?:\.0)?\s+when\b|\bR\s*(?:=|is)\s*0\b|\bnum_relevant\s+is\s+0\b|\blist of 0s\b"
    r"|\bIDCG(?:@k)?\s+is\s+0\b|\bno (?:judged )?document is relevant\b|\bno relevant document\b",
    re.IGNORECASE)
PAST_THE_END = re.compile(r"\bk\b[^.]*?\bpast the end\b", re.IGNORECASE)
RANKS_PAST_THE_END = re.compile(r"\branks past the end\b", re.IGNORECASE)  # R-precision's P@R
RETURN_WHEN = re.compile(r"\breturns?\b[^.]*?\bwhen\b[^.]*", re.IGNORECASE)


def _queries(problem: Problem) -> tuple[Problem, ...]:
    return problem.queries or (problem,)


def exercises(task: CodeTask, call: Sequence[Any], edge: str) -> bool:
    """Whether the call has ``edge``: the property itself, not the label it was drawn for."""
    problem = problem_for(task, tuple(call))
    queries = _queries(problem)
    rankings = [q.relevance for q in queries]
    pools = [q.judged if q.judged is not None else q.relevance for q in queries]
    k = problem.k
    threshold = task.threshold

    def relevant(grades: Sequence[int]) -> int:
        return sum(1 for g in grades if g >= threshold)

    if edge == "k_past_end":  # past the ranking, and past a judged pool the function is given
        lists = (*rankings, *pools) if "judged" in task.args else rankings
        return k is not None and k > max(len(x) for x in lists)
    if edge == "k_one":
        return k == 1
    if edge == "all_zero":
        return any(not any(pool) for pool in pools)
    if edge == "no_hit":
        return any(relevant(pool) == 0 for pool in pools)
    if edge == "single":
        return any(len(r) == 1 for r in rankings)
    if edge == "ties":
        return any(len({g for g in r if g}) < sum(1 for g in r if g) for r in rankings)
    if edge == "long":
        return any(len(r) >= 500 for r in rankings)
    if edge == "judged_larger":
        return any(relevant(pool) > relevant(r) for r, pool in zip(rankings, pools, strict=True))
    if edge == "r_past_end":
        return any(relevant(pool) > len(r) for r, pool in zip(rankings, pools, strict=True))
    raise ValueError(f"unknown edge case {edge!r}")


def promised_edges(task: CodeTask, prompt: str) -> dict[str, str]:
    """The edges a question must exercise, each with why: ``{edge: reason}``."""
    wanted: dict[str, str] = {}
    for edge in task.include:
        wanted.setdefault(edge, "named in cases.include")
    text = " ".join(prompt.split())
    nothing = NOTHING_RELEVANT.search(text)
    if nothing:
        edge = "all_zero" if task.metric in GRADED else "no_hit"
        wanted.setdefault(edge, f'the prompt says "{_clause(text, nothing.start())}"')
    ranks = RANKS_PAST_THE_END.search(text)
    if ranks and task.metric == "rprec":
        wanted.setdefault("r_past_end", f'the prompt says "{_clause(text, ranks.start())}"')
    if "k" in task.args:
        past = PAST_THE_END.search(text)
        wanted.setdefault("k_past_end", f'the prompt says "{_clause(text, past.end() - 1)}"' if past
                          else "the function takes k")
        wanted.setdefault("k_one", "the function takes k")
    return wanted


def unknown_promises(task: CodeTask, prompt: str) -> list[str]:
    """"return X when ..." sentences of the prompt that no known edge stands for."""
    text = " ".join(prompt.split())
    out = []
    for match in RETURN_WHEN.finditer(text):
        clause = match.group(0)
        if NOTHING_RELEVANT.search(clause) or PAST_THE_END.search(clause):
            continue
        out.append(_clause(text, match.start()))
    return out


def _clause(text: str, at: int) -> str:
    """The clause of ``text`` around position ``at``: between sentence, semicolon, comma or
    list-item boundaries, without its final period."""
    marks = (". ", "; ", ", ", " - ")
    start = max(text.rfind(m, 0, at) + len(m) if text.rfind(m, 0, at) >= 0 else 0 for m in marks)
    ends = [i for i in (text.find(m, at) for m in marks) if i >= 0]
    end = min(ends) if ends else len(text)
    while text.count("(", at, end) > text.count(")", at, end) and end < len(text):  # not inside (...)
        more = [i for i in (text.find(m, end + 1) for m in marks) if i >= 0]
        end = min(more) if more else len(text)
    return text[start:end].strip().rstrip(".;").lstrip("- ")


def edge_errors(question: Question) -> list[str]:
    """What a code question promises that no hidden case exercises (empty: all covered)."""
    task: CodeTask | None = question.task
    if question.kind != "code" or task is None:
        return []
    cases = hidden_cases(task, question.id)
    errors = []
    for edge, why in promised_edges(task, question.prompt).items():
        if any(exercises(task, case.call, edge) for case in cases):
            continue
        fix = (f"a drawn `{edge}` case does not have it" if edge in task.include
               else f"add `{edge}` to cases.include")
        errors.append(f"no hidden case has {EDGES[edge]} ({why}): {fix}")
    for sentence in unknown_promises(task, question.prompt):
        errors.append(f'the prompt promises "{sentence}", and no edge case of drills stands for it '
                      f"(one of {', '.join(EDGES)})")
    return errors
