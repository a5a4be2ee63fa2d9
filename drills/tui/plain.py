"""The plain line front end: used when stdin or stdout is not a terminal.

One line per answer (a concept answer is one line too, then a self-grade line); EOF
ends the session cleanly with its summary. No timer thread: a late answer is
recorded as a timeout by the session itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable

from drills.display import Style, use_color
from drills.quiz.session import Session, Summary
from drills.tui.codeinput import END, typed_code
from drills.tui.output import PLAIN_END, OnRecord, Output


def run_plain(session: Session, on_record: OnRecord | None = None, *,
              lines: Iterable[str] | None = None, echo: Callable[[str], None] | None = None,
              style: Style | None = None, out: Output | None = None) -> Summary:
    """Feed ``lines`` (default: stdin) to ``session`` until it finishes or input ends."""
    style = style or Style(color=use_color(sys.stdout), concept_end=PLAIN_END)
    out = out or Output(style, on_record, echo)
    if not session.started:
        out.emit(session.start())
    # No background warm-up here: piped answers arrive at once, so importing sympy in a
    # thread would only compete with grading them (and hold the exit until it finished).
    source = lines if lines is not None else _stdin_lines()
    echo_input = lines is None and not _isatty(sys.stdin)  # piped answers: show them in the log
    pending: list[str] = []  # a code answer's lines, until a line :end
    try:
        for line in source:
            text = line.rstrip("\r\n")
            if echo_input:
                out.echo(f"> {text}")
            if _code_line(session, pending, text):
                pending.append(text)
                code = typed_code(pending)
                if code is None:
                    continue
                pending, text = [], code
            out.emit(session.submit(text))
            if out.failure is not None:  # nothing graded is lost silently: stop here
                _stop(session, out)
                break
            if session.finished:
                break
        if pending and not session.finished:  # a code answer piped without :end
            out.emit(session.submit("\n".join(pending) + "\n"))
        if not session.finished:  # EOF: end cleanly with what was answered
            _end(session, out)
    except KeyboardInterrupt:
        if not session.finished:
            _end(session, out)
    assert out.summary is not None
    return out.summary


def _code_line(session: Session, pending: list[str], text: str) -> bool:
    """Is ``text`` a line of a code answer? A line starting with ':' is a command (:hint,
    :skip ...) even in the middle of one, since no Python line starts so; :end ends it."""
    q = session.current()
    if q is None or q.kind != "code" or session.waiting:
        return False
    word = text.strip().lower()
    return word == END or not word.startswith(":")


def _stdin_lines() -> Iterable[str]:
    """Standard input as text whatever the locale: a bad byte becomes U+FFFD, never an abort."""
    import io

    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # already text (a test's StringIO)
        return sys.stdin
    encoding = getattr(sys.stdin, "encoding", None) or "utf-8"
    return io.TextIOWrapper(buffer, encoding=encoding, errors="replace")


def _stop(session: Session, out: Output) -> None:
    assert out.failure is not None
    print(f"Error: {out.failure}; the session stops here.", file=sys.stderr, flush=True)
    out.give_up()
    if not session.finished:
        out.emit(session.quit())


def _end(session: Session, out: Output) -> None:
    """Quit; a typed concept answer that cannot be saved then is reported, not waited on."""
    out.emit(session.quit())
    if out.failure is not None:
        print(f"Error: {out.failure}", file=sys.stderr, flush=True)
        out.give_up()


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False
