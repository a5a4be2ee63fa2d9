"""``drills grade QUESTION_ID --answer TEXT [--json]``: grade one answer to any question,
non-interactively, exactly as the quiz would.

A concept question is graded by its rubric (verdict, key points with evidence, wrong
beliefs with their corrections); a numeric or choice question by the quiz's ``check``
(its JSON is ``drills solve --answer --json``'s "check" object); a scenario's step is
``ID#N`` (a numeric step graded as if the earlier steps were right). Exit 0 for a correct
answer, 1 for partial, close or wrong, 2 for an unknown id or bad input.
"""

from __future__ import annotations

import click

from drills.cli.catalog import load_questions
from drills.cli.errors import Exit, fail
from drills.model import Question
from drills.safetext import visible

GRADED_KINDS = ("concept", "numeric", "choice", "generated")


def find_question(ident: str, questions: list[Question]) -> Question:
    """The question (or scenario step, ``ID#N``) with id ``ident``; fails with exit 2."""
    base, _, step = ident.partition("#")
    found = next((q for q in questions if q.id == base), None)
    if found is None:
        import difflib  # stdlib: only to suggest a near id

        close = difflib.get_close_matches(base, [q.id for q in questions], n=1)
        fail(f"unknown question id {visible(base)!r}" + (f"; did you mean {close[0]!r}?" if close else "")
             + " (`drills packs list` names the packs; ids are in their YAML)")
    if found.kind == "scenario" or found.generator:
        # deferred: only a generated question or a scenario is drawn
        from drills.generators.instantiate import GenerationError, instantiate, item_rng

        try:
            found = instantiate(found, item_rng(0, 0, found.id))
        except GenerationError as exc:
            fail(str(exc), Exit.FAILED)
    if found.kind == "scenario":
        if not step.isdigit() or not 1 <= int(step) <= len(found.steps):
            fail(f"{base} is a scenario of {len(found.steps)} steps: grade a step as {base}#N "
                 f"(N from 1 to {len(found.steps)})")
        return found.steps[int(step) - 1]
    if step:
        fail(f"{base} is not a scenario: drop #{visible(step)}")
    if found.kind not in GRADED_KINDS:
        fail(f"{base} is a {found.kind} question: grade code with `drills code check`")
    return found


@click.command()
@click.argument("question_id", metavar="QUESTION_ID")
@click.option("--answer", "answer", required=True, metavar="TEXT",
              help="The answer to grade (a number, a letter, or a concept answer's text).")
@click.option("--json", "as_json", is_flag=True, help="Print the grade as JSON.")
@click.option("--pack", "packs", multiple=True, metavar="P", help="Look in this pack only (repeatable).")
def grade(question_id: str, answer: str, as_json: bool, packs: tuple[str, ...]) -> None:
    """Grade one answer to a question, by id (a scenario step as ID#N).

    \b
    Exit 0 when correct, 1 when partial, close or wrong, 2 for an unknown id or bad input.
    \b
    Examples:
      drills grade mrr-single-relevant-identity --answer "NDCG = 1/r, same as RR"
      drills grade norm-idcg-at-2 --answer 4.26 --json
      drills grade scn-ndcg-chain#2 --answer 0.77
    """
    if not answer.strip():
        fail("--answer is empty: give the answer to grade")
    q = find_question(question_id, load_questions(packs))
    if q.kind == "concept":
        from drills.cli.grade_concept import report_concept  # deferred: the concept grader

        verdict = report_concept(q, question_id, answer, as_json)
    else:
        from drills.cli.grade_concept import report_checked  # deferred: the grader (sympy)

        verdict = report_checked(q, question_id, answer, as_json)
    if verdict != "correct":
        raise click.exceptions.Exit(Exit.FAILED)

