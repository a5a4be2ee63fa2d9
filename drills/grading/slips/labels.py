"""Label slips: graded relevance used where the question binarised it."""

from __future__ import annotations

from dataclasses import replace

from drills.engine.exact import Exact
from drills.engine.metrics.registry import metric_value
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
