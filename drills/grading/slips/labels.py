"""Label slips: graded relevance used where the question binarised it, and a binary metric's
relevance threshold ignored (every grade above 0 counted as relevant)."""

from __future__ import annotations

from dataclasses import replace

from drills.engine.exact import Exact, LogSum
from drills.engine.metrics.registry import measure, metric_value
from drills.engine.problem import Problem
from drills.grading.slips.registry import Case, slip


@slip("graded_labels", "graded labels used where binary labels were asked",
      "You scored the graded labels. With binary labels every relevant document (grade > 0) "
      "counts as 1, so a grade-3 document is worth no more than a grade-1 one.",
      metrics=("dcg", "idcg", "ndcg"), family="labels", short="the graded labels")
def graded_labels(case: Case) -> Exact | None:
    if case.graded is None:
        return None
    graded = replace(case.problem, relevance=case.graded, judged=None)
    return metric_value(graded, case.metric)


def _threshold_text(p: Problem, metric: str) -> str:
    below = "grade 1" if p.threshold == 2 else f"grades 1 to {p.threshold - 1}"
    return (f"You counted every document with a grade above 0 as relevant. Here a document is "
            f"relevant only at grade {p.threshold} or more: {below} counts as non-relevant "
            f"(`if rel:` or `rel > 0` where `rel >= {p.threshold}` was asked).")


@slip("threshold_ignored", "every grade above 0 counted as relevant, ignoring the threshold",
      "You counted every document with a grade above 0 as relevant. The question makes a document "
      "relevant only at its threshold grade or more (trec_eval's -l): the grades below it count "
      "as non-relevant.",
      metrics=("rr", "mrr", "precision", "recall", "rprec", "hit", "ap", "map"), family="labels",
      short="every grade above 0 counted as relevant", text=_threshold_text)
def threshold_ignored(case: Case) -> Exact | None:
    p = case.problem
    if p.threshold <= 1:
        return None
    any_grade = measure(replace(p, threshold=1), case.metric).exact
    return None if any_grade == measure(p, case.metric).exact else LogSum.of(any_grade)
