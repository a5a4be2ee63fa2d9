"""Turn what the child said (its events) and how it ended into one RunResult."""

from __future__ import annotations

import json
import signal
import time
from dataclasses import dataclass, field

from drills.runner.results import CaseResult, Limits, RunResult

FILENAME = "solution.py"
TERMINAL = frozenset({"syntax", "import", "missing", "memory", "exit", "cpu", "done", "crash",
                      "forged"})
FORGED = ("A line on the result channel did not come from the runner (did the code write to "
          "its pipe?): no case of this check is trusted")
RESULT_CAP = 1 << 20  # bytes of one result line; the bootstrap's lines are a few hundred
SHOWN_HEAD, SHOWN_TAIL = 3072, 1024  # bytes of output kept for display


@dataclass
class Watch:
    """What the parent has read so far from the child's two pipes.

    Only lines that carry the run's ``token`` count, and only in the bootstrap's order:
    start, then loaded, then case 0, 1, ... up to ``total``, and done only after the last.
    Anything else (a line without the token, a case out of order or one too many, an early
    done, bytes that are not JSON) ends the watch as "forged", and no case is kept."""

    token: str = ""
    total: int = 0
    head: bytearray = field(default_factory=bytearray)
    tail: bytes = b""
    printed: int = 0
    pending: bytes = b""
    started: bool = False
    loaded: bool = False
    cases: list[CaseResult] = field(default_factory=list)
    terminal: dict | None = None
    case_started: float = 0.0  # time.monotonic() when the current case began (0: loading)
    others: int = 0  # processes of the group besides the leader, alive when it was killed
    changed: list[str] = field(default_factory=list)  # drills' files the check changed

    def output(self, data: bytes) -> None:
        self.printed += len(data)
        room = SHOWN_HEAD - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail = (self.tail + data)[-SHOWN_TAIL:]

    def results(self, data: bytes) -> None:
        *lines, self.pending = (self.pending + data).split(b"\n")
        for line in lines:
            self._event(line)
        if len(self.pending) > RESULT_CAP:
            self._event(b"")

    def _event(self, line: bytes) -> None:
        if self.terminal is not None and self.terminal.get("t") == "forged":
            return
        try:
            event = json.loads(line)
            kind = event["t"]
            genuine = event["k"] == self.token and self._in_order(event, kind)
        except (ValueError, TypeError, KeyError):
            genuine = False
        if not genuine or self.terminal is not None:
            self.terminal, self.cases = {"t": "forged"}, []  # a line after the end is forged too
            return
        if kind == "start":
            self.started = True
        elif kind == "loaded":
            self.loaded = True
            self.case_started = time.monotonic()
        elif kind == "case":
            value, error = event.get("v"), event.get("e")
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.cases.append(CaseResult(float(value), None))
            else:
                self.cases.append(CaseResult(None, str(error)))
            self.case_started = time.monotonic()
        elif kind in TERMINAL:
            self.terminal = event

    def _in_order(self, event: dict, kind: str) -> bool:
        """Whether ``event`` is the one the bootstrap can send next."""
        if kind == "start":
            return not self.started
        if not self.started:
            return False
        if kind == "loaded":
            return not self.loaded
        if kind == "case":
            index = event["i"]
            return (self.loaded and type(index) is int and index == len(self.cases)
                    and index < self.total)
        if kind == "done":
            return self.loaded and len(self.cases) == self.total
        return kind in TERMINAL and kind != "forged"

    def shown(self) -> str:
        """The output for display: the first 3 KiB and the last 1 KiB."""
        text = bytes(self.head)
        hidden = self.printed - len(self.head) - len(self.tail)
        if hidden > 0:
            text += f"\n[... {hidden:,} bytes not shown ...]\n".encode()
        return (text + self.tail).decode("utf-8", "replace")


def size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n} bytes"


def verdict(watch: Watch, killed: str | None, returncode: int | None, cpu: float | None,
            limits: Limits, total: int, elapsed: float) -> RunResult:
    """``killed``: "timeout" (the whole check), "case" (one case), "output", "disk" or
    "forged" when the parent killed the group before any final event; ``cpu``: the child's own CPU seconds (None when unknown)."""
    status, message = _status(watch, killed, returncode, cpu, limits, total, elapsed)
    return RunResult(status, message, tuple(watch.cases), watch.shown(), elapsed)


def _status(watch: Watch, killed: str | None, returncode: int | None, cpu: float | None,
            limits: Limits, total: int, elapsed: float) -> tuple[str, str]:
    done = len(watch.cases)
    if not watch.loaded:
        where = f"while loading {FILENAME}"
    elif done < total:
        where = f"on case {done + 1} (of {total})"
    else:
        where = "after the last case"
    cpu_limit = max(1, -(-limits.cpu_seconds // 1))
    if watch.changed:  # the parent restored drills' files: nothing of this check counts
        shown = ", ".join(watch.changed[:3]) + (", ..." if len(watch.changed) > 3 else "")
        return "tampered", (f"The code changed drills' own files ({shown}); drills put them "
                            "back. The checked function may not change drills")
    if (watch.terminal or {}).get("t") == "forged":
        return "tampered", FORGED
    if killed == "disk":
        return "disk", (f"Wrote more than {size(limits.disk_bytes)} of files {where} (the "
                        "write budget of the whole check, every file in its temporary "
                        "directory counted): files written in a loop?")
    if killed in ("timeout", "case"):
        return "timeout", _timed_out(watch, killed, cpu, limits, where)
    if killed == "output":
        return "output", (f"Printed more than {size(limits.output_bytes)} {where}: "
                          "print() in a loop?")
    event = watch.terminal or {}
    kind = event.get("t")
    if kind == "done":
        bad = [(i, c.error) for i, c in enumerate(watch.cases) if c.error is not None]
        ran = "Ran the 1 case" if total == 1 else f"Ran all {total} cases"
        if not bad:
            return "ok", ran
        first, error = bad[0]
        return "ok", f"{ran}; {len(bad)} gave no number (case {first + 1}: {error})"
    if kind in ("syntax", "import", "missing"):
        return kind, str(event.get("m"))
    if kind == "memory":
        return "memory", (f"Ran out of memory {where}, over the {size(limits.memory_bytes)} "
                          f"limit: {event.get('m')}")
    if kind == "exit":
        return "exit", f"Called sys.exit({event.get('code')}) {where}: return the value instead"
    if kind == "cpu":
        return "cpu", f"Used more than {cpu_limit:g} s of CPU time {where}: an infinite loop?"
    if kind == "crash":
        return "crashed", f"The runner's bootstrap failed: {event.get('m')}"
    if kind == "forged":
        return "tampered", FORGED
    return _ended(watch, returncode, cpu, cpu_limit, where)


def _timed_out(watch: Watch, killed: str, cpu: float | None, limits: Limits,
               where: str) -> str:
    """The message of a kill by the clock, naming which limit ran out and why it may have."""
    if killed == "case":
        limit = f"after {limits.case_seconds:g} s {where} (the limit for one case)"
        budget = limits.case_seconds
    else:
        limit = f"after {limits.wall_seconds:g} s {where} (the limit for the whole check)"
        budget = limits.wall_seconds
    # Only the leader's CPU is known, and a loaded machine can starve it: call it "waiting"
    # only when it barely ran at all, and say so when processes it started were running.
    if watch.others:
        why = (f"it was waiting on {watch.others} other process"
               f"{'' if watch.others == 1 else 'es'} it started (a subprocess that does not end?)")
    elif cpu is not None and cpu < 0.05 * budget:
        why = "it was waiting, not computing (a sleep()?)"
    else:
        why = "an infinite loop?"
    return f"Timed out {limit}: {why}"


def _ended(watch: Watch, returncode: int | None, cpu: float | None, cpu_limit: float,
           where: str) -> tuple[str, str]:
    """The child ended without a final event: os._exit, a signal, or a broken start."""
    if returncode is not None and returncode < 0:
        number = -returncode
        # SIGKILL at the hard CPU limit: stuck in C code, where the SIGXCPU handler never ran
        if number in (signal.SIGXCPU, signal.SIGKILL) and cpu is not None and cpu >= cpu_limit:
            return "cpu", f"Used more than {cpu_limit:g} s of CPU time {where}: an infinite loop?"
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        hint = {signal.SIGKILL: " (out of memory?)",
                signal.SIGSEGV: " (a very deep recursion?)"}.get(number, "")
        return "exit", f"Killed by {name} {where}{hint}"
    if not watch.started:
        lines = [line for line in watch.shown().splitlines() if line.strip()]
        detail = lines[-1].strip()[:200] if lines else "no message"
        return "crashed", f"The runner's bootstrap failed (status {returncode}): {detail}"
    return "exit", f"Exited with status {returncode} {where} (os._exit?): return the value instead"
