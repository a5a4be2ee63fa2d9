"""Packs written to attack the terminal or the loader: control characters in pack text,
keys and file names, symbolic link loops, lone surrogates, files that are not packs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.packs import discovery as discovery_mod
from drills.packs import load_pack
from drills.packs.yamlsafe import parse_text

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "packs"

# YAML double-quoted escapes: \e is ESC, \a is BEL. OSC 52 writes the clipboard, OSC 8
# plants a link, CSI 2J clears the screen.
HOSTILE = r'''pack: {name: hostile, version: "1.0.0", description: "a pack"}
questions:
  - id: hostile-a
    topic: conventions
    kind: choice
    prompt: "Copy this \e]52;c;cHduZWQ=\a now"
    hints: ["see \e]8;;http://x/\aheresy\e]8;;\a", "a fine hint"]
    options:
      - text: "wipe \e[2J"
        correct: true
        explanation: "x"
      - text: "other"
        explanation: "y"
'''
HOSTILE_KEY = '''pack: {name: hostile-key, version: "1.0.0"}
questions:
  - id: hostile-key-a
    topic: conventions
    kind: concept
    prompt: "p"
    model_answer: "m"
    key_points: ["k"]
    "hint\\e]0;owned\\a": ["x"]
'''
GOOD = (FIXTURES / "good.yaml").read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def no_entry_points(monkeypatch):
    monkeypatch.setattr(discovery_mod, "_entry_point_paths", lambda errors, memo=None: [])


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def run_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """The real process: the bytes a terminal would get, stdout and stderr apart."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "drills", *args], capture_output=True, cwd=cwd,
                          env=env, timeout=120, check=False)


# --- control characters: an error at their line, never sent to the terminal -----------------
def test_validate_names_each_control_character_at_its_file_and_line(tmp_path):
    pack = tmp_path / "hostile.yaml"
    pack.write_text(HOSTILE, encoding="utf-8")
    result = invoke("packs", "validate", str(pack))
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    for where in (f"{pack}:6: questions[0].prompt", f"{pack}:7: questions[0].hints[0]",
                  f"{pack}:9: questions[0].options[0].text"):
        assert f"{where}: contains a terminal control character U+001B" in lines
    assert "\x1b" not in result.output and "\x07" not in result.output


def test_a_control_character_in_a_key_is_an_error_at_its_line(tmp_path):
    pack = tmp_path / "key.yaml"
    pack.write_text(HOSTILE_KEY, encoding="utf-8")
    errors = [str(e) for e in load_pack(pack).errors]
    assert f"{pack}:9: questions[0].hint^[]0;owned^G: the key contains a terminal control character U+001B" \
        in errors


@pytest.mark.parametrize("value, code", [
    (r'"\x9b31m"', "U+009B"),        # C1 CSI
    (r'"abc\u202Eevil"', "U+202E"),  # bidi override (Trojan Source)
    (r'"zero\u200Bwidth"', "U+200B"),
    (r'"line\rover"', "U+000D"),     # carriage return: overwrites the line
    ("plain \u2066isolate", "U+2066"),  # written as is, unquoted
    (r'!!str "\0"', "U+0000"),       # tagged
])
def test_every_scalar_is_checked_wherever_it_is(tmp_path, value, code):
    text = GOOD.replace("description: Every kind of question.", f"description: {value}", 1)
    assert text != GOOD
    doc = parse_text(text, "p.yaml")
    assert [(e.field, e.message) for e in doc.errors] == [
        ("pack.description", f"contains a terminal control character {code}")]


def test_an_anchored_control_character_is_reported_once_and_never_used(tmp_path):
    pack = tmp_path / "alias.yaml"
    pack.write_text(GOOD.replace("questions:", 'x-evil: &evil "\\e[8m"\nquestions:', 1)
                    .replace('prompt: "Under gain', 'prompt: *evil\n    explanation: "Under gain', 1),
                    encoding="utf-8")
    loaded = load_pack(pack)
    assert loaded.errors and "x-evil: contains a terminal control character U+001B" in str(loaded.errors[0])
    assert all("\x1b" not in q.prompt for q in loaded.questions)


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    """Control characters in pack text, in a key, in the name of a broken and of a good pack."""
    folder = tmp_path / "packs"
    folder.mkdir()
    (folder / "hostile.yaml").write_text(HOSTILE, encoding="utf-8")
    (folder / "key.yaml").write_text(HOSTILE_KEY, encoding="utf-8")
    (folder / "name-\x1b]0;title\x07-\x1b[2J.yaml").write_text(  # broken: named in messages
        GOOD.replace("version: ", "version: 1.0 #", 1), encoding="utf-8")
    (folder / "good-\x1b]8;;http:x\x07.yaml").write_text(GOOD, encoding="utf-8")  # loads
    return folder


@pytest.mark.parametrize("args", [
    ["packs", "validate", "{folder}"],
    ["packs", "list", "--pack", "{folder}"],
    ["packs", "list", "--json", "--pack", "{folder}"],
    ["packs", "lint", "{folder}", "--seeds", "2"],
    ["generate", "--pack", "{folder}", "--count", "1", "--seed", "1"],
])
def test_no_escape_or_bell_byte_reaches_the_terminal(hostile_folder, tmp_path, args):
    result = run_process(*(a.format(folder=hostile_folder) for a in args), cwd=tmp_path)
    assert b"Traceback" not in result.stderr
    for stream in (result.stdout, result.stderr):
        assert b"\x1b" not in stream and b"\x07" not in stream
    shown = (result.stdout + result.stderr).decode()
    assert "name-^[]0;title^G-^[[2J.yaml" in shown  # the file is named, its escapes shown


def test_the_quiz_skips_a_hostile_pack_in_one_line(hostile_folder):
    result = invoke("generate", "--pack", str(hostile_folder), "--count", "1", "--seed", "1")
    assert result.exit_code == 0, result.output
    skipped = [line for line in result.stderr.splitlines() if line.startswith("skipped: ")]
    assert len(skipped) == 3  # hostile.yaml, key.yaml, name-...yaml; the oddly named good pack loads
    assert any("hostile.yaml:6: questions[0].prompt: contains a terminal control character" in s
               for s in skipped)


# --- symbolic link loops -------------------------------------------------------------------
@pytest.fixture
def loop_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "looped"
    folder.mkdir()
    (folder / "good.yaml").write_text(GOOD, encoding="utf-8")
    (folder / "loop.yaml").symlink_to("loop.yaml")
    return folder


def test_validate_reports_a_symlink_loop_in_one_line(loop_folder):
    result = invoke("packs", "validate", str(loop_folder))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1
    assert result.output.splitlines() == [f"{loop_folder / 'loop.yaml'}: a symbolic link loop",
                                          "1 error in 1 file"]


def test_list_skips_a_symlink_loop_in_the_user_folder(drills_home):
    user = drills_home / "packs"
    user.mkdir(parents=True)
    (user / "loop.yaml").symlink_to("loop.yaml")
    result = invoke("packs", "list")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0
    assert [line for line in result.stderr.splitlines() if "loop.yaml" in line] == [
        f"{user / 'loop.yaml'}: a symbolic link loop [pack skipped: 1 problem; "
        f"run `drills packs validate {user / 'loop.yaml'}`]"]


def test_a_quiz_loader_skips_a_symlink_loop(loop_folder):
    result = invoke("generate", "--pack", str(loop_folder), "--count", "1", "--seed", "3")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0
    assert [line for line in result.stderr.splitlines() if "loop.yaml" in line] == [
        f"skipped: {loop_folder / 'loop.yaml'}: a symbolic link loop [pack skipped: 1 problem; "
        f"run `drills packs validate {loop_folder / 'loop.yaml'}`]"]


def test_a_symlink_loop_named_directly_is_a_usage_error(loop_folder):
    result = invoke("packs", "validate", str(loop_folder / "loop.yaml"))
    assert result.exit_code == 2
    assert result.stderr.strip() == f"Error: pack not found: {loop_folder / 'loop.yaml'} (a symbolic link loop)"


# --- surrogates and files that are not packs -----------------------------------------------
@pytest.mark.parametrize("text, line", [("prompt: \ud800", 1), ("pack: x\nprompt: a \udcff b\n", 2)])
def test_a_lone_surrogate_is_an_error_not_an_exception(text, line):
    doc = parse_text(text, "s.yaml")
    assert doc.fatal and len(doc.errors) == 1
    error = doc.errors[0]
    assert error.line == line and "lone surrogate" in error.message and "\n" not in str(error)


SECRET = "$6$saltsalt$" + "Zq8" * 40  # a shadow-style hash: 131 characters


def test_a_symlinked_other_file_is_not_echoed(tmp_path):
    """At most a short excerpt of the offending token, never whole lines of the file."""
    other = tmp_path / "shadow"
    other.write_text(f"root:{SECRET}:19000:0:99999:7:::: x\n"
                     f"daemon:*:19000:0:99999:7:::: y\n"
                     f"root:{SECRET}:19000:0:99999:7:::: z\n", encoding="utf-8")
    link = tmp_path / "pack.yaml"
    link.symlink_to(other)
    result = invoke("packs", "validate", str(link))
    assert result.exit_code == 1
    assert SECRET[:61] not in result.output and "19000:0:99999" not in result.output
    assert f"{link}:1: not a pack: a pack file has `pack:` and `questions:` at the top level" in result.output


def test_long_pack_text_is_quoted_as_an_excerpt(tmp_path):
    pack = tmp_path / "long.yaml"
    long_key, long_kind = "k" * 300, "essay-" * 50
    pack.write_text(GOOD.replace("kind: numeric", f"kind: {long_kind}", 1)
                    .replace("topic: gain-and-discount", f"topic: gain-and-discount\n    {long_key}: 1", 1),
                    encoding="utf-8")
    errors = [str(e) for e in load_pack(pack).errors]
    assert errors and all(long_key[:61] not in e and long_kind[:61] not in e for e in errors)
    assert any("unknown kind 'essay-essay-" in e for e in errors)
    assert any(f"unknown field `{'k' * 57}...`" in e for e in errors)
