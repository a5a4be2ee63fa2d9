"""Hatchling build hook: ship the built-in packs already parsed, as ``drills/_bank.cache``.

A newcomer's first launch then reads no YAML (drills.packs.cache, ``prebuilt_path``): each
entry is keyed by the SHA-256 of its pack file's bytes, so a pack edited after the build is
parsed from its YAML as before. Editable installs get no bank: they run from the source
tree, whose packs may change at any time, and parse (and cache) them.

The document is made by ``drills.packs.cache.build_prebuilt``, the function the test
``tests/test_prebuilt_bank.py`` checks against a fresh parse; it needs pyyaml at build time
(``[build-system] requires`` in pyproject.toml). Configured in pyproject.toml under
``[tool.hatch.build.targets.wheel.hooks.custom]``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

TARGET = "drills/_bank.cache"


def write_bank(root: Path, out: Path) -> int:
    """Parse ``root``/questions with the source tree's drills and write the bank to ``out``;
    the number of packs it holds."""
    sys.path.insert(0, str(root))
    try:
        from drills.packs.cache import PackCache, build_prebuilt
    finally:
        sys.path.remove(str(root))
    out.write_bytes(build_prebuilt(root / "questions"))
    return len(PackCache(out, writable=False).entries)


class PrebuiltBankHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        self._folder = Path(tempfile.mkdtemp(prefix="drills-bank-"))
        out = self._folder / "_bank.cache"
        count = write_bank(Path(self.root), out)
        self.app.display_info(f"drills: {count} built-in packs prebuilt into {TARGET}")
        build_data["force_include"][str(out)] = TARGET

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        folder = getattr(self, "_folder", None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
