"""display.terminal_size follows shutil.get_terminal_size's rules without importing shutil
(issue 25: shutil brings bz2, lzma and fnmatch into every launch)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from drills.display import terminal_size


@pytest.mark.parametrize("columns", [None, "", "abc", "0", "-3", "132"])
@pytest.mark.parametrize("lines", [None, "x", "0", "50"])
@pytest.mark.parametrize("fallback", [(80, 24), (80, 66)])
def test_the_same_size_as_shutil(monkeypatch, columns, lines, fallback):
    for name, value in (("COLUMNS", columns), ("LINES", lines)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert terminal_size(fallback) == shutil.get_terminal_size(fallback)


def test_the_first_question_path_does_not_import_shutil():
    code = ("import sys; from drills.display import display_width; display_width(); "
            "from drills.tui import pager; pager.terminal_rows(); print('shutil' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")})
    assert out.stdout.strip() == "False", out.stderr
