"""The IDCG = 0 convention: a query with nothing relevant scored 1 instead of 0."""

from __future__ import annotations

from drills.engine.metrics.ndcg import Formula
from drills.grading.slips.registry import formula_slip

formula_slip(
    "idcg_zero_scores_one", "a query with no relevant document scored 1",
    "No judged document is relevant, so IDCG is 0 and DCG / IDCG is undefined. drills "
    "scores such a query 0, as scikit-learn, trec_eval and ranx do; 1 is LightGBM's and "
    "XGBoost's convention. In an interview, name the convention you use.",
    Formula(empty_ideal_one=True), metrics=("ndcg",), family="convention",
    short="scoring a query with nothing relevant 1")
