"""Exact values of ranking metrics: problems, the metric families, worked tables."""
