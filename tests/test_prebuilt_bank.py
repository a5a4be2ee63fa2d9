"""The wheel's prebuilt bank (drills/_bank.cache, build_hooks/prebuilt_bank.py): built from
the current YAML it equals a fresh parse; it is used only for a pack file whose bytes it was
built from, so an edited pack is parsed again; a damaged entry is ignored, never written."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from drills.packs import cache as packcache
from drills.packs import discovery
from drills.packs.cache import PackCache, build_prebuilt, content_key
from drills.packs.load import load_pack, pack_files

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "questions"


def test_the_prebuilt_bank_of_the_current_yaml_equals_a_fresh_parse(tmp_path):
    bank_file = tmp_path / "_bank.cache"
    bank_file.write_bytes(build_prebuilt(QUESTIONS))  # through a file, as the wheel holds it
    bank = PackCache(bank_file, writable=False)
    files = pack_files(QUESTIONS)
    assert len(bank.entries) == len(files) > 20
    for f in files:
        fresh = load_pack(f, builtin=True)
        assert fresh.ok, f
        hit = bank.get(f"sha256:{hashlib.sha256(f.read_bytes()).hexdigest()}")
        assert hit is not None, f
        assert hit[0] == fresh.meta and hit[1] == fresh.questions, f


@pytest.fixture
def one_builtin_pack(tmp_path, monkeypatch, drills_home):
    """A built-in folder holding a copy of conventions.yaml, and where a bank may be put."""
    folder = tmp_path / "questions"
    folder.mkdir()
    pack = folder / "conventions.yaml"
    pack.write_bytes((QUESTIONS / "conventions.yaml").read_bytes())
    monkeypatch.setattr(discovery, "builtin_packs_dir", lambda: folder)
    bank_file = tmp_path / "_bank.cache"
    monkeypatch.setattr(discovery, "prebuilt_path", lambda: bank_file)
    drills_home.mkdir(parents=True)
    return pack, bank_file


def _prompts(questions) -> set[str]:
    return {q.prompt for q in questions}


def _edit(pack: Path, marker: str) -> str:
    """Prefix the first question's prompt with ``marker``; the edited prompt's start."""
    text = pack.read_text(encoding="utf-8")
    at = text.index("prompt:") + len("prompt:")
    first = text[at:].lstrip(" |>-\n").splitlines()[0].strip().strip("\"'")
    pack.write_text(text.replace(first, f"{marker} {first}", 1), encoding="utf-8")
    os.utime(pack, ns=(1, 1))
    return f"{marker} {first}"


def test_a_matching_bank_is_used_and_a_stale_one_ignored(one_builtin_pack, drills_home):
    pack, bank_file = one_builtin_pack
    original = pack.read_bytes()
    made = _edit(pack, "PREBUILT-ONLY")  # the bank is built from this text ...
    built = build_prebuilt(pack.parent)
    built_key = content_key(pack)
    pack.write_bytes(original)  # ... then the file goes back to its own text
    # keyed by the original bytes, the bank's entry stands for this file: it is what loads,
    # with no YAML parsed, and it is copied into the user's cache
    bank_file.write_bytes(_rekey(built, built_key, content_key(pack)))
    assert any(p.startswith(made) for p in _prompts(discovery.discover().questions))
    assert (drills_home / "cache" / "packs.cache").is_file()
    (drills_home / "cache" / "packs.cache").unlink()
    # stale: the bank was built from other bytes than the file now holds -> the YAML is parsed
    bank_file.write_bytes(built)
    prompts = _prompts(discovery.discover().questions)
    assert prompts == _prompts(load_pack(pack, builtin=True).questions)
    assert not any(p.startswith(made) for p in prompts)


def test_an_edited_pack_after_a_bank_hit_is_parsed_again(one_builtin_pack, drills_home):
    pack, bank_file = one_builtin_pack
    bank_file.write_bytes(build_prebuilt(pack.parent))
    first = tuple(discovery.discover().questions)
    assert first == load_pack(pack, builtin=True).questions
    edited = _edit(pack, "EDITED")
    assert any(p.startswith(edited) for p in _prompts(discovery.discover().questions))


def test_a_damaged_or_foreign_bank_is_ignored_and_never_written(one_builtin_pack):
    pack, bank_file = one_builtin_pack
    fresh = load_pack(pack, builtin=True).questions
    built = build_prebuilt(pack.parent)
    damaged = built.replace(b'\\"conventions\\"', b'\\"injected!!!\\"', 1)  # the seal no longer holds
    assert damaged != built
    foreign = built.replace(f'"{packcache.VERSION}"'.encode(), b'"0.0.0/1"', 1)
    for data in (damaged, foreign, b"{not json", built[:-10]):
        bank_file.write_bytes(data)
        before = bank_file.stat().st_mtime_ns
        assert tuple(discovery.discover().questions) == fresh
        assert bank_file.read_bytes() == data and bank_file.stat().st_mtime_ns == before


def _rekey(bank: bytes, old: str | None, new: str | None) -> bytes:
    """The bank file with entry ``old`` keyed ``new`` (keys are in its first line)."""
    assert old and new and old.encode() in bank
    return bank.replace(old.encode(), new.encode(), 1)


def test_no_bank_in_a_source_checkout():
    """The editable install and a checkout parse their YAML: the bank is a build artefact."""
    assert not (ROOT / "drills" / packcache.PREBUILT).exists()
    assert packcache.prebuilt_path() is None
