"""The prompt_toolkit front end: history, a live bottom toolbar, per-question timeouts.

Each question is one ``prompt_async`` call. A timer task calls ``app.exit`` with a
private exception when the question's time runs out, so the session records a
timeout and the next question comes. Ctrl-C skips, Ctrl-D quits; a concept answer
is multi-line and ends with an empty line (or Esc then Enter).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys

from drills.display import Style, clock_text, display_width, use_color
from drills.gate import ungated
from drills.paths import home
from drills.quiz.session import Session, Summary
from drills.safetext import visible
from drills.tui.capped import CappedParser, Overflow
from drills.tui.codeinput import END, EditorError, code_file, edit, editor, typed_code
from drills.tui.keys import AnswersOnly, CommandCompleter, keys_hint, progress_bar
from drills.tui.output import CONCEPT_END, OnRecord, Output, Signalled
from drills.tui.warmup import settle, warm_up


class _TimeUp(Exception):
    """Raised out of the prompt by the timer task, with the text typed so far."""

    def __init__(self, typed: str = "") -> None:
        super().__init__(typed)
        self.typed = typed


MAX_HISTORY_BYTES = 1 << 20  # answers only; a larger file is not read into memory


def _history() -> tuple[History, str | None]:
    """Up-arrow history from ``$DRILLS_HOME/answer_history``, used only when that is a regular file.

    A folder, FIFO, device or link to one (``/dev/zero`` would be read without end) keeps
    the history in memory for this session; the second value says so, once.
    """
    import os
    import stat

    try:
        folder = home()
        if not folder.is_dir():
            return InMemoryHistory(), None
        path = folder / "answer_history"
        try:
            info = os.stat(path)
        except FileNotFoundError:
            return FileHistory(str(path)), None
        if not stat.S_ISREG(info.st_mode):
            why = "is not a regular file"
        elif info.st_size > MAX_HISTORY_BYTES:
            why = f"is larger than {MAX_HISTORY_BYTES >> 20} MB"
        else:
            return FileHistory(str(path)), None
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on Python 3.11
        path, why = None, f"cannot be read ({getattr(exc, 'strerror', None) or exc})"
    where = visible(str(path)) if path is not None else "answer_history"
    return InMemoryHistory(), f"Note: {where} {why}; answer history is kept in memory this session."


def _plain_len(markup: str) -> int:
    """The width of toolbar markup as shown (tags and entities do not take columns)."""
    import re

    return len(re.sub(r"<[^>]+>", "", markup).replace("&lt;", "<").replace("&gt;", ">"))


def _cap_input(inp: Any, overflow: Overflow) -> None:
    """A paste of any size costs time in proportion to it and memory up to the limit."""
    parser = getattr(inp, "vt100_parser", None)
    if parser is not None:
        inp.vt100_parser = CappedParser(parser.feed_key_callback, overflow)
    reader = getattr(inp, "stdin_reader", None)
    read = getattr(reader, "read", None)
    if read is not None:  # 64 KiB a wake-up instead of prompt_toolkit's 1 KiB
        reader.read = lambda count=1024: read(max(count, 1 << 16))


class Interactive:
    """Drive a Session from a PromptSession until it finishes."""

    def __init__(self, session: Session, out: Output, *, input: Any = None, output: Any = None,
                 history: History | None = None) -> None:
        self.session = session
        self.out = out
        self.first = True
        self.signalled: int | None = None
        self.overflow = Overflow(session.input_limit)
        keys = KeyBindings()
        concept = Condition(lambda: self._concept_answer())
        code = Condition(lambda: self._code_answer())
        self.edited = -1  # the question index the editor was last opened for
        full = Condition(lambda: len(self.prompt.default_buffer.text) >= session.input_limit())

        @keys.add(Keys.Any, filter=full)
        def _drop(event: Any) -> None:  # past the limit: count, do not grow the line
            self.overflow.dropped += len(event.data)

        @keys.add("c-c", filter=Condition(lambda: bool(self.prompt.default_buffer.text)))
        def _clear(event: Any) -> None:  # as in pgcli and IPython: Ctrl-C clears typed text first
            event.current_buffer.reset()

        @keys.add(Keys.BracketedPaste)
        def _paste(event: Any) -> None:
            buf = event.current_buffer
            data = event.data.replace("\r\n", "\n").replace("\r", "\n")
            buf.insert_text(self.overflow.take(data, session.input_limit() - len(buf.text)))

        @keys.add("enter", filter=concept)
        def _enter(event: Any) -> None:
            buf = event.current_buffer
            text = buf.document.text
            if not text.strip() or text.lstrip().startswith(":") or buf.document.current_line == "":
                buf.validate_and_handle()
            else:
                buf.insert_text("\n")

        @keys.add("enter", filter=code)
        def _code_enter(event: Any) -> None:  # a typed function ends with a line :end
            buf = event.current_buffer
            doc = buf.document
            single = "\n" not in doc.text and doc.text.lstrip().startswith(":")
            if single or doc.current_line.strip() == END:
                buf.validate_and_handle()
            else:
                buf.insert_text("\n")

        note = None
        if history is None:
            history, note = _history()
        self.prompt = PromptSession(
            history=AnswersOnly(history, self._is_answer),
            completer=CommandCompleter(), complete_while_typing=False,
            input=input, output=output, key_bindings=keys,
            multiline=concept | code,
            prompt_continuation=lambda width, line, wrap: "...".rjust(width - 1) + " ",
            bottom_toolbar=self.toolbar,
            refresh_interval=0.5,
        )
        if note:
            self.out.echo(note)
        _cap_input(self.prompt.input, self.overflow)

    def _is_answer(self, text: str) -> bool:
        """Up-arrow recalls answers: not commands, self-grades or the Enter after feedback."""
        s = self.session
        return bool(text.strip()) and not text.lstrip().startswith(":") and not (
            s.waiting or s.awaiting_grade)

    def _concept_answer(self) -> bool:
        q = self.session.current()
        s = self.session
        return q is not None and q.kind == "concept" and not s.awaiting_grade and not s.waiting

    def _code_answer(self) -> bool:
        q = self.session.current()
        s = self.session
        return q is not None and q.kind == "code" and not s.waiting

    def _editor_text(self) -> str | None:
        """Open the learner's editor on the question's file; its text, or None (no editor,
        the file left as the scaffold, or the editor failed: said why)."""
        q = self.session.current()
        command = editor()
        if q is None:
            return None
        if command is None:
            self.out.echo(f"No editor: set $VISUAL or $EDITOR, or type the function here, ending "
                          f"with a line {END}")
            return None
        self.edited = self.session.index
        try:
            text = edit(q, command)
        except EditorError as exc:
            self.out.echo(f"{exc}; type the function here instead, ending with a line {END}")
            return None
        if text is None:
            self.out.echo(f"{code_file(q)} is unchanged: :edit opens it again, or type the function "
                          f"here, ending with a line {END} (:skip moves on)")
        return text

    def toolbar(self) -> Any:
        s = self.session
        number, total = s.position()
        q = s.current()
        if s.waiting and s.records:  # a miss waits for Enter: still the question just answered
            number, total = s.position(s.records[-1].index)
            q = s.records[-1].question
        step = f" step {q.part.step}/{q.part.of}" if q is not None and q.part else ""
        parts = [f"Q {number}/{total}{step} {progress_bar(len(s.records), len(s.items))}"]
        if s.deferred:  # feedback at the end: the toolbar must not give verdicts away
            parts.append(f"done {len(s.records)}")  # answered, skipped or timed out
        else:
            parts += [f"score {s.score}/{len(s.records)}", f"streak {s.streak}"]
        parts.append(clock_text(s.elapsed()))
        left = s.remaining()
        if left is not None:
            parts.append(f"<b>{clock_text(left)} left</b>" if left > 10 else
                         f"<style bg='ansired'><b>{clock_text(left)} left</b></style>")
        parts.append(keys_hint(s))
        try:
            width = self.prompt.app.output.get_size().columns
        except Exception:  # noqa: BLE001 - no size known (a pipe in tests): keep everything
            width = 1000
        while len(parts) > 2 and _plain_len(" " + " | ".join(parts)) > width - 1:
            parts.pop(-2 if len(parts) > 3 and "left" in parts[-1] else -1)  # keys go first
        return HTML(" " + " | ".join(parts))

    def _message(self) -> str:
        if self.session.awaiting_grade:
            return "grade> "
        if self.session.waiting:
            return "next> "
        return "answer> "

    async def _ask(self) -> str:
        left = self.session.remaining()
        if left is not None and left <= 0:
            raise _TimeUp
        app = self.prompt.app
        timer = asyncio.ensure_future(self._timer(app, left)) if left is not None else None
        if self.first:  # warm sympy up once the first prompt is drawn, not while drawing it
            self.first = False

            def warm(_: Any) -> None:
                app.after_render -= warm
                warm_up()

            app.after_render += warm
        self.overflow.dropped = 0
        try:
            return await self.prompt.prompt_async(self._message())
        finally:
            if timer is not None:
                timer.cancel()

    async def _timer(self, app: Any, seconds: float) -> None:
        await asyncio.sleep(seconds)
        while not app.is_running:  # the prompt has not started yet: wait for it
            await asyncio.sleep(0.05)
        if not app.is_done:
            app.exit(exception=_TimeUp(app.current_buffer.text))

    def _on_signal(self, signum: int) -> None:
        """SIGTERM/SIGHUP inside the event loop: leave the prompt as :quit would.

        A Python-level handler that raises would be swallowed by asyncio's exception
        handler (prompt_toolkit then waits for Enter), so the loop's own handler asks the
        prompt to exit with Signalled; between prompts it is noted and raised at the top.
        """
        if self.signalled is not None:
            return
        self.signalled = signum
        app = self.prompt.app
        if app.is_running and not app.is_done:
            app.exit(exception=Signalled(signum))

    def _watch_signals(self) -> dict[int, Any]:
        import signal

        loop = asyncio.get_running_loop()
        previous: dict[int, Any] = {}
        for name in ("SIGTERM", "SIGHUP"):
            num = getattr(signal, name, None)
            if num is None:
                continue
            try:
                previous[num] = signal.getsignal(num)
                loop.add_signal_handler(num, self._on_signal, num)
            except (NotImplementedError, RuntimeError, ValueError):
                previous.pop(num, None)
        return previous

    def _unwatch_signals(self, previous: dict[int, Any]) -> None:
        import signal

        loop = asyncio.get_running_loop()
        for num, old in previous.items():
            try:
                loop.remove_signal_handler(num)
                signal.signal(num, old if old is not None else signal.SIG_DFL)
            except (RuntimeError, ValueError):
                pass

    async def main(self) -> Summary:
        previous = self._watch_signals()
        try:
            return await self._main()
        finally:
            self._unwatch_signals(previous)

    async def _main(self) -> Summary:
        s = self.session
        if not s.started:
            self.out.emit(s.start())
        while not s.finished:
            if self.signalled is not None:
                raise Signalled(self.signalled)
            try:
                text = None
                if self._code_answer() and self.edited != s.index and editor() is not None:
                    text = self._editor_text()  # first sight of a code question: the editor
                if text is None:
                    text = await self._ask()
                    if self._code_answer() and text.strip() == ":edit":
                        text = self._editor_text()
                        if text is None:
                            continue
                    elif self._code_answer():
                        text = typed_code(text.splitlines()) or text
                dropped, self.overflow.dropped = self.overflow.dropped, 0
                events = s.too_long(len(text) + dropped) if dropped else s.submit(text)
            except _TimeUp as up:
                events = s.timeout(up.typed)
            except KeyboardInterrupt:
                events = s.skip()
            except EOFError:
                events = s.quit()
            except Exception as exc:  # noqa: BLE001 - never a traceback mid-quiz
                self.out.echo(f"Error: {exc} (the question stays; :skip to move on)")
                continue
            self.out.emit(events)
            if self.out.failure is not None:
                await self._save_failed()
        assert self.out.summary is not None
        return self.out.summary

    async def _save_failed(self) -> None:
        """Pause on an answer that could not be saved: retry, or quit with it reported."""
        out, s = self.out, self.session
        ask = PromptSession(input=self.prompt.input, output=self.prompt.output,
                            history=InMemoryHistory())
        while out.failure is not None:
            out.echo(f"Could not save your answer: {out.failure}\n"
                     "Free some space (or fix the problem), then r to retry; q to end the session "
                     "(the answer is then printed so it is not lost).")
            try:
                choice = (await ask.prompt_async("retry or quit [r/q]> ")).strip().lower()
            except (EOFError, KeyboardInterrupt):
                choice = "q"
            if choice in ("r", "retry", ""):
                out.retry()
            elif choice in ("q", "quit"):
                out.give_up()
                if not s.finished:
                    out.emit(s.quit())


def run_interactive(session: Session, on_record: OnRecord | None = None, *, out: Output | None = None,
                    input: Any = None, output: Any = None, history: History | None = None,
                    echo: Callable[[str], None] | None = None) -> Summary:
    """Run the quiz in prompt_toolkit; ``input``/``output`` let tests use a pipe."""
    if out is None:
        width = display_width()
        out = Output(Style(use_color(sys.stdout), width, CONCEPT_END), on_record, echo)
    if output is None:  # prompt_toolkit draws with its own escape sequences: past the gate
        from prompt_toolkit.output import create_output

        output = create_output(stdout=ungated(sys.stdout))
    runner = Interactive(session, out, input=input, output=output, history=history)
    from prompt_toolkit.application import create_app_session

    try:
        # prompt_toolkit's own messages (an unhandled error) draw past the gate, like its UI
        with create_app_session(input=runner.prompt.input, output=runner.prompt.output):
            return asyncio.run(runner.main())
    except KeyboardInterrupt:  # Ctrl-C while grading, outside the prompt: end cleanly
        if not session.finished:
            out.emit(session.quit())
            if out.failure is not None:  # no prompt to ask retry on any more: report it
                out.give_up()
        assert out.summary is not None
        return out.summary
    finally:
        settle()
