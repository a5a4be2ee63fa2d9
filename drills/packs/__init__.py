"""Question packs: safe YAML loading, checking with file:line errors, discovery.

Never imports sympy or click: the quiz loads packs at startup and must stay fast.
"""

from __future__ import annotations

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
    import importlib

    return getattr(importlib.import_module(f"drills.packs.{module}"), name)
