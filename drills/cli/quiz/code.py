"""``drills code``: list the coding questions, open one in your editor (or type it, ending
with a line ``:end``), check a file, or run a file on the visible examples alone.

Grading is ``drills.cli.quiz.code_grader``'s, the quiz's own: the learner's function runs in
a separate, limited process on hidden cases; nothing the learner writes is imported. A check
is recorded in the history as practice records an answer (``code_record``); a run of the
examples alone is not. The text is ``code_report``'s.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from drills.cli.errors import Exit, fail
from drills.cli.style import echo_prose, wrap_width
from drills.packs import discover
from drills.packs.errors import suggest
from drills.safetext import visible

MAX_FILE_BYTES = 100_000


def _code_questions() -> list[Any]:
    return [q for q in discover().questions if q.kind == "code"]


def _find(question_id: str) -> Any:
    questions = _code_questions()
    for q in questions:
        if q.id == question_id:
            return q
    ids = [q.id for q in questions]
    fail(f"no code question {question_id!r}" + (suggest(question_id, ids) or
                                                 f"; `drills code --list` shows the {len(ids)} there are"))


class CodeGroup(click.Group):
    """``drills code ID`` opens question ID; ``drills code check ...`` checks a file."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["open", *args]
        return super().resolve_command(ctx, args)


PYTHON_HELP = ("Run your code under this Python 3.10+ (with its own numpy, pandas, "
               "scikit-learn); default: [code] python in config.toml, else drills' own.")


def _python(path: str | None) -> None:
    """Choose the interpreter of the learner's code, or fail (exit 2) saying why."""
    from drills.cli.quiz.code_grader import PythonError, choose_python  # lazy: to check only

    try:
        choose_python(path)
    except PythonError as exc:
        fail(str(exc))


@click.group(cls=CodeGroup, invoke_without_command=True)
@click.option("--list", "as_list", is_flag=True, help="List the coding questions (the default).")
@click.option("--json", "as_json", is_flag=True, help="With --list: one JSON array.")
@click.option("--python", "python", metavar="PATH", help=PYTHON_HELP)
@click.pass_context
def code(ctx: click.Context, as_list: bool, as_json: bool, python: str | None) -> None:
    """The coding round: implement a metric, graded on hidden cases, the bug named.

    \b
    Examples:
      drills code                                  # list the coding questions
      drills code coding.ndcg-at-k        # write it in $EDITOR (or type it)
      drills code check f.py --question coding.ndcg-at-k --examples
      drills code check f.py --question coding.ndcg-at-k --json
      drills code check f.py --question coding.ndcg-at-k --python ~/venv/bin/python
    A check runs the visible examples and the hidden cases and is recorded in
    your history (`drills stats`); --examples runs the examples alone, unrecorded.
    Exit codes: 0 all cases pass (or a list), 1 a case failed, 2 bad input.
    """
    if ctx.invoked_subcommand is not None:
        if as_list or as_json:
            fail("--list and --json go before no subcommand: drills code --list --json")
        ctx.meta["drills.code.python"] = python
        return
    questions = _code_questions()
    if as_json:
        click.echo(json.dumps([{"id": q.id, "function": q.function, "signature": q.signature,
                                "topic": q.topic, "difficulty": q.difficulty} for q in questions],
                              indent=2))
        return
    if not questions:
        click.echo("No coding questions in your packs.")
        return
    import textwrap  # lazy: only to list

    width = max(len(visible(q.id)) for q in questions)
    room = wrap_width() - 1
    lead = width + 10 if room - (width + 10) >= 30 else 4  # a long signature hangs under itself
    for q in questions:
        signature = visible(q.signature or "").replace("def ", "def\0", 1)  # "def" stays with its name
        line = f"{visible(q.id).ljust(width)}  {q.difficulty:<6}  {signature}"
        click.echo("\n".join(textwrap.wrap(line, room, subsequent_indent=" " * lead,
                                            break_long_words=False, break_on_hyphens=False)
                             ).replace("\0", " "))
    click.echo("")
    echo_prose(f"{len(questions)} questions. `drills code ID` opens one in your editor (or lets "
               "you type it); `drills code check FILE --question ID` grades a file, and "
               "`--examples` runs only its visible examples.")


@code.command("open", hidden=True)
@click.argument("question_id")
@click.option("--python", "python", metavar="PATH", help=PYTHON_HELP)
@click.pass_context
def open_question(ctx: click.Context, question_id: str, python: str | None) -> None:
    """Open question QUESTION_ID in your editor (or type it), then check it and record it."""
    from drills.cli.store_access import open_store  # lazy: the history, only to record a check

    q = _find(question_id)
    _python(python or ctx.meta.get("drills.code.python"))
    store = open_store()  # before the writing: a history that cannot be opened is said at once
    try:
        start = time.monotonic()
        source = _written(q)
        if source is None:
            return
        status = _report(q, source, store=store, seconds=time.monotonic() - start, command="code")
    finally:
        store.close()
    sys.exit(status)


def _written(question: Any) -> str | None:
    """The function from the learner's editor, or typed here ending with a line :end (no
    editor set); None when nothing is to be checked (said why)."""
    from drills.tui.codeinput import (  # lazy: subprocess, only to open the editor
        END,
        EditorError,
        code_file,
        edit,
        editor,
        read_typed,
        scaffold_file,
    )

    command = editor()
    if command is not None:
        try:
            source = edit(question, command)
        except EditorError as exc:
            fail(str(exc))
        if source is None:
            click.echo(f"{visible(str(code_file(question)))} is unchanged: nothing to check.")
        return source
    from drills.cli.quiz.code_report import echo_task  # lazy: the task's text, only to type it

    path = visible(str(scaffold_file(question)))
    echo_task(question)
    click.echo("")
    echo_prose(f"No editor set ($VISUAL or $EDITOR): type the function here and end it with a "
               f"line {END} (:quit cancels). Or write it in {path}, then: drills code check "
               f"{path} --question {visible(question.id)}")
    source = read_typed(sys.stdin)
    if source is None:
        click.echo("Nothing typed: nothing to check.")
    return source


@code.command("check")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--question", "question_id", required=True, metavar="ID", help="The code question's id.")
@click.option("--examples", is_flag=True,
              help="Run only the question's visible examples (not recorded), as a run before "
                   "submitting.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--python", "python", metavar="PATH", help=PYTHON_HELP)
@click.pass_context
def check(ctx: click.Context, file: Path, question_id: str, examples: bool, as_json: bool,
          python: str | None) -> None:
    """Grade FILE's function for question ID on its examples and hidden cases, and record it.

    With --examples, run it on the visible examples alone and record nothing.
    """
    from drills.coding.text import SourceError, source_text  # lazy: only to check a file

    q = _find(question_id)
    _python(python or ctx.meta.get("drills.code.python"))
    shown = visible(str(file))
    try:
        if not file.is_file():
            fail(f"no such file: {shown}" if not file.exists() else f"{shown} is not a regular file")
        if file.stat().st_size > MAX_FILE_BYTES:
            fail(f"{shown} is over {MAX_FILE_BYTES // 1000} kB: a solution is one function")
        source = source_text(file.read_bytes(), shown)
    except SourceError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot read {shown}: {exc.strerror or exc}")
    if examples:
        if not q.task.examples:
            fail(f"{visible(q.id)} has no visible examples: check it without --examples")
        sys.exit(_report(q, source, as_json=as_json, note=_examples_note(q, shown)))
    from drills.cli.store_access import open_store  # lazy: the history, only to record a check

    store = open_store()
    try:
        status = _report(q, source, as_json=as_json, store=store, command="code check")
    finally:
        store.close()
    sys.exit(status)


def _examples_note(question: Any, shown: str) -> str:
    from drills.coding.grade import all_cases  # lazy: the hidden cases, only to count them

    total, seen = len(all_cases(question)), len(question.task.examples)
    return (f"Only the {seen} visible example{'' if seen == 1 else 's'} ran, not the "
            f"{total - seen} hidden cases, and nothing was recorded. Without --examples, "
            f"`drills code check {shown} --question {visible(question.id)}` runs all {total} "
            "and records the attempt.")


def _report(question: Any, source: str, *, as_json: bool = False, store: Any = None,
            seconds: float = 0.0, command: str = "", note: str = "") -> int:
    """Grade ``source``, record it in ``store`` (None: the examples alone, not recorded) and
    print the result; the exit code (1 when it failed or could not be recorded)."""
    from drills.cli.quiz.code_grader import check_source  # lazy: the grader, to check a file only
    from drills.cli.quiz.code_record import record_check  # lazy: as above
    from drills.cli.quiz.code_report import echo_check, layout_for, style_now  # lazy: as above
    from drills.coding.grade import outcome_of  # lazy: as above
    from drills.safetext import json_text  # lazy: as above
    from drills.store import StoreError  # lazy: as above

    result = check_source(question, source, examples_only=store is None)
    style = style_now()
    outcome = outcome_of(question, source, result, layout_for(style))
    recorder, problem = None, ""
    if store is not None:
        try:
            recorder = record_check(store, question, source, outcome, seconds, command)
        except StoreError as exc:
            problem = str(exc)
    lost = bool(problem) or (recorder is not None and (recorder.failed or recorder.schedule_failed))
    if as_json:
        data = result.to_json()
        data["recorded"] = store is not None and not problem and not recorder.failed
        click.echo(json_text(data, indent=2))
    else:
        echo_check(question, result, outcome, style, note)
    if recorder is not None:
        recorder.report_unsaved()
    if problem:
        click.echo(f"Error: the check was not recorded in the history: {problem}", err=True)
    return Exit.FAILED if lost or result.verdict != "correct" else Exit.OK
