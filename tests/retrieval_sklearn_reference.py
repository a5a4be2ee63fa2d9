"""Evidence for drills/generators/retrieval.py and the precision-recall and ads-metrics packs:
scikit-learn's own numbers, stored in tests/fixtures/retrieval_sklearn.json so that the tests
need no scikit-learn.

Run it with a Python that has scikit-learn (never a dependency of drills):

    python -m venv /tmp/factvenv && /tmp/factvenv/bin/pip install scikit-learn numpy
    /tmp/factvenv/bin/python tests/retrieval_sklearn_reference.py [drills' python]

It asks drills' Python (default /tmp/venv/bin/python) for the generated items of the seeds
tests/test_generators_retrieval.py checks, then computes with scikit-learn:
- ads-auc: roc_auc_score over all impressions, and per user (GAUC weighted here by impressions);
- ads-calibration: log_loss of the impressions, and of the observed CTR predicted everywhere;
- pr-area: average_precision_score, and auc(recall, precision) of precision_recall_curve;
- FIXED: the fixed questions of the packs that name a scikit-learn function.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

OUT = Path(__file__).resolve().parent / "fixtures" / "retrieval_sklearn.json"
SEEDS = range(30)

DUMP = r"""
import json, random, sys
from drills.generators import REGISTRY
from drills.model import Question
out = []
for name, ask in [("ads-auc", "auc"), ("ads-calibration", "logloss"), ("pr-area", "ap")]:
    for seed in range(int(sys.argv[1])):
        t = Question(id="t", topic="x", kind="generated", prompt="", generator=name, params={"ask": ask})
        g = REGISTRY[name]
        q = g.make(t, g.resolved({"ask": ask}), random.Random(seed))
        out.append({"generator": name, "seed": seed, "params": q.params})
print(json.dumps(out))
"""

# Fixed questions of the packs: labels and scores in the order shown in the prompt.
FIXED = {
    # precision-recall.yaml pr-sklearn-all-tied: every score equal, 2 positives in 10
    "pr-sklearn-all-tied": ([1, 0, 0, 1, 0, 0, 0, 0, 0, 0], [0.5] * 10),
}


def frac(x: str) -> float:
    return float(Fraction(x))


def main() -> None:
    from sklearn.metrics import (
        auc,
        average_precision_score,
        log_loss,
        precision_recall_curve,
        roc_auc_score,
    )

    drills_python = sys.argv[1] if len(sys.argv) > 1 else "/tmp/venv/bin/python"
    repo = Path(__file__).resolve().parent.parent
    items = json.loads(subprocess.run([drills_python, "-c", DUMP, str(len(SEEDS))], cwd=repo,
                                      capture_output=True, text=True, check=True).stdout)
    out: dict = {"sklearn": __import__("sklearn").__version__, "generated": [], "fixed": {}}
    for item in items:
        p = item["params"]
        row = {"generator": item["generator"], "seed": item["seed"]}
        if item["generator"] == "ads-auc":
            users = [[(frac(s), y) for s, y in u] for u in p["users"]]
            allp = [x for u in users for x in u]
            row["auc"] = roc_auc_score([y for _, y in allp], [s for s, _ in allp])
            per = [(len(u), roc_auc_score([y for _, y in u], [s for s, _ in u]))
                   for u in users if len({y for _, y in u}) == 2]
            row["gauc"] = sum(w * a for w, a in per) / sum(w for w, _ in per)
        elif item["generator"] == "ads-calibration":
            y, pred = [], []
            for q, n, c in p["buckets"]:
                y += [1] * c + [0] * (n - c)
                pred += [frac(q)] * n
            ctr = sum(y) / len(y)
            row["logloss"] = log_loss(y, pred)
            row["ne"] = log_loss(y, pred) / log_loss(y, [ctr] * len(y))
            row["calibration"] = sum(pred) / sum(y)
        else:
            y = [lab for _, lab in p["items"]]
            s = [frac(sc) for sc, _ in p["items"]]
            precision, recall, _ = precision_recall_curve(y, s)
            row["ap"] = average_precision_score(y, s)
            row["trapezoid"] = auc(recall, precision)
        out["generated"].append(row)
    for name, (y, s) in FIXED.items():
        precision, recall, _ = precision_recall_curve(y, s)
        out["fixed"][name] = {
            "ap": average_precision_score(y, s), "trapezoid": auc(recall, precision),
        }
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(out['generated'])} generated items, scikit-learn {out['sklearn']})")


if __name__ == "__main__":
    main()
