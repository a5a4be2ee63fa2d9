"""``drills code``: list the coding questions, open one in your editor, check a file.

Grading is ``drills.cli.quiz.code_grader``'s, the quiz's own: the learner's function runs in
a separate, limited process on hidden cases; nothing the learner writes is imported.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from drills.cli.errors import Exit, fail
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


@click.group(cls=CodeGroup, invoke_without_command=True)
@click.option("--list", "as_list", is_flag=True, help="List the coding questions (the default).")
@click.option("--json", "as_json", is_flag=True, help="With --list: one JSON array.")
@click.pass_context
def code(ctx: click.Context, as_list: bool, as_json: bool) -> None:
    """The coding round: implement a metric, graded on hidden cases, the bug named.

    \b
    Examples:
      drills code                                  # list the coding questions
      drills code coding.ndcg-at-k                 # open it in $VISUAL/$EDITOR, then check it
      drills code check ndcg.py --question coding.ndcg-at-k --json
    Exit codes: 0 all cases pass (or a list), 1 a case failed, 2 bad input.
    """
    if ctx.invoked_subcommand is not None:
        if as_list or as_json:
            fail("--list and --json go before no subcommand: drills code --list --json")
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
    width = max(len(q.id) for q in questions)
    for q in questions:
        click.echo(f"{visible(q.id).ljust(width)}  {q.difficulty:<6}  {visible(q.signature or '')}")
    click.echo(f"\n{len(questions)} questions. `drills code ID` opens one in your editor; "
               "`drills code check FILE --question ID` grades a file.")


@code.command("open", hidden=True)
@click.argument("question_id")
def open_question(question_id: str) -> None:
    """Open question QUESTION_ID in your editor, then check what you wrote."""
    from drills.tui.codeinput import (  # lazy: subprocess, only to open the editor
        EditorError,
        code_file,
        edit,
        editor,
        scaffold_file,
    )

    q = _find(question_id)
    command = editor()
    if command is None:
        path = scaffold_file(q)
        click.echo(f"No editor set ($VISUAL or $EDITOR). Your file is {path}; write the function "
                   f"there, then: drills code check {path} --question {q.id}")
        return
    try:
        source = edit(q, command)
    except EditorError as exc:
        fail(str(exc))
    if source is None:
        click.echo(f"{code_file(q)} is unchanged: nothing to check.")
        return
    sys.exit(_report(q, source, as_json=False))


@code.command("check")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--question", "question_id", required=True, metavar="ID", help="The code question's id.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def check(file: Path, question_id: str, as_json: bool) -> None:
    """Grade FILE's function for question ID on its hidden cases."""
    from drills.coding.text import SourceError, source_text  # lazy: only to check a file

    q = _find(question_id)
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
    sys.exit(_report(q, source, as_json=as_json))


def _report(question: Any, source: str, *, as_json: bool) -> int:
    """Grade ``source`` and print the result; the exit code."""
    from drills.cli.quiz.code_grader import check_source  # lazy: the grader, to check a file only
    from drills.coding.grade import case_text, outcome_of  # lazy: as above
    from drills.grading.check import explain  # lazy: as above

    result = check_source(question, source)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        outcome = outcome_of(question, "", result)
        click.echo(explain(outcome, steps=True))
        failed = [c for c in result.cases if not c.ok and c.error != "not run"]
        if len(failed) > 1:
            click.echo(f"\nOther failed cases ({len(failed) - 1}):")
            for c in failed[1:6]:
                click.echo("  " + visible(case_text(c)))
            if len(failed) > 6:
                click.echo(f"  ... and {len(failed) - 6} more (--json lists every case)")
        if result.output.strip():
            shown = "\n".join(visible(line) for line in result.output.strip().splitlines()[:10])
            click.echo(f"\nYour function printed:\n{shown}")
    return Exit.OK if result.verdict == "correct" else Exit.FAILED
