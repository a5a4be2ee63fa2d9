"""``drills packs install / update / remove`` from paths and local git repositories (no network)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.packs import discover, load_pack, sources
from drills.packs import discovery as discovery_mod
from drills.packs import install as core
from drills.paths import packs_dir

FILE_LINE = re.compile(r"^\S+\.yaml:\d+: ", re.M)


def run(*args: str):
    return CliRunner().invoke(cli, ["packs", *args])


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    monkeypatch.setattr(discovery_mod, "_entry_point_paths", lambda errors, memo=None: [])
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)  # the tester's git config stays out
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def pack(name: str, *ids: str, kind: str = "concept") -> str:
    body = "".join(
        f"  - id: {name}.{i}\n    topic: ndcg-vs-mrr\n    kind: {kind}\n"
        f"    prompt: \"How do NDCG and MRR differ ({i})?\"\n"
        f"    model_answer: \"MRR looks only at the first relevant document.\"\n"
        f"    key_points: [\"first relevant only\"]\n" for i in ids)
    return f"pack:\n  name: {name}\n  version: \"1.0\"\nquestions:\n{body}"


BROKEN = pack("team", "one", kind="nonsense")  # line 7: questions[0].kind


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid",
                           "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
                          cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def make_repo(root: Path, text: str = "", name: str = "team-packs") -> Path:
    repo = root / name
    (repo / "packs").mkdir(parents=True)
    git(repo, "init", "-q")
    commit(repo, text or pack("team", "one", "two"))
    return repo


def commit(repo: Path, text: str, message: str = "packs") -> str:
    (repo / "packs" / "team.yaml").write_text(text, encoding="utf-8")
    git(repo, "add", "packs/team.yaml")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def installed_names() -> list[str]:
    return sorted(os.listdir(packs_dir())) if packs_dir().is_dir() else []


def manifest(name: str) -> dict:
    return json.loads((packs_dir() / name / core.MANIFEST).read_text(encoding="utf-8"))


def questions_of(name: str) -> int:
    return sum(p.questions for p in discover().packs if p.name == name)


# --- install from a path ----------------------------------------------------------------------
def test_install_one_file_is_named_after_its_pack(tmp_path):
    src = tmp_path / "mine.yaml"
    src.write_text(pack("my-pack", "a", "b"), encoding="utf-8")
    result = run("install", str(src))
    assert result.exit_code == 0, result.output
    assert "installed my-pack: 1 pack, 2 questions" in result.stdout
    assert (packs_dir() / "my-pack" / "mine.yaml").read_text(encoding="utf-8") == src.read_text(encoding="utf-8")
    m = manifest("my-pack")
    assert m["kind"] == "path" and m["source"] == str(src) and m["commit"] is None and m["installed_at"]
    assert questions_of("my-pack") == 2  # the hidden manifest is not taken for a pack


def test_install_a_folder_copies_only_its_packs(tmp_path):
    src = tmp_path / "Team Packs"
    (src / "more").mkdir(parents=True)
    (src / ".github").mkdir()
    (src / "a.yaml").write_text(pack("team-a", "x"), encoding="utf-8")
    (src / "more" / "b.yml").write_text(pack("team-b", "y", "z"), encoding="utf-8")
    (src / ".github" / "ci.yml").write_text("on: push\n", encoding="utf-8")  # hidden: skipped
    (src / "README.md").write_text("hi\n", encoding="utf-8")
    result = run("install", str(src))
    assert result.exit_code == 0, result.output
    folder = packs_dir() / "team-packs"  # the folder's name, made a valid NAME
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        ".drills-source.json", "a.yaml", "more/b.yml"]
    assert run("install", str(src), "--name", "second").exit_code == 1  # same ids: a clash
    assert installed_names() == ["team-packs"]


# --- install from git -------------------------------------------------------------------------
def test_install_from_a_local_git_repository(tmp_path):
    repo = make_repo(tmp_path)
    head = git(repo, "rev-parse", "HEAD")
    result = run("install", str(repo))
    assert result.exit_code == 0, result.output
    assert f"installed team-packs: 1 pack, 2 questions from git:{repo} at {head[:12]}" in result.stdout
    folder = packs_dir() / "team-packs"
    assert (folder / "packs" / "team.yaml").is_file() and not (folder / ".git").exists()
    m = manifest("team-packs")
    assert (m["kind"], m["source"], m["commit"]) == ("git", str(repo), head)
    assert questions_of("team") == 2
    assert [n for n in installed_names() if n.startswith(".")] == []  # no work folder left


def test_install_from_a_file_url_and_list_shows_where_each_pack_came_from(tmp_path):
    repo = make_repo(tmp_path)
    url = f"file://{repo}"
    assert run("install", url, "--name", "by-url").exit_code == 0
    src = tmp_path / "solo.yaml"
    src.write_text(pack("solo", "q"), encoding="utf-8")
    assert run("install", str(src)).exit_code == 0
    (packs_dir() / "loose.yaml").write_text(pack("loose", "q"), encoding="utf-8")
    out = run("list").stdout.splitlines()
    assert out[0].split() == ["NAME", "VERSION", "SOURCE", "QUESTIONS", "TOPICS"]
    rows = {line.split()[0]: line.split() for line in out[1:]}
    assert rows["team"][1:4] == ["1.0", f"git:{url}", "2"]
    assert rows["solo"][1:4] == ["1.0", f"path:{src}", "1"]
    assert rows["loose"][2] == "user" and rows["ndcg-conventions"][2] == "builtin"
    data = {p["name"]: p for p in json.loads(run("list", "--json").stdout)["packs"]}
    assert data["team"]["source"] == "user"
    assert data["team"]["installed_from"] == {"kind": "git", "source": url,
                                              "commit": git(repo, "rev-parse", "HEAD")}
    assert data["loose"]["installed_from"] is None


# --- refused ----------------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["path", "git"])
def test_an_invalid_pack_is_refused_with_file_line_errors_and_nothing_installed(tmp_path, how):
    if how == "git":
        source, shown = str(make_repo(tmp_path, BROKEN)), "packs/team.yaml:7: "
    else:
        (tmp_path / "team.yaml").write_text(BROKEN, encoding="utf-8")
        source, shown = str(tmp_path / "team.yaml"), f"{tmp_path / 'team.yaml'}:7: "
    result = run("install", source)
    assert result.exit_code == 1
    assert shown + "questions[0].kind" in result.stderr
    assert FILE_LINE.search(result.stderr)
    assert result.stderr.splitlines()[-1].startswith("Error: 1 problem in 1 file of ")
    assert "nothing changed" in result.stderr and str(packs_dir()) + os.sep + "." not in result.stderr
    assert installed_names() == []  # neither the pack nor a work folder


def test_a_symbolic_link_in_a_repository_is_refused_unread(tmp_path):
    repo = make_repo(tmp_path)
    (repo / "packs" / "secret.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    git(repo, "add", "packs/secret.yaml")
    git(repo, "commit", "-q", "-m", "link")
    result = run("install", str(repo))
    assert result.exit_code == 1 and "packs/secret.yaml: a symbolic link" in result.stderr
    assert installed_names() == []


@pytest.mark.parametrize("link", ["file", "folder", "dangling"])
def test_a_symbolic_link_in_a_folder_is_refused_unread(tmp_path, link):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "s.yaml").write_text(pack("stolen", "q"), encoding="utf-8")
    src = tmp_path / "evil"
    src.mkdir()
    (src / "team.yaml").write_text(pack("team", "one"), encoding="utf-8")
    target, name = {"file": (elsewhere / "s.yaml", "link.yaml"), "folder": (elsewhere, "more"),
                    "dangling": (tmp_path / "gone.yaml", "link.yaml")}[link]
    (src / name).symlink_to(target)
    result = run("install", str(src))
    assert result.exit_code == 1, result.output
    assert f"{src / name}: a symbolic link" in result.stderr
    assert result.stderr.splitlines()[-1] == f"Error: 1 problem in 1 file of {src}; nothing changed"
    assert installed_names() == [] and questions_of("stolen") == 0


def test_a_path_update_refuses_a_new_symbolic_link_and_keeps_the_installed_packs(tmp_path):
    src = tmp_path / "mine"
    src.mkdir()
    (src / "mine.yaml").write_text(pack("mine", "a"), encoding="utf-8")
    assert run("install", str(src)).exit_code == 0
    (tmp_path / "s.yaml").write_text(pack("stolen", "q"), encoding="utf-8")
    (src / "link.yaml").symlink_to(tmp_path / "s.yaml")
    result = run("update", "mine")
    assert result.exit_code == 1 and f"{src / 'link.yaml'}: a symbolic link" in result.stderr
    assert "the installed version is kept" in result.stderr
    assert questions_of("mine") == 1 and questions_of("stolen") == 0


def test_a_file_named_on_the_command_line_may_be_a_link(tmp_path):
    real = tmp_path / "real.yaml"
    real.write_text(pack("mine", "a"), encoding="utf-8")
    (tmp_path / "named.yaml").symlink_to(real)
    assert run("install", str(tmp_path / "named.yaml")).exit_code == 0
    installed = packs_dir() / "mine" / "named.yaml"
    assert not installed.is_symlink() and installed.read_text(encoding="utf-8") == real.read_text(encoding="utf-8")


def test_a_git_install_keeps_only_the_pack_files(tmp_path):
    repo = make_repo(tmp_path)
    (tmp_path / "outside.txt").write_text("secret\n", encoding="utf-8")
    (repo / "big.bin").write_bytes(os.urandom(1 << 20))
    (repo / ".hidden").mkdir()
    (repo / ".hidden" / "ci.yml").write_text("on: push\n", encoding="utf-8")
    (repo / "README.yml.txt").write_text("not a pack\n", encoding="utf-8")
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text("# guide\n", encoding="utf-8")
    (repo / "notes").symlink_to(tmp_path / "outside.txt")  # a link, but not a pack file
    (repo / ".hidden" / "away").symlink_to(tmp_path)  # a linked folder, but hidden
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "everything else")
    result = run("install", str(repo))
    assert result.exit_code == 0, result.output
    folder = packs_dir() / "team-packs"
    kept = sorted(os.path.relpath(os.path.join(root, f), folder)
                  for root, dirs, files in os.walk(folder) for f in [*dirs, *files])
    assert kept == [".drills-source.json", "packs", os.path.join("packs", "team.yaml")]
    assert not any(os.path.islink(folder / k) for k in kept)
    assert manifest("team-packs")["commit"] == git(repo, "rev-parse", "HEAD")


def test_update_cleans_a_whole_clone_an_older_install_kept(tmp_path):
    repo = make_repo(tmp_path)
    assert run("install", str(repo)).exit_code == 0
    folder = packs_dir() / "team-packs"
    (folder / "big.bin").write_bytes(b"x" * 1000)  # as an older drills left a clone, .git aside
    (folder / "notes").symlink_to(tmp_path)
    result = run("update", "team-packs")
    assert result.exit_code == 0 and "up to date" not in result.stdout
    assert sorted(os.listdir(folder)) == [".drills-source.json", "packs"]
    assert "up to date" in run("update", "team-packs").stdout


def test_a_linked_folder_in_a_repository_is_refused(tmp_path):
    repo = make_repo(tmp_path)
    (repo / "more").symlink_to(tmp_path)
    git(repo, "add", "more")
    git(repo, "commit", "-q", "-m", "link")
    result = run("install", str(repo))
    assert result.exit_code == 1 and "more: a symbolic link to a folder" in result.stderr
    assert installed_names() == []


@pytest.mark.parametrize("source", [
    "ext::sh -c touch% {marker}", "--upload-pack=touch {marker}", "-u", "http://example.com/x.git",
    "git://example.com/x.git", "https://exa mple.com/x.git", "https://example.com/x\x07.git",
    "ssh://-oProxyCommand=touch/x", "git@-oProxyCommand=touch:x", "fd::17", "host:path",
    "https:///no-host", "ftp://example.com/x.git", "file://remote-host/x", ""])
def test_refused_sources_are_one_line_and_exit_2(tmp_path, source):
    marker = tmp_path / "pwned"
    result = run("install", source.format(marker=marker))
    assert result.exit_code == 2, result.output
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("Error: ")
    assert not marker.exists() and installed_names() == []


def test_a_url_with_a_password_is_refused_without_echoing_it():
    result = run("install", "https://me:s3cret@example.com/team/packs.git")
    assert result.exit_code == 2 and "s3cret" not in result.output and "password" in result.stderr


@pytest.mark.parametrize("url", ["https://TOKEN@github.com/team/packs.git", "https://user:TOKEN@github.com/x.git",
                                 "https://@github.com/team/packs.git", "https://TOKEN:@github.com/x.git",
                                 "ssh://git:TOKEN@example.com/team/packs.git"])
def test_credentials_in_a_url_are_refused_one_line_and_never_shown(url):
    result = run("install", url)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.splitlines()) == 1 and "TOKEN" not in result.output
    assert "credential helper" in result.stderr and "ssh" in result.stderr
    assert installed_names() == []


@pytest.mark.parametrize(("source", "shown"), [
    ("https://user:s3cret@example.com/x y.git", "'https://user:***@example.com/x y.git'"),
    ("user:s3cret@example.com:x.git", "'user:***@example.com:x.git'"),
    ("http://user:s3cret@example.com/x.git", "'http://user:***@example.com/x.git'"),
    ("https://user:s3cret@example.com:99999/x.git", "'https://user:***@example.com:99999/x.git'"),
    ("https://s3cret@/x.git", "'https://***@/x.git'"),
    ("git://user:s3cret@example.com/x.git", "'git://user:***@example.com/x.git'"),
    ("ext::https://user:s3cret@example.com/x", "'ext::https://user:***@example.com/x'")])
def test_refusals_never_echo_a_secret(source, shown):
    result = run("install", source)
    assert result.exit_code == 2, result.output
    assert "s3cret" not in result.output and shown in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_redact_keeps_ssh_users_and_paths():
    for kept in ("ssh://git@example.com/team/packs.git", "git@github.com:team/packs.git",
                 "/home/me/a:b@c/packs", "C:\\Users\\me:x@corp\\packs", "https://example.com/@scope/x.git"):
        assert sources.redact(kept) == kept
    assert sources.redact("fatal: unable to access 'https://ghp_x@github.com/t/p.git/': 403") == (
        "fatal: unable to access 'https://***@github.com/t/p.git/': 403")
    assert core.classify("ssh://git@example.com/team/packs.git").location == "ssh://git@example.com/team/packs.git"
    assert core.classify("git@github.com:team/packs.git").location == "git@github.com:team/packs.git"


def test_a_manifest_with_a_token_is_never_shown_and_update_refuses_it(tmp_path):
    repo = make_repo(tmp_path)
    assert run("install", str(repo)).exit_code == 0
    path = packs_dir() / "team-packs" / core.MANIFEST  # as written by an install before the check
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "source": "https://TOKEN@example.com/team/packs.git"}), encoding="utf-8")
    for args in (("list",), ("list", "--json"), ("update", "team-packs")):
        assert "TOKEN" not in run(*args).output
    update = run("update", "team-packs")
    assert update.exit_code == 1 and "credential helper" in update.stderr
    removed = run("remove", "team-packs")
    assert removed.exit_code == 0 and "TOKEN" not in removed.output and "https://***@example.com" in removed.stdout


def test_an_option_after_double_dash_is_still_refused(tmp_path):
    result = run("install", "--", "--upload-pack=touch x")
    assert result.exit_code == 2 and "option" in result.stderr


def test_accepted_forms():
    assert core.classify("https://github.com/team/packs.git") == core.Source(
        "git", "https://github.com/team/packs.git")
    assert core.classify("ssh://git@example.com:2222/team/packs").kind == "git"
    assert core.classify("git@github.com:team/Packs.git").kind == "git"
    assert sources.default_name(core.classify("git@github.com:team/Packs.git")) == "packs"
    assert sources.default_name(core.classify("https://example.com/a/b_c.git/")) == "b-c"


# --- names ------------------------------------------------------------------------------------
def test_name_clashes_are_usage_errors(tmp_path):
    src = tmp_path / "a.yaml"
    src.write_text(pack("team-a", "x"), encoding="utf-8")
    assert run("install", str(src)).exit_code == 0
    again = run("install", str(src))
    assert again.exit_code == 2 and "--name" in again.stderr and "packs update team-a" in again.stderr
    builtin = run("install", str(src), "--name", "ndcg-conventions")
    assert builtin.exit_code == 2 and "built-in pack" in builtin.stderr
    bad = run("install", str(src), "--name", "Bad_Name")
    assert bad.exit_code == 2 and "--name bad-name" in bad.stderr
    for name in ("../evil", ".hidden", "-x"):
        assert run("install", str(src), "--name", name).exit_code == 2
    assert installed_names() == ["team-a"]


def test_ids_clashing_with_a_builtin_pack_are_refused(tmp_path):
    from drills.packs import load_paths
    from drills.paths import builtin_packs_dir

    taken = load_paths([builtin_packs_dir()])[0][0].questions[0].id
    src = tmp_path / "copycat.yaml"
    src.write_text(pack("copycat", "x").replace("copycat.x", taken), encoding="utf-8")
    result = run("install", str(src))
    assert result.exit_code == 1 and f"duplicate id {taken!r}" in result.stderr
    assert installed_names() == []


# --- update -----------------------------------------------------------------------------------
def test_update_keeps_the_old_version_when_the_new_commit_is_invalid(tmp_path):
    repo = make_repo(tmp_path)
    assert run("install", str(repo)).exit_code == 0
    old = manifest("team-packs")
    before = (packs_dir() / "team-packs" / "packs" / "team.yaml").read_text(encoding="utf-8")
    commit(repo, BROKEN, "broken")
    result = run("update", "team-packs")
    assert result.exit_code == 1
    assert "packs/team.yaml:7: questions[0].kind" in result.stderr
    assert "the installed version is kept" in result.stderr
    installed = packs_dir() / "team-packs" / "packs" / "team.yaml"
    assert installed.read_text(encoding="utf-8") == before and manifest("team-packs") == old
    assert load_pack(installed).ok and questions_of("team") == 2
    assert [n for n in installed_names() if n.startswith(".")] == []


def test_update_picks_up_a_valid_new_commit_and_the_cache_follows(tmp_path):
    repo = make_repo(tmp_path)
    first = git(repo, "rev-parse", "HEAD")
    assert run("install", str(repo)).exit_code == 0
    assert questions_of("team") == 2  # parsed and cached
    assert "up to date" in run("update", "team-packs").stdout
    second = commit(repo, pack("team", "one", "two", "three"), "more")
    result = run("update")
    assert result.exit_code == 0, result.output
    assert f"team-packs: {first[:12]} -> {second[:12]} (1 pack, 3 questions)" in result.stdout
    assert manifest("team-packs")["commit"] == second and manifest("team-packs")["updated_at"]
    assert questions_of("team") == 3  # not the cached parse of the old file
    assert run("update", "team-packs").stdout.strip() == f"team-packs: up to date ({second[:12]})"


def test_update_of_a_path_install_copies_again(tmp_path):
    src = tmp_path / "mine.yaml"
    src.write_text(pack("mine", "a"), encoding="utf-8")
    assert run("install", str(src)).exit_code == 0
    assert run("update", "mine").stdout.strip() == "mine: up to date"
    src.write_text(pack("mine", "a", "b"), encoding="utf-8")
    result = run("update", "mine")
    assert result.exit_code == 0 and f"mine: updated from {src} (1 pack, 2 questions)" in result.stdout
    assert questions_of("mine") == 2
    src.write_text(BROKEN.replace("team", "mine"), encoding="utf-8")
    broken = run("update", "mine")
    assert broken.exit_code == 1 and f"{src}:7: questions[0].kind" in broken.stderr
    src.unlink()
    gone = run("update", "mine")
    assert gone.exit_code == 1 and "no longer exists" in gone.stderr
    assert questions_of("mine") == 2


def test_update_unknown_and_nothing_installed():
    assert run("update").stdout.startswith("no packs installed")
    result = run("update", "nope")
    assert result.exit_code == 2 and "no installed pack 'nope'" in result.stderr


def test_a_hand_edited_manifest_gets_the_url_checks(tmp_path):
    repo = make_repo(tmp_path)
    assert run("install", str(repo)).exit_code == 0
    path = packs_dir() / "team-packs" / core.MANIFEST
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "source": f"ext::sh -c touch% {tmp_path / 'pwned'}"}),
                    encoding="utf-8")
    result = run("update", "team-packs")
    assert result.exit_code == 1 and "remote helpers" in result.stderr
    assert not (tmp_path / "pwned").exists()


def test_a_replacement_never_keeps_the_old_size_and_mtime(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    for folder, text in ((old, "pack: a\n"), (new, "pack: b\n")):
        folder.mkdir()
        (folder / "p.yaml").write_text(text, encoding="utf-8")
        os.utime(folder / "p.yaml", ns=(1_000_000_000, 1_000_000_000))
    core._newer_than(old, new)
    assert (new / "p.yaml").stat().st_mtime_ns > (old / "p.yaml").stat().st_mtime_ns


# --- remove -----------------------------------------------------------------------------------
def test_remove(tmp_path):
    repo = make_repo(tmp_path)
    assert run("install", str(repo)).exit_code == 0
    result = run("remove", "team-packs")
    assert result.exit_code == 0 and f"removed team-packs (installed from git:{repo})" in result.stdout
    assert installed_names() == [] and questions_of("team") == 0
    assert run("remove", "team-packs").exit_code == 2
    (packs_dir() / "mine").mkdir()  # the user's own folder: no manifest
    refused = run("remove", "mine")
    assert refused.exit_code == 2 and "was not made by `drills packs install`" in refused.stderr
    assert (packs_dir() / "mine").is_dir()
    assert run("remove", "../home").exit_code == 2


# --- git itself -------------------------------------------------------------------------------
def test_git_missing_is_one_line(tmp_path, monkeypatch):
    repo = make_repo(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = run("install", str(repo))
    assert result.exit_code == 1 and result.stderr.startswith("Error: git is not installed")
    assert len(result.stderr.splitlines()) == 1


def test_git_failure_is_its_last_line(tmp_path):
    result = run("install", f"file://{tmp_path}/no-such-repo.git")
    assert result.exit_code == 1 and result.stderr.startswith("Error: git clone failed: fatal:")
    assert installed_names() == []


def test_a_hanging_git_is_stopped_with_a_clear_message(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    sleep = shutil.which("sleep")
    fake.write_text(f"#!/bin/sh\n{sleep} 30 &\n{sleep} 30\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setattr(core, "GIT_TIMEOUT", 0.5)
    start = time.monotonic()
    result = run("install", "https://example.com/team/packs.git")
    assert time.monotonic() - start < 10  # the whole group is killed, grandchildren too
    assert result.exit_code == 1 and "took longer than 0.5 s" in result.stderr
    assert installed_names() == []


def test_a_same_size_update_is_never_served_from_the_pack_cache(tmp_path):
    src = tmp_path / "mine.yaml"
    src.write_text(pack("mine", "a"), encoding="utf-8")
    assert run("install", str(src)).exit_code == 0
    installed = packs_dir() / "mine" / "mine.yaml"
    stamp = installed.stat().st_mtime_ns
    assert [q.prompt for q in discover().questions if q.id == "mine.a"] == [
        "How do NDCG and MRR differ (a)?"]  # now in the cache under (path, size, mtime)
    src.write_text(pack("mine", "a").replace("NDCG and MRR", "MRR and NDCG"), encoding="utf-8")
    assert run("update", "mine").exit_code == 0
    os.utime(installed, ns=(stamp, stamp))  # a coarse clock: the same size and mtime as before
    assert [q.prompt for q in discover().questions if q.id == "mine.a"] == [
        "How do MRR and NDCG differ (a)?"]
