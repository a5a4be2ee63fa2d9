"""Question packs: safe YAML loading, checking with file:line errors, discovery.

Never imports sympy or click: the quiz loads packs at startup and must stay fast.
"""

from __future__ import annotations

from drills.packs.discovery import Catalog, PackInfo, discover
from drills.packs.errors import PackError
from drills.packs.load import (
    LoadedPack,
    check_paths,
    cross_pack_errors,
    load_pack,
    load_paths,
    pack_files,
    validate_paths,
)
from drills.packs.schema import PackMeta
from drills.packs.template import starter_pack

__all__ = [
    "Catalog", "LoadedPack", "PackError", "check_paths", "PackInfo", "PackMeta", "cross_pack_errors", "discover",
    "load_pack", "load_paths", "pack_files", "starter_pack", "validate_paths",
]
