"""The exact engine: a ranking ``Problem`` (problem.py) and exact values (exact.py), the
worked tables' layout (table.py), and metrics/: one module per metric family and
registry.py, the one list of metrics.

May import: only the engine itself (and drills.safetext); never the question model, the
grading, the quiz or anything above.
"""
