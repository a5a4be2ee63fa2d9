"""config.toml: schema errors with line:column, the command line wins, colour and completion."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.config import ConfigError, parse


def run(*args, input=None, env=None):
    return CliRunner().invoke(cli, list(args), input=input, env=env, catch_exceptions=False)


def write(home, text):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")


def test_parse_reads_every_table():
    s = parse('[practice]\ncount = 3\ntopics = ["lambdarank"]\n[mock]\nminutes = 2.5\n'
              '[display]\ncolor = "never"\nwidth = 72\n[review]\ndaily_limit = 5\n')
    assert s.get("practice", "count") == 3 and s.get("practice", "topics") == ["lambdarank"]
    assert s.get("mock", "minutes") == 2.5 and s.get("display", "width") == 72
    assert s.get("review", "daily_limit") == 5


@pytest.mark.parametrize(("text", "message"), [
    ("[practice]\ncount = \n", "config.toml:2:9: Invalid value"),
    ("[practice]\n  cont = 4\n", "config.toml:2:3: unknown key 'cont' in [practice]; did you mean 'count'?"),
    ("[practise]\n", "config.toml:1:1: unknown table [practise]; did you mean 'practice'?"),
    ("[mock]\nminutes = \"x\"\n", "config.toml:2:1: [mock] minutes must be a number, not 'x'"),
    ("[practice]\ncount = true\n", "config.toml:2:1: [practice] count must be a whole number"),
    ("[practice]\ncount = 0\n", "config.toml:2:1: [practice] count must be from 1 to 1000"),
    ("[display]\ncolor = \"red\"\n", "must be one of auto, always, never"),
    ("[practice]\ntopics = [1]\n", "must be a list of strings"),
])
def test_a_bad_file_is_one_line_with_where(text, message):
    with pytest.raises(ConfigError) as err:
        parse(text)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_broken_config_is_exit_2_for_any_command_but_config_path(drills_home):
    write(drills_home, "[practice]\ncount = \n")
    result = run("practice")
    assert result.exit_code == 2 and result.stderr.startswith("Error: ") and ":2:9:" in result.stderr
    assert run("config").exit_code == 2
    path = run("config", "path")
    assert path.exit_code == 0 and path.stdout.strip() == str(drills_home / "config.toml")


def test_config_count_gives_a_three_question_session_and_the_command_line_wins(drills_home):
    write(drills_home, "[practice]\ncount = 3\n")
    result = run("practice", "--seed", "1", input=":skip\n" * 10)
    assert "Question 3/3" in result.stdout and "Question 4/" not in result.stdout
    result = run("practice", "--seed", "1", "--count", "2", input=":skip\n" * 10)
    assert "Question 2/2" in result.stdout


def test_config_shows_each_settings_source(drills_home):
    write(drills_home, '[practice]\ncount = 3\n[display]\ncolor = "never"\n')
    out = run("config").stdout
    assert "count         3   (config file)" in out
    assert "difficulty    any   (default)" in out
    assert "color         never   (config file)" in out
    assert "color         always   (--color)" in run("--color", "always", "config").stdout


def test_config_init_writes_a_starter_that_parses_and_never_overwrites(drills_home):
    assert run("config", "init").exit_code == 0
    text = (drills_home / "config.toml").read_text()
    assert parse(text).values == {}  # everything commented out
    parse(text.replace("# count = 10", "count = 10"))  # and each example is valid when enabled
    again = run("config", "init")
    assert again.exit_code == 1 and "exists already" in again.stderr


@pytest.mark.parametrize(("args", "env", "colour"), [
    (["--color", "always"], {}, True),
    (["--color", "never"], {"FORCE_COLOR": "1"}, False),
    ([], {"FORCE_COLOR": "1"}, True),
    ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ([], {"NO_COLOR": ""}, False),  # an empty NO_COLOR is unset; CliRunner is no terminal
])
def test_colour_flag_and_environment(args, env, colour):
    result = run(*args, "practice", "--count", "1", "--seed", "1", input=":skip\n", env=env)
    assert ("\x1b[" in result.stdout) is colour


def test_config_colour_loses_to_the_flag(drills_home):
    write(drills_home, '[display]\ncolor = "always"\n')
    assert "\x1b[" in run("practice", "--count", "1", input=":skip\n").stdout
    assert "\x1b[" not in run("--color", "never", "practice", "--count", "1", input=":skip\n").stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_completion_script_is_valid_bash(tmp_path):
    result = run("completion", "bash")
    assert result.exit_code == 0 and "_DRILLS_COMPLETE" in result.stdout
    script = tmp_path / "drills.bash"
    script.write_text(result.stdout)
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_completion_scripts_for_other_shells(shell):
    result = run("completion", shell)
    assert result.exit_code == 0 and "_DRILLS_COMPLETE" in result.stdout


@pytest.mark.parametrize(("words", "expected"), [
    ("drills practice --topic hand-c", "hand-computation"),
    ("drills generate --pack ndcg-lam", "ndcg-lambdarank"),
    ("drills practice --difficulty me", "medium"),
    ("drills prac", "practice"),
])
def test_completion_offers_topics_packs_and_commands(words, expected):
    env = dict(os.environ, COMP_WORDS=words, COMP_CWORD=str(len(words.split()) - 1),
               _DRILLS_COMPLETE="bash_complete")
    result = CliRunner().invoke(cli, [], env=env, prog_name="drills")
    assert f"plain,{expected}" in result.stdout.splitlines()


def test_a_config_read_before_is_not_parsed_again_and_an_edit_is(tmp_path, monkeypatch):
    """load() keeps the file's text and its parse in cache/config.json: the same text gives
    the same settings without tomllib; another text (or a damaged memo) is parsed, and a
    value JSON cannot hold exactly (a TOML date) is never kept."""
    import drills.config as config

    monkeypatch.setenv("DRILLS_HOME", str(tmp_path))
    (tmp_path / "config.toml").write_text('[practice]\ncount = 4\n\n[display]\nwidth = 72\n')
    first = config.load()
    memo = tmp_path / "cache" / "config.json"
    assert memo.is_file()
    monkeypatch.setattr(config, "_toml", lambda: (_ for _ in ()).throw(AssertionError("parsed")))
    assert config.load().values == first.values == {"practice": {"count": 4}, "display": {"width": 72}}
    monkeypatch.undo()
    monkeypatch.setenv("DRILLS_HOME", str(tmp_path))
    (tmp_path / "config.toml").write_text('[practice]\ncount = 5\n')  # edited: parsed again
    assert config.load().values == {"practice": {"count": 5}}
    memo.write_text("{damaged")
    assert config.load().values == {"practice": {"count": 5}}
    (tmp_path / "config.toml").write_text('[practice]\ncount = 99999\n')  # the checks still run
    with pytest.raises(ConfigError, match="count"):
        config.load()
    with pytest.raises(ConfigError, match="count"):
        config.load()  # and again, from the memo
    dated = parse('[practice]\ncount = 3\n', None, memo)  # a plain parse is kept ...
    assert dated.values == {"practice": {"count": 3}}
    config._remember("d = 1979-05-27", {"d": __import__("datetime").date(1979, 5, 27)}, memo)
    assert "1979" not in memo.read_text()  # ... a date is not


def test_a_damaged_or_stale_config_memo_is_never_trusted(tmp_path, monkeypatch):
    """The memo carries a checksum of its text and parse: an edited value is found and the
    file parsed again; a memo whose values fail today's checks (resealed, or from another
    version of drills) falls back to the file, which is valid."""
    import json

    import drills.config as config

    monkeypatch.setenv("DRILLS_HOME", str(tmp_path))
    (tmp_path / "config.toml").write_text('[practice]\ncount = 5\nfeedback = "full"\n')
    config.load()
    memo = tmp_path / "cache" / "config.json"
    known = json.loads(memo.read_text())
    known["data"]["practice"]["count"] = 9  # damaged, the old checksum kept
    memo.write_text(json.dumps(known))
    assert config.load().values == {"practice": {"count": 5, "feedback": "full"}}
    known = json.loads(memo.read_text())  # rewritten, sound again
    known["data"]["practice"]["feedback"] = "fulm"
    known["sum"] = config._seal(known["text"], known["data"])  # resealed by hand
    memo.write_text(json.dumps(known))
    assert config.load().values == {"practice": {"count": 5, "feedback": "full"}}
