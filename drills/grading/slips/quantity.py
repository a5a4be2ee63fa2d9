"""Right number, wrong quantity: a ratio upside down, the division forgotten, the sign kept,
or the value of another quantity of the same problem (the NDCG where the IDCG was asked)."""

from __future__ import annotations

from fractions import Fraction

from drills.engine.exact import Exact, LogSum, Ratio
from drills.engine.metrics.ndcg import Formula
from drills.engine.metrics.registry import metric_value
from drills.grading.slips.registry import Case, formula_slip, slip

formula_slip(
    "inverted_ratio", "IDCG / DCG instead of DCG / IDCG",
    "You divided the other way round. NDCG = DCG / IDCG, so it lies in [0, 1].",
    Formula(inverted=True), metrics=("ndcg", "gain_ratio", "discount_ratio"), family="quantity", short="the inverted ratio",
    descriptions={
        "gain_ratio": "You divided the other way round: the question asks how many times larger "
                      "the higher grade's gain is, so the higher gain goes on top.",
        "discount_ratio": "You divided the other way round: a contribution shrinks by the lower "
                          "rank's discount over the higher rank's, log2(j + 1) / log2(i + 1), "
                          "which is more than 1.",
    })
formula_slip(
    "dcg_for_ndcg", "DCG given where NDCG was asked",
    "You stopped at DCG. NDCG divides DCG by IDCG, the DCG of the ideal order, so that "
    "every query lands on the same 0-1 scale.",
    Formula(normalized=False), metrics=("ndcg", "ndcg_difference"), family="quantity", short="DCG without the division",
    descriptions={
        "ndcg_difference": "You subtracted the DCGs and stopped. Each NDCG divides its DCG by IDCG "
                           "(the same for both rankings here), so the difference is "
                           "(DCG(A) - DCG(B)) / IDCG.",
    })


@slip("signed_delta", "a signed NDCG change where |delta NDCG| was asked",
      "You kept the sign of NDCG after the swap minus NDCG before. LambdaRank weights a "
      "pair by |delta NDCG|, the size of the change, which is never negative.",
      metrics=("delta_ndcg", "ndcg_difference"), family="quantity", short="the signed change", formula=Formula(absolute_delta=False),
      descriptions={
          "ndcg_difference": "You subtracted the other way round: the question asks NDCG(A) - "
                             "NDCG(B), which is negative when B scores higher.",
      })
def signed_delta(case: Case) -> Exact | None:
    if case.metric == "ndcg_difference":
        value = metric_value(case.problem, case.metric)
        return Ratio(-value.num, value.den) if isinstance(value, Ratio) else None
    return metric_value(case.problem, case.metric, Formula(absolute_delta=False))


def _other(metric: str) -> object:
    def compute(case: Case) -> Exact | None:
        return metric_value(case.problem, metric)

    return compute


_ANSWERED = {
    "ndcg": ("NDCG", "the normalised ratio DCG / IDCG", ("dcg", "idcg", "rr", "precision")),
    "dcg": ("DCG", "the ranking's own discounted gain", ("idcg",)),
    "idcg": ("IDCG", "the DCG of the ideal order", ("dcg", "ndcg")),
}
for _metric, (_name, _what, _asked) in _ANSWERED.items():
    slip(f"answered_{_metric}", f"{_name} given where another value was asked",
         f"That number is the {_name} of this problem ({_what}), right for a different question. "
         "Read the question again: it asks for another quantity of the same ranking.",
         metrics=_asked, family="quantity", short=f"the {_name}")(_other(_metric))  # type: ignore[arg-type]


@slip("answered_recall", "recall given where precision was asked",
      "You divided by the number of relevant documents (that is recall@k). Precision@k divides "
      "the relevant documents in the top k by k itself.",
      metrics=("precision",), family="quantity", short="recall")
def answered_recall(case: Case) -> Exact | None:
    p = case.problem
    pool = p.judged if p.judged is not None else p.relevance
    relevant = sum(1 for g in pool if g > 0)
    if relevant == 0:
        return None
    hits = sum(1 for g in p.relevance[: p.cutoff] if g > 0)
    return LogSum.of(Fraction(hits, relevant))
