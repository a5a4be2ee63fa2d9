"""Evidence for the library claims of the question bank (issue 27): run the libraries they name.

Not part of the test suite and not a dependency of drills: run it in a separate virtualenv,

    python -m venv /tmp/factvenv
    /tmp/factvenv/bin/pip install xgboost lightgbm scikit-learn pytrec_eval-terrier
    /tmp/factvenv/bin/python bench/bank_fact_checks.py [--trec-eval PATH/TO/trec_eval]

Each check prints what it measured; the pack text cites these numbers:

* learning-to-rank.yaml ltr-xgboost-objectives: XGBoost's rank:pairwise keeps top-k pairs,
  score-gap division and per-query normalisation on by default (saved config), and turning
  either normalisation off changes the predictions.
* incomplete-judgements.yaml ij-hole-filling: new judgements can raise a run's AP
  (pytrec_eval map 0.111 -> 0.600) while another run's falls (0.333 -> 0.200).
* metric-design.yaml mdesign-ads-calibration: AUC is unchanged by a strictly increasing
  transform (p^2) but not by a merely non-decreasing one (round(p, 1): 0.889 -> 0.833).
* mrr-and-err.yaml mre-rbp-graded: trec_eval 10.0's graded RBP rescales by the query's
  lowest and highest judged grade (-m rbp.p=0.8: 0.3109 for top grade 3, 0.3664 for 2).

LightGBM's lambdarank_norm (score-gap division, log2(1 + S)/S rescaling) is read from
src/objective/rank_objective.hpp (lines 247-269 of master in 2026), not run here.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path


def xgboost_pairwise() -> None:
    import numpy as np
    import xgboost as xgb

    rng = np.random.default_rng(0)
    n_queries, per_query = 50, 20
    x = rng.normal(size=(n_queries * per_query, 5))
    y = np.clip(np.round(x[:, 0] + 0.5 * x[:, 1] + rng.normal(scale=0.7, size=len(x)) + 1), 0, 4)
    data = xgb.DMatrix(x, y, qid=np.repeat(np.arange(n_queries), per_query))

    def fit(**extra: object) -> tuple[xgb.Booster, np.ndarray]:
        booster = xgb.train({"objective": "rank:pairwise", "seed": 0, "tree_method": "hist", **extra},
                            data, 20)
        return booster, booster.predict(data)

    booster, base = fit()
    param = json.loads(booster.save_config())["learner"]["objective"]["lambdarank_param"]
    print(f"xgboost {xgb.__version__} rank:pairwise defaults:",
          {k: param[k] for k in ("lambdarank_pair_method", "lambdarank_num_pair_per_sample",
                                 "lambdarank_score_normalization", "lambdarank_normalization")})
    for name in ("lambdarank_score_normalization", "lambdarank_normalization"):
        _, other = fit(**{name: False})
        print(f"  {name}=False: max |prediction change| {float(np.max(np.abs(other - base))):.2f}")


def pytrec_hole_filling() -> None:
    import pytrec_eval

    runs = {"[u1, u2, r1]": {"q": {"u1": 3.0, "u2": 2.0, "r1": 1.0}},
            "[r2, x, y]": {"q": {"r2": 3.0, "x": 2.0, "y": 1.0}}}
    before = {"q": {"r1": 1, "r2": 1, "r3": 1, "n1": 0}}
    after = {"q": {**before["q"], "u1": 1, "u2": 1}}
    for name, run in runs.items():
        values = [pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)["q"]["map"]
                  for qrels in (before, after)]
        print(f"pytrec_eval map of run {name}: {values[0]:.3f} -> {values[1]:.3f} after u1, u2 judged relevant")


def sklearn_auc() -> None:
    import numpy as np
    import sklearn
    from sklearn.metrics import roc_auc_score

    y = [0, 0, 1, 0, 1, 1]
    p = np.array([0.12, 0.31, 0.34, 0.52, 0.58, 0.91])
    print(f"scikit-learn {sklearn.__version__} AUC: p {roc_auc_score(y, p):.3f}, p^2 {roc_auc_score(y, p**2):.3f}, "
          f"round(p, 1) {roc_auc_score(y, np.round(p, 1)):.3f}")


def trec_eval_rbp(binary: str) -> None:
    run = "".join(f"q Q0 {d} {i} {5 - i} r\n" for i, d in enumerate("abcd", start=1))
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "run").write_text(run)
        for grades in ([3, 0, 1, 2], [2, 0, 1, 2]):
            Path(tmp, "qrels").write_text("".join(f"q 0 {d} {g}\n" for d, g in zip("abcd", grades, strict=True)))
            out = subprocess.run([binary, "-m", "rbp.p=0.8", f"{tmp}/qrels", f"{tmp}/run"],
                                 capture_output=True, text=True, check=True).stdout.split()
            print(f"trec_eval rbp.p=0.8 of {grades}: {out[-1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trec-eval", help="a trec_eval 10 binary (built from usnistgov/trec_eval)")
    args = parser.parse_args()
    xgboost_pairwise()
    pytrec_hole_filling()
    sklearn_auc()
    if args.trec_eval:
        trec_eval_rbp(args.trec_eval)


if __name__ == "__main__":
    main()
