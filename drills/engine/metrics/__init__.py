"""The metric families, one module each, and registry.py, the one list of metrics.

spec.py (the ``Metric`` declaration) and rational.py (what the rational families share) sit
below the families: ndcg.py (NDCG's computation) with ndcg_text.py (its worked text and its
metrics), quantities.py, binary.py, cascade.py. registry.py imports the families; no family
imports it.

May import: only drills.engine (its low modules: exact, problem, table; and each other,
downward as above).
"""
