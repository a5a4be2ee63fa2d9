"""``drills packs validate`` checks clashes against the built-in packs as ``discover`` loads
them: from the pack cache when they are unchanged (issue 25, point 4: a 10,000-question
pack under 1 s). The report must be the same, word for word, whether the built-in packs come
from the cache or from their YAML, and a check writes nothing to the cache."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.packs import discover, validate_paths
from drills.packs import discovery as discovery_mod
from drills.packs.cache import default_path
from drills.paths import builtin_packs_dir

FIXTURES = Path(__file__).parent / "fixtures" / "packs"


@pytest.fixture(autouse=True)
def no_entry_points(monkeypatch):
    monkeypatch.setattr(discovery_mod, "_entry_point_paths", lambda errors, memo=None: [])


def _clashing(tmp_path: Path) -> Path:
    """A pack reusing a built-in question's id (from the YAML, not from drills) and a
    built-in pack's name."""
    bank = builtin_packs_dir() / "hand-computation.yaml"
    text = bank.read_text(encoding="utf-8")
    builtin_id = re.search(r"(?m)^ *- id: (\S+)", text.split("\nquestions:", 1)[1]).group(1)
    builtin_name = re.search(r"(?m)^  name: (\S+)", text).group(1)
    good = (FIXTURES / "good.yaml").read_text(encoding="utf-8")
    first_id = re.search(r"- id: (\S+)", good).group(1)
    mine = good.replace(f"- id: {first_id}", f"- id: {builtin_id}", 1)
    mine = re.sub(r"(?m)^  name: .*$", f"  name: {builtin_name}", mine, count=1)
    path = tmp_path / "clash.yaml"
    path.write_text(mine, encoding="utf-8")
    return path


def test_the_same_report_from_the_cache_as_from_the_yaml(tmp_path, drills_home):
    drills_home.mkdir(parents=True, exist_ok=True)  # a home that exists can hold a cache
    clash = _clashing(tmp_path)
    cold = CliRunner().invoke(cli, ["packs", "validate", str(clash)])
    assert not default_path().exists()  # the check wrote no cache
    assert cold.exit_code == 1, cold.output
    assert "duplicate id" in cold.output and "is also used by" in cold.output
    # every line is one the YAML-only check (the library's default) gives too
    assert cold.output.splitlines()[:-1] == [str(e) for e in validate_paths([clash])]

    discover()  # what any quiz does: the built-in packs cached
    cache = default_path()
    assert cache is not None and cache.exists()
    before = cache.read_bytes()
    loaded = discovery_mod.builtin_packs()
    assert loaded and all(not p.errors for p in loaded)
    calls = []
    real = discovery_mod.load_pack
    discovery_mod.load_pack = lambda *a, **k: calls.append(a) or real(*a, **k)  # type: ignore[assignment]
    try:
        warm = CliRunner().invoke(cli, ["packs", "validate", str(clash)])
    finally:
        discovery_mod.load_pack = real  # type: ignore[assignment]
    assert calls == []  # no built-in pack parsed again: all came from the cache
    assert warm.exit_code == 1
    assert warm.output == cold.output
    assert cache.read_bytes() == before


def test_builtin_packs_from_the_cache_equal_the_parsed_ones(drills_home):
    drills_home.mkdir(parents=True, exist_ok=True)
    parsed = discovery_mod.builtin_packs(cache=False)
    discover()
    cached = discovery_mod.builtin_packs()
    assert [p.path for p in cached] == [p.path for p in parsed]
    assert [p.meta for p in cached] == [p.meta for p in parsed]
    assert [[(q.id, q.source) for q in p.questions] for p in cached] == \
        [[(q.id, q.source) for q in p.questions] for p in parsed]
