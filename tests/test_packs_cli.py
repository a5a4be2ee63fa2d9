"""``drills packs list / validate / new`` through click's CliRunner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.cli import packs as packs_cli
from drills.packs import discovery as discovery_mod
from drills.paths import packs_dir
from tests.test_packs_load import ndcg_hand  # noqa: F401 - the fixture, shared

FIXTURES = Path(__file__).parent / "fixtures" / "packs"
BROKEN = sorted(p.name for p in FIXTURES.glob("*.yaml") if p.name not in ("good.yaml", "other.yaml"))


def run(*args: str):
    return CliRunner().invoke(cli, ["packs", *args])


@pytest.fixture(autouse=True)
def no_entry_points(monkeypatch):
    monkeypatch.setattr(discovery_mod, "_entry_point_paths", lambda errors: [])


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


def test_validate_missing_path_is_a_usage_error():
    result = run("validate", "no/such/pack.yaml")
    assert result.exit_code == 2
    assert "does not exist" in result.output and "Traceback" not in result.output


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
    assert "name: my-pack" in text and "generator: ndcg-hand" in text and "{n: 5, k: 3, metric: ndcg}" in text
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
    target = tmp_path / "sub" / "b-pack.yml"
    assert run("new", "b", "--output", str(target)).exit_code == 0
    assert re.search(r"^  name: b +#", target.read_text(), re.MULTILINE)


def test_new_rejects_a_bad_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("new", "My Pack")
    assert result.exit_code == 2 and "lowercase" in result.output
    assert list(tmp_path.iterdir()) == []
