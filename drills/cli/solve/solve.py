"""``drills solve``: the worked DCG@k / IDCG@k / NDCG@k solution, and grading one answer."""

from __future__ import annotations

import sys

import click

from drills.cli.errors import Exit, fail
from drills.cli.options import parse_grades, tolerance_option
from drills.cli.solve.jsonout import dumps
from drills.cli.style import screen_rows, wrap_width
from drills.display import Style, use_color
from drills.engine.metrics.ndcg import ndcg_solution
from drills.engine.metrics.ndcg_text import solution_json, worked_solution
from drills.engine.metrics.registry import SOLVE_METRICS
from drills.engine.problem import AP_CONVENTION_NAMES, Problem, ProblemError
from drills.engine.table import NARROW_BELOW, Layout

_GRADES = frozenset("0123456789,[] ")


class _GradesCommand(click.Command):
    """A run of grades given as separate words (``drills solve $(cat grades.txt)``: 100,000
    of them) reaches click as one word: click's parser takes its arguments one ``pop(0)`` at
    a time, quadratic in their number (0.7 s at 100,000). The command joins RELEVANCE's words
    with spaces anyway, so the text it parses is the same. An option's value is never joined."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        valued = {name for p in self.params if isinstance(p, click.Option) and not p.is_flag
                  and not p.count for name in (*p.opts, *p.secondary_opts)}
        out: list[str] = []
        run: list[str] = []
        for i, arg in enumerate(args):
            if arg == "--":  # the rest as given
                out += [" ".join(run)] if run else []
                return super().parse_args(ctx, out + args[i:])
            if arg and _GRADES.issuperset(arg) and not (i and args[i - 1] in valued):
                run.append(arg)
                continue
            if run:
                out.append(" ".join(run))
                run = []
            out.append(arg)
        if run:
            out.append(" ".join(run))
        return super().parse_args(ctx, out)


@click.command(cls=_GradesCommand, context_settings={"ignore_unknown_options": True})
@click.argument("relevance", metavar="RELEVANCE", nargs=-1)
@click.option("--metric", type=click.Choice(SOLVE_METRICS), default="ndcg", show_default=True,
              help="What to solve (and check --answer against): ndcg, dcg, idcg, ap, precision, "
                   "recall, rprec (R-precision), hit, rr, err, rbp.")
@click.option("--k", "k", type=int, default=None,
              help="Cut-off k: DCG and IDCG both cut at k; P@k, R@k, AP@k, RR@k, ERR@k (default: "
                   "none, the whole ranking and pool).")
@click.option("--judged", default=None, metavar="GRADES",
              help="The query's full judged pool, e.g. 3,2,1,0 (default: the ranked list itself).")
@click.option("--gain", type=click.Choice(["exponential", "linear"]), default="exponential",
              show_default=True,
              help="NDCG's gain: 2^rel - 1 (exponential) or rel (linear); for ndcg, dcg and idcg only.")
@click.option("-l", "--threshold", type=click.IntRange(1, 20), default=1, show_default=True, metavar="T",
              help="Binary metrics count a document relevant when its grade >= T (trec_eval's -l T).")
@click.option("--denominator", type=click.Choice(AP_CONVENTION_NAMES), default="R", show_default=True,
              help="AP's denominator: R (relevant in the pool: trec_eval map), min_k_R (ml_metrics "
                   "apk) or retrieved (relevant retrieved: scikit-learn).")
@click.option("--persistence", default=None, metavar="P",
              help="RBP's persistence p, 0 < p < 1, e.g. 0.8 or 4/5 (default 0.8).")
@click.option("--max-grade", type=click.IntRange(1, 20), default=None, metavar="G",
              help="ERR's and RBP's top grade g_max (default: the largest grade in the pool).")
@click.option("--answer", default=None, metavar="X",
              help="Grade your answer X (0.76, 76%, 7/2, 13/2 + 1/log2(3), ...).")
@click.option("--tolerance", default=None, metavar="TOL",
              help="Accepted error for --answer: 0.01 (absolute), 1% (relative) or both "
                   "0.01,1%. Default: 0.005 or 0.5%, whichever is larger.")
@click.option("--qrels", default=None, metavar="FILE",
              help="TREC qrels (qid iter docno rel): evaluate --run against it, as trec_eval does.")
@click.option("--run", "run_file", default=None, metavar="FILE",
              help="TREC run (qid Q0 docno rank score tag), with --qrels.")
@click.option("--query", "query_ids", multiple=True, metavar="QID",
              help="With --qrels/--run: only this query (repeat for several).")
@click.option("-m", "--measure", "measure_names", multiple=True, metavar="MEASURE",
              help="With --qrels/--run: a trec_eval measure (map, map_cut.K, P.K, recall.K, Rprec, "
                   "recip_rank, ndcg, ndcg_cut.K, success.K, err.K, rbp.P); repeat for several.")
@click.option("-c", "--complete_rel_info_wanted", "complete", is_flag=True,
              help="With --qrels/--run: average over every judged query, a query the run lacks "
                   "scoring 0 (trec_eval -c).")
@click.option("-M", "--Max_retrieved_per_topic", "depth", type=click.IntRange(min=1), default=None,
              metavar="N", help="With --qrels/--run: only the first N documents of each query, "
                                "after ranking (trec_eval -M).")
@click.option("--all", "all_rows", is_flag=True,
              help="Show every rank of a long list (default: the tables fit one screen).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (every row).")
def solve(relevance: tuple[str, ...], metric: str, k: int | None, judged: str | None, gain: str,
          threshold: int, denominator: str, persistence: str | None, max_grade: int | None,
          answer: str | None, tolerance: str | None, qrels: str | None, run_file: str | None,
          query_ids: tuple[str, ...], measure_names: tuple[str, ...], complete: bool,
          depth: int | None, all_rows: bool, as_json: bool) -> None:
    """Solve a ranking metric for RELEVANCE, the grades in ranked order (2,1,3,0 or 2 1 3 0),
    step by step; or evaluate a TREC run against its qrels (--qrels, --run).

    RELEVANCE holds up to 100,000 grades, each from 0 to 20 (--judged too); `[2, 1, 3, 0]`,
    as prompts print it, works as well.

    Without --k NDCG is uncut: DCG over the whole ranking, IDCG over the whole judged pool
    (trec_eval's and ranx's ndcg). With --k K both are cut at K. The output says which.

    \b
    Examples:
      drills solve 2,1,3,0 --judged 3,2,1,0
      drills solve 2,1,3,0 --k 2 --gain linear
      drills solve 2,1,3,0 --answer 0.8675      # graded, and the slip named
      drills solve 1,0,1,1,0 --judged 1,1,1,1,0 --metric ap --answer 0.8056
      drills solve 2,1,3,0 --metric err --k 4
      drills solve --qrels qrels.txt --run run.txt -m map -m P.10
    Exit codes: 0 ok (or answer correct), 1 answer not correct, 2 bad input.
    """
    unknown = [arg for arg in relevance if arg.startswith("--")]
    if unknown:  # unknown options reach RELEVANCE (so that -1 gets the "negative" message)
        fail(f"no such option: {unknown[0]} (see drills solve --help)")
    if qrels is not None or run_file is not None:
        if relevance:
            fail("give either RELEVANCE or --qrels with --run, not both")
        if qrels is None or run_file is None:
            fail("--qrels and --run go together: give both files")
        from drills.cli.solve.trec import solve_files  # lazy: the TREC evaluator, for --qrels only

        solve_files(qrels, run_file, query_ids, measure_names, threshold, as_json, all_rows,
                    complete, depth)
        return
    if query_ids or measure_names or complete or depth is not None:
        fail("--query, -m/--measure, -c and -M go with --qrels and --run")
    if not relevance:
        fail("give the relevance grades in ranked order, e.g. drills solve 2,1,3,0 "
             "(or --qrels FILE --run FILE)")
    if metric not in ("ndcg", "dcg", "idcg"):
        source = click.get_current_context().get_parameter_source("gain")
        if source is click.core.ParameterSource.COMMANDLINE:
            fail(f"--gain is NDCG's (and DCG's, IDCG's): {metric} "
                 + ("takes the grades as (2^g - 1) / 2^g_max (see --max-grade)"
                    if metric in ("err", "rbp") else "counts a document relevant at --threshold"))
        from drills.cli.solve.metric import solve_metric  # lazy: grading, not for --qrels

        solve_metric(relevance, metric, k, judged, threshold, denominator, persistence, max_grade,
                     answer, tolerance, all_rows, as_json)
        return
    if threshold != 1 or denominator != "R" or persistence is not None or max_grade is not None:
        fail(f"--threshold, --denominator, --persistence and --max-grade are for the other metrics; "
             f"{metric} uses the grades with --gain")
    unknown = [arg for arg in relevance if arg.startswith("--")]
    if unknown:  # unknown options reach RELEVANCE (so that -1 gets the "negative" message)
        fail(f"no such option: {unknown[0]} (see drills solve --help)")
    grades = parse_grades(" ".join(relevance))
    pool = parse_grades(judged, "judged") if judged is not None else None
    override = tolerance_option(tolerance)
    problem = Problem(grades, pool, k, gain)
    try:
        sol = ndcg_solution(problem)
    except ProblemError as exc:
        fail(str(exc))
    outcome = None
    if answer is not None:
        from drills.cli.solve import verdict  # lazy: grading (50 ms of imports), for --answer only

        outcome = verdict.check_answer(problem, metric, answer, override)
        if outcome.verdict == "invalid" and not as_json:  # unreadable: a usage error, like the rest
            fail(outcome.summary.splitlines()[0])
    if as_json:
        data = solution_json(sol)
        if outcome is not None:
            data["check"] = verdict.check_json(outcome, answer, metric)
        click.echo(dumps(data))
    else:
        width = wrap_width()
        style = Style(color=use_color(sys.stdout), width=width)
        printed = verdict.echo_verdict(outcome, style) if outcome is not None else 0
        rows = 10**6 if all_rows else max(8, (screen_rows() - 16) // 2)
        layout = Layout(narrow=width < NARROW_BELOW, max_rows=rows,
                        exact_width=None if all_rows else max(40, width - 20))
        body = style.wrap(worked_solution(sol, layout))
        click.echo(body)
        if outcome is not None:
            verdict.echo_verdict_again(outcome, style, printed + body.count("\n") + 1)
    if outcome is not None:
        sys.exit(Exit.OK if outcome.correct else Exit.USAGE if outcome.verdict == "invalid" else Exit.FAILED)


