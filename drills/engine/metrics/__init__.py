"""The metric families, one module each, and registry.py: the one list of metrics."""
