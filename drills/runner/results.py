"""What the runner is told (Limits) and what it reports (RunResult, CaseResult)."""

from __future__ import annotations

from dataclasses import dataclass

# Every status a RunResult can have, in the order a caller would usually test them.
STATUSES = ("ok", "syntax", "missing", "import", "timeout", "cpu", "memory", "output",
            "disk", "exit", "tampered", "crashed")


@dataclass(frozen=True)
class Limits:
    """Limits on one check (one process running every case).

    They stop accidents (an infinite loop, a huge allocation, a fork loop, a print() in a
    loop), not an attacker: see docs/coding.md, "The runner: limits and isolation".
    """

    cpu_seconds: float = 2.0
    """RLIMIT_CPU, rounded up to whole seconds; the hard limit is one second above it."""
    wall_seconds: float = 5.0
    """The parent kills the whole process group (SIGKILL) after this, start-up included."""
    case_seconds: float = 2.0
    """The wall clock of one case (from the end of loading or of the case before); past it
    the parent kills the group, as for wall_seconds, and names this limit."""
    memory_bytes: int = 1 << 30
    """RLIMIT_AS (address space; not enforced on macOS). numpy with one thread needs ~100 MB."""
    file_bytes: int = 1 << 20
    """RLIMIT_FSIZE: a write past it fails with OSError EFBIG (a case error). Per file."""
    disk_bytes: int = 8 << 20
    """Every file in the check's temporary directory together (sizes, plus 4 KiB a file or
    directory), measured by the parent while it runs and at the end; over it: "disk".
    Writes outside that directory are not counted (docs/coding.md)."""
    output_bytes: int = 1 << 20
    """stdout + stderr together; over it the parent kills the group ("output")."""
    processes: int | None = 16
    """How many processes the learner's code may start (fork, subprocess, os.system) in all;
    None: no count. Also RLIMIT_NPROC = the user's current count + this + a margin, on
    Linux for a non-root user (root ignores RLIMIT_NPROC; the group kill still applies)."""

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "wall_seconds", "case_seconds", "memory_bytes",
                     "file_bytes", "disk_bytes", "output_bytes"):
            if not getattr(self, name) > 0:
                raise ValueError(f"Limits.{name} must be positive, not {getattr(self, name)!r}")
        if self.processes is not None and self.processes < 0:
            raise ValueError(f"Limits.processes must be >= 0 or None, not {self.processes!r}")


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class CaseResult:
    """One case: the number the function returned, or why there is none (one line)."""

    value: float | None
    error: str | None


@dataclass(frozen=True)
class RunResult:
    """One check. ``status`` is one of STATUSES; ``message`` is one line for the learner."""

    status: str
    message: str
    cases: tuple[CaseResult, ...]
    """The cases that finished, in order (all of them when status == "ok")."""
    output: str
    """What the code printed (stdout + stderr), cut to a few KB; not sanitised."""
    seconds: float
    """Wall time of the whole check, start-up included."""

    @property
    def ok(self) -> bool:
        return self.status == "ok"
