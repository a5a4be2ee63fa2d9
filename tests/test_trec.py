"""TREC files: parsing with file:line errors, trec_eval's ranking, unjudged and negative grades,
--threshold, measure names, the JSON shape and the command's exit codes.

Expected values are the notes' worked examples (metrics-facts.md: B = [1,0,1,1,0] with R = 4;
G = [2,1,3,0] with pool {3,2,1,0}; MRR over 3 queries), not drills' own output.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from click.testing import CliRunner

from drills.cli import cli
from drills.engine.exact import Ratio
from drills.engine.metrics.ndcg import ndcg_solution
from drills.engine.problem import Problem
from drills.trec import files as trec
from drills.trec.evaluate import dcg, evaluate, ndcg
from drills.trec.files import TrecError, parse_qrels, parse_run, ranked
from drills.trec.names import parse_measure, parse_measures


def qrels_text(rows) -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, d, g in rows)


def run_text(rows) -> str:
    """rows: (qid, docno, score); the rank column counts up in file order."""
    return "".join(f"{q} Q0 {d} {n} {s} tag\n" for n, (q, d, s) in enumerate(rows, start=1))


def ev(qrels: str, run: str, names=("map",), threshold: int = 1, queries=()):
    return evaluate(parse_qrels(qrels, "q.txt"), parse_run(run, "r.txt"), parse_measures(names),
                    threshold, queries)


def exact(e, name: str, qid: str = "1") -> Fraction:
    q = next(q for q in e.queries if q.qid == qid)
    return Fraction(q.values[name].exact)


# B = [1,0,1,1,0]: five ranked documents, one relevant document (d9) never retrieved.
B_QRELS = qrels_text([("1", "d1", 1), ("1", "d2", 0), ("1", "d3", 1), ("1", "d4", 1),
                      ("1", "d9", 1)])
B_RUN = run_text([("1", f"d{i}", 10 - i) for i in range(1, 6)])  # d5 is unjudged


@pytest.mark.parametrize("name,value", [
    ("map", Fraction(29, 48)), ("map_cut.3", Fraction(5, 12)), ("map_cut.5", Fraction(29, 48)),
    ("P.1", 1), ("P.3", Fraction(2, 3)), ("P.5", Fraction(3, 5)), ("P.10", Fraction(3, 10)),
    ("recall.3", Fraction(1, 2)), ("recall.5", Fraction(3, 4)), ("Rprec", Fraction(3, 4)),
    ("recip_rank", 1), ("success.1", 1), ("err.5", Fraction(59, 96)),
    ("rbp.0.5", Fraction(11, 16)), ("rbp.p=0.8", Fraction(269, 625)),
])
def test_the_notes_binary_example(name, value):
    e = ev(B_QRELS, B_RUN, (name,))
    assert exact(e, parse_measure(name)[0].name) == value


def test_graded_example_at_each_threshold_ndcg_ignores_it():
    qrels = qrels_text([("1", "a", 2), ("1", "b", 1), ("1", "c", 3), ("1", "d", 0)])
    run = run_text([("1", "a", 4), ("1", "b", 3), ("1", "c", 2), ("1", "d", 1)])
    names = ("map", "P.3", "Rprec", "recip_rank", "ndcg", "err.4", "rbp.0.5", "rbp.0.8")
    want = {1: (1, 1, 1, 1), 2: (Fraction(5, 6), Fraction(2, 3), Fraction(1, 2), 1),
            3: (Fraction(1, 3), Fraction(1, 3), 0, Fraction(1, 3))}
    for threshold, (ap, p3, rprec, rr) in want.items():
        e = ev(qrels, run, names, threshold)
        assert [exact(e, n) for n in ("map", "P_3", "Rprec", "recip_rank")] == [ap, p3, rprec, rr]
        assert e.queries[0].values["ndcg"].value == pytest.approx(0.867503492569437, abs=1e-12)
        assert exact(e, "err_4") == Fraction(881, 1536)  # g_max = 3, the top judged grade
        assert exact(e, "rbp_p=0.5") == Fraction(13, 24)
        assert exact(e, "rbp_p=0.8") == Fraction(118, 375)
    assert any("trec_eval -l 3" in n for n in ev(qrels, run, names, 3).notes)


def test_ranking_is_score_descending_ties_by_docno_descending_rank_column_ignored():
    run = ("1 Q0 b 1 2.0 t\n1 Q0 a 2 5 t\n1 Q0 c 3 2 t\n1 Q0 d 4 0.5e1 t\n"
           "1 Q0 e 9 -1 t\n")
    order = [d.docno for d in ranked(parse_run(run, "r").queries["1"])]
    assert order == ["d", "a", "c", "b", "e"]  # 5 (d > a), then 2 (c > b), then -1
    # the notes: [a rel, b, c] all tied: trec_eval ranks c, b, a: RR 1/3
    e = ev(qrels_text([("1", "a", 1)]), run_text([("1", x, 1) for x in "abc"]), ("recip_rank",))
    assert exact(e, "recip_rank") == Fraction(1, 3)
    assert e.queries[0].docnos == ("c", "b", "a") and e.queries[0].ties == 3


def test_unjudged_documents_are_not_relevant_and_r_comes_from_the_qrels():
    e = ev(B_QRELS, B_RUN, ("map", "recall.5", "ndcg"))
    q = e.queries[0]
    assert q.judged == (1, 0, 1, 1, None) and q.grades == (1, 0, 1, 1, 0)
    assert q.relevant(1) == 4  # d9 was never retrieved but counts in R
    assert exact(e, "recall_5") == Fraction(3, 4)


def test_negative_grades_are_in_the_pool_unjudged_never_relevant_not_in_r():
    qrels = qrels_text([("1", "a", -1), ("1", "b", 1), ("1", "c", -2)])
    e = ev(qrels, run_text([("1", "a", 3), ("1", "b", 2)]), ("map", "P.1", "ndcg", "err.2"))
    q = e.queries[0]
    assert q.grades == (0, 1) and q.judged == (-1, 1) and q.positives == (1,)
    assert exact(e, "map") == Fraction(1, 2) and exact(e, "P_1") == 0
    assert q.values["ndcg"].value == pytest.approx(1 / 1.584962500721156)
    assert any("2 judgements" in n and "negative grade" in n for n in e.notes)


def test_a_query_with_nothing_relevant_scores_zero_and_counts_in_the_mean():
    qrels = qrels_text([("1", "a", 1), ("2", "x", 0)])
    run = run_text([("1", "a", 1), ("2", "x", 1)])
    e = ev(qrels, run, ("map", "ndcg", "err.1", "rbp"))
    assert [q.values["map"].value for q in e.queries] == [1, 0]
    assert e.mean == {"map": 0.5, "ndcg": 0.5, "err_1": 0.25, "rbp": 0.05}
    assert any("no relevant judged document for 2" in n for n in e.notes)


def test_mrr_over_three_queries_and_a_judged_query_the_run_lacks():
    qrels = qrels_text([("1", "a", 1), ("2", "f", 1), ("3", "z", 1), ("4", "w", 1)])
    run = run_text([("1", "a", 3), ("2", "d", 3), ("2", "e", 2), ("2", "f", 1), ("3", "y", 1),
                    ("5", "q", 1)])
    e = ev(qrels, run, ("recip_rank",))
    assert [q.qid for q in e.queries] == ["1", "2", "3"]
    assert e.mean["recip_rank"] == pytest.approx(4 / 9)
    assert any("not judged" in n and ": 5" in n for n in e.notes)  # run-only: skipped
    assert any("not ranked" in n and ": 4" in n and "9.0.8" in n for n in e.notes)


def test_query_filter_and_its_errors():
    qrels = qrels_text([("1", "a", 1), ("2", "b", 1), ("4", "w", 1)])
    run = run_text([("1", "a", 1), ("2", "b", 1), ("5", "q", 1)])
    assert [q.qid for q in ev(qrels, run, queries=("2",)).queries] == ["2"]
    for qid, words in (("9", "unknown query 9; the queries in both files: 1, 2"),
                       ("4", "judged in q.txt but has no ranking in r.txt"),
                       ("5", "ranked in r.txt but has no judgements in q.txt")):
        with pytest.raises(TrecError, match=words):
            ev(qrels, run, queries=(qid,))
    with pytest.raises(TrecError, match="no query is in both files"):
        ev(qrels_text([("7", "a", 1)]), run)


def test_qrels_errors_name_file_and_line():
    bad = ("# comment\n\n1 0 a 1\n1 0 b\n1 0 c 1.7\n1 0 a 0\n1 0 d 25\n1 0 e 30\n"
           "1 0 f 1 extra\n")
    with pytest.raises(TrecError) as info:
        parse_qrels(bad, "q.txt")
    assert info.value.lines == (
        "q.txt:4: expected 4 fields (qid iter docno grade), found 3",
        "q.txt:5: grade '1.7' is not a whole number (trec_eval would read its leading digits)",
        "q.txt:6: document a of query 1 is judged again (first at line 3); trec_eval stops on "
        "duplicate docs too",
        "q.txt:9: expected 4 fields (qid iter docno grade), found 5",
        "q.txt:7: grade 25 is above 20, the largest grade drills computes with (1 more lines too)",
    )
    with pytest.raises(TrecError, match="q.txt has no judgements"):
        parse_qrels("# only a comment\n\n", "q.txt")


def test_run_errors_name_file_and_line():
    bad = ("1 Q0 a 1 2.5 t\n1 Q0 b 2\n1 Q0 c 3 abc t\n1 Q0 d 4 nan t\n1 Q0 e 5 1e999 t\n"
           "1 Q0 a 6 1 t\n1 Q0 f 7 1_0 t\n")
    with pytest.raises(TrecError) as info:
        parse_run(bad, "r.txt")
    lines = info.value.lines
    assert lines[0] == "r.txt:2: expected 6 fields (qid Q0 docno rank score tag), found 4"
    assert [line.split(":")[1] for line in lines] == ["2", "3", "4", "5", "6", "7"]
    assert "score 'abc' is not a finite decimal number (trec_eval's atof would read it without a word)" in lines[1]
    assert lines[4] == ("r.txt:6: document a is ranked twice for query 1 (first at line 1); "
                        "trec_eval stops on duplicate docs too")
    with pytest.raises(TrecError, match="r.txt has no ranked documents"):
        parse_run("\n# nothing\n", "r.txt")


def test_files_accept_comments_blank_lines_extra_run_fields_and_any_blanks():
    run = parse_run("# c\n\n1\tQ0  a 1 -1e-3 t junk more\r\n  # indented comment\n", "r")
    assert run.queries["1"][0] == trec.Retrieved("a", -0.001, 3)
    assert run.tag == "t"
    qrels = parse_qrels("1 0 d\x0b2\r\n1 0 e\x1cf 1\n", "q")  # C's isspace: \v is a blank,
    assert qrels.queries["1"]["d"].grade == 2  # \x1c (a blank to str.split) is not
    assert qrels.queries["1"]["e\x1cf"].grade == 1


def test_errors_stop_after_twenty_and_files_are_bounded(monkeypatch):
    with pytest.raises(TrecError) as info:
        parse_run("x\n" * 50, "r.txt")
    assert len(info.value.lines) == trec.MAX_ERRORS + 1
    assert info.value.lines[-1] == "r.txt: stopped after 20 errors"
    monkeypatch.setattr(trec, "MAX_LINES", 3)
    with pytest.raises(TrecError, match="r.txt has more than 3 lines; drills reads at most 3"):
        parse_run(run_text([("1", f"d{i}", 1) for i in range(5)]), "r.txt")


def test_a_query_past_the_engine_limit_is_named():
    run = run_text([("7", f"d{i:04d}", -i) for i in range(1001)])
    with pytest.raises(TrecError, match=r"query 7: 1,001 ranked documents; drills evaluates at "
                                        r"most 1,000 per query"):
        ev(qrels_text([("7", "d0001", 1)]), run)


@pytest.mark.parametrize("text,names", [
    ("P.5", ["P_5"]), ("P_5", ["P_5"]), ("p.5,10", ["P_5", "P_10"]),
    ("P", ["P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000"]),
    ("success", ["success_1", "success_5", "success_10"]), ("ndcg_cut_10", ["ndcg_cut_10"]),
    ("map_cut.10", ["map_cut_10"]), ("RPREC", ["Rprec"]), ("recip_rank", ["recip_rank"]),
    ("err.20", ["err_20"]), ("rbp", ["rbp"]), ("rbp.0.8", ["rbp_p=0.8"]),
    ("rbp_p=0.8", ["rbp_p=0.8"]), ("rbp.4/5", ["rbp_p=0.8"]), ("rbp.2/3", ["rbp_p=2/3"]),
])
def test_measure_names(text, names):
    assert [m.name for m in parse_measure(text)] == names


@pytest.mark.parametrize("text,words", [
    ("ndgc", "unknown measure 'ndgc' (did you mean ndcg?); known: map, map_cut.K, P.K"),
    ("P@5", "(did you mean P.5?)"), ("ndcg@10", "(did you mean ndcg_cut.10?)"),
    ("mrr", "(did you mean recip_rank?)"), ("precision@3", "(did you mean P.3?)"),
    ("bpref", "'bpref' is a trec_eval measure drills does not compute"),
    ("err", "measure 'err' needs a cut-off: e.g. err.20"),
    ("P.0", "cut-off '0' is not a whole number from 1"),
    ("rbp.1.5", "persistence p must be strictly between 0 and 1"),
])
def test_bad_measure_names(text, words):
    with pytest.raises(TrecError) as info:
        parse_measure(text)
    assert words in str(info.value)


def test_measures_given_twice_are_evaluated_once():
    assert [m.name for m in parse_measures(["P.5", "P_5,10", "map"])] == ["P_5", "P_10", "map"]


def test_fast_ndcg_is_the_engines_exact_form():
    rng = random.Random(5)
    for _ in range(40):
        grades = tuple(rng.choice((0, 0, 0, 1, 2, 3)) for _ in range(rng.randint(1, 60)))
        positives = tuple(sorted([g for g in grades if g] + [rng.randint(1, 3)
                                                             for _ in range(rng.randint(0, 9))],
                                 reverse=True))
        pool = positives + (0,) * grades.count(0)
        k = rng.choice((None, 1, 5, 10, 100))
        ours = ndcg(grades, positives, k)
        sol = ndcg_solution(Problem(grades, pool, k, "linear"))
        assert (ours.dcg, ours.idcg) == (sol.dcg, sol.idcg)
        if not sol.idcg.is_zero:
            assert ours.text == Ratio(sol.dcg, sol.idcg).text
        assert ours.value == pytest.approx(sol.ndcg.value, rel=1e-13, abs=1e-15)
    assert dcg((2, 1, 3, 0))[0].text == "7/2 + 1/log2(3)"  # the notes: linear DCG of G


def invoke(*args: str):
    return CliRunner().invoke(cli, ["solve", *args])


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_text(B_QRELS + qrels_text([("2", "x", 2), ("2", "y", 0)]))
    (tmp_path / "r.txt").write_text(B_RUN + run_text([("2", "y", 5), ("2", "x", 4)]))
    return str(tmp_path / "q.txt"), str(tmp_path / "r.txt")


def test_json_shape(files):
    q, r = files
    res = invoke("--qrels", q, "--run", r, "-m", "P.5", "-m", "map", "-m", "ndcg_cut.10",
                 "-m", "Rprec", "-m", "recip_rank", "-m", "success.1", "-m", "recall.10", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    names = ["P_5", "map", "ndcg_cut_10", "Rprec", "recip_rank", "success_1", "recall_10"]
    assert list(data) == ["queries", "mean", "threshold", "notes"]
    assert list(data["queries"]) == ["1", "2"]
    for entry in data["queries"].values():
        assert list(entry) == names
        assert all(set(v) == {"exact", "value"} and isinstance(v["exact"], str)
                   and isinstance(v["value"], float) for v in entry.values())
    assert Fraction(data["queries"]["1"]["map"]["exact"]) == Fraction(29, 48)
    assert data["queries"]["2"]["recip_rank"]["exact"] == "1/2"
    assert data["mean"]["map"] == {"value": pytest.approx((29 / 48 + 1 / 2) / 2)}
    assert list(data["mean"]) == names and res.stderr == ""


def test_several_queries_print_trec_eval_lines_and_notes_go_to_stderr(files):
    q, r = files
    res = invoke("--qrels", q, "--run", r, "-m", "map", "-m", "P.5")
    assert res.exit_code == 0
    assert res.stdout.splitlines() == [
        "map                   \t1\t0.6042", "P_5                   \t1\t0.6000",
        "map                   \t2\t0.5000", "P_5                   \t2\t0.2000",
        "map                   \tall\t0.5521", "P_5                   \tall\t0.4000"]


def test_one_query_is_worked_with_docnos(files):
    q, r = files
    res = invoke("--qrels", q, "--run", r, "--query", "1")  # the default measures
    assert res.exit_code == 0, res.output
    out = res.stdout
    for name in ("map", "P_5", "P_10", "recall_10", "Rprec", "recip_rank", "ndcg",
                 "ndcg_cut_10", "success_1"):
        assert f"\n{name}: " in out and f"\n{name:<22}\t1\t" in out
    assert "  rank  docno  grade  relevant  hits" in out
    assert "     5  d5*        0  no" in out  # unjudged, marked
    assert "AP = (1 + 2/3 + 3/4) / 4 = 29/48" in out
    assert max(len(line) for line in out.splitlines() if "\t" not in line) <= 80


def test_threshold_applies_to_binary_measures_only(files):
    q, r = files
    res = invoke("--qrels", q, "--run", r, "--query", "2", "--threshold", "2", "-m", "map",
                 "-m", "ndcg", "--json")
    data = json.loads(res.stdout)
    assert data["queries"]["2"]["map"]["exact"] == "1/2" and data["threshold"] == 2
    assert data["queries"]["2"]["ndcg"]["value"] == pytest.approx(1 / 1.584962500721156)


@pytest.mark.parametrize("make,words", [
    (lambda d: ["--qrels", str(d / "none.txt")], "Error: --qrels: no such file: "),
    (lambda d: ["--qrels", str(d)], " is a directory, not a file"),
    (lambda d: ["--qrels", str(d / "latin1.txt")], "latin1.txt:2: not UTF-8 text (byte 0xe9)"),
    (lambda d: ["--qrels", str(d / "bad.txt")], "bad.txt:1: expected 4 fields"),
    (lambda d: ["-m", "ndgc"], "Error: unknown measure 'ndgc' (did you mean ndcg?)"),
    (lambda d: ["--query", "9"], "Error: unknown query 9; the queries in both files: 1, 2"),
])
def test_bad_input_is_one_line_and_exit_2(files, tmp_path, make, words):
    q, r = files
    (tmp_path / "latin1.txt").write_bytes(b"1 0 a 1\n1 0 caf\xe9 1\n")
    (tmp_path / "bad.txt").write_text("1 0 a\n")
    args = ["--qrels", q, "--run", r, *make(tmp_path)]
    res = invoke(*args)
    assert res.exit_code == 2
    assert words in res.stderr and res.stderr.count("\n") == 1 and res.stdout == ""
    assert "Traceback" not in res.output


def test_several_file_errors_are_one_line_each(tmp_path, files):
    q, _ = files
    (tmp_path / "r2.txt").write_text("1 Q0 a 1 x t\n1 Q0 b\n")
    res = invoke("--qrels", q, "--run", str(tmp_path / "r2.txt"))
    assert res.exit_code == 2
    assert [line.split(":")[0] for line in res.stderr.splitlines()] == ["Error"] * 2
    assert "r2.txt:1: score 'x'" in res.stderr and "r2.txt:2: expected 6 fields" in res.stderr


def test_pytrec_eval_agrees_on_random_files(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench.bench_trec import write_files

    qrels, run = write_files(tmp_path, seed=3, queries=4, depth=200)
    with open(qrels) as f:
        their_qrels = pytrec_eval.parse_qrel(f)
    with open(run) as f:
        their_run = pytrec_eval.parse_run(f)
    names = {"map", "P.10", "recall.10", "Rprec", "recip_rank", "ndcg", "ndcg_cut.10",
             "success.1", "map_cut.20"}
    theirs = pytrec_eval.RelevanceEvaluator(their_qrels, names).evaluate(their_run)
    e = evaluate(parse_qrels(qrels.read_text(), "q"), parse_run(run.read_text(), "r"),
                 parse_measures(sorted(names)))
    for q in e.queries:
        for name, v in q.values.items():
            assert v.value == pytest.approx(theirs[q.qid][name], abs=1e-9), (q.qid, name)


def test_a_file_over_the_size_limit_is_refused(files, monkeypatch):
    from drills.cli.solve import trec as solve_trec

    q, r = files
    monkeypatch.setattr(solve_trec, "MAX_BYTES", 20)
    res = invoke("--qrels", q, "--run", r)
    assert res.exit_code == 2 and "is over 0 MiB; drills reads at most that" in res.stderr


def test_long_exact_ndcg_is_cut_in_json_unless_all():
    from pathlib import Path

    here = Path(__file__).resolve().parent / "fixtures" / "trec"
    args = ("--qrels", str(here / "qrels.test"), "--run", str(here / "results.test"),
            "--query", "301", "-m", "ndcg", "--json")
    cut, whole = (json.loads(invoke(*args, *more).stdout) for more in ((), ("--all",)))
    short, full = (d["queries"]["301"]["ndcg"]["exact"] for d in (cut, whole))
    assert " + ... + " in short and len(short) < 2100 < len(full) and " + ... + " not in full
    assert cut["queries"]["301"]["ndcg"]["value"] == whole["queries"]["301"]["ndcg"]["value"]
    assert any("--all keeps them whole" in n for n in cut["notes"])
    assert not whole["notes"]


def test_a_named_fifo_or_device_is_refused(tmp_path):
    import os
    from pathlib import Path

    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    qrels = Path(__file__).parent / "fixtures" / "trec" / "qrels.test"
    for bad in (str(fifo), "/dev/zero"):
        res = CliRunner().invoke(cli, ["solve", "--qrels", str(qrels), "--run", bad])
        assert res.exit_code == 2 and "not a regular file" in res.output


def test_more_than_a_thousand_relevant_documents_are_counted(tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text("".join(f"1 0 d{i} 1\n" for i in range(1200)))
    run = tmp_path / "r"
    run.write_text("".join(f"1 Q0 d{i} {i + 1} {1000 - i} x\n" for i in range(1000)))
    res = CliRunner().invoke(cli, ["solve", "--qrels", str(qrels), "--run", str(run), "-m", "map",
                                   "-m", "P.5", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)["queries"]["1"]
    assert data["map"]["value"] == pytest.approx(1000 / 1200) and data["P_5"]["value"] == 1
