"""``drills practice``, ``drills mock`` and ``drills code``: running a quiz."""
