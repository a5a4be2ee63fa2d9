"""``drills generate``: a printable worksheet (plain text, Markdown or JSON) with an answer key.

It calls ``drills.quiz.plan.plan`` with the same options ``drills practice`` takes, so a
sheet made with a seed lists exactly the questions that seed's practice session asks.
Output is a pure function of the seed and the options (byte-identical on a rerun).
"""

from __future__ import annotations

import sys

import click

from drills.cli.catalog import check_topics, load_questions
from drills.cli.completion import (
    complete_difficulty,
    complete_generators,
    complete_packs,
    complete_topics,
)
from drills.cli.errors import fail
from drills.cli.options import check_count, check_difficulty, check_seed, pick_seed
from drills.cli.style import echo_paged
from drills.display import display_width
from drills.generators import REGISTRY
from drills.generators.instantiate import GenerationError
from drills.publish.worksheet import markdown_sheet, text_sheet
from drills.quiz.plan import item_json, plan, prepared_all
from drills.safetext import json_text


@click.command()
@click.option("--seed", type=int, default=None,
              help="Seed for the selection and the generated variants (default: random, printed on stderr).")
@click.option("--count", type=int, default=10, show_default=True, help="Number of questions.")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC", shell_complete=complete_topics,
              help="Only this topic (repeatable).")
@click.option("--difficulty", default=None, metavar="LEVEL", help="Only easy, medium or hard questions.",
              shell_complete=complete_difficulty)
@click.option("--pack", "packs", multiple=True, metavar="P", shell_complete=complete_packs,
              help="Use only pack P: a pack name (see `drills packs list`) or a pack file or "
                   "folder (repeatable). Default: every pack.")
@click.option("--generator", "generators", multiple=True, metavar="NAME", shell_complete=complete_generators,
              help="Only the questions this generator makes, e.g. swap-delta (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of items with answers.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print Markdown instead of plain text.")
def generate(seed: int | None, count: int, topics: tuple[str, ...], difficulty: str | None,
             packs: tuple[str, ...], generators: tuple[str, ...], as_json: bool,
             as_markdown: bool) -> None:
    """Print a worksheet of questions with an answer key and worked solutions.

    \b
    Examples:
      drills generate --seed 7 --count 5
      drills generate --topic hand-computation --markdown > sheet.md
      drills generate --seed 7 --json
    The same seed and options print the same sheet; `drills practice` with that seed
    asks the same questions.

    \b
    Generators (used by packs' `generated` questions; see docs/generators.md):
      ndcg-hand, swap-delta, compare-rankings, binary-vs-graded, single-relevant,
      ndcg-at-1-binary, gain-ratio, discount-at-rank, edge-case, ap-hand, map-queries,
      precision-recall, mrr-queries, err-hand, map-vs-ndcg, ctr-lift, paired-test, cuped,
      delta-method-ctr, srm-chi-square, off-policy, ads-calibration, ads-auc, pr-area,
      sampled-softmax
    Scenario generators (a whole follow-up chain; see docs/scenarios.md):
      ndcg-chain, binary-graded-chain, lambdarank-swap-chain, ndcg-vs-mrr-chain
    """
    if as_json and as_markdown:
        fail("choose one of --json and --markdown")
    check_count(count)
    check_seed(seed)
    check_difficulty(difficulty)
    questions = load_questions(packs, topics)
    if generators:
        unknown = [g for g in generators if g not in REGISTRY]
        if unknown:
            fail(f"unknown generator {unknown[0]!r} (generators: {', '.join(sorted(REGISTRY))})")
        questions = [q for q in questions if q.generator in generators]
        if not questions:
            fail(f"no question in these packs uses {', '.join(generators)}", 1)
    check_topics(topics, questions)
    if seed is None:
        seed = pick_seed(None)
        click.echo(f"seed {seed} (rerun with --seed {seed} for the same sheet)", err=True)
    try:
        items = prepared_all(plan(questions, seed=seed, count=count, topics=topics,
                                  difficulty=difficulty))
    except GenerationError as exc:
        fail(str(exc), 1)
    if not items:
        fail("no questions match these options")
    if as_json:
        click.echo(json_text([item_json(q) for q in items], indent=2, ensure_ascii=False))
    else:
        if as_markdown:
            echo_paged(markdown_sheet(items, seed).rstrip("\n"))
        else:  # a terminal narrower than the sheet gets its own width; a file always 78
            width = min(display_width(), 78) if sys.stdout.isatty() else 78
            echo_paged(text_sheet(items, seed, width).rstrip("\n"))
