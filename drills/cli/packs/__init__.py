"""``drills packs``: list, validate, new (``packs``, the group, whose subcommands load on
use), lint (``lint``), install, update, remove (``install``).

May import packs, authoring, paths, safetext and the shared cli modules; no other command
group.
"""
