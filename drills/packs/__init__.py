"""Question packs: safe YAML loading, checking with file:line errors, discovery, the cache,
and the bank's own property: no question's text gives another's answer away (leaks.py).

Reading a pack, lowest first: errors, document, yamlbuild, yamlsafe (the YAML reader);
fieldreader (the typed getters every question kind receives); the kinds (problems,
kinds, codekind, scenariokind), each importing only the reader and each other one way;
schema (the orchestrator: a pack's header and questions, the registry of kinds); load,
cache, discovery, install, sources on top. Nothing in here imports this package's
``__init__`` for its names: the lazy ``__getattr__`` below is for callers outside.

Never imports sympy or click: the quiz loads packs at startup and must stay fast.
May import: drills (root), engine, answers, model, grading, coding, generators, safetext,
paths.
"""

from __future__ import annotations

import importlib
from typing import Any

# name -> module: imported on first use, so `from drills.packs import discover` does not load
# the YAML reader when the catalog comes from the cache.
_EXPORTS = {
    "Catalog": "discovery", "PackInfo": "discovery", "discover": "discovery",
    "PackError": "errors", "PackMeta": "meta",
    "LoadedPack": "load", "check_paths": "load", "cross_pack_errors": "load", "load_pack": "load",
    "load_paths": "load", "pack_files": "load", "validate_paths": "load",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'drills.packs' has no attribute {name!r}")
    return getattr(importlib.import_module(f"drills.packs.{module}"), name)
