"""``drills history export --output``: where and how the file is written, and every failure in one line."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.store import history_export as export_mod
from drills.store.history_export import COLUMNS
from tests.test_stats_cli import history  # noqa: F401 - the fixture, shared

HEADER = ",".join(COLUMNS)
root_only = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                               reason="creating device nodes needs root")


def export(*args: str):
    return CliRunner().invoke(cli, ["history", "export", *args])


def one_error_line(result, start: str) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.output.count("\n") == 1 and result.output.startswith(start), result.output


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and p.name.endswith(".tmp"))


@pytest.mark.usefixtures("history")
def test_a_symlink_is_written_through_not_replaced(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real.name)
    result = export("-o", str(link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == real.name
    lines = real.read_text().splitlines()
    assert lines[0] == HEADER and len(lines) == 12
    assert leftovers(tmp_path) == []


@pytest.mark.usefixtures("history")
def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.csv"
    link.symlink_to("made.csv")
    assert export("-o", str(link)).exit_code == 0
    assert link.is_symlink() and (tmp_path / "made.csv").read_text().startswith(HEADER)


def test_replacing_a_file_keeps_its_mode(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    target.chmod(0o640)
    assert export("-o", str(target)).exit_code == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.read_text().splitlines() == [HEADER]


def test_a_read_only_file_is_not_replaced(tmp_path, monkeypatch):
    target = tmp_path / "out.csv"
    target.write_text("keep me\n")
    target.chmod(0o444)
    if os.access(target, os.W_OK):  # root may write anything: make it look read-only
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda path, mode, **kw: (
            False if os.fspath(path) == str(target) and mode & os.W_OK else real_access(path, mode, **kw)))
    result = export("-o", str(target))
    one_error_line(result, f"Error: cannot write {target}: {os.strerror(errno.EACCES)}")
    assert target.read_text() == "keep me\n" and leftovers(tmp_path) == []


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_new_file_follows_the_umask(tmp_path, umask):
    target = tmp_path / "new.csv"
    old = os.umask(umask)
    try:
        result = export("-o", str(target))
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


@pytest.mark.usefixtures("history")
def test_a_fifo_is_written_to_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # The reading end, opened first without blocking; the export (a few hundred bytes)
    # fits in the pipe's buffer, so nothing waits and no thread is needed.
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        result = export("-o", str(fifo))
        os.set_blocking(fd, True)
        chunks = []
        while chunk := os.read(fd, 65536):  # EOF at once if the export never opened the FIFO
            chunks.append(chunk)
    finally:
        os.close(fd)
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    lines = b"".join(chunks).decode().splitlines()
    assert lines[0] == HEADER and len(lines) == 12


@root_only
@pytest.mark.usefixtures("history")
def test_a_device_is_written_to_not_replaced(tmp_path):
    null = tmp_path / "null"  # our own node for /dev/null (1, 3): never touch /dev itself
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    result = export("-o", str(null))
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(os.lstat(null).st_mode)


@root_only
@pytest.mark.usefixtures("history")
def test_a_full_device_is_one_line_and_stays_a_device(tmp_path):
    full = tmp_path / "full"  # /dev/full (1, 7): every write fails with ENOSPC
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    result = export("-o", str(full))
    one_error_line(result, f"Error: cannot write {full}: ")
    assert os.strerror(errno.ENOSPC) in result.output
    assert stat.S_ISCHR(os.lstat(full).st_mode)


@pytest.mark.usefixtures("history")
def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "out.csv"
    target.write_text("keep me\n")

    def full_disk(store, fmt, out, learner=None):
        out.write("half a row")
        out.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(export_mod, "export", full_disk)
    result = export("-o", str(target))
    one_error_line(result, f"Error: cannot write {target}: {os.strerror(errno.ENOSPC)}")
    assert target.read_text() == "keep me\n"
    assert leftovers(tmp_path) == []
    result = export("-o", str(tmp_path / "new.csv"))
    assert result.exit_code == 1 and not (tmp_path / "new.csv").exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize("where", ["", "missing/x.csv", "file.txt/x.csv", "a" * 300])
def test_unwritable_outputs_are_one_line(tmp_path, monkeypatch, where):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "file.txt").write_text("x")
    result = export("--output", where)
    one_error_line(result, f"Error: cannot write {where or repr('')}: ")
    assert (tmp_path / "folder").is_dir() and (tmp_path / "file.txt").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "home") == ["file.txt", "folder"]


@pytest.mark.parametrize("where", [".", "folder", "folder/", "newdir/", "file.txt/", "link-to-folder"])
def test_a_folder_is_a_usage_error_and_nothing_is_created(tmp_path, monkeypatch, where):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "file.txt").write_text("x")
    (tmp_path / "link-to-folder").symlink_to("folder")
    result = export("--output", where)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and result.output.startswith(f"Error: --output {where} "), result.output
    assert "give a file name" in result.output
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "home") == [
        "file.txt", "folder", "link-to-folder"]
    assert list((tmp_path / "folder").iterdir()) == [] and (tmp_path / "file.txt").read_text() == "x"
