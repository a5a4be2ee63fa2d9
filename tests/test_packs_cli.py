"""``drills packs list / validate / new`` through click's CliRunner."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drills.cli import cli
from drills.cli.packs import packs as packs_cli
from drills.packs import discovery as discovery_mod
from drills.paths import packs_dir
from tests.test_packs_load import ndcg_hand  # noqa: F401 - the fixture, shared

FIXTURES = Path(__file__).parent / "fixtures" / "packs"
BROKEN = sorted(p.name for p in FIXTURES.glob("*.yaml") if p.name not in ("good.yaml", "other.yaml"))


def run(*args: str):
    return CliRunner().invoke(cli, ["packs", *args])


@pytest.fixture(autouse=True)
def no_entry_points(monkeypatch):
    monkeypatch.setattr(discovery_mod, "_entry_point_paths", lambda errors, memo=None: [])


# --- validate -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", BROKEN)
def test_validate_broken_fixture_exits_1_with_file_and_line(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("validate", str(FIXTURES / name))
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    first = result.output.splitlines()[0]
    assert first.startswith(f"{FIXTURES / name}:") and first.split(":")[1].isdigit()
    assert result.output.rstrip().splitlines()[-1].endswith("in 1 file")
    assert not (tmp_path / "pwned").exists()


def test_validate_prints_every_error_then_a_summary():
    result = run("validate", str(FIXTURES / "wrong-types.yaml"), str(FIXTURES / "answer-no.yaml"))
    lines = result.output.splitlines()
    assert result.exit_code == 1
    assert lines[-1] == "8 errors in 2 files"
    assert f"{FIXTURES / 'answer-no.yaml'}:9: questions[0].answer: YAML 1.1 read NO" in result.output
    assert sum(1 for line in lines if line.startswith(str(FIXTURES))) == 8


def test_validate_clean_packs():
    result = run("validate", str(FIXTURES / "good.yaml"), str(FIXTURES / "other.yaml"))
    assert result.exit_code == 0, result.output
    assert result.output == "ok: 2 packs, 9 questions\n"


def test_validate_checks_ids_and_names_against_the_builtin_packs(tmp_path):
    from drills.paths import builtin_packs_dir

    bank = builtin_packs_dir() / "hand-computation.yaml"
    assert "id: worked-example-ndcg" in bank.read_text(encoding="utf-8")
    good = (FIXTURES / "good.yaml").read_text(encoding="utf-8")
    first_id = re.search(r"- id: (\S+)", good).group(1)
    clash = tmp_path / "clash.yaml"
    clash.write_text(good.replace(f"- id: {first_id}", "- id: worked-example-ndcg", 1), encoding="utf-8")
    result = run("validate", str(clash))
    assert result.exit_code == 1, result.output
    assert "duplicate id 'worked-example-ndcg'" in result.output
    assert "hand-computation.yaml" in result.output  # names where the built-in one is
    # a pack named like a built-in one (in another file) would be skipped in a quiz
    named = tmp_path / "mine.yaml"
    named.write_text(re.sub(r"(?m)^  name: .*$", "  name: ndcg-hand-computation", good, count=1), encoding="utf-8")
    result = run("validate", str(named))
    assert result.exit_code == 1 and "pack name 'ndcg-hand-computation' is also used" in result.output
    # a copy of the built-in bank itself (the source tree beside an installed wheel) is fine
    (tmp_path / "bank").mkdir()
    (tmp_path / "bank" / bank.name).write_text(bank.read_text(encoding="utf-8"), encoding="utf-8")
    result = run("validate", str(tmp_path / "bank"))
    assert result.exit_code == 0, result.output


def test_validate_cross_pack_duplicates():
    result = run("validate", str(FIXTURES / "cross"))
    assert result.exit_code == 1
    assert f"b.yaml:11: id: duplicate id 'shared.id': already used at {FIXTURES / 'cross' / 'a.yaml'}:5" in result.output
    assert result.output.splitlines()[-1] == "1 error in 1 file"


@pytest.mark.parametrize("command", [("validate",), ("lint", "--seeds", "1")])
@pytest.mark.parametrize("missing", ["no/such/pack.yaml", "", "x" * 300])
def test_a_missing_path_is_one_line_and_exit_2(command, missing):
    result = run(*command, str(FIXTURES / "good.yaml"), missing)
    assert result.exit_code == 2
    assert result.output == f"Error: pack not found: {missing}\n"  # no usage block, no traceback


def test_list_with_a_missing_pack_is_one_line_and_exit_2():
    result = run("list", "--pack", "no/such/pack.yaml")
    assert result.exit_code == 2
    assert result.output == "Error: pack not found: no/such/pack.yaml\n"


def test_validate_generated_hazards(tmp_path):
    big = tmp_path / "big.yaml"
    with big.open("w") as fh:
        fh.write("# padding\n" * 250_000)  # 2.5 MB
    lines = ['pack: {name: bomb, version: "1"}', "l0: &a0 [lol]"]
    lines += [f"l{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    (tmp_path / "bomb.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("validate", str(tmp_path))
    assert result.exit_code == 1
    assert f"{tmp_path / 'big.yaml'}: file is" in result.output
    assert f"{tmp_path / 'bomb.yaml'}:9: more than" in result.output
    assert result.output.splitlines()[-1] == "2 errors in 2 files"


def test_the_builtin_packs_validate():
    root = Path(__file__).resolve().parent.parent / "questions"
    result = run("validate", str(root))
    assert result.exit_code == 0, result.output


# --- list -----------------------------------------------------------------------------------
def test_list_table_and_broken_packs_on_stderr(tmp_path):
    user = packs_dir()
    user.mkdir(parents=True)
    (user / "good.yaml").write_text((FIXTURES / "good.yaml").read_text(), encoding="utf-8")
    (user / "bad.yaml").write_text((FIXTURES / "answer-no.yaml").read_text(), encoding="utf-8")
    result = run("list", "--pack", str(FIXTURES / "other.yaml"))
    assert result.exit_code == 0
    out = result.stdout.splitlines()
    assert out[0].split() == ["NAME", "VERSION", "SOURCE", "QUESTIONS", "TOPICS"]
    rows = {line.split()[0]: line.split() for line in out[1:]}
    assert rows["fixture-good"][1:4] == ["1.2.0", "user", "7"]
    assert rows["fixture-other"][1:4] == ["0.1", "path", "2"]
    [broken] = result.stderr.splitlines()  # one line per broken pack
    assert "bad.yaml:9: questions[0].answer:" in broken and "pack skipped" in broken


def test_list_json():
    result = run("list", "--json", "--pack", str(FIXTURES / "good.yaml"), "--pack", str(FIXTURES / "empty.yaml"))
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    mine = [p for p in data["packs"] if p["name"] == "fixture-good"]
    assert mine and mine[0]["source"] == "path" and mine[0]["questions"] == 7
    assert "normalization" in mine[0]["topics"]
    assert len(data["errors"]) == 1 and "empty.yaml:1" in data["errors"][0]


def test_packs_help_lists_commands_lazily(monkeypatch):
    monkeypatch.setitem(packs_cli.PACK_COMMANDS, "ghost", "drills.cli.no_such_module:ghost")
    result = run("--help")
    assert result.exit_code == 0
    for name in ("list", "validate", "new"):
        assert f"  {name} " in result.output
    assert "ghost" not in result.output
    assert run("ghost").exit_code == 2


# --- new ------------------------------------------------------------------------------------
@pytest.mark.usefixtures("ndcg_hand")
def test_new_writes_a_pack_that_validates(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("new", "my-pack")
    assert result.exit_code == 0, result.output
    written = tmp_path / "my-pack.yaml"
    text = written.read_text(encoding="utf-8")
    assert 'name: "my-pack"' in text and "generator: ndcg-hand" in text and "{n: 5, k: 3, metric: ndcg}" in text
    check = run("validate", str(written))
    assert check.exit_code == 0, check.output
    assert check.output == "ok: 1 pack, 5 questions\n"


def test_new_refuses_to_overwrite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.yaml").write_text("keep me", encoding="utf-8")
    result = run("new", "mine")
    assert result.exit_code == 1
    assert "already exists" in result.output and "Traceback" not in result.output
    assert (tmp_path / "mine.yaml").read_text() == "keep me"


def test_new_output_folder_and_file(tmp_path):
    assert run("new", "a.yaml", "--output", str(tmp_path)).exit_code == 0
    assert (tmp_path / "a.yaml").is_file()
    (tmp_path / "sub").mkdir()
    target = tmp_path / "sub" / "b-pack.yml"
    assert run("new", "b", "--output", str(target)).exit_code == 0
    assert re.search(r'^  name: "b" +#', target.read_text(), re.MULTILINE)
    assert run("new", "c", "--output", f"{tmp_path / 'sub'}/").exit_code == 0
    assert (tmp_path / "sub" / "c.yaml").is_file()


@pytest.mark.parametrize(("output", "reason"), [
    ("missing/x.yaml", "no folder missing (folders are not created)"),
    ("missing/deeper/x.yaml", "no folder missing/deeper (folders are not created)"),
    ("missing/", "no folder missing (folders are not created)"),
    ("file.txt/x.yaml", "file.txt is not a folder (folders are not created)"),
    ("n" * 300, "File name too long"),
])
def test_new_cannot_write_is_one_line_and_creates_nothing(tmp_path, monkeypatch, output, reason):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file.txt").write_text("x")
    result = run("new", "mine", "--output", output)
    assert result.exit_code == 1
    shown = f"{output}mine.yaml" if output.endswith("/") else output
    assert result.output == f"Error: cannot write {shown}: {reason}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_new_empty_output_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("new", "mine", "--output", "")
    assert result.exit_code == 1 and result.output.startswith("Error: cannot write '': ")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("name", "words"), [
    ("My Pack", "lowercase"),
    ("-dash", "must start with a lowercase letter a-z or a digit"),
    ("-", "must start with a lowercase letter a-z or a digit"),
    ("a_b", "use only lowercase letters a-z, digits and -"),
    ("a" * 51, "pack name is 51 characters long; at most 50"),
    ("a" * 250, "pack name is 250 characters long; at most 50"),
])
def test_new_rejects_a_bad_name(tmp_path, monkeypatch, name, words):
    monkeypatch.chdir(tmp_path)
    result = run("new", "--", name)
    assert result.exit_code == 2
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1 and words in result.output
    assert list(tmp_path.iterdir()) == []


# Words and numbers YAML 1.1 reads as something other than text when unquoted.
RETYPED = ["no", "yes", "on", "off", "true", "false", "null", "y", "n", "nan", "12", "0", "007",
           "1e3", "0x1", "0o7", "0b1", "2001-12-14", "1-2", "1_000", "~", ".inf", "1:20"]


def new_then_validate(name: str) -> None:
    """``packs new NAME`` either refuses NAME in one line (exit 2) or writes a pack that validates."""
    with tempfile.TemporaryDirectory() as folder:
        made = run("new", "--output", folder, "--", name)
        if made.exit_code == 2:
            assert made.output.startswith("Error: pack name ") and made.output.count("\n") == 1
            assert os.listdir(folder) == []
            return
        assert made.exit_code == 0, made.output
        written = Path(folder) / f"{name.removesuffix('.yaml').removesuffix('.yml')}.yaml"
        checked = run("validate", str(written))
        assert checked.exit_code == 0 and checked.output == "ok: 1 pack, 5 questions\n", (name, checked.output)


@pytest.mark.usefixtures("ndcg_hand")
@pytest.mark.parametrize("name", RETYPED)
def test_new_names_yaml_would_retype_still_validate(name):
    new_then_validate(name)


def test_new_accepts_the_yaml_words_and_numbers():
    from drills.authoring.template import starter_name_problem

    assert [n for n in RETYPED if starter_name_problem(n)] == ["1_000", "~", ".inf", "1:20"]


@pytest.mark.usefixtures("ndcg_hand")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.from_regex(r"[a-z0-9][a-z0-9-]{0,49}", fullmatch=True) | st.sampled_from(RETYPED))
def test_every_name_new_accepts_validates(name):
    new_then_validate(name)


@pytest.mark.usefixtures("ndcg_hand")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.sampled_from("ab09-_.~ /:\"'#Zé\n"), max_size=60))
def test_any_name_is_refused_in_one_line_or_validates(name):
    new_then_validate(name)


def test_starter_ids_stay_within_the_id_limit():
    from drills.authoring.template import MAX_STARTER_NAME, starter_pack
    from drills.packs.schema import MAX_ID_LENGTH

    ids = re.findall(r'^  - id: "([^"]+)"', starter_pack("a" * MAX_STARTER_NAME), re.MULTILINE)
    assert len(ids) == 5 and max(map(len, ids)) <= MAX_ID_LENGTH
    with pytest.raises(ValueError, match="at most"):
        starter_pack("a" * (MAX_STARTER_NAME + 1))


def test_a_long_source_is_cut_in_the_middle_in_the_table():
    from drills.cli.packs.packs import _middle

    long = "git:https://example.com/a-very-long-group/another-level/team-ranking-packs.git"
    cut = _middle(long)
    assert len(cut) == 36 and cut.startswith("git:https://ex") and cut.endswith("-ranking-packs.git")
    assert _middle("builtin") == "builtin"
