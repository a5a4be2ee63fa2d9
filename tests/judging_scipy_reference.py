"""Evidence for questions/judging-at-scale.yaml: the numbers its questions attribute to a
library, run with that library and stored in tests/fixtures/judging_reference.json so that
tests/test_bank_judging_at_scale.py needs neither scipy nor scikit-learn.

Run it with a Python that has scipy and scikit-learn (never dependencies of drills):

    python -m venv /tmp/factvenv && /tmp/factvenv/bin/pip install scipy scikit-learn numpy
    /tmp/factvenv/bin/python tests/judging_scipy_reference.py

- js-kendall-tau: scipy.stats.kendalltau of the human and LLM MAP columns;
- js-cohen-kappa, js-kappa-prevalence: sklearn.metrics.cohen_kappa_score of the two 2x2 tables
  written out as 100 label pairs;
- js-tukey-hsd: scipy.stats.studentized_range.ppf(0.95, 6, 245), the q the prompt quotes, and
  scipy.stats.t.ppf(0.975, 245), the unadjusted critical value its explanation quotes.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent / "fixtures" / "judging_reference.json"

HUMAN = [0.314, 0.298, 0.285, 0.264, 0.253, 0.240]  # systems A-F, as in the prompt
LLM = [0.341, 0.322, 0.335, 0.290, 0.305, 0.281]


def table(both_rel: int, both_non: int, human_only: int, llm_only: int) -> tuple[list, list]:
    """A 2x2 agreement table as two label lists (1 = relevant): human, LLM."""
    human = [1] * both_rel + [0] * both_non + [1] * human_only + [0] * llm_only
    llm = [1] * both_rel + [0] * both_non + [0] * human_only + [1] * llm_only
    return human, llm


def main() -> None:
    import scipy
    import sklearn
    from scipy import stats
    from sklearn.metrics import cohen_kappa_score

    out = {
        "scipy": scipy.__version__,
        "sklearn": sklearn.__version__,
        "js-kendall-tau": float(stats.kendalltau(HUMAN, LLM).statistic),
        "js-cohen-kappa": float(cohen_kappa_score(*table(40, 35, 10, 15))),
        "js-kappa-prevalence": float(cohen_kappa_score(*table(5, 85, 5, 5))),
        "js-tukey-hsd": {
            "q": float(stats.studentized_range.ppf(0.95, 6, 245)),
            "t": float(stats.t.ppf(0.975, 245)),
        },
    }
    OUT.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
