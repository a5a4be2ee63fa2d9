"""The parent side: start the bootstrap in its own session, read its two pipes, hold the
wall clock and the output cap, and kill its whole process group whatever happens.

Facts quoted as "notes A" are measured in /work/shared/notes/runner-and-ux-facts.md.
"""

from __future__ import annotations

import json
import marshal
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from drills.runner import reaper
from drills.runner.guard import Package, usage
from drills.runner.outcome import Watch, verdict
from drills.runner.results import DEFAULT_LIMITS, Limits, RunResult

BOOT = Path(__file__).with_name("boot.py")
BOOT_NAME = ".drills-boot.py"  # a copy in the temp dir; the bootstrap deletes it, and
PAYLOAD = ".drills-payload"  # the payload, before running any learner code
HIDDEN = str(Path(__file__).resolve().parents[2])  # the directory that holds drills/
DISK_EVERY = 0.05  # seconds between measures of the temp dir while the child runs
_BOOT_SOURCE: list[bytes] = []
CHUNK = 1 << 16
POLL = 0.01  # seconds between exit checks where there is no pidfd (macOS, old kernels)


def run_function(source: str, function: str, cases: Sequence[Sequence[Any]],
                 limits: Limits = DEFAULT_LIMITS, *, python: str | None = None) -> RunResult:
    """Run ``function`` from ``source`` on every case (positional arguments, JSON values)
    in one fresh Python process, and say what each case returned.

    The code is never imported here: a child ``python -I`` exec()s it as solution.py.
    Raises TypeError/ValueError only for cases that are not JSON; everything the learner's
    code does ends in a RunResult.
    """
    # Through JSON and back: tuples become lists and anything that is not JSON fails here.
    # marshal, because the bootstrap must not pay for importing json (see boot.py).
    texts = [marshal.dumps(json.loads(json.dumps(list(case))), 4) for case in cases]
    total = len(texts)
    if os.name != "posix":
        return RunResult("crashed", "The coding round runs on Linux and macOS only", (), "", 0.0)
    start = time.monotonic()
    if not _BOOT_SOURCE:
        _BOOT_SOURCE.append(BOOT.read_bytes())
    package = Package()  # drills' files before the child can touch them
    workdir = tempfile.mkdtemp(prefix="drills-run-")
    try:
        payload = {"source": source, "function": function, "cases": texts,
                   "limits": {"cpu": limits.cpu_seconds, "memory": limits.memory_bytes,
                              "file": limits.file_bytes, "processes": limits.processes}}
        with open(os.path.join(workdir, PAYLOAD), "wb") as handle:
            marshal.dump(payload, handle, 4)
        with open(os.path.join(workdir, BOOT_NAME), "wb") as handle:
            handle.write(_BOOT_SOURCE[0])
        return _supervise(python or sys.executable, workdir, limits, total, start, package)
    finally:
        _remove(workdir)


def _environment(workdir: str) -> dict[str, str]:
    # Minimal: no PYTHON* (and -I ignores them anyway), HOME and TMPDIR inside the temp dir,
    # one BLAS thread (notes A: numpy's wheel starts one thread per core, each costing
    # address space under RLIMIT_AS; 98 MB with one thread).
    return {"PATH": os.environ.get("PATH", os.defpath), "HOME": workdir, "TMPDIR": workdir,
            "LC_ALL": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1", "VECLIB_MAXIMUM_THREADS": "1"}


def _supervise(python: str, workdir: str, limits: Limits, total: int, start: float,
               package: Package) -> RunResult:
    read_end, write_end = os.pipe()
    token_read, token_write = os.pipe()
    token = os.urandom(16).hex()  # the bootstrap reads it once and closes the pipe
    os.write(token_write, token.encode())
    os.close(token_write)
    reaping = reaper.subreaper(True)
    try:
        # -I: no user site, no cwd on sys.path (a json.py there would shadow the stdlib);
        # the interpreter's own site-packages stay, so the learner's numpy imports (notes A).
        # -u: what was printed before a kill still reaches the pipe. pass_fds keeps the
        # pipes' numbers, so they go in argv (notes A).
        proc = subprocess.Popen(
            [python, "-I", "-X", "utf8", "-u", os.path.join(workdir, BOOT_NAME),
             str(write_end), str(token_read), os.path.join(workdir, PAYLOAD), HIDDEN],
            cwd=workdir, env=_environment(workdir), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            pass_fds=(write_end, token_read), start_new_session=True)
    except OSError as exc:
        os.close(read_end)
        if reaping:
            reaper.subreaper(False)
        return RunResult("crashed", f"Could not start {python}: {exc.strerror or exc}", (),
                         "", time.monotonic() - start)
    finally:
        os.close(write_end)
        os.close(token_read)
    assert proc.stdout is not None
    since = reaper.started(proc.pid) if reaping else None
    child = _Child(proc)
    watch = Watch(token=token, total=total)
    killed: str | None = None
    streams = {proc.stdout.fileno(): watch.output, read_end: watch.results}
    try:
        killed = _watch(child, streams, watch, limits, start + limits.wall_seconds, workdir)
        if killed in ("timeout", "case"):
            watch.others = max(0, reaper.group_members(proc.pid) - 1)
    finally:
        # Always, also on KeyboardInterrupt here: Ctrl-C does not reach the child's new
        # session (notes A), and subprocess's own timeout kills only the child, not its
        # grandchildren (notes A). The leader is not reaped yet, so its pid, which is the
        # group's id, cannot have been reused. Then what left the group (setsid) and was
        # re-parented here goes too (reaper).
        _kill_group(proc.pid)
        returncode, cpu = child.reap()
        if reaping:
            reaper.sweep(proc.pid, since)
            reaper.subreaper(False)
        _drain(streams)  # what was written before the kill (a last case line)
        proc.stdout.close()
        os.close(read_end)
    watch.changed = package.changes()
    if killed is None and usage(workdir, limits.disk_bytes) > limits.disk_bytes:
        killed = "disk"  # the last case's files, written after the last measure
    return verdict(watch, killed, returncode, cpu, limits, total, time.monotonic() - start)


def _watch(child: _Child, streams: dict, watch: Watch, limits: Limits,
           deadline: float, workdir: str) -> str | None:
    """Read both pipes until the child exits; "timeout", "case", "output", "disk" or
    "forged" if the parent must kill it first. Not waiting for EOF: a grandchild holding
    the pipes delays it (notes A)."""
    measured = time.monotonic()
    while True:
        now = time.monotonic()
        remaining = deadline - now
        if remaining <= 0:
            return None if watch.terminal else "timeout"
        if watch.case_started and watch.terminal is None:
            left = watch.case_started + limits.case_seconds - now
            if left <= 0:
                return "case"
            remaining = min(remaining, left)
        if now - measured >= DISK_EVERY:
            measured = now
            if usage(workdir, limits.disk_bytes) > limits.disk_bytes:
                return "disk"
        wait = list(streams) + ([child.pidfd] if child.pidfd is not None else [])
        timeout = min(remaining, DISK_EVERY) if child.pidfd is not None else min(remaining, POLL)
        ready, _, _ = select.select(wait, [], [], timeout)
        for fd in ready:
            if fd != child.pidfd and not _read(fd, streams):
                del streams[fd]  # EOF
        if (watch.terminal or {}).get("t") == "forged":
            return "forged"
        if watch.printed > limits.output_bytes and watch.terminal is None:
            return "output"  # notes A: 1 GB of print() capped at 1 MiB and killed in 0.03 s
        if child.exited(child.pidfd in ready if child.pidfd is not None else None):
            return None


def _read(fd: int, streams: dict) -> bool:
    data = os.read(fd, CHUNK)
    if data:
        streams[fd](data)
    return bool(data)


def _drain(streams: dict, rounds: int = 64) -> None:
    """Read whatever is already in the pipes, without waiting for anything more."""
    for _ in range(rounds):
        ready, _, _ = select.select(list(streams), [], [], 0)
        if not ready:
            return
        for fd in ready:
            if not _read(fd, streams):
                del streams[fd]


def _kill_group(pgid: int) -> None:
    # Twice: a process forked while the first kill was being delivered gets the second.
    for _ in range(2):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            return
        except PermissionError:  # macOS answers EPERM when only zombies are left
            return


class _Child:
    """The bootstrap process: notice its exit without reaping it, then reap it."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.pidfd: int | None = None
        self.status: int | None = None
        self.cpu: float | None = None
        if hasattr(os, "pidfd_open"):  # Linux 5.3+: select() wakes the moment it exits
            try:
                self.pidfd = os.pidfd_open(proc.pid)
            except OSError:
                pass

    def exited(self, pidfd_ready: bool | None) -> bool:
        if pidfd_ready is not None:
            return pidfd_ready
        if hasattr(os, "waitid"):  # WNOWAIT: the zombie keeps its pid until reap()
            try:
                flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
                return os.waitid(os.P_PID, self.proc.pid, flags) is not None
            except ChildProcessError:
                return True
        pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
        if pid:
            self._reaped(status, usage)
        return bool(pid)

    def _reaped(self, status: int, usage: Any) -> None:
        self.status = os.waitstatus_to_exitcode(status)
        self.cpu = usage.ru_utime + usage.ru_stime
        self.proc.returncode = self.status  # Popen must not wait for it again

    def reap(self) -> tuple[int | None, float | None]:
        """Wait for the (killed) child; its exit code and its own CPU seconds."""
        if self.status is None:
            try:
                _, status, usage = os.wait4(self.proc.pid, 0)
                self._reaped(status, usage)
            except ChildProcessError:
                pass
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        return self.status, self.cpu


def _remove(workdir: str) -> None:
    try:
        shutil.rmtree(workdir)
    except OSError:  # the code may have made a directory unwritable: open it up, retry
        for root, dirs, _ in os.walk(workdir):
            for name in dirs:
                try:
                    os.chmod(os.path.join(root, name), 0o700)
                except OSError:
                    pass
        shutil.rmtree(workdir, ignore_errors=True)


