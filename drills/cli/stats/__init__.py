"""``drills stats``: progress (``stats``, the command), its text report (``report``), and the
class report over exports (``class_report``, for ``--from``).

May import store, display, safetext and the shared cli modules; no other command group.
"""
