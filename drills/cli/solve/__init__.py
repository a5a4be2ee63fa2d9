"""``drills solve``: NDCG step by step, one metric, TREC files."""
