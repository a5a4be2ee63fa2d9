"""``drills stats``: progress at a glance, or ``--json`` for scripts.

Kept light on imports (no sympy, no prompt_toolkit): it must start and answer in well
under a second on a 100,000-answer history.
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone

import click

from drills.cli.due_now import stats_review
from drills.cli.errors import fail
from drills.cli.stats.report import REPORT_WIDTH, headline, render
from drills.cli.store_access import history_store
from drills.cli.style import echo_paged, painter, report_width, unicode_ok
from drills.display import use_color
from drills.safetext import json_text
from drills.store.progress import stats as compute


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--from", "sources", metavar="EXPORT.json", multiple=True,
              type=click.Path(dir_okay=True, path_type=str),
              help="Read these history exports (drills history export --format json) "
                   "instead of your history; repeat for several.")
@click.option("--by", "by", type=click.Choice(["learner"]), default=None,
              help="With --from: one row per learner (the name each export carries).")
def stats(as_json: bool, sources: tuple[str, ...], by: str | None) -> None:
    """Show your progress: accuracy by topic and kind, trend, streaks, slips to practise.

    \b
    With --from, the report is over the exports given (an instructor's class report:
    add --by learner for one row per learner, with accuracy by topic and the most
    frequent slips); your own history is not opened.
    """
    if by is not None and not sources:
        fail("--by learner reads exports: give them with --from EXPORT.json")
    if sources:
        from drills.cli.stats.class_report import report_from  # lazy: only for --from

        report_from(list(sources), by, as_json)
        return
    now = datetime.now(timezone.utc)
    with history_store(readonly=True) as store:
        data = compute(store, now)
        # due as `drills review` and the end of a review count it (drills.cli.due_now)
        data["review"] = stats_review(store, now, data["review"]["cards"])
    if as_json:
        click.echo(json_text(data, indent=2, sort_keys=True))
        return
    if not data["attempts"]:
        click.echo("No answers recorded yet. Run `drills` to start a practice session; "
                   "your progress will show up here.")
        return
    color = use_color(sys.stdout)  # click.echo would strip the codes off a pipe unless told
    paint, width = painter(color), report_width(REPORT_WIDTH)
    echo_paged(render(data, unicode=unicode_ok(), now=now, paint=paint, width=width), color=color,
               last="\n".join(headline(data, width, paint)))
