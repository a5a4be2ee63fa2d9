"""The significance pack (questions/significance.yaml): every number recomputed.

Independent of drills' engine: the YAML is read with yaml.safe_load, every `answer:` is
evaluated by a tiny evaluator here, and every number written anywhere in a question's text
must be accounted for in NUMBERS below: recomputed by hand (fractions, exact enumeration of
all sign flips, binomial sums, Holm and Benjamini-Hochberg implemented here), checked against
scipy.stats where the library is the claim (ttest_rel, binomtest, permutation_test,
false_discovery_control, bootstrap's defaults, t and noncentral t quantiles), given in the
prompt (GIVEN), or a convention such as alpha = 0.05 (LABEL). Claims that cannot be run carry
their source in a YAML comment beside the question.
"""

from __future__ import annotations

import ast
import inspect
import math
import operator
import re
from collections import Counter
from fractions import Fraction as F
from itertools import product
from pathlib import Path

import pytest
import yaml

from drills.packs import load_pack
from tests.bank_text import point_texts

PATH = Path(__file__).resolve().parent.parent / "questions" / "significance.yaml"
RAW = yaml.safe_load(PATH.read_text(encoding="utf-8"))
QUESTIONS = RAW["questions"]
Q = {q["id"]: q for q in QUESTIONS}

np = pytest.importorskip("numpy")
stats = pytest.importorskip("scipy.stats")

GIVEN = "given"  # data stated in the prompt itself
LABEL = "label"  # a convention or formula constant (alpha, a suggested sample count), not a result


# ------------------------------------------------------------------ helpers


def texts(q: dict) -> list[str]:
    out = [q["prompt"], *q.get("hints", [])]
    for o in q.get("options", []):
        out += [o["text"], o.get("explanation", "")]
    out += [q.get("explanation", ""), q.get("model_answer", ""), *point_texts(q.get("key_points"))]
    return out


_NUM = re.compile(
    r"(?<![\w.])\d+/\d+(?![\w.])"
    r"|(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?"
    r"|(?<![\w.])\.\d+%?"
)


def tokens(q: dict) -> set[str]:
    """Numbers that carry information: decimals, percentages, fractions, whole numbers >= 100."""
    found = set()
    for text in texts(q):
        for m in _NUM.finditer(text):
            tok = m.group()
            if any(c in tok for c in ".%,/"):
                found.add(tok)
            elif int(tok) >= 100 and not 1979 <= int(tok) <= 2026:  # years are citations
                found.add(tok)
    return found


def printed(tok: str) -> tuple[F, F]:
    """A token's value and half a unit in its last written place."""
    if "/" in tok:
        a, b = tok.split("/")
        return F(int(a), int(b)), F(0)
    pct = tok.endswith("%")
    body = tok.rstrip("%").replace(",", "")
    decimals = len(body.split(".")[1]) if "." in body else 0
    value, half = F(body), F(1, 2 * 10**decimals)
    if pct:
        value, half = value / 100, half / 100
    return value, half


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.Pow: operator.pow}


def evaluate(expr) -> float | F:
    """Evaluate an `answer:` (numbers, + - * / ^, parentheses, sqrt) without drills' parser."""

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return F(str(node.value))
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow):
                return left ** int(right) if right.denominator == 1 else float(left) ** float(right)
            return _OPS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "sqrt":
            return math.sqrt(ev(node.args[0]))
        raise ValueError(f"unsupported: {ast.dump(node)}")

    return ev(ast.parse(str(expr).replace("^", "**"), mode="eval"))


def listed(prompt: str, name: str) -> list[F]:
    """The list `name: [...]` or `name = [...]` written in a prompt, as exact fractions."""
    m = re.search(rf"{re.escape(name)}\s*[:=]\s*\[([^\]]*)\]", prompt)
    assert m, name
    return [F(x.strip()) for x in m.group(1).split(",")]


def p_values(prompt: str) -> list[F]:
    m = re.search(r"p-values \[([^\]]*)\]", prompt)
    assert m
    return [F(x.strip()) for x in m.group(1).split(",")]


# ------------------------------------------------------------------ independent computations


def mean(xs):
    return sum(xs, F(0)) / len(xs)


def sample_var(xs):
    m = mean(xs)
    return sum(((x - m) ** 2 for x in xs), F(0)) / (len(xs) - 1)


def bonferroni(ps, alpha=F(1, 20)):
    return sum(p <= alpha / len(ps) for p in ps)


def holm(ps, alpha=F(1, 20)):
    m, count = len(ps), 0
    for i, p in enumerate(sorted(ps), start=1):
        if p > alpha / (m - i + 1):
            break
        count += 1
    return count


def bh(ps, q=F(1, 20)):
    m = len(ps)
    passing = [i for i, p in enumerate(sorted(ps), start=1) if p <= i * q / m]
    return max(passing, default=0)


def bh_first_failure(ps, q=F(1, 20)):
    """The step-down misreading of BH: stop at the first p above its threshold."""
    m, count = len(ps), 0
    for i, p in enumerate(sorted(ps), start=1):
        if p > i * q / m:
            break
        count += 1
    return count


def bh_adjusted(ps):
    s, m = sorted(ps), len(ps)
    return [min(m * s[j] / (j + 1) for j in range(i, m)) for i in range(m)]


def sign_flip_p(d):
    """Exact two-sided randomisation p over all 2^n sign assignments."""
    observed = abs(sum(d))
    hits = sum(abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed
               for signs in product((1, -1), repeat=len(d)))
    return F(hits, 2 ** len(d))


def binom_two_sided(k, n):
    tail = sum(math.comb(n, j) for j in range(max(k, n - k), n + 1))
    return min(F(1), 2 * F(tail, 2**n))


# sig-mean-difference
A6 = listed(Q["sig-mean-difference"]["prompt"], "A")
B6 = listed(Q["sig-mean-difference"]["prompt"], "B")
D6 = [b - a for a, b in zip(A6, B6, strict=True)]
# sig-variance-of-differences
DV = listed(Q["sig-variance-of-differences"]["prompt"], "d")
# sig-paired-t and sig-permutation-exact share d
DT = listed(Q["sig-paired-t"]["prompt"], "d")
assert listed(Q["sig-permutation-exact"]["prompt"], "d") == DT
T2 = mean(DT) ** 2 / (sample_var(DT) / len(DT))
T_STAT = math.sqrt(T2)
T_P = 2 * stats.t.sf(T_STAT, len(DT) - 1)
PERM_P = sign_flip_p(DT)
# sig-sign-test
SIGN_P = binom_two_sided(8, 10)
# multiple comparisons
P_HOLM = p_values(Q["sig-holm-count"]["prompt"])
P_BH = p_values(Q["sig-bh-count"]["prompt"])
P_ADJ = p_values(Q["sig-bh-adjusted"]["prompt"])
P_CMP = p_values(Q["sig-holm-bh-compare"]["prompt"])
# queries needed
N_NORMAL = (F("1.96") + F("0.84")) ** 2 * (F("0.15") / F("0.03")) ** 2


def paired_t_power(n, delta=0.03, sd=0.15, alpha=0.05):
    df, nc = n - 1, delta / (sd / math.sqrt(n))
    crit = stats.t.ppf(1 - alpha / 2, df)
    return stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc)


N_EXACT_T = next(n for n in range(150, 400) if paired_t_power(n) >= 0.8)
# CI half-width
T24 = stats.t.ppf(0.975, 24)
# why paired
AP = listed(Q["sig-why-paired"]["prompt"], "A")
BP = listed(Q["sig-why-paired"]["prompt"], "B")
DP = [b - a for a, b in zip(AP, BP, strict=True)]
PAIRED = stats.ttest_rel([float(x) for x in BP], [float(x) for x in AP])
UNPAIRED = stats.ttest_ind([float(x) for x in BP], [float(x) for x in AP])
# bootstrap defaults
BOOT = inspect.signature(stats.bootstrap).parameters

EXPECTED = {
    "sig-mean-difference": mean(D6),
    "sig-variance-of-differences": sample_var(DV),
    "sig-paired-t": T_STAT,
    "sig-permutation-exact": PERM_P,
    "sig-sign-test": SIGN_P,
    "sig-bonferroni-threshold": F(1, 20) / 25,
    "sig-fwer-independent": 1 - (1 - F(1, 20)) ** 10,
    "sig-holm-count": holm(P_HOLM),
    "sig-bh-count": bh(P_BH),
    "sig-bh-adjusted": bh_adjusted(P_ADJ)[1],
    "sig-queries-needed": N_NORMAL,
    "sig-queries-scale": 50 * 2**2,
    "sig-ci-half-width": F("2.064") * F("0.05") / 5,
}

NUMBERS: dict[str, dict[str, object]] = {
    "sig-mean-difference": {
        **{tok: GIVEN for tok in ("0.42", "0.67", "0.18", "0.90", "0.55", "0.33",
                                  "0.47", "0.66", "0.25", "0.91", "0.61", "0.35")},
        # the hint's differences
        **{tok: {abs(x) for x in D6} for tok in ("0.05", "0.01", "0.07", "0.06", "0.02")},
        "0.20": sum(D6), "0.0333": mean(D6),
    },
    "sig-variance-of-differences": {
        "0.03": GIVEN, "0.01": GIVEN, "0.05": GIVEN, "0.02": mean(DV), "0.0001": LABEL,
        "0.0020": sum((x - mean(DV)) ** 2 for x in DV), "0.0005": sample_var(DV),
        "0.0004": sample_var(DV) * (len(DV) - 1) / len(DV),
    },
    "sig-paired-t": {
        "0.04": GIVEN, "0.01": GIVEN, "0.06": GIVEN, "0.02": GIVEN, "0.0001": LABEL,
        "0.05": LABEL, "0.03": mean(DT), "0.0048": sum((x - mean(DT)) ** 2 for x in DT),
        "0.0012": sample_var(DT), "0.0009": mean(DT) ** 2, "0.00024": sample_var(DT) / len(DT),
        "15/4": T2, "1.94": T_STAT, "0.125": T_P,
    },
    "sig-permutation-exact": {
        "0.04": GIVEN, "0.01": GIVEN, "0.06": GIVEN, "0.02": GIVEN, "100,000": LABEL,
        "0.15": abs(sum(DT)), "0.19": sum(abs(x) for x in DT), "2/32": F(2, 2 ** len(DT)),
        "0.1875": PERM_P,
    },
    "sig-sign-test": {
        "1/2": LABEL, "0.05": LABEL, "80%": F(8, 10), "1024": 2**10,
        "56/1024": F(sum(math.comb(10, j) for j in (8, 9, 10)), 1024), "112/1024": SIGN_P,
        "0.109": SIGN_P,
    },
    "sig-bonferroni-threshold": {"0.05": GIVEN, "0.002": F(1, 20) / 25},
    "sig-fwer-independent": {
        "0.05": GIVEN, "0.95": 1 - F(1, 20), "0.401": EXPECTED["sig-fwer-independent"],
        "40%": EXPECTED["sig-fwer-independent"], "0.5": 10 * F(1, 20),
    },
    "sig-holm-count": {
        **{tok: GIVEN for tok in ("0.003", "0.009", "0.014", "0.038", "0.3")}, "0.05": GIVEN,
        "0.01": F(1, 20) / 5, "0.0125": F(1, 20) / 4, "0.0167": F(1, 20) / 3,
        "0.025": F(1, 20) / 2,
    },
    "sig-bh-count": {
        **{tok: GIVEN for tok in ("0.004", "0.009", "0.028", "0.03", "0.2", "0.6")},
        "0.05": GIVEN, "120": 6 / F(1, 20),
        # the thresholds i/120 written as decimals: 4/120 would state sig-mean-difference's 1/30
        "0.025": 3 * F(1, 20) / 6, "0.033": 4 * F(1, 20) / 6,
        "0.0083": 1 * F(1, 20) / 6, "0.017": 2 * F(1, 20) / 6, "0.042": 5 * F(1, 20) / 6,
    },
    "sig-bh-adjusted": {
        **{tok: GIVEN for tok in ("0.01", "0.02", "0.025", "0.04", "0.5")},
        "0.05": 5 * F("0.02") / 2, "0.0417": 5 * F("0.025") / 3, "1/24": bh_adjusted(P_ADJ)[1],
    },
    "sig-queries-needed": {
        "0.15": GIVEN, "0.03": GIVEN, "0.05": GIVEN, "1.96": GIVEN, "0.84": GIVEN, "80%": GIVEN,
        "7.84": (F("1.96") + F("0.84")) ** 2, "196": N_NORMAL, "199": N_EXACT_T,
    },
    "sig-queries-scale": {"80%": GIVEN, "200": 50 * 4},
    "sig-ci-half-width": {
        "2.064": T24, "0.05": GIVEN, "95%": GIVEN, "0.01": F("0.05") / 5,
        "0.0206": T24 * 0.01, "1.96": stats.norm.ppf(0.975), "0.0196": F("1.96") / 100,
    },
    "sig-why-paired": {
        **{tok: GIVEN for tok in ("0.20", "0.85", "0.47", "0.62", "0.35", "0.74",
                                  "0.23", "0.87", "0.51", "0.61", "0.38", "0.76")},
        "0.01": -min(DP), "0.04": max(DP),  # "-0.01 to +0.04"
        "3.08": PAIRED.statistic, "0.027": PAIRED.pvalue,
        "0.156": UNPAIRED.statistic, "0.88": UNPAIRED.pvalue,
    },
    "sig-practical": {"20,000": GIVEN, "0.002": GIVEN, "0.0004": GIVEN, "0.001": LABEL},
    "sig-p-value-meaning": {"0.03": GIVEN, "3%": F(3, 100), "97%": 1 - F(3, 100), "0.05": LABEL},
    "sig-best-of-twenty": {
        "0.03": GIVEN, "0.05": LABEL, "64%": 1 - (1 - F(1, 20)) ** 20, "0.0025": F(1, 20) / 20,
    },
    "sig-bootstrap-unit": {"200": GIVEN, "95%": GIVEN},
    "sig-holm-bh-compare": {
        **{tok: GIVEN for tok in ("0.002", "0.013", "0.02", "0.045")}, "0.05": GIVEN,
        "0.0125": F(1, 20) / 4, "0.0167": F(1, 20) / 3, "0.025": F(1, 20) / 2,
        "0.0375": 3 * F(1, 20) / 4,
    },
    "sig-fwer-vs-fdr": {"0.05": GIVEN, "5%": F(1, 20)},
    "sig-randomisation-test": {"2/2": LABEL, "100,000": LABEL},  # 2/2^n; a suggested sample count
    "sig-per-query-variance": {"0.1": GIVEN, "0.95": GIVEN},
    "sig-report-a-gain": {"0.5%": GIVEN},
}


# ------------------------------------------------------------------ the pack


def test_pack_loads_with_no_errors():
    pack = load_pack(PATH, builtin=True)
    assert pack.errors == [], [str(e) for e in pack.errors]
    assert len(pack.questions) == len(QUESTIONS) >= 20
    kinds = Counter(q["kind"] for q in QUESTIONS)
    assert len(kinds) >= 3 and kinds["numeric"] >= 8
    assert len({q.get("difficulty") for q in QUESTIONS}) >= 2
    assert RAW["pack"]["name"] == "significance"
    assert all(q["topic"] == "significance" for q in QUESTIONS)


def test_every_numeric_question_is_recomputed_here():
    assert {q["id"] for q in QUESTIONS if q["kind"] == "numeric"} == set(EXPECTED)


@pytest.mark.parametrize("qid", sorted(EXPECTED))
def test_answer_is_the_recomputed_value(qid):
    got, want = evaluate(Q[qid]["answer"]), EXPECTED[qid]
    if isinstance(got, F) and isinstance(want, F | int):
        assert got == want
    else:
        assert abs(float(got) - float(want)) <= 1e-9


@pytest.mark.parametrize("q", QUESTIONS, ids=lambda q: q["id"])
def test_every_number_in_the_text_is_accounted_for(q):
    known = NUMBERS.get(q["id"], {})
    unexplained = tokens(q) - set(known)
    assert not unexplained, f"numbers not checked by this test: {sorted(unexplained)}"
    stale = set(known) - tokens(q)
    assert not stale, f"NUMBERS lists numbers the text no longer has: {sorted(stale)}"
    for tok, value in known.items():
        if isinstance(value, str):
            if value == GIVEN:
                assert re.search(rf"(?<![\w.]){re.escape(tok)}(?![\w])", q["prompt"]), tok
            continue
        shown, half = printed(tok)
        candidates = value if isinstance(value, set) else {value}
        assert any(abs(float(shown) - float(v)) <= float(half) + 1e-12 for v in candidates), (
            tok, sorted(float(v) for v in candidates))


# ------------------------------------------------------------------ question by question


def test_paired_t_by_hand_and_with_scipy():
    assert mean(DT) == F(3, 100) and sample_var(DT) == F(12, 10000) and T2 == F(15, 4)
    squares = [int((x - mean(DT)) ** 2 * 10000) for x in DT]
    assert squares == [1, 4, 9, 25, 9]  # the hint
    b = [0.5 + float(x) for x in DT]
    a = [0.5] * len(DT)
    assert stats.ttest_rel(b, a).statistic == pytest.approx(T_STAT)  # "the same t"
    assert stats.ttest_1samp([float(x) for x in DT], 0).statistic == pytest.approx(T_STAT)


def test_variance_hint_and_numpy_default():
    assert [int((x - mean(DV)) ** 2 * 10000) for x in DV] == [1, 9, 9, 0, 1]
    d = np.array([float(x) for x in DV])
    assert np.var(d) == pytest.approx(0.0004)  # ddof=0 by default: the population variance
    assert np.var(d, ddof=1) == pytest.approx(0.0005)


def test_permutation_enumeration_and_scipy():
    flips = [sum(s * x for s, x in zip(signs, DT, strict=True))
             for signs in product((1, -1), repeat=len(DT))]
    assert sum(f >= F(15, 100) for f in flips) == 3 and sum(f <= F(-15, 100) for f in flips) == 3
    assert PERM_P == F(6, 32) == F(3, 16)
    # the hint: the only sets flipped to negative that keep the sum >= 0.15
    absd = [abs(x) for x in DT]
    small = [set() if not s else s for s in ({absd[i] for i in idx} for idx in _subsets(5))
             if sum(s, F(0)) <= F(2, 100)]
    assert sorted(sorted(s) for s in small) == [[], [F(1, 100)], [F(2, 100)]]
    res = stats.permutation_test(
        ([0.5 + float(x) for x in DT], [0.5] * len(DT)),
        lambda x, y: np.mean(x - y), permutation_type="samples", n_resamples=10_000,
        alternative="two-sided")
    assert res.pvalue == pytest.approx(3 / 16)


def _subsets(n):
    for mask in range(2**n):
        yield [i for i in range(n) if mask >> i & 1]


def test_sign_test_matches_scipy():
    assert (math.comb(10, 8), math.comb(10, 9), math.comb(10, 10)) == (45, 10, 1)  # the hint
    assert SIGN_P == F(7, 64)
    assert stats.binomtest(8, 10).pvalue == pytest.approx(7 / 64)


def test_multiple_comparison_counts():
    # sig-holm-count: Bonferroni 2, Holm 3, BH 4
    assert (bonferroni(P_HOLM), holm(P_HOLM), bh(P_HOLM)) == (2, 3, 4)
    # sig-bh-count: BH 4 by step-up, 2 by stopping at the first failure; Holm 2, Bonferroni 1
    assert (bh(P_BH), bh_first_failure(P_BH), holm(P_BH), bonferroni(P_BH)) == (4, 2, 2, 1)
    # sig-holm-bh-compare: Bonferroni 1, Holm 4, BH 4
    assert (bonferroni(P_CMP), holm(P_CMP), bh(P_CMP)) == (1, 4, 4)
    options = {o["text"]: o.get("correct", False) for o in Q["sig-holm-bh-compare"]["options"]}
    assert options["Bonferroni 1, Holm 4, Benjamini-Hochberg 4"] is True
    # "BH's thresholds i * alpha / m are never below Holm's alpha / (m - i + 1)"
    assert all(i * (m - i + 1) >= m for m in range(1, 60) for i in range(1, m + 1))
    # scipy's BH adjusted p-values agree with the counts
    for ps, count in ((P_HOLM, 4), (P_BH, 4), (P_CMP, 4)):
        adjusted = stats.false_discovery_control([float(p) for p in ps])
        assert int(np.sum(adjusted <= 0.05)) == count


def test_bh_adjusted_value_and_scipy_default():
    assert bh_adjusted(P_ADJ)[1] == F(1, 24)
    assert 5 * F("0.02") / 2 == F(1, 20)  # the unadjusted m p / i the slip gives
    adjusted = stats.false_discovery_control([float(p) for p in P_ADJ])
    assert adjusted[1] == pytest.approx(1 / 24)
    assert inspect.signature(stats.false_discovery_control).parameters["method"].default == "bh"


def test_queries_needed():
    assert N_NORMAL == 196 and N_EXACT_T == 199
    assert math.sqrt(196 / 50) == pytest.approx(2, abs=0.05)  # "about twice as large"


def test_ci_half_width_uses_the_t_quantile():
    assert round(T24, 3) == 2.064
    assert F("2.064") * F("0.05") / 5 == F("0.02064")


def test_why_paired_numbers():
    assert round(PAIRED.statistic, 2) == 3.08 and round(PAIRED.pvalue, 3) == 0.027
    assert round(UNPAIRED.statistic, 3) == 0.156 and round(UNPAIRED.pvalue, 2) == 0.88
    assert (min(AP), max(AP)) == (F("0.20"), F("0.85"))


def test_scipy_bootstrap_defaults():
    assert BOOT["method"].default == "BCa"
    assert BOOT["confidence_level"].default == 0.95 and BOOT["n_resamples"].default == 9999
    assert BOOT["n_resamples"].default not in (1000, 10_000)
    d = np.array([float(x) for x in DT])
    res = stats.bootstrap((d,), np.mean, rng=np.random.default_rng(0))
    lo, hi = res.confidence_interval
    assert lo < float(mean(DT)) < hi


def test_replication_is_a_coin_flip_at_p_005():
    """If the true effect equals one observed at p = 0.05, a same-size replication is
    significant about half the time (the p-value question's option d)."""
    z = stats.norm.ppf(0.975)
    power = stats.norm.sf(z - z) + stats.norm.cdf(-z - z)
    assert power == pytest.approx(0.5, abs=0.01)


def test_best_of_twenty_expects_one_false_positive():
    assert 20 * F(1, 20) == 1
    assert round(1 - 0.95**20, 2) == 0.64


def test_choice_questions_have_one_correct_option_and_explain_each():
    for q in QUESTIONS:
        if q["kind"] != "choice":
            continue
        assert sum(bool(o.get("correct")) for o in q["options"]) == 1, q["id"]
        assert all(o.get("explanation", "").strip() for o in q["options"]), q["id"]


def test_prompts_fit_an_80_column_terminal():
    for q in QUESTIONS:
        assert max(len(line) for line in q["prompt"].splitlines()) <= 80, q["id"]
