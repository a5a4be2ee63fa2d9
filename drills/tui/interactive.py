"""The prompt_toolkit front end: history, a live bottom toolbar, per-question timeouts.

Each question is one ``prompt_async`` call. A timer task calls ``app.exit`` with a
private exception when the question's time runs out, so the session records a
timeout and the next question comes. Ctrl-C skips, Ctrl-D quits; a concept answer
is multi-line and ends with an empty line (or Esc then Enter).
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Callable
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings

from drills.session import Session, Summary
from drills.tui import CONCEPT_END, OnRecord, Output, settle, warm_up
from drills.tui.render import Style, clock_text, use_color


class _TimeUp(Exception):
    """Raised out of the prompt by the timer task, with the text typed so far."""

    def __init__(self, typed: str = "") -> None:
        super().__init__(typed)
        self.typed = typed


def _history() -> History:
    try:
        from drills.paths import home

        path = home()
        if path.is_dir():
            return FileHistory(str(path / "answer_history"))
    except OSError:
        pass
    return InMemoryHistory()


class Interactive:
    """Drive a Session from a PromptSession until it finishes."""

    def __init__(self, session: Session, out: Output, *, input: Any = None, output: Any = None,
                 history: History | None = None) -> None:
        self.session = session
        self.out = out
        self.first = True
        keys = KeyBindings()
        concept = Condition(lambda: self._concept_answer())

        @keys.add("enter", filter=concept)
        def _enter(event: Any) -> None:
            buf = event.current_buffer
            text = buf.document.text
            if not text.strip() or text.lstrip().startswith(":") or buf.document.current_line == "":
                buf.validate_and_handle()
            else:
                buf.insert_text("\n")

        self.prompt = PromptSession(
            history=history if history is not None else _history(),
            input=input, output=output, key_bindings=keys,
            multiline=concept,
            prompt_continuation=lambda width, line, wrap: "...".rjust(width - 1) + " ",
            bottom_toolbar=self.toolbar,
            refresh_interval=0.5,
        )

    def _concept_answer(self) -> bool:
        q = self.session.current()
        return q is not None and q.kind == "concept" and not self.session.awaiting_grade

    def toolbar(self) -> Any:
        s = self.session
        parts = [f"Q {min(s.index + 1, len(s.items))}/{len(s.items)}"]
        if s.deferred:  # feedback at the end: the toolbar must not give verdicts away
            parts.append(f"done {len(s.records)}")  # answered, skipped or timed out
        else:
            parts += [f"score {s.score}/{len(s.records)}", f"streak {s.streak}"]
        parts.append(clock_text(s.elapsed()))
        left = s.remaining()
        if left is not None:
            parts.append(f"<b>{clock_text(left)} left</b>" if left > 10 else
                         f"<style bg='ansired'><b>{clock_text(left)} left</b></style>")
        parts.append("Ctrl-C skip  Ctrl-D quit")
        return HTML(" " + " | ".join(parts))

    def _message(self) -> str:
        if self.session.awaiting_grade:
            return "grade> "
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

    async def main(self) -> Summary:
        s = self.session
        if not s.started:
            self.out.emit(s.start())
        while not s.finished:
            try:
                text = await self._ask()
                events = s.submit(text)
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
        assert self.out.summary is not None
        return self.out.summary


def run_interactive(session: Session, on_record: OnRecord | None = None, *, out: Output | None = None,
                    input: Any = None, output: Any = None, history: History | None = None,
                    echo: Callable[[str], None] | None = None) -> Summary:
    """Run the quiz in prompt_toolkit; ``input``/``output`` let tests use a pipe."""
    if out is None:
        width = shutil.get_terminal_size().columns
        out = Output(Style(use_color(sys.stdout), width, CONCEPT_END), on_record, echo)
    runner = Interactive(session, out, input=input, output=output, history=history)
    try:
        return asyncio.run(runner.main())
    except KeyboardInterrupt:  # Ctrl-C while grading, outside the prompt: end cleanly
        if not session.finished:
            out.emit(session.quit())
        assert out.summary is not None
        return out.summary
    finally:
        settle()
