"""``drills solve``: NDCG step by step (``solve``, the command), one other metric (``metric``),
TREC files (``trec``), and an answer graded and shown (``verdict``, shared by both).

May import engine, grading, trec, model, display, safetext and the shared cli modules; no
other command group. Imports point one way: solve -> metric, trec; solve, metric -> verdict.
"""
