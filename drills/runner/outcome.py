"""Turn what the child said (its events) and how it ended into one RunResult."""

from __future__ import annotations

import json
import signal
from dataclasses import dataclass, field

from drills.runner.results import CaseResult, Limits, RunResult

FILENAME = "solution.py"
TERMINAL = frozenset({"syntax", "import", "missing", "memory", "exit", "cpu", "done", "crash",
                      "garbled"})
RESULT_CAP = 1 << 20  # bytes of one result line; the bootstrap's lines are a few hundred
SHOWN_HEAD, SHOWN_TAIL = 3072, 1024  # bytes of output kept for display


@dataclass
class Watch:
    """What the parent has read so far from the child's two pipes."""

    head: bytearray = field(default_factory=bytearray)
    tail: bytes = b""
    printed: int = 0
    pending: bytes = b""
    started: bool = False
    loaded: bool = False
    cases: list[CaseResult] = field(default_factory=list)
    terminal: dict | None = None

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
        if self.terminal is not None:
            return
        try:
            event = json.loads(line)
            kind = event["t"]
        except (ValueError, TypeError, KeyError):
            event, kind = {"t": "garbled"}, "garbled"
        if kind == "start":
            self.started = True
        elif kind == "loaded":
            self.loaded = True
        elif kind == "case":
            value, error = event.get("v"), event.get("e")
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.cases.append(CaseResult(float(value), None))
            else:
                self.cases.append(CaseResult(None, str(error)))
        elif kind in TERMINAL:
            self.terminal = event

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
    """``killed``: "timeout" or "output" when the parent killed the group before any final
    event; ``cpu``: the child's own CPU seconds (None when unknown)."""
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
    if killed == "timeout":
        # Only the leader's CPU is known, and a loaded machine (or its own forked
        # processes) can starve it: call it "waiting" only when it barely ran at all.
        idle = cpu is not None and cpu < 0.05 * limits.wall_seconds
        why = "it was waiting, not computing (a sleep()?)" if idle else "an infinite loop?"
        return "timeout", f"Timed out after {limits.wall_seconds:g} s {where}: {why}"
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
    if kind == "garbled":
        return "crashed", "The result channel was garbled (did the code write to its pipe?)"
    return _ended(watch, returncode, cpu, cpu_limit, where)


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
