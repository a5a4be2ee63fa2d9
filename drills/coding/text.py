"""The text a learner sees for code: a find-the-bug snippet with line numbers, a coding
question's signature and examples, and the scaffold file the editor opens. Pure."""

from __future__ import annotations

from drills.model import Question


class SourceError(ValueError):
    """A solution file that is not text Python could read."""


def numbered(code: str) -> str:
    """``code`` with right-aligned line numbers, as an interviewer's "which line" refers to them."""
    lines = code.rstrip("\n").expandtabs(4).splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{n:>{width}} | {line}".rstrip() for n, line in enumerate(lines, start=1))


def examples_text(question: Question) -> list[str]:
    """``ndcg_at_k([3, 2, 3, 0, 1, 2], 6) -> 0.9488...`` for each visible example."""
    from drills.coding.task import problem_for  # deferred: not needed before the first question
    from drills.engine.exact import decimal_text  # deferred: not needed before the first question
    from drills.engine.metrics.registry import (
        metric_value,  # deferred: not needed before the first question
    )

    task = question.task
    out = []
    for call in task.examples:
        value = metric_value(problem_for(task, call), task.metric)
        args = ", ".join(repr(a) for a in call)
        out.append(f"{question.function}({args}) -> {decimal_text(value.decimal(), 10)}")
    return out


def code_lines(question: Question) -> list[str]:
    """What follows the prompt, verbatim (never reflowed: indentation is meaning): a snippet's
    numbered lines, or a code question's signature and examples; [] for other questions."""
    lines: list[str] = []
    if question.code:
        lines += ["", *numbered(question.code).splitlines()]
    if question.kind == "code" and question.task is not None:
        lines += ["", question.signature or ""]
        examples = examples_text(question)
        if examples:
            lines += ["Examples:", *(f"  {e}" for e in examples)]
    return lines


def display_prompt(question: Question) -> str:
    """The prompt as shown, with its code lines."""
    return "\n".join([question.prompt.rstrip(), *code_lines(question)])


def scaffold(question: Question) -> str:
    """The file the learner's editor opens: the task as a docstring, the signature, a stub."""
    signature = (question.signature or f"def {question.function}():").rstrip()
    if not signature.startswith("def "):
        signature = "def " + signature
    if not signature.endswith(":"):
        signature += ":"
    doc = [*question.prompt.strip().splitlines(), ""]
    examples = examples_text(question)
    if examples:
        doc += ["Examples:", *(f"    {e}" for e in examples), ""]
    doc.append("Save and close the editor to submit; drills runs it on hidden cases.")
    body = "\n".join(f"    {line}".rstrip() for line in doc).replace('"""', "'''")
    return (f"# drills coding question {question.id}\n\n\n{signature}\n"
            f'    """\n{body}\n    """\n    raise NotImplementedError\n')


def source_text(data: bytes, name: str) -> str:
    """A Python file's bytes as text, decoded as Python would: a UTF-8 BOM or a
    ``# -*- coding: ... -*-`` line honoured (an editor's Windows save runs as it would)."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        raise SourceError(f"{name} is not UTF-8 text (nor in the encoding its coding line names)") from None
    return text[1:] if text.startswith("\ufeff") else text
