"""Generators for online experiments: CUPED by hand, the delta-method standard error of a
per-user-randomised CTR, a sample-ratio-mismatch chi-square, and off-policy estimates
(IPS, SNIPS, clipped IPS, doubly robust) from a small log.

Every answer is exact, computed here with fractions (a standard error is ``sqrt(p/q)``); no
floating point decides an answer and nothing heavier than the standard library is imported.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from drills.engine.exact import fraction_text
from drills.generators.drawing import concrete, resolved
from drills.generators.registry import Param, register
from drills.model import Question, Tolerance

CUPED = "cuped"
DELTA_CTR = "delta-method-ctr"
SRM = "srm-chi-square"
OFF_POLICY = "off-policy"

PROPENSITIES = (Fraction(1, 5), Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3),
                Fraction(3, 4), Fraction(4, 5))
CLIP = 3  # the weight cap of clipped IPS


def _co(xs: Sequence[int], ys: Sequence[int]) -> Fraction:
    """The sum of (x - mean x)(y - mean y): a covariance times (n - 1)."""
    mx, my = Fraction(sum(xs), len(xs)), Fraction(sum(ys), len(ys))
    return sum(((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)), Fraction(0))


def _ftext(x: Fraction) -> str:
    return f"{fraction_text(x)} = {float(x):.4f}" if x.denominator != 1 else fraction_text(x)


# ------------------------------------------------------------------ CUPED

@register(
    CUPED,
    topic="variance-reduction",
    summary="Six users' pre-period and experiment-period values: CUPED's theta, the share of "
            "variance left (1 - rho^2), or one user's adjusted value",
    params={
        "ask": Param(str, "theta", "what to compute", choices=("theta", "remaining", "adjusted")),
    },
)
def cuped(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(CUPED, params)
    n = 6
    while True:
        xs = [rng.randint(0, 12) for _ in range(n)]
        ys = [max(0, x + rng.randint(-4, 4) + rng.choice((0, 1, 2))) for x in xs]
        sxx, syy, sxy = _co(xs, xs), _co(ys, ys), _co(xs, ys)
        if sxx == 0 or syy == 0 or sxy <= 0:
            continue
        rho2 = sxy * sxy / (sxx * syy)
        if Fraction(1, 4) <= rho2 <= Fraction(9, 10):
            break
    theta = sxy / sxx
    mx = Fraction(sum(xs), n)
    user = rng.randrange(n)
    adjusted = ys[user] - theta * (xs[user] - mx)
    rows = ["  user  pre-period X  experiment Y"]
    rows += [f"  {i + 1:>4}  {x:>12}  {y:>12}" for i, (x, y) in enumerate(zip(xs, ys, strict=True))]
    setup = ("CUPED (Deng, Xu, Kohavi & Walker, WSDM 2013) adjusts each user's metric Y with a "
             "covariate X measured before the experiment: Y_cuped = Y - theta (X - mean X). "
             "Sessions per user of six users:")
    ask = p["ask"]
    if ask == "theta":
        want = theta
        question = ("Compute the theta that minimises Var(Y_cuped). Give a fraction or a decimal "
                    "(the n or n - 1 divisor cancels).")
    elif ask == "remaining":
        want = 1 - rho2
        question = ("With that best theta, what fraction of Var(Y) is left in Var(Y_cuped)? "
                    "Give a fraction or a decimal (0.4 means 40% of the variance is left).")
    else:
        want = adjusted
        question = (f"With the theta that minimises Var(Y_cuped), what is user {user + 1}'s "
                    "adjusted value Y_cuped? Give a fraction or a decimal.")
    note = (f"mean X = {_ftext(mx)}. With sums of centred products, S_xy = {fraction_text(sxy)}, "
            f"S_xx = {fraction_text(sxx)}, S_yy = {fraction_text(syy)}: theta = S_xy / S_xx = "
            f"{_ftext(theta)}, rho^2 = S_xy^2 / (S_xx S_yy) = {_ftext(rho2)}, so Var(Y_cuped) = "
            f"(1 - rho^2) Var(Y) = {_ftext(1 - rho2)} of Var(Y); user {user + 1}'s adjusted value "
            f"is {ys[user]} - theta ({xs[user]} - mean X) = {_ftext(adjusted)}. The adjustment "
            "subtracts the same theta (X - mean X) in both arms, so the difference in means is "
            "unbiased whatever theta is; the best theta is the regression slope of Y on X.")
    return concrete(template, CUPED, {**p, "x": xs, "y": ys, "user": user + 1}, kind="numeric",
                    prompt="\n".join([setup, *rows, question]), answer=fraction_text(want),
                    explanation=note,
                    hints=("theta is the slope of the least-squares line of Y on X.",))


# ------------------------------------------------------------------ the delta method

@register(
    DELTA_CTR,
    topic="variance-reduction",
    summary="Users' clicks and impressions (users randomised): the delta-method standard error "
            "of the arm's CTR, sum of clicks / sum of impressions",
    params={
        "users": Param(int, 5, "how many users the arm has", minimum=4, maximum=8),
    },
)
def delta_ctr(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(DELTA_CTR, params)
    n = p["users"]
    while True:
        imps = [rng.randint(2, 12) for _ in range(n)]
        clicks = [rng.randint(0, m // 2 + 1) for m in imps]
        if 0 < sum(clicks) < sum(imps) and len({Fraction(c, m) for c, m in zip(clicks, imps, strict=True)}) > 2:
            break
    ratio = Fraction(sum(clicks), sum(imps))
    mean_imp = Fraction(sum(imps), n)
    resid = [c - ratio * m for c, m in zip(clicks, imps, strict=True)]
    var = sum((e * e for e in resid), Fraction(0)) / ((n - 1) * n * mean_imp**2)
    naive = ratio * (1 - ratio) / sum(imps)
    rows = ["  user  clicks  impressions"]
    rows += [f"  {i + 1:>4}  {c:>6}  {m:>11}" for i, (c, m) in enumerate(zip(clicks, imps, strict=True))]
    prompt = "\n".join([
        f"An A/B test randomises users; its CTR is sum of clicks / sum of impressions. One arm "
        f"has {n} users:",
        *rows,
        "Estimate the standard error of this arm's CTR with the delta method (Deng, Knoblich & "
        "Lu, KDD 2018), using sample variances and covariance with divisor n - 1 over users. "
        "Give an exact expression such as sqrt(a/b), or a decimal to 4 decimal places.",
    ])
    note = (f"CTR R = {sum(clicks)}/{sum(imps)}, mean impressions per user {_ftext(mean_imp)}. "
            "Var(R) = (s_c^2 - 2 R s_cm + R^2 s_m^2) / (n mean_m^2), which is the sample variance "
            "of the per-user residuals c_i - R m_i over n mean_m^2: residuals "
            f"{', '.join(fraction_text(e) for e in resid)}. Var(R) = {_ftext(var)}, "
            f"SE = {math.sqrt(var):.4f}. Treating the {sum(imps)} impressions as independent "
            f"coin flips would give sqrt(R(1 - R)/{sum(imps)}) = {math.sqrt(naive):.4f}: the unit "
            "of randomisation is the user, and one user's impressions are not independent.")
    tight = replace(template, tolerance=Tolerance(absolute=0.00005, relative=0.0))
    return concrete(tight, DELTA_CTR, {**p, "clicks": clicks, "impressions": imps}, kind="numeric",
                    prompt=prompt, answer=f"sqrt({fraction_text(var)})", explanation=note,
                    hints=("The residual c_i - R m_i has mean 0; its variance carries the "
                           "covariance term.",))


# ------------------------------------------------------------------ sample ratio mismatch

SPLITS = ((1, 1), (9, 1), (4, 1), (3, 1))  # control:treatment, whole percentages


@register(
    SRM,
    topic="experiment-health",
    summary="Users counted in two arms against the configured split: the chi-square statistic "
            "of the sample-ratio-mismatch test",
    params={
        "split": Param(str, "even", "the configured split", choices=("even", "uneven")),
    },
)
def srm_chi_square(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(SRM, params)
    a, b = SPLITS[0] if p["split"] == "even" else rng.choice(SPLITS[1:])
    total = rng.choice((20_000, 40_000, 60_000, 100_000, 200_000))  # multiples of 4 and 10
    exp_a, exp_b = Fraction(total * a, a + b), Fraction(total * b, a + b)
    while True:
        shift = rng.choice((-1, 1)) * rng.randint(40, 600) * (total // 20_000) // 2
        obs_a, obs_b = exp_a + shift, exp_b - shift
        chi2 = (obs_a - exp_a) ** 2 / exp_a + (obs_b - exp_b) ** 2 / exp_b
        if Fraction(1, 2) <= chi2 <= 40 and obs_a.denominator == 1:
            break
    share_a = round(100 * a / (a + b))
    pval = math.erfc(math.sqrt(float(chi2) / 2))  # chi-square, 1 degree of freedom
    prompt = "\n".join([
        f"An experiment is configured to send {share_a}% of users to control and "
        f"{100 - share_a}% to treatment. It has {int(obs_a):,} users in control and "
        f"{int(obs_b):,} in treatment.",
        "Compute Pearson's chi-square statistic (1 degree of freedom) of these counts against "
        "the configured split. Give a fraction or a decimal.",
    ])
    uneven = ("Both arms are off by the same count, but the smaller arm's expected count is the "
              "smaller divisor, so its term is the larger. " if a != b else "")
    note = (f"Expected {int(exp_a):,} and {int(exp_b):,} of {total:,} users. chi^2 = "
            f"(O - E)^2 / E summed over both arms = {_ftext(chi2)}, a p-value of {pval:.2g}. "
            + uneven + "A common alarm is p < 0.001 (chi^2 > 10.83): then find the cause "
            "(bots, redirects, a trigger the treatment changes) before reading any metric.")
    return concrete(template, SRM, {**p, "counts": [int(obs_a), int(obs_b)], "shares": [a, b]},
                    kind="numeric", prompt=prompt, answer=fraction_text(chi2),
                    explanation=note,
                    hints=("Expected counts come from the configured split, not from 50/50.",))


# ------------------------------------------------------------------ off-policy estimates

ASKS = {
    "ips": "inverse propensity scoring (IPS): (1/n) sum of w * click, w = 1[new = logged] / P(logged)",
    "snips": "self-normalised IPS (SNIPS): sum of w * click / sum of w, w = 1[new = logged] / P(logged)",
    "clipped": f"clipped IPS: (1/n) sum of min(w, {CLIP}) * click, w = 1[new = logged] / P(logged)",
    "dr": ("the doubly robust estimator: (1/n) sum of [q + w (click - q)], w = 1[new = logged] / "
           "P(logged), q = the model's predicted click probability for the new policy's item"),
}


def off_policy_values(rows: Sequence[tuple[str, Fraction, int, str, Fraction]]) -> dict[str, Fraction]:
    """IPS, SNIPS, clipped IPS and DR of a deterministic new policy; rows are (logged item,
    P(logged), click, new policy's item, model's predicted click probability of that item)."""
    n = len(rows)
    ws = [(1 / prop if logged == new else Fraction(0)) for logged, prop, _, new, _ in rows]
    clicks = [r[2] for r in rows]
    ips = sum((w * c for w, c in zip(ws, clicks, strict=True)), Fraction(0)) / n
    snips = sum((w * c for w, c in zip(ws, clicks, strict=True)), Fraction(0)) / sum(ws)
    clipped = sum((min(w, Fraction(CLIP)) * c for w, c in zip(ws, clicks, strict=True)), Fraction(0)) / n
    dr = sum((r[4] + w * (r[2] - r[4]) for r, w in zip(rows, ws, strict=True)), Fraction(0)) / n
    return {"ips": ips, "snips": snips, "clipped": clipped, "dr": dr}


@register(
    OFF_POLICY,
    topic="off-policy-evaluation",
    summary="A six-request log with propensities: the IPS, SNIPS, clipped-IPS or doubly robust "
            "estimate of a new policy's click rate",
    params={
        "ask": Param(str, "ips", "which estimator", choices=tuple(ASKS)),
    },
)
def off_policy(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(OFF_POLICY, params)
    ask = p["ask"]
    while True:
        rows = []
        for _ in range(6):
            logged = rng.choice("abc")
            new = logged if rng.random() < 0.6 else rng.choice("abc")
            rows.append((logged, rng.choice(PROPENSITIES), rng.choice((0, 1)), new,
                         Fraction(rng.randint(1, 9), 10)))
        values = off_policy_values(rows)
        matched = [r for r in rows if r[0] == r[3]]
        clicked = [r for r in matched if r[2]]
        if len(matched) < 3 or not clicked or len(matched) == 6 or values["ips"] == values["snips"]:
            continue
        if ask == "clipped" and values["clipped"] == values["ips"]:
            continue
        break
    model = ask == "dr"
    head = "  req  logged  P(logged)  click  new" + ("  q(new)" if model else "")
    lines = [head] + [
        f"  {i + 1:>3}  {lg:>6}  {fraction_text(pr):>9}  {c:>5}  {nw:>3}" + (f"  {float(q):>6.1f}" if model else "")
        for i, (lg, pr, c, nw, q) in enumerate(rows)]
    prompt = "\n".join([
        "A logging policy chose one item (a, b or c) per request and logged the probability "
        "of its choice. A new, deterministic policy would show the item in column new"
        + (", and a click model predicts q(new), the click probability of that item." if model else "."),
        *lines,
        f"Estimate the new policy's click rate with {ASKS[ask]}. Give a fraction or a decimal.",
    ])
    ws = ", ".join(fraction_text(1 / r[1]) if r[0] == r[3] else "0" for r in rows)
    note = (f"Weights w: {ws}. IPS = {_ftext(values['ips'])}; SNIPS = {_ftext(values['snips'])}; "
            f"clipped at {CLIP}: {_ftext(values['clipped'])}"
            + (f"; doubly robust = {_ftext(values['dr'])}" if model else "")
            + ". IPS is unbiased when the propensities are right and positive wherever the new "
            "policy acts, but one small propensity dominates it; SNIPS divides by the realised "
            "sum of weights (a small bias, far less variance); clipping trades bias for variance; "
            "DR starts from the model and corrects it with weighted residuals (Dudik, Langford & "
            "Li, ICML 2011).")
    return concrete(template, OFF_POLICY,
                    {**p, "log": [[lg, fraction_text(pr), c, nw, fraction_text(q)] for lg, pr, c, nw, q in rows]},
                    kind="numeric", prompt=prompt, answer=fraction_text(values[ask]), explanation=note,
                    hints=("Only requests where the new policy's item is the logged one get a "
                           "non-zero weight.",))
