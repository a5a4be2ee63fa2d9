"""The child side of drills.runner. Run as a script, never imported by drills:

    python -I -X utf8 -u boot.py RESULT_FD PAYLOAD_PATH

It reads the payload (marshal: source, function name, each case's arguments marshalled
on their own, limits), deletes it, sets the limits, runs the learner's code on every case
and writes one JSON line per event to RESULT_FD, a pipe that print() cannot reach (stdout
and stderr go to another pipe, which the parent shows capped).

Standard library only, and little of it: start-up is most of the cost of a check. json
and signal are not imported (about 9 and 5 ms here: json pulls in re, signal pulls in
enum); marshal and _signal are built in, and the few lines written are JSON by hand.

Events, in order: start, then syntax | import | missing | loaded; after loaded one
case per case; the run ends with done, or with memory | exit | cpu | crash.
"""

from __future__ import annotations

import marshal
import os
import sys

try:
    import _signal as signals
except ImportError:  # not CPython
    import signal as signals  # type: ignore[no-redef]

FILENAME = "solution.py"
MAIN_PID = os.getpid()
RESULT_FD = -1
# Process-starting audit events (os.spawn* and pty.spawn go through os.fork).
SPAWN_EVENTS = frozenset({"os.fork", "os.forkpty", "os.posix_spawn", "os.posix_spawnp",
                          "os.system", "subprocess.Popen"})


ESCAPES = {ord("\\"): "\\\\", ord('"'): '\\"', **{i: f"\\u{i:04x}" for i in range(32)}}


def to_json(value: object) -> str:
    """str, finite float, int or None; enough JSON for the events."""
    if isinstance(value, str):
        value = value.encode("utf-8", "replace").decode("utf-8")  # lone surrogates
        return '"' + value.translate(ESCAPES) + '"'
    if value is None:
        return "null"
    return repr(value)  # a finite float's repr is a JSON number


def send(event: dict) -> None:
    """Write one event line. A process the learner's code forked never writes: it leaves."""
    if os.getpid() != MAIN_PID:
        os._exit(0)
    body = ", ".join(f'"{key}": {to_json(value)}' for key, value in event.items())
    data = ("{" + body + "}\n").encode()
    while data:
        data = data[os.write(RESULT_FD, data):]


def finish(event: dict, code: int = 0) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # the learner may have closed or replaced it
            pass
    send(event)
    os._exit(code)


def one_line(text: str, cap: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= cap else text[: cap - 1] + "…"


def solution_line(tb: object) -> int | None:
    """The line of the innermost frame in the learner's file (it may have called a library)."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:  # type: ignore[attr-defined]
            line = tb.tb_lineno  # type: ignore[attr-defined]
        tb = tb.tb_next  # type: ignore[attr-defined]
    return line


def describe(exc: BaseException, where: str = "") -> str:
    """'ZeroDivisionError: division by zero (solution.py, line 7)' on one line."""
    try:
        text = str(exc)
    except BaseException:
        text = "<the exception's message could not be shown>"
    name = type(exc).__name__
    head = one_line(f"{name}: {text}" if text else name)
    line = solution_line(exc.__traceback__)
    place = [f"line {line}"] if line else []
    if where:
        place.append(where)
    return f"{head} ({FILENAME}, {', '.join(place)})" if place else head


def type_name(value: object) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "builtins")
    name = kind.__name__ if module == "builtins" else f"{module}.{kind.__name__}"
    return ("an " if name[0].lower() in "aeiou" else "a ") + name


def as_number(result: object) -> tuple[float | None, str | None]:
    """The returned value as a float, or why it is not a number (NaN and inf are errors)."""
    kind = type(result)
    if result is None:
        return None, "returned None, expected a number (is a return statement missing?)"
    if isinstance(result, bool):
        return None, f"returned a bool ({result}), expected a number"
    if not isinstance(result, (int, float)):
        module = getattr(kind, "__module__", "")
        if module == "numpy" and getattr(result, "ndim", None) == 0:  # np.int64, np.float32
            item = result.item()  # type: ignore[attr-defined]
            if isinstance(item, bool) or not isinstance(item, (int, float)):
                return None, f"returned {type_name(result)} ({item!r}), expected a number"
            result = item
        elif module in ("fractions", "decimal"):
            result = float(result)  # type: ignore[arg-type]
        else:
            return None, f"returned {type_name(result)}, expected a number"
    try:
        value = float(result)
    except OverflowError:
        return None, "returned an int too large for a float"
    if value != value:
        return None, "returned nan, expected a number"
    if value in (float("inf"), float("-inf")):
        return None, f"returned {value}, expected a finite number"
    return value, None


def set_limits(limits: dict) -> None:
    """Each limit at most the current hard limit; one that cannot be set is skipped (macOS
    refuses RLIMIT_AS with ValueError: notes A, cpython #78783). Set here, not in a
    preexec_fn, which can deadlock a threaded parent (notes A, bpo-35823)."""
    import resource

    def cap(which: int, soft: int, hard: int) -> None:
        try:
            old_hard = resource.getrlimit(which)[1]
            if old_hard != resource.RLIM_INFINITY:
                soft, hard = min(soft, old_hard), min(hard, old_hard)
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):
            pass

    cpu = max(1, int(-(-limits["cpu"] // 1)))  # RLIMIT_CPU takes whole seconds
    # Soft: SIGXCPU, which on_xcpu turns into a "cpu" event; hard (1 s later): SIGKILL,
    # for code stuck in C where no Python handler runs (notes A: SIGXCPU came at 1 s).
    cap(resource.RLIMIT_CPU, cpu, cpu + 1)
    cap(resource.RLIMIT_AS, limits["memory"], limits["memory"])
    cap(resource.RLIMIT_FSIZE, limits["file"], limits["file"])
    cap(resource.RLIMIT_CORE, 0, 0)
    procs = limits["processes"]
    if procs is not None and os.getuid() != 0 and sys.platform.startswith("linux"):
        # RLIMIT_NPROC counts every process and thread of the real uid and root ignores it
        # (notes A): the uid's current count plus the allowance plus a margin for threads.
        nproc = user_tasks() + procs + 16
        cap(resource.RLIMIT_NPROC, nproc, nproc)


def user_tasks() -> int:
    uid, count = os.getuid(), 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat("/proc/" + name).st_uid == uid:
                    count += len(os.listdir(f"/proc/{name}/task"))
            except OSError:
                pass
    return count


def cap_processes(allowed: int) -> None:
    """Refuse a process start past ``allowed``, counted across the whole tree in shared
    memory: a fork loop as root (where RLIMIT_NPROC does nothing) stops at the cap instead
    of filling the machine until the wall clock. Python-level calls only; a program the
    code starts is held by RLIMIT_NPROC and the group kill."""
    import errno
    import mmap

    shared = mmap.mmap(-1, 8)  # MAP_SHARED | MAP_ANONYMOUS: forked children share it

    def hook(event: str, args: tuple) -> None:
        if event in SPAWN_EVENTS:
            count = int.from_bytes(shared[:8], "little") + 1
            shared[:8] = count.to_bytes(8, "little")
            if count > allowed:
                raise BlockingIOError(errno.EAGAIN, f"process limit reached: your code may "
                                      f"start {allowed} processes (a fork loop?)")

    sys.addaudithook(hook)


def on_xcpu(signum: int, frame: object) -> None:
    finish({"t": "cpu"}, 0)


def run(payload: dict) -> None:
    signals.signal(signals.SIGXCPU, on_xcpu)
    set_limits(payload["limits"])
    if payload["limits"]["processes"] is not None:
        cap_processes(payload["limits"]["processes"])
    sys.argv = [FILENAME]
    send({"t": "start"})
    try:
        code = compile(payload["source"], FILENAME, "exec")
    except SyntaxError as exc:  # IndentationError and TabError too
        where = f" ({FILENAME}, line {exc.lineno})" if exc.lineno else ""
        finish({"t": "syntax", "m": one_line(f"{type(exc).__name__}: {exc.msg}") + where})
    except (ValueError, MemoryError, RecursionError) as exc:  # null bytes; deep nesting
        finish({"t": "syntax", "m": describe(exc)})
    namespace: dict = {"__name__": "solution"}
    try:
        exec(code, namespace)
    except SystemExit as exc:
        finish({"t": "exit", "code": repr(exc.code)})
    except MemoryError as exc:
        finish({"t": "memory", "m": describe(exc)})
    except BaseException as exc:
        finish({"t": "import", "m": describe(exc, "at module level")})
    name = payload["function"]
    function = namespace.get(name)
    if function is None:
        defined = sorted(k for k, v in namespace.items()
                         if callable(v) and not k.startswith("_") and not isinstance(v, type))
        hint = f" (it defines: {', '.join(defined[:6])})" if defined else ""
        finish({"t": "missing", "m": f"{FILENAME} defines no function named {name}{hint}"})
    if not callable(function):
        finish({"t": "missing", "m": f"{name} in {FILENAME} is {type_name(function)}, "
                                     "not a function"})
    send({"t": "loaded"})
    for data in payload["cases"]:
        args = marshal.loads(data)  # fresh objects: a case that mutates its input leaks nothing
        try:
            value, error = as_number(function(*args))
        except SystemExit as exc:
            finish({"t": "exit", "code": repr(exc.code)})
        except MemoryError as exc:
            finish({"t": "memory", "m": describe(exc)})
        except BaseException as exc:
            value, error = None, describe(exc)
        send({"t": "case", "v": value} if error is None else {"t": "case", "e": error})
    finish({"t": "done"})


def main() -> None:
    global RESULT_FD
    RESULT_FD = int(sys.argv[1])
    with open(sys.argv[2], "rb") as handle:
        payload = marshal.load(handle)
    os.remove(sys.argv[2])  # the learner's working directory starts empty
    try:
        run(payload)
    except BaseException as exc:  # a fault of the bootstrap itself (or of as_number)
        finish({"t": "crash", "m": describe(exc)}, 1)


if __name__ == "__main__":
    main()
