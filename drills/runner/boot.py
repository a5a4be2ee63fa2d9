"""The child side of drills.runner. Run as a script, never imported by drills:

    python -I -X utf8 -u boot.py RESULT_FD TOKEN_FD PAYLOAD_PATH [HIDDEN_DIR]

The parent writes this file into the check's temporary directory (the child runs from a
copy of what it needs, never from drills' package). It reads the run's token from TOKEN_FD
(a pipe, closed at once) and the payload (marshal: source, function name, each case's
arguments marshalled on their own, limits), deletes the payload and itself, sets the
limits, refuses ``import drills``, and runs the learner's code on every case, writing one
JSON line per event to RESULT_FD, a pipe that print() cannot reach (stdout and stderr go to
another pipe, which the parent shows capped).

What the learner's code could reach by name holds nothing of the channel: the fd, the
token and the writer live in closures made in ``main`` (no module global), and the harness
calls only what it captured before the code ran, so replacing ``__main__.as_number`` or
``os.write`` changes nothing. Every line carries the token and, for a case, its index;
the parent rejects any other line (docs/coding.md, "What is and is not isolated").

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
NO_DRILLS = "the checked function may not import drills"
# Process-starting audit events (os.spawn* and pty.spawn go through os.fork).
SPAWN_EVENTS = frozenset({"os.fork", "os.forkpty", "os.posix_spawn", "os.posix_spawnp",
                          "os.system", "subprocess.Popen"})


ESCAPES = {ord("\\"): "\\\\", ord('"'): '\\"', **{i: f"\\u{i:04x}" for i in range(32)}}


def to_json(value: object, _str: type = str, _float: type = float, _type: type = type,
            _int: type = int, _repr: object = float.__repr__, _irepr: object = int.__repr__,
            _translate: object = str.translate) -> str:
    """str, finite float, int or None; enough JSON for the events. The builtins it uses are
    bound when the bootstrap loads, so learner code that replaces them changes nothing."""
    if _type(value) is _str:
        value = value.encode("utf-8", "replace").decode("utf-8")  # lone surrogates
        return '"' + _translate(value, ESCAPES) + '"'
    if value is None:
        return "null"
    if _type(value) is _int:
        return _irepr(value)
    if _type(value) is not _float:
        raise TypeError("an event holds str, float, int or None")
    return _repr(value)  # a finite float's repr is a JSON number


def make_channel(fd: int, token: str, pid: int) -> tuple[object, object]:
    """``send(event)`` and ``finish(event, code)``, holding the fd and the token in their
    closures, with every function they call captured now (before any learner code)."""
    write, getpid, leave, encode = os.write, os.getpid, os._exit, str.encode
    streams, quote = (sys.stdout, sys.stderr), to_json
    head = '{"k": ' + quote(token) + ", "

    def send(event: dict) -> None:
        """Write one event line. A process the learner's code forked never writes: it leaves."""
        if getpid() != pid:
            leave(0)
        body = ", ".join([f'"{key}": {quote(value)}' for key, value in event.items()])
        data = encode(head + body + "}\n")
        while data:
            data = data[write(fd, data):]

    def finish(event: dict, code: int = 0) -> None:
        for stream in streams:
            try:
                stream.flush()
            except BaseException:  # the learner may have closed or replaced it
                pass
        send(event)
        leave(code)

    return send, finish


class NoDrills:
    """The first meta path finder: ``import drills`` (or any drills.*) is refused."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        if name == "drills" or name.startswith("drills."):
            raise ImportError(NO_DRILLS, name=name)
        return None


def hide_drills(hidden: str) -> None:
    """Refuse drills' package: a finder first in sys.meta_path, and the directory that holds
    drills dropped from sys.path when it is not a site-packages directory (an editable
    install's source tree; a site-packages directory also holds the learner's numpy)."""
    sys.meta_path.insert(0, NoDrills)
    if hidden and os.path.basename(hidden) not in ("site-packages", "dist-packages"):
        real = os.path.realpath(hidden)
        sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != real]


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


def run(payload: dict, send: object, finish: object) -> None:
    """Load the learner's code and call it on every case. Everything called after the
    code has run is a local bound here first: the learner's code can replace module
    attributes (``__main__.as_number``, ``os.write``, ``marshal.loads``) to no effect."""
    convert, explain, loads, exits = as_number, describe, marshal.loads, SystemExit

    def on_xcpu(signum: int, frame: object) -> None:
        finish({"t": "cpu"}, 0)

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
    name, cases = payload["function"], payload["cases"]
    del payload
    try:
        exec(code, namespace)
    except exits as exc:
        finish({"t": "exit", "code": repr(exc.code)})
    except MemoryError as exc:
        finish({"t": "memory", "m": explain(exc)})
    except BaseException as exc:
        finish({"t": "import", "m": explain(exc, "at module level")})
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
    for index, data in enumerate(cases):
        args = loads(data)  # fresh objects: a case that mutates its input leaks nothing
        try:
            value, error = convert(function(*args))
        except exits as exc:
            finish({"t": "exit", "code": repr(exc.code)})
        except MemoryError as exc:
            finish({"t": "memory", "m": explain(exc)})
        except BaseException as exc:
            value, error = None, explain(exc)
        send({"t": "case", "i": index, "v": value} if error is None
             else {"t": "case", "i": index, "e": error})
    finish({"t": "done"})


def main() -> None:
    """Read the token and the payload, delete them and this file, then run: the fd, the
    token and the channel are locals here and closures below, never module globals."""
    result_fd, token_fd, payload_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    token = os.read(token_fd, 64).decode("ascii")
    os.close(token_fd)
    send, finish = make_channel(result_fd, token, os.getpid())
    del token, result_fd
    try:
        with open(payload_path, "rb") as handle:
            payload = marshal.load(handle)
        for path in (payload_path, os.path.abspath(__file__)):
            os.remove(path)  # the learner's working directory starts empty
        hide_drills(sys.argv[4] if len(sys.argv) > 4 else "")
        run(payload, send, finish)
    except BaseException as exc:  # a fault of the bootstrap itself (or of as_number)
        finish({"t": "crash", "m": describe(exc)}, 1)


if __name__ == "__main__":
    main()
