"""cuped, delta-method-ctr, srm-chi-square and off-policy: every answer against an independent
computation from the numbers read back out of the prompt (Python's statistics module for
covariances, the textbook three-term delta-method formula, scipy.stats.chisquare where
installed, the estimators written out again here), over many seeds."""

from __future__ import annotations

import random
import re
import statistics
from fractions import Fraction

import pytest

from drills.answers.parser import parse
from drills.generators import REGISTRY
from drills.grading.check import check
from drills.model import Question

SEEDS = range(40)


def make(name: str, params: dict, seed: int) -> Question:
    t = Question(id=f"t-{name}", topic=REGISTRY[name].topic, kind="generated", prompt="",
                 generator=name, params=params)
    g = REGISTRY[name]
    return g.make(t, g.resolved(params), random.Random(seed))


def table(prompt: str, width: int) -> list[list[str]]:
    """The rows of the prompt's table: lines that start with a row number and have ``width`` cells."""
    rows = [line.split() for line in prompt.splitlines() if re.match(r"\s+\d+\s", line)]
    return [r for r in rows if len(r) == width]


def value(q: Question) -> float:
    return parse(q.answer).value


# ------------------------------------------------------------------ CUPED

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ask", ["theta", "remaining", "adjusted"])
def test_cuped_against_the_statistics_module(ask, seed):
    q = make("cuped", {"ask": ask}, seed)
    rows = table(q.prompt, 3)
    assert len(rows) == 6
    xs = [Fraction(int(r[1])) for r in rows]
    ys = [Fraction(int(r[2])) for r in rows]
    theta = statistics.covariance(xs, ys) / statistics.variance(xs)
    rho = statistics.correlation([float(x) for x in xs], [float(y) for y in ys])
    if ask == "theta":
        want = float(theta)
    elif ask == "remaining":
        want = 1 - rho**2
        # the definition, not the shortcut: the variance of the adjusted values over Var(Y)
        adjusted = [y - theta * x for x, y in zip(xs, ys, strict=True)]
        assert statistics.variance(adjusted) / statistics.variance(ys) == pytest.approx(want, abs=1e-12)
    else:
        user = int(re.search(r"what is user (\d)'s", q.prompt).group(1))
        want = float(ys[user - 1] - theta * (xs[user - 1] - statistics.mean(xs)))
    assert value(q) == pytest.approx(want, abs=1e-12)
    assert 0.25 <= rho**2 <= 0.9
    assert check(q, q.answer).correct and check(q, f"{want:.6f}").correct


def test_cuped_theta_is_the_least_squares_slope_numpy():
    np = pytest.importorskip("numpy")
    for seed in range(10):
        q = make("cuped", {"ask": "theta"}, seed)
        rows = table(q.prompt, 3)
        x = np.array([int(r[1]) for r in rows], float)
        y = np.array([int(r[2]) for r in rows], float)
        slope = np.polyfit(x, y, 1)[0]
        assert value(q) == pytest.approx(slope, abs=1e-9)


# ------------------------------------------------------------------ the delta method

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("users", [4, 5, 8])
def test_delta_method_three_term_formula(users, seed):
    q = make("delta-method-ctr", {"users": users}, seed)
    rows = table(q.prompt, 3)
    assert len(rows) == users
    c = [Fraction(int(r[1])) for r in rows]
    m = [Fraction(int(r[2])) for r in rows]
    r = sum(c) / sum(m)
    mu = sum(m) / users

    def cov(a: list[Fraction], b: list[Fraction]) -> Fraction:  # divisor n - 1
        ma, mb = sum(a) / users, sum(b) / users
        return sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True)) / (users - 1)

    var = (cov(c, c) - 2 * r * cov(c, m) + r * r * cov(m, m)) / (users * mu * mu)
    assert q.answer == f"sqrt({var.numerator}/{var.denominator})"
    assert value(q) == pytest.approx(float(var) ** 0.5, abs=1e-12)
    floats = (statistics.variance(c) - 2 * float(r) * statistics.covariance(c, m)
              + float(r) ** 2 * statistics.variance(m)) / (users * float(mu) ** 2)
    assert float(var) == pytest.approx(floats, rel=1e-9)  # and the statistics module agrees
    assert check(q, f"{float(var) ** 0.5:.4f}").correct
    assert not check(q, f"{float(var) ** 0.5 + 0.0002:.4f}").correct  # 4 decimal places, as asked


def test_delta_method_agrees_with_a_large_bootstrap_in_spirit():
    """Not a proof, a sanity check: resampling users gives a standard error of the same size."""
    np = pytest.importorskip("numpy")
    q = make("delta-method-ctr", {"users": 8}, 3)
    rows = table(q.prompt, 3)
    c = np.array([int(r[1]) for r in rows])
    m = np.array([int(r[2]) for r in rows])
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(c), size=(20000, len(c)))
    boot = c[idx].sum(1) / m[idx].sum(1)
    assert value(q) == pytest.approx(boot.std(), rel=0.25)


# ------------------------------------------------------------------ sample ratio mismatch

def _counts(q: Question) -> tuple[int, int, int]:
    share = int(re.search(r"send (\d+)% of users to control", q.prompt).group(1))
    a, b = (int(x.replace(",", "")) for x in re.findall(r"([\d,]+) (?:users )?in (?:control|treatment)", q.prompt))
    return share, a, b


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("split", ["even", "uneven"])
def test_srm_chi_square(split, seed):
    q = make("srm-chi-square", {"split": split}, seed)
    share, a, b = _counts(q)
    n = a + b
    ea, eb = Fraction(n * share, 100), Fraction(n * (100 - share), 100)
    want = (a - ea) ** 2 / ea + (b - eb) ** 2 / eb
    assert value(q) == pytest.approx(float(want), rel=1e-12)
    assert (share == 50) == (split == "even")
    stats = pytest.importorskip("scipy.stats")
    assert value(q) == pytest.approx(stats.chisquare([a, b], [float(ea), float(eb)]).statistic, rel=1e-9)


# ------------------------------------------------------------------ off-policy estimates

def _log(q: Question) -> list[tuple[str, Fraction, int, str, Fraction | None]]:
    out = []
    for r in table(q.prompt, 6) or table(q.prompt, 5):
        out.append((r[1], Fraction(r[2]), int(r[3]), r[4], Fraction(r[5]) if len(r) == 6 else None))
    return out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ask", ["ips", "snips", "clipped", "dr"])
def test_off_policy_estimators(ask, seed):
    q = make("off-policy", {"ask": ask}, seed)
    log = _log(q)
    assert len(log) == 6
    n = len(log)
    hits = [(1 / p, c, qhat) for a, p, c, new, qhat in log if a == new]
    if ask == "ips":
        want = sum(w * c for w, c, _ in hits) / n
    elif ask == "snips":
        want = sum(w * c for w, c, _ in hits) / sum(w for w, _, _ in hits)
    elif ask == "clipped":
        want = sum(min(w, 3) * c for w, c, _ in hits) / n
    else:  # the model term for every request, the weighted residual for the matched ones
        want = (sum(qhat for *_, qhat in log) + sum(w * (c - qhat) for w, c, qhat in hits)) / n
    assert value(q) == pytest.approx(float(want), abs=1e-12)
    assert ("q(new)" in q.prompt) == (ask == "dr")
    assert 3 <= len(hits) < 6 and any(c for _, c, _ in hits)


def test_every_item_is_reproducible_and_varied():
    for name, params in [("cuped", {}), ("delta-method-ctr", {}), ("srm-chi-square", {}), ("off-policy", {})]:
        items = [make(name, params, s) for s in range(8)]
        assert items[0] == make(name, params, 0)
        assert len({q.prompt for q in items}) >= 6, name


def test_no_heavy_import_at_start_up():
    import subprocess
    import sys

    code = ("import sys, drills.generators.experiments; "
            "print(any(m in sys.modules for m in ('numpy', 'scipy', 'sympy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
