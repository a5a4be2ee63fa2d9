"""Cut-off slips: DCG summed past k, and k ignored on both sides."""

from __future__ import annotations

from dataclasses import replace

from drills.engine.exact import Exact
from drills.engine.metrics.ndcg import Formula
from drills.engine.metrics.registry import metric_value
from drills.grading.slips.registry import Case, formula_slip, slip

formula_slip(
    "dcg_not_truncated", "DCG summed past k",
    "You summed DCG over the whole list. DCG@k stops at rank k.",
    Formula(truncate_dcg=False), metrics=("dcg", "ndcg", "ndcg_difference"), family="cutoff", short="DCG summed past k")


@slip("k_ignored", "k ignored: DCG and IDCG over the whole list",
      "You ignored the cut-off: DCG over the whole ranking and IDCG over the whole judged "
      "pool. @k cuts both at rank k; documents below it do not count on either side.",
      # on DCG alone it is dcg_not_truncated, on IDCG alone ideal_not_truncated
      metrics=("ndcg", "delta_ndcg", "ndcg_difference", "rr", "precision", "hit", "recall", "ap", "map",
               "mrr", "err"), family="cutoff", short="ignoring k",
      formula=Formula(truncate_dcg=False, ideal="untruncated"),
      descriptions={
          "rr": "You ignored the cut-off: RR@k only looks at the top k, and is 0 when no relevant "
                "document is there.",
          "precision": "You ignored the cut-off: P@k counts the relevant documents in the top k "
                       "and divides by k.",
          "hit": "You ignored the cut-off: Hit@k only looks at the top k.",
          "recall": "You ignored the cut-off: R@k counts the relevant documents in the top k only "
                    "(still over R).",
          "ap": "You ignored the cut-off: AP@k sums the precisions at the relevant ranks within "
                "the top k only.",
          "map": "You ignored the cut-off: each query's AP@k sums the precisions at the relevant "
                 "ranks within its top k only.",
          "mrr": "You ignored the cut-off: a query whose first relevant document is below rank k "
                 "scores 0 in MRR@k.",
          "err": "You ignored the cut-off: ERR@k stops summing at rank k.",
      })
def k_ignored(case: Case) -> Exact | None:
    if case.problem.k is None:
        return None
    return metric_value(replace(case.problem, k=None), case.metric)
