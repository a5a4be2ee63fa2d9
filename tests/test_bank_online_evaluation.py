"""The online-evaluation pack (questions/online-evaluation.yaml): every number recomputed.

Independent of drills' engine: the YAML is read with yaml.safe_load, every `answer:` is
evaluated by a tiny evaluator here, and every number written anywhere in a question's text
(prompt, hints, options, explanations, model answer) must be accounted for in NUMBERS below:
recomputed from first principles (fractions; scipy.stats for test statistics and p-values),
given in the prompt (GIVEN), or a convention such as alpha = 0.05 (LABEL). Interleaving is
simulated by hand (team-draft and balanced, as in Radlinski et al. 2008 and Joachims 2003).
Claims that cannot be run carry their source in a YAML comment beside the question.
"""

from __future__ import annotations

import ast
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

PATH = Path(__file__).resolve().parent.parent / "questions" / "online-evaluation.yaml"
RAW = yaml.safe_load(PATH.read_text(encoding="utf-8"))
QUESTIONS = RAW["questions"]
Q = {q["id"]: q for q in QUESTIONS}

stats = pytest.importorskip("scipy.stats")

GIVEN = "given"  # data stated in the prompt itself
LABEL = "label"  # a convention or formula constant (alpha, power, a 50/50 split), not a result


# ------------------------------------------------------------------ helpers


def texts(q: dict) -> list[str]:
    out = [q["prompt"], *q.get("hints", [])]
    for o in q.get("options", []):
        out += [o["text"], o.get("explanation", "")]
    out += [q.get("explanation", ""), q.get("model_answer", ""), *point_texts(q.get("key_points"))]
    return out


def full_text(q: dict) -> str:
    return "\n".join(texts(q))


_NUM = re.compile(
    r"(?<![\w.])\d+/\d+(?![\w.])"  # a fraction of whole numbers
    r"|(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?"  # 50,600  0.0035  7.5%
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


def evaluate(expr: str) -> float | F:
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


def close(value, expected, tol=1e-12) -> bool:
    return abs(float(value) - float(expected)) <= tol


# ------------------------------------------------------------------ independent computations


def team_draft(a, b, coins):
    """Team-draft interleaving; coins[i] is 'A' or 'B', who picks first in round i."""
    shown, team, sizes = [], {}, Counter()
    rounds = iter(coins)

    def left(ranking):
        return [d for d in ranking if d not in shown]

    while left(a) and left(b):  # checked before every pick, as in Radlinski et al.'s algorithm
        if sizes["A"] == sizes["B"]:
            first = next(rounds, None)
            if first is None:  # the rounds asked about are done
                break
            who = first
        else:
            who = "A" if sizes["A"] < sizes["B"] else "B"
        doc = left(a if who == "A" else b)[0]
        shown.append(doc)
        team[doc] = who
        sizes[who] += 1
    return shown, team


def balanced(a, b, a_first):
    """Balanced interleaving (Joachims 2003): walk both lists, the leader first at equal depth."""
    shown, ka, kb = [], 0, 0
    while ka < len(a) and kb < len(b):
        if ka < kb or (ka == kb and a_first):
            if a[ka] not in shown:
                shown.append(a[ka])
            ka += 1
        else:
            if b[kb] not in shown:
                shown.append(b[kb])
            kb += 1
    return shown


def balanced_credit(a, b, shown, clicked_positions):
    lowest = shown[max(clicked_positions)]
    k = min(a.index(lowest) + 1, b.index(lowest) + 1)
    clicked = {shown[i] for i in clicked_positions}
    return len(clicked & set(a[:k])), len(clicked & set(b[:k]))


def ips_log(q):
    """The log table of the IPS questions, read from the prompt."""
    rows = re.findall(r"^\s*(\d)\s+([XY])\s+(\d+/\d+)\s+([01])\s+([XY])\s*$", q["prompt"], re.M)
    assert len(rows) == 5
    return [(shown, F(p), int(click), new) for _, shown, p, click, new in rows]


z975, z80 = stats.norm.ppf(0.975), stats.norm.ppf(0.8)

# ctr lift
C_CTR, T_CTR = F(2000, 50000), F(2150, 50000)
# ratio of means
USERS = [(3, 6), (1, 10), (0, 24)]
MEAN_CTR = sum(F(c, n) for c, n in USERS) / len(USERS)
POOLED_CTR = F(sum(c for c, _ in USERS), sum(n for _, n in USERS))
# SRM
SRM = stats.chisquare([50600, 49400])
SRM_EXACT = sum(F(o - 50000) ** 2 / 50000 for o in (50600, 49400))
# sample size rule
P_CTR, DELTA = F(1, 10), F(5, 1000)
N_RULE = 16 * P_CTR * (1 - P_CTR) / DELTA**2
N_EXACT_Z = 2 * (z975 + z80) ** 2 * float(P_CTR * (1 - P_CTR)) / float(DELTA) ** 2
# MDE
P_CONV, N_MDE = F(1, 5), 10_000
SIGMA_CONV = math.sqrt(P_CONV * (1 - P_CONV))
MDE = 4 * F(2, 5) / 100  # sigma = 0.4 exactly, sqrt(n) = 100
# z test
PC, PT, NZ = F(500, 10000), F(600, 10000), 10000
POOL = F(1100, 20000)
Z2 = (PT - PC) ** 2 / (POOL * (1 - POOL) * F(2, NZ))
Z = math.sqrt(Z2)
# IPS / SNIPS
LOG = ips_log(Q["oe-ips-estimate"])
assert ips_log(Q["oe-snips-estimate"]) == LOG
WEIGHTS = [F(1) / p if shown == new else F(0) for shown, p, _, new in LOG]
IPS = sum(w * c for w, (_, _, c, _) in zip(WEIGHTS, LOG, strict=True)) / len(LOG)
SNIPS = sum(w * c for w, (_, _, c, _) in zip(WEIGHTS, LOG, strict=True)) / sum(WEIGHTS)
# interleaving score
WA, WB, TIES = 315, 245, 440
DELTA_AB = (WA + F(TIES, 2)) / (WA + WB + TIES) - F(1, 2)
TD_P = stats.binomtest(WA, WA + WB).pvalue


def _balanced_b_win_probability():
    a, b = ["a", "b", "c"], ["b", "c", "a"]
    wins = []
    for a_first in (True, False):
        shown = balanced(a, b, a_first)
        assert sorted(shown) == ["a", "b", "c"]
        for pos in range(3):
            ha, hb = balanced_credit(a, b, shown, [pos])
            wins.append(F(int(hb > ha)))
    return sum(wins) / len(wins)


def _team_draft_b_win_probability():
    a, b = ["a", "b", "c"], ["b", "c", "a"]
    wins = []
    for coins in product("AB", repeat=2):
        shown, team = team_draft(a, b, coins)
        for doc in shown:  # one click, uniformly over the shown documents
            wins.append(F(int(team[doc] == "B"), len(shown)))
    return sum(wins) / 4


BALANCED_B = _balanced_b_win_probability()
TEAM_DRAFT_B = _team_draft_b_win_probability()

# the value of every numeric question's answer, computed here
EXPECTED = {
    "oe-ctr-relative-lift": (T_CTR - C_CTR) / C_CTR,
    "oe-ctr-ratio-of-means": MEAN_CTR,
    "oe-srm-chi-square": SRM_EXACT,
    "oe-sample-size-rule": N_RULE,
    "oe-mde-from-n": MDE,
    "oe-sample-size-quarter": 200_000 * (F(2) / F(1)) ** 2,
    "oe-two-proportion-z": Z,
    "oe-ips-estimate": IPS,
    "oe-snips-estimate": SNIPS,
    "oe-team-draft-delta": DELTA_AB,
    "oe-balanced-interleaving-bias": BALANCED_B * 6,  # cases out of 2 coins x 3 clicks
}

# every informative number written in each question: its recomputed value, GIVEN or LABEL
NUMBERS: dict[str, dict[str, object]] = {
    "oe-ctr-relative-lift": {
        "2,000": GIVEN, "2,150": GIVEN, "50,000": GIVEN, "0.1": LABEL, "10%": LABEL,  # format
        "2000/50000": C_CTR, "2150/50000": T_CTR, "4%": C_CTR, "0.04": C_CTR,
        "4.3%": T_CTR, "0.043": T_CTR, "0.003": T_CTR - C_CTR, "0.3%": T_CTR - C_CTR,
        "0.3": (T_CTR - C_CTR) * 100,  # percentage points
        "0.075": (T_CTR - C_CTR) / C_CTR, "7.5%": (T_CTR - C_CTR) / C_CTR,
    },
    "oe-ctr-ratio-of-means": {
        "3/6": F(3, 6), "1/2": F(3, 6), "1/10": F(1, 10), "0.2": MEAN_CTR,
        "4/40": POOLED_CTR, "0.1": POOLED_CTR,
    },
    "oe-srm-chi-square": {
        "50,600": GIVEN, "49,400": GIVEN, "50/50": LABEL, "50,000": F(50600 + 49400, 2),
        "600": 50600 - 50000, "1.2%": F(50600 - 49400, 100000), "14.4": SRM.statistic,
        "0.00015": SRM.pvalue,
    },
    "oe-sample-size-rule": {
        "10%": GIVEN, "0.005": GIVEN, "0.05": GIVEN, "80%": GIVEN, "0/1": LABEL,
        "5%": DELTA / P_CTR, "0.1": P_CTR, "0.9": 1 - P_CTR, "0.09": P_CTR * (1 - P_CTR),
        "0.000025": DELTA**2, "57,600": N_RULE, "1.96": z975, "0.84": z80,
        "15.7": 2 * (z975 + z80) ** 2, "56,500": (N_EXACT_Z, 50),
    },
    "oe-mde-from-n": {
        "20%": GIVEN, "10,000": GIVEN, "0.05": GIVEN, "80%": GIVEN,
        "0.2": P_CONV, "0.8": 1 - P_CONV, "0.4": SIGMA_CONV, "0.016": MDE, "1.6": MDE * 100,
        "8%": MDE / P_CONV, "2%": F(4, 1000) / P_CONV, "0.004": F(2, 100) * P_CONV,
    },
    "oe-sample-size-quarter": {
        "200,000": GIVEN, "2%": GIVEN, "1%": GIVEN, "800,000": 200_000 * 4,
    },
    "oe-two-proportion-z": {
        "500": GIVEN, "600": GIVEN, "10,000": GIVEN,
        "1100": 500 + 600, "20000": 2 * NZ, "0.055": POOL, "0.945": 1 - POOL,
        "2/10000": F(1, NZ) + F(1, NZ), "0.0002": F(2, NZ), "0.01": PT - PC,
        "0.0032": math.sqrt(POOL * (1 - POOL) * F(2, NZ)), "3.10": Z,
        "0.0019": 2 * stats.norm.sf(Z),
    },
    "oe-ips-estimate": {
        "1/2": GIVEN, "1/4": GIVEN, "3/4": GIVEN, "4/5": GIVEN,
        "4/3": F(4, 3), "22/3": IPS * len(LOG), "1.47": IPS,
    },
    "oe-snips-estimate": {
        "1/2": GIVEN, "1/4": GIVEN, "3/4": GIVEN, "4/5": GIVEN,
        "4/3": F(4, 3), "5/4": F(5, 4), "22/3": IPS * len(LOG), "103/12": sum(WEIGHTS),
        "88/103": SNIPS, "0.85": SNIPS,
    },
    "oe-team-draft-delta": {
        "315": GIVEN, "245": GIVEN, "440": GIVEN, "1,000": GIVEN, "0.5": LABEL,
        "220": F(TIES, 2), "1000": WA + WB + TIES, "0.035": DELTA_AB, "560": WA + WB,
        "0.0035": TD_P,
    },
    "oe-novelty-effect": {"6%": GIVEN, "3%": GIVEN, "1%": GIVEN, "3.3%": F(6 + 3 + 1, 3) / 100},
    "oe-peeking": {"0.05": GIVEN, "5%": LABEL},
    "oe-good-abandonment": {"30%": GIVEN, "36%": GIVEN},
    "oe-ctr-up-dwell-down": {"4%": GIVEN},
    "oe-srm-response": {"50/50": GIVEN},
    "oe-offline-online-gap": {"2%": GIVEN},
}


# ------------------------------------------------------------------ the pack


def test_pack_loads_with_no_errors():
    pack = load_pack(PATH, builtin=True)
    assert pack.errors == [], [str(e) for e in pack.errors]
    assert len(pack.questions) == len(QUESTIONS) >= 20
    kinds = Counter(q["kind"] for q in QUESTIONS)
    assert len(kinds) >= 3 and kinds["numeric"] >= 8
    assert len({q.get("difficulty") for q in QUESTIONS}) >= 2
    assert RAW["pack"]["name"] == "online-evaluation"
    assert all(q["topic"] == "online-evaluation" for q in QUESTIONS)


def test_every_numeric_question_is_recomputed_here():
    numeric = {q["id"] for q in QUESTIONS if q["kind"] == "numeric"}
    assert numeric == set(EXPECTED)


@pytest.mark.parametrize("qid", sorted(EXPECTED))
def test_answer_is_the_recomputed_value(qid):
    got = evaluate(Q[qid]["answer"])
    want = EXPECTED[qid]
    if isinstance(got, F) and isinstance(want, F):
        assert got == want
    else:
        assert close(got, want, 1e-9)


@pytest.mark.parametrize("q", QUESTIONS, ids=lambda q: q["id"])
def test_every_number_in_the_text_is_accounted_for(q):
    known = NUMBERS.get(q["id"], {})
    unexplained = tokens(q) - set(known)
    assert not unexplained, f"numbers not checked by this test: {sorted(unexplained)}"
    stale = set(known) - tokens(q)
    assert not stale, f"NUMBERS lists numbers the text no longer has: {sorted(stale)}"
    for tok, value in known.items():
        if value == GIVEN:
            assert re.search(rf"(?<![\w.]){re.escape(tok)}(?![\w])", q["prompt"]), tok
            continue
        if value == LABEL:
            continue
        shown, half = printed(tok)
        want, tol = value if isinstance(value, tuple) else (value, half)
        assert abs(float(shown) - float(want)) <= float(tol) + 1e-12, (tok, float(want))


# ------------------------------------------------------------------ question by question


def test_ctr_questions_state_their_data():
    assert "3 clicks in 6 impressions" in Q["oe-ctr-ratio-of-means"]["prompt"]
    assert "1 click in 10 impressions" in Q["oe-ctr-ratio-of-means"]["prompt"]
    assert "0 clicks in 24 impressions" in Q["oe-ctr-ratio-of-means"]["prompt"]
    assert MEAN_CTR == 2 * POOLED_CTR  # "half as much"
    assert "user 3 counts 24 times" in Q["oe-ctr-ratio-of-means"]["explanation"]


def test_sample_size_rule_and_scaling():
    assert float(N_RULE) == 57_600
    assert 2 * (F("1.96") + F("0.84")) ** 2 == F("15.68")  # van Belle's 16, rounded up
    # halving the detectable effect quadruples n; a 2% relative lift needs 16x the users
    assert (MDE / (F(2, 100) * P_CONV)) ** 2 == 16
    assert "16x the users" in Q["oe-mde-from-n"]["explanation"]
    assert 4 * SIGMA_CONV / math.sqrt(N_MDE) == pytest.approx(float(MDE))
    # exact z values give a delta close to the rule's
    exact = (z975 + z80) * math.sqrt(2 * SIGMA_CONV**2 / N_MDE)
    assert abs(exact - float(MDE)) < 0.0005  # inside the question's tolerance


def test_z_statistic_matches_scipy_free_formula_and_independent_impressions():
    assert Z2 == F(20000, 2079)
    # an unpooled standard error gives nearly the same z, so both readings are accepted
    unpooled = float(PT - PC) / math.sqrt(float(PC * (1 - PC) + PT * (1 - PT)) / NZ)
    assert abs(unpooled - Z) < 0.5 * 0.005 * Z


def test_ips_and_snips_by_hand():
    assert WEIGHTS == [2, 0, 4, F(4, 3), F(5, 4)]
    assert IPS == F(22, 15) and IPS > 1  # "a click rate above 1"
    assert SNIPS == F(88, 103) and 0 <= SNIPS <= 1
    assert sum(WEIGHTS) == F(103, 12)


def test_team_draft_worked_example():
    a, b = ["p", "q", "r", "s"], ["r", "p", "t", "u"]
    shown, team = team_draft(a, b, ["B", "A"])
    assert shown[:4] == ["r", "p", "q", "t"]
    clicks = [shown[i - 1] for i in (1, 3, 4)]
    credit = Counter(team[d] for d in clicks)
    assert credit == {"B": 2, "A": 1}
    # every option's list and credit, under the coins it assumes (the distractors' wrong ones)
    coins_for = {"[r, p, q, t]": ["B", "A"], "[p, r, q, t]": ["A", "A"], "[r, p, t, q]": ["B", "B"]}
    claim = re.compile(r"^(\[[a-z, ]+\]): (\w) gets 2 clicks \((\w), (\w)\), (\w) gets 1 \((\w)\); (\w) wins$")
    for o in Q["oe-team-draft-worked"]["options"]:
        listed = o["text"].split(":")[0]
        shown_o, team_o = team_draft(a, b, coins_for[listed])
        assert ", ".join(shown_o[:4]) == listed.strip("[]")
        m = claim.match(o["text"])
        if not m:  # the split-credit distractor
            assert "split" in o["text"] and not o.get("correct")
            continue
        _, big, x, y, small, z, winner = m.groups()
        clicked = [shown_o[i - 1] for i in (1, 3, 4)]
        assert sorted(clicked) == sorted([x, y, z])
        assert team_o[x] == team_o[y] == big and team_o[z] == small and winner == big
        assert o.get("correct", False) == (listed == "[r, p, q, t]")


def test_balanced_interleaving_is_biased_and_team_draft_is_not():
    a, b = ["a", "b", "c"], ["b", "c", "a"]
    assert balanced(a, b, True) == ["a", "b", "c"] and balanced(a, b, False) == ["b", "a", "c"]
    shown = balanced(a, b, True)
    assert balanced_credit(a, b, shown, [0]) == (1, 0)  # click on a: A wins
    assert balanced_credit(a, b, shown, [1]) == (0, 1)  # click on b: B wins
    assert balanced_credit(a, b, shown, [2]) == (0, 1)  # click on c: k = 2, B wins
    assert BALANCED_B == F(2, 3)
    assert TEAM_DRAFT_B == F(1, 2)  # "each ranker wins half the impressions in expectation"


def test_delta_ab_and_its_binomial_test():
    assert DELTA_AB == F(7, 200) and DELTA_AB > 0
    assert round(TD_P, 4) == 0.0035


def test_peeking_inflates_false_positives():
    """Daily looks at a null effect: the chance that some look has p < 0.05 is well above 5%."""
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(0)
    looks, sims = 14, 20_000
    z = np.cumsum(rng.standard_normal((sims, looks)), axis=1) / np.sqrt(np.arange(1, looks + 1))
    rate = float(np.mean(np.any(np.abs(z) > z975, axis=1)))
    assert rate > 0.15  # about 0.2 for two weeks of daily looks, not 0.05


def test_srm_matches_scipy():
    assert SRM.statistic == pytest.approx(float(SRM_EXACT)) and SRM_EXACT == F(72, 5)
    assert SRM.pvalue < 0.001


def test_choice_questions_have_one_correct_option_and_explain_each():
    for q in QUESTIONS:
        if q["kind"] != "choice":
            continue
        assert sum(bool(o.get("correct")) for o in q["options"]) == 1, q["id"]
        assert all(o.get("explanation", "").strip() for o in q["options"]), q["id"]


def test_prompts_fit_an_80_column_terminal():
    for q in QUESTIONS:
        assert max(len(line) for line in q["prompt"].splitlines()) <= 80, q["id"]
