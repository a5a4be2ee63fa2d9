"""drills: a terminal quiz engine for ranking-metric interview practice."""

from __future__ import annotations

__version__ = "0.1.0"
