"""TREC evaluation that streams (issue 25): the float evaluation one query at a time equals the
exact engine on random files, trec_eval's own outputs with -c and -M, files of any size in
bounded memory, and the bad lines still named.

Expected values: the exact engine (``drills.trec.evaluate.evaluate``: Fractions and LogSums,
a different ranking and different formulas from the float path), trec_eval's printed test
outputs (tests/fixtures/trec), and rankings sorted here by hand.
"""

from __future__ import annotations

import math
import random
import sys
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drills.cli import cli
from drills.trec.evaluate import evaluate
from drills.trec.files import parse_qrels, parse_run
from drills.trec.names import parse_measures
from drills.trec.reading import Invalid, read_qrels
from drills.trec.stream import evaluate_stream

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
HERE = Path(__file__).resolve().parent / "fixtures" / "trec"
NAMES = ("map", "map_cut.5", "P.1", "P.5", "P.20", "recall.3", "recall.100", "Rprec",
         "recip_rank", "ndcg", "ndcg_cut.3", "ndcg_cut.10", "success.1", "success.5", "err.5",
         "err.20", "rbp", "rbp.0.5")


def source(text: str, piece: int = 7):
    """A Source over ``text``'s bytes in small pieces (lines cut across pieces)."""
    data = text.encode("utf-8")
    return lambda: (data[i:i + piece] for i in range(0, len(data), piece))


def streamed(qrels: str, run: str, names=NAMES, threshold: int = 1, **kw):
    return evaluate_stream(read_qrels(source(qrels), "q.txt"), source(run, 13), "r.txt",
                           parse_measures(names), threshold, **kw)


@st.composite
def files(draw):
    """A qrels and a run: some queries in one file only, tied scores, negative grades,
    unjudged documents, a query's lines sometimes scattered through the run."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    qrels, run = [], []
    for q in range(draw(st.integers(1, 6))):
        qid = f"q{q}"
        pool = [f"d{rng.randrange(60)}" for _ in range(rng.randrange(1, 40))]
        pool = list(dict.fromkeys(pool))
        if rng.random() < 0.9:
            qrels += [f"{qid} 0 {d} {rng.choice((-1, 0, 0, 1, 1, 2, 3))}" for d in pool]
        if rng.random() < 0.9:
            docs = list(dict.fromkeys(rng.choice(pool) if rng.random() < 0.6 else f"u{rng.randrange(50)}"
                                      for _ in range(rng.randrange(1, 45))))
            run += [f"{qid} Q0 {d} {i} {rng.choice((1, 2, 2.5, 3, rng.random() * 9)):.3f} t"
                    for i, d in enumerate(docs, start=1)]
    if not qrels:
        qrels = ["q9 0 d1 1"]
    if not run:
        run = ["q9 Q0 d1 1 1 t"]
    if draw(st.booleans()):
        rng.shuffle(run)  # scattered: gathered in a second pass
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files(), st.sampled_from([1, 2]))
def test_streamed_floats_equal_the_exact_engine(pair, threshold):
    qrels, run = pair
    try:
        exact = evaluate(parse_qrels(qrels, "q.txt"), parse_run(run, "r.txt"),
                         parse_measures(NAMES), threshold)
    except Exception:  # no query in both files: both refuse
        with pytest.raises(Exception, match="no query is in both files"):
            streamed(qrels, run, threshold=threshold)
        return
    ours = streamed(qrels, run, threshold=threshold)
    assert [qid for qid, _ in ours.rows] == [q.qid for q in exact.queries]
    for (qid, values), q in zip(ours.rows, exact.queries, strict=True):
        for m, value in zip(ours.measures, values, strict=True):
            want = q.values[m.name].value
            assert value == pytest.approx(want, rel=1e-9, abs=1e-12), (qid, m.name)
            assert f"{value:6.4f}" == f"{want:6.4f}" or abs(value - want) < 1e-12, (qid, m.name)
    for name, value in ours.mean.items():
        assert value == pytest.approx(exact.mean[name], rel=1e-9, abs=1e-12)
    assert ours.notes == list(exact.notes)


def by_hand(run: str, depth: int) -> str:
    """The run cut to its first ``depth`` documents per query, ranked here by hand: score
    descending, then docno descending (trec_eval's order)."""
    per: dict[str, list[tuple[float, str, str]]] = {}
    for line in run.splitlines():
        qid, _, docno, _, score, _ = line.split()
        per.setdefault(qid, []).append((float(score), docno, line))
    kept = []
    for rows in per.values():
        rows.sort(key=lambda r: (-r[0], [-ord(c) for c in r[1]] + [1]))
        kept += [line for _, _, line in rows[:depth]]
    return "\n".join(kept) + "\n"


@settings(max_examples=40, deadline=None)
@given(files(), st.integers(1, 12))
def test_depth_keeps_the_first_n_after_ranking(pair, depth):
    qrels, run = pair
    try:
        exact = evaluate(parse_qrels(qrels, "q"), parse_run(by_hand(run, depth), "r"),
                         parse_measures(NAMES))
    except Exception:
        return
    ours = streamed(qrels, run, depth=depth, exact_for=lambda q: True)
    for (qid, values), q in zip(ours.rows, exact.queries, strict=True):
        assert ours.exact[qid].docnos == q.docnos  # the exact path cuts the same ranking
        for m, value in zip(ours.measures, values, strict=True):
            assert value == pytest.approx(q.values[m.name].value, rel=1e-9, abs=1e-12)
            assert ours.exact[qid].values[m.name].exact == q.values[m.name].exact


@settings(max_examples=40, deadline=None)
@given(files())
def test_complete_is_the_exact_engine_with_zeros_for_the_queries_the_run_lacks(pair):
    qrels, run = pair
    judged = parse_qrels(qrels, "q")
    try:
        exact = evaluate(judged, parse_run(run, "r"), parse_measures(NAMES))
    except Exception:
        return
    ours = streamed(qrels, run, complete=True)
    assert [qid for qid, _ in ours.rows] == sorted(judged.queries)
    by_qid = {q.qid: q for q in exact.queries}
    for qid, values in ours.rows:
        want = [by_qid[qid].values[m.name].value if qid in by_qid else 0.0 for m in ours.measures]
        assert list(values) == pytest.approx(want, rel=1e-9, abs=1e-12), qid
    for m in ours.measures:
        total = math.fsum(q.values[m.name].value for q in exact.queries)
        assert ours.mean[m.name] == pytest.approx(total / len(judged.queries), rel=1e-9, abs=1e-12)


def test_the_collector_is_back_on_after_the_command(tmp_path):
    import gc

    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n")
    assert gc.isenabled()
    CliRunner().invoke(cli, ["solve", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r")])
    assert gc.isenabled()


def test_complete_scores_a_judged_query_the_run_lacks_as_zero():
    qrels = "1 0 a 1\n2 0 b 1\n3 0 c 1\n"
    run = "1 Q0 a 1 5 t\n3 Q0 x 1 5 t\n3 Q0 c 2 4 t\n9 Q0 z 1 1 t\n"
    ours = streamed(qrels, run, ("map", "P.1"), complete=True)
    assert ours.rows == [("1", (1.0, 1.0)), ("2", (0.0, 0.0)), ("3", (0.5, 0.0))]
    assert ours.mean == {"map": pytest.approx(1.5 / 3), "P_1": pytest.approx(1 / 3)}
    assert any("each scoring 0" in n and ": 2" in n for n in ours.notes)
    without = streamed(qrels, run, ("map",))
    assert [q for q, _ in without.rows] == ["1", "3"] and without.mean["map"] == 0.75


# trec_eval's own outputs (tests/fixtures/trec/README.md): the lines drills prints for the
# measures it has are trec_eval's, character for character.
OURS = {"map", "Rprec", "recip_rank", "ndcg", "rbp"} | {
    f"{f}_{k}" for f in ("P", "recall", "map_cut", "ndcg_cut") for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)
} | {"success_1", "success_5", "success_10"}


def trec_eval_lines(out: str, queries: bool = True) -> list[str]:
    return [line for line in (HERE / out).read_text(encoding="utf-8").splitlines()
            if line.split("\t")[0].strip() in OURS and (queries or "\tall\t" in line)]


@pytest.mark.parametrize("out,run,args", [
    ("out.test.aq", "results.test", []),
    ("out.test.aqc", "results.trunc", ["-c"]),
    ("out.test.aqcM", "results.trunc", ["-c", "-M100"]),
    ("out.test.aqcM", "results.trunc", ["--complete_rel_info_wanted", "--Max_retrieved_per_topic", "100"]),
])
def test_trec_eval_test_outputs_line_for_line(out, run, args):
    want = trec_eval_lines(out)
    order = list(dict.fromkeys(line.split("\t")[0].strip() for line in want))
    argv = ["solve", "--qrels", str(HERE / "qrels.test"), "--run", str(HERE / run), *args]
    for name in order:
        argv += ["-m", name]
    res = CliRunner().invoke(cli, argv)
    assert res.exit_code == 0, res.output
    assert sorted(res.stdout.splitlines()) == sorted(want)
    assert len(want) == len(order) * 4  # three queries and the mean


def test_trec_eval_default_output_means():
    want = trec_eval_lines("out.test", queries=False)  # trec_eval qrels.test results.test
    assert {line.split()[0] for line in want} >= {"map", "Rprec", "recip_rank", "P_5", "P_1000"}
    argv = ["solve", "--qrels", str(HERE / "qrels.test"), "--run", str(HERE / "results.test")]
    for line in want:
        argv += ["-m", line.split()[0]]
    res = CliRunner().invoke(cli, argv)
    assert [line for line in res.stdout.splitlines() if "\tall\t" in line] == want


def test_aql_threshold_2_with_negative_grades_line_for_line():
    want = trec_eval_lines("out.test.aql")  # -l2 on qrels.rel_level
    order = list(dict.fromkeys(line.split("\t")[0].strip() for line in want))
    argv = ["solve", "--qrels", str(HERE / "qrels.rel_level"), "--run", str(HERE / "results.test"),
            "-l", "2"]
    for name in order:
        argv += ["-m", name]
    res = CliRunner().invoke(cli, argv)
    assert sorted(res.stdout.splitlines()) == sorted(want)


def test_five_thousand_queries_are_evaluated(tmp_path):
    from bench.trec_files import write_pair

    qrels, run = write_pair(tmp_path, 5000, depth=20, judged=6)
    res = CliRunner().invoke(cli, ["solve", "--qrels", str(qrels), "--run", str(run), "-m", "map",
                                   "-m", "P.10", "-m", "ndcg"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert len(lines) == 5000 * 3 + 3 and lines[-3].startswith("map                   \tall\t")
    # three queries worked out exactly, one at a time, print the same lines
    for qid in ("1001", "3500", "6000"):
        one = CliRunner().invoke(cli, ["solve", "--qrels", str(qrels), "--run", str(run), "-m",
                                       "map", "-m", "P.10", "-m", "ndcg", "--query", qid])
        mine = [line for line in one.stdout.splitlines() if f"\t{qid}\t" in line]
        assert mine == [line for line in lines if f"\t{qid}\t" in line]


def test_memory_grows_with_the_largest_query_not_the_file(tmp_path):
    from bench.trec_files import write_pair

    qrels, run = write_pair(tmp_path, 1500, depth=200, judged=20)
    size = run.stat().st_size  # 300,000 lines, about 11 MB

    def chunks(path: Path):
        def read():
            with open(path, "rb") as f:
                while piece := f.read(1 << 16):
                    yield piece
        return read

    judged = read_qrels(chunks(qrels), "q")
    tracemalloc.start()
    try:
        ev = evaluate_stream(judged, chunks(run), "r", parse_measures(["map", "ndcg", "P.10"]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(ev.rows) == 1500
    # holding every row would take more than the file itself (a str is 49 bytes and up)
    assert peak < size / 8, (peak, size)


def test_a_scattered_query_is_gathered_and_its_lines_named_when_bad(tmp_path):
    lines = [f"{q} Q0 d{i} {i} {100 - i} t" for i in range(1, 40) for q in ("1", "2")]
    (tmp_path / "q").write_text("1 0 d3 1\n2 0 d5 1\n")
    (tmp_path / "r").write_text("\n".join(lines) + "\n")
    res = CliRunner().invoke(cli, ["solve", "--qrels", str(tmp_path / "q"), "--run",
                                   str(tmp_path / "r"), "-m", "recip_rank"])
    assert res.stdout.splitlines()[:2] == ["recip_rank            \t1\t0.3333",
                                           "recip_rank            \t2\t0.2000"]
    (tmp_path / "r").write_text("\n".join([*lines, "1 Q0 d7 99 1 t"]) + "\n")
    res = CliRunner().invoke(cli, ["solve", "--qrels", str(tmp_path / "q"), "--run",
                                   str(tmp_path / "r")])
    assert res.exit_code == 2 and res.stdout == ""
    assert "r:79: document d7 is ranked twice for query 1 (first at line 13)" in res.stderr


@pytest.mark.parametrize("text", ["1 Q0 a 1 nan t\n", "1 Q0 a 1 inf t\n", "1 Q0 a 1 1_0 t\n",
                                  "1 Q0 a 1 \u0661 t\n", "1 Q0 a 1 1e999 t\n", "1 Q0 a 1\n",
                                  "1 Q0 a 1 1.2.3 t\n"])
def test_the_fast_path_refuses_what_the_line_checks_refuse(text):
    with pytest.raises(Invalid):
        streamed("1 0 a 1\n", text)
    with pytest.raises(ValueError):
        parse_run(text, "r")


def test_qrels_fast_path_refuses_what_parse_qrels_refuses():
    for text in ("1 0 a 1_0\n", "1 0 a x\n", "1 0 a 21\n", "1 0 a 1\n1 0 a 2\n", "1 0 a\n",
                 "1 0 a 1\n2 0 b 1\n1 0 a 0\n"):
        with pytest.raises(Invalid):
            read_qrels(source(text), "q")
        with pytest.raises(ValueError):
            parse_qrels(text, "q")


def test_a_huge_negative_grade_is_unjudged_as_parse_qrels_reads_it():
    text = "1 0 a -99999999999\n1 0 b 1\n"
    assert parse_qrels(text, "q").negative == 1
    judged = read_qrels(source(text), "q")
    assert judged.negative == 1 and judged.judgements("1") == {"a": -(10**9), "b": 1}


def test_a_big_file_is_read_and_a_bom_crlf_and_comments_are_taken(tmp_path):
    (tmp_path / "q").write_bytes(b"\xef\xbb\xbf1 0 a 1\r\n# c\r\n\r\n1 0 b 2\r\n")
    (tmp_path / "r").write_bytes(b"\xef\xbb\xbf# a comment with six fields a b c d e\r\n"
                                 b"1\tQ0 b 1 2 t junk\r\n1 Q0 a 2 1 t\r\n")
    res = CliRunner().invoke(cli, ["solve", "--qrels", str(tmp_path / "q"), "--run",
                                   str(tmp_path / "r"), "-m", "ndcg", "--json"])
    assert res.exit_code == 0, res.output
    assert res.stdout.count('"exact"') == 1
    import json

    assert json.loads(res.stdout)["queries"]["1"]["ndcg"]["value"] == 1.0


def test_progress_is_said_on_a_terminal_after_a_second(monkeypatch, capsys):
    from drills.cli.solve import trec as solve_trec

    clock = iter([100.0, 100.5, 101.2, 102.0, 106.5])
    monkeypatch.setattr(solve_trec.time, "monotonic", lambda: next(clock))
    progress = solve_trec._Progress("run.txt", 200 * 2**20)
    for done in (10, 40, 80, 190):
        progress(done * 2**20)
    err = capsys.readouterr().err.splitlines()
    assert err == ["solve: 20% of run.txt read (40 MiB, 1 s) ...",
                   "solve: 95% of run.txt read (190 MiB, 6 s) ..."]


def test_no_size_limit_by_default():
    from drills.cli.solve import trec as solve_trec

    assert solve_trec.MAX_BYTES is None


def test_a_run_where_every_score_ties_is_ranked_by_docno_descending():
    docs = [f"d{i:05d}" for i in range(3000)]
    relevant = set(docs[::7])
    qrels = "".join(f"1 0 {d} 1\n" for d in sorted(relevant))
    run = "".join(f"1 Q0 {d} 1 0 t\n" for d in docs)
    order = sorted(docs, reverse=True)  # by hand: ties broken by docno descending
    hits = [rank for rank, d in enumerate(order, start=1) if d in relevant]
    ours = streamed(qrels, run, ("recip_rank", "P.10", "map"))
    (_, (rr, p10, ap)), = ours.rows
    assert rr == 1 / hits[0] and p10 == sum(1 for r in hits if r <= 10) / 10
    assert ap == pytest.approx(sum(i / r for i, r in enumerate(hits, start=1)) / len(relevant))
