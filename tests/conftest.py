"""Shared fixtures: every test runs with DRILLS_HOME in a temp dir, never the real home."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def drills_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("DRILLS_HOME", str(home))
    monkeypatch.delenv("NO_COLOR", raising=False)
    # pytest-xdist's workers run with COLUMNS=80 LINES=24: a pipe would then be wrapped to 80
    # columns, and a finding that names a long temporary path split over lines. Each test
    # starts as a plain pipe does; one that wants a width sets it.
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    return home


@pytest.fixture(autouse=True)
def default_display():
    """Each test starts with the default display (a CLI run sets it from --color and config)."""
    from drills import display

    display.configure()
    yield
    display.configure()
