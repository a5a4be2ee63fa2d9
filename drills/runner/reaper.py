"""Nothing a check started outlives it, ``setsid`` or not (Linux).

The group kill (``process._kill_group``) reaches every process of the child's process group;
a process that started a session or group of its own leaves it. On Linux the parent makes
itself a child subreaper for the check (``prctl(PR_SET_CHILD_SUBREAPER)``): an orphan of the
check is then re-parented to drills instead of init, and ``sweep`` kills and reaps every
such process started since the check began, until none is left. Elsewhere (macOS) only the
group kill holds (docs/coding.md, "What is and is not isolated").
"""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Any

PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37
_LIBC: list[Any] = []


def _prctl() -> Any:
    if not _LIBC:
        try:
            import ctypes  # lazy: only on Linux, only to run a check

            _LIBC.append(ctypes.CDLL(None, use_errno=True).prctl)
        except (OSError, AttributeError, ImportError):
            _LIBC.append(None)
    return _LIBC[0]


def subreaper(on: bool) -> bool:
    """Make this process a child subreaper (``on``) or not; whether it worked."""
    if not sys.platform.startswith("linux"):
        return False
    prctl = _prctl()
    return prctl is not None and prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0


def started(pid: int) -> int | None:
    """The start time of ``pid`` in clock ticks since boot (/proc), None if unknown."""
    info = _stat(str(pid))
    return info[3] if info else None


def _stat(name: str) -> tuple[str, int, int, int] | None:
    """(state, ppid, process group, start time) of /proc/NAME/stat."""
    try:
        with open(f"/proc/{name}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def _processes() -> list[tuple[int, tuple[str, int, int, int]]]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            info = _stat(name)
            if info is not None:
                found.append((int(name), info))
    return found


def group_members(pgid: int) -> int:
    """How many live processes (not zombies) are in process group ``pgid`` (Linux)."""
    if not os.path.isdir("/proc"):
        return 0
    return sum(1 for _, (state, _, group, _) in _processes()
               if group == pgid and state not in "ZX")


def sweep(pgid: int, since: int | None, within: float = 2.0) -> int:
    """After the group kill: kill and reap every orphan of the check re-parented to this
    process (started at ``since`` or later), and wait for group ``pgid`` to be empty.
    Returns how many orphans were killed."""
    if since is None or not os.path.isdir("/proc"):
        return 0
    me, killed = os.getpid(), 0
    end = time.monotonic() + within
    while time.monotonic() < end:
        adopted, members = [], 0
        for pid, (state, ppid, group, start) in _processes():
            if ppid == me and start >= since:
                adopted.append((pid, group))
            elif group == pgid and state not in "ZX":
                members += 1
        for pid, group in adopted:
            try:
                if group == pid:  # it leads a group of its own (setsid, setpgid): all of it
                    os.killpg(pid, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                os.waitpid(pid, 0)  # its own children are re-parented here as it dies
                killed += 1
            except ChildProcessError:
                pass
        if not adopted and not members:
            break
        if not adopted:
            time.sleep(0.005)  # SIGKILL is delivered asynchronously
    return killed
