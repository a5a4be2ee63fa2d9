"""Generators for ads metrics, retrieval and precision-recall: calibration, log loss and
normalised entropy of bucketed click predictions; pooled AUC vs per-user GAUC; scikit-learn's
average precision vs the trapezoidal area under its precision-recall curve; the logQ-corrected
sampled softmax of a two-tower retriever.

Answers are exact: fractions where the quantity is rational, else an expression in ln and exp
that the answer parser reads (docs/answers.md), with the tolerance stated in the prompt. Nothing
heavier than the standard library is imported; no floating point decides an answer.
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

ADS_CALIBRATION = "ads-calibration"
ADS_AUC = "ads-auc"
PR_AREA = "pr-area"
SAMPLED_SOFTMAX = "sampled-softmax"

FOUR_PLACES = Tolerance(absolute=0.00005, relative=0.0)
PCTRS = (Fraction(1, 20), Fraction(1, 10), Fraction(1, 5), Fraction(1, 4), Fraction(2, 5),
         Fraction(1, 2))


def _ftext(x: Fraction) -> str:
    return f"{fraction_text(x)} = {float(x):.4f}" if x.denominator != 1 else fraction_text(x)


def _ln_term(count: int, inverse: Fraction) -> str:
    """``count*ln(inverse)`` (``ln(inverse)`` for one), the cost of ``count`` events of
    probability 1/inverse; empty when nothing happened or the cost is 0."""
    if count == 0 or inverse == 1:
        return ""
    return f"{count}*ln({fraction_text(inverse)})" if count != 1 else f"ln({fraction_text(inverse)})"


# ------------------------------------------------------------------ calibration and log loss

Bucket = tuple[Fraction, int, int]  # (predicted pCTR, impressions, clicks)


def log_loss_text(buckets: Sequence[Bucket]) -> str:
    """The mean log loss (natural log) as an exact expression: (sum of c ln(1/p) + (n - c)
    ln(1/(1 - p))) / N."""
    n_all = sum(n for _, n, _ in buckets)
    counts: dict[Fraction, int] = {}  # 1/probability -> events of that probability
    for p, n, c in buckets:
        counts[1 / p] = counts.get(1 / p, 0) + c
        counts[1 / (1 - p)] = counts.get(1 / (1 - p), 0) + n - c
    terms = [t for inverse, count in counts.items() if (t := _ln_term(count, inverse))]
    return f"({' + '.join(terms)})/{n_all}"


def entropy_text(ctr: Fraction) -> str:
    """H(ctr) in nats: ctr ln(1/ctr) + (1 - ctr) ln(1/(1 - ctr))."""
    return (f"{fraction_text(ctr)}*ln({fraction_text(1 / ctr)}) + "
            f"{fraction_text(1 - ctr)}*ln({fraction_text(1 / (1 - ctr))})")


def log_loss(buckets: Sequence[Bucket]) -> float:
    n_all = sum(n for _, n, _ in buckets)
    return sum(c * math.log(1 / p) + (n - c) * math.log(1 / (1 - p)) for p, n, c in buckets) / n_all


def entropy(ctr: Fraction) -> float:
    return float(ctr) * math.log(1 / ctr) + float(1 - ctr) * math.log(1 / (1 - ctr))


CALIBRATION_ASKS = {
    "calibration": ("Compute the calibration ratio, expected clicks / observed clicks "
                    "(the sum of the predicted pCTRs over the clicks). Give a fraction or a decimal."),
    "logloss": ("Compute the mean log loss per impression, -(1/N) sum of [y ln p + (1 - y) ln(1 - p)] "
                "with the natural log. Give an exact expression with ln(...) or a decimal to 4 "
                "decimal places."),
    "ne": ("Compute the normalised entropy (He et al., ADKDD 2014): the mean log loss divided by the "
           "log loss of predicting the observed CTR for every impression. Give an exact expression "
           "with ln(...) or a decimal to 4 decimal places."),
}


@register(
    ADS_CALIBRATION,
    topic="ads-metrics",
    summary="Three buckets of a click model's predictions with impressions and clicks: the "
            "calibration ratio, the mean log loss or the normalised entropy",
    params={"ask": Param(str, "calibration", "what to compute", choices=tuple(CALIBRATION_ASKS))},
)
def ads_calibration(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(ADS_CALIBRATION, params)
    while True:
        pctrs = sorted(rng.sample(PCTRS, 3))
        buckets = []
        for q in pctrs:
            n = rng.choice((10, 20, 40))
            expected = q * n
            c = max(0, min(n, round(expected * Fraction(rng.randint(6, 14), 10))))
            buckets.append((q, n, c))
        clicks = sum(c for _, _, c in buckets)
        n_all = sum(n for _, n, _ in buckets)
        expected = sum((q * n for q, n, _ in buckets), Fraction(0))
        if 0 < clicks < n_all and expected != clicks:
            break
    calibration = expected / clicks
    ctr = Fraction(clicks, n_all)
    ll_text, h_text = log_loss_text(buckets), entropy_text(ctr)
    ll, h = log_loss(buckets), entropy(ctr)
    ask = p["ask"]
    answer = {"calibration": fraction_text(calibration), "logloss": ll_text,
              "ne": f"({ll_text})/({h_text})"}[ask]
    rows = ["  bucket  predicted pCTR  impressions  clicks"]
    rows += [f"  {i + 1:>6}  {fraction_text(q):>14}  {n:>11}  {c:>6}"
             for i, (q, n, c) in enumerate(buckets)]
    prompt = "\n".join([
        "A click model's predictions for one ad campaign, grouped by predicted click probability "
        "(every impression in a bucket got the same prediction):",
        *rows,
        CALIBRATION_ASKS[ask],
    ])
    note = (f"N = {n_all} impressions, {clicks} clicks: observed CTR {_ftext(ctr)}. Expected clicks "
            f"= sum of n x pCTR = {_ftext(expected)}; calibration = {_ftext(calibration)} "
            + ("(over-predicting)" if calibration > 1 else "(under-predicting)")
            + f". Mean log loss = {ll:.4f} nats; predicting the observed CTR everywhere costs "
            f"H({fraction_text(ctr)}) = {h:.4f}; normalised entropy = {ll / h:.4f} "
            + ("(below 1: the model beats predicting the base rate). " if ll < h else
               "(not below 1: the model does no better than predicting the base rate). ")
            + "Log loss and NE reward both ranking and calibration; "
            "AUC sees only the order (He et al., 'Practical Lessons from Predicting Clicks on Ads "
            "at Facebook', ADKDD 2014, section 2).")
    template = template if ask == "calibration" else replace(template, tolerance=FOUR_PLACES)
    return concrete(template, ADS_CALIBRATION,
                    {**p, "buckets": [[fraction_text(q), n, c] for q, n, c in buckets]},
                    kind="numeric", prompt=prompt, answer=answer, explanation=note,
                    hints=("Work per bucket: c clicks cost ln(1/p) each, n - c non-clicks "
                           "ln(1/(1 - p)) each.",))


# ------------------------------------------------------------------ AUC and GAUC

def auc(pairs: Sequence[tuple[Fraction, int]]) -> Fraction | None:
    """ROC AUC by counting (click, non-click) pairs, a tie counting 1/2; None without both."""
    pos = [s for s, y in pairs if y]
    neg = [s for s, y in pairs if not y]
    if not pos or not neg:
        return None
    won = sum((Fraction(1) if a > b else Fraction(1, 2) if a == b else Fraction(0)
               for a in pos for b in neg), Fraction(0))
    return won / (len(pos) * len(neg))


def gauc(users: Sequence[Sequence[tuple[Fraction, int]]]) -> Fraction:
    """Impression-weighted mean of the per-user AUCs, users with one class left out."""
    scored = [(len(u), a) for u in users if (a := auc(u)) is not None]
    return sum((w * a for w, a in scored), Fraction(0)) / sum(w for w, _ in scored)


@register(
    ADS_AUC,
    topic="ads-metrics",
    summary="Three users' scored impressions and clicks: the pooled ROC AUC or the "
            "impression-weighted per-user GAUC",
    params={"ask": Param(str, "gauc", "what to compute", choices=("auc", "gauc"))},
)
def ads_auc(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(ADS_AUC, params)
    while True:
        users = []
        for u in range(3):
            size = rng.randint(3, 4)
            base = rng.randint(1, 5)
            scores = [Fraction(base + rng.randint(0, 4), 10) for _ in range(size)]
            labels = [0] * size if u == 2 else [int(rng.random() < 0.45) for _ in range(size)]
            users.append(list(zip(scores, labels, strict=True)))
        if any(auc(u) is None for u in users[:2]):
            continue
        pooled = auc([x for u in users for x in u])
        if pooled is not None and pooled != gauc(users):
            break
    rng.shuffle(users)
    want = pooled if p["ask"] == "auc" else gauc(users)
    rows = [f"  user {chr(65 + i)}: " + ", ".join(f"{float(s):.1f}{'*' if y else ''}" for s, y in u)
            for i, u in enumerate(users)]
    ask = ("Compute the pooled ROC AUC over all impressions: the share of (clicked, not clicked) "
           "pairs, across users, where the clicked one has the higher score, a tie counting 1/2."
           if p["ask"] == "auc" else
           "Compute GAUC (Zhou et al., 'Deep Interest Network', KDD 2018): each user's AUC over "
           "their own impressions (a tie counting 1/2), averaged with each user's impressions as "
           "weight, leaving out users whose impressions are all clicks or all non-clicks.")
    prompt = "\n".join([
        "A click model's scores for three users' impressions (* marks a click):", *rows,
        ask + " Give a fraction or a decimal."])
    per_user = "; ".join(f"{chr(65 + i)}: " + (_ftext(a) if (a := auc(u)) is not None else "no pair")
                         for i, u in enumerate(users))
    note = (f"Per-user AUC {per_user}. GAUC = {_ftext(gauc(users))}; pooled AUC = "
            f"{_ftext(pooled)}. The pooled AUC also counts pairs across users, which reward the "
            "model for telling an active user from an idle one; GAUC keeps only within-user pairs, "
            "the comparisons a per-user ranking faces (Zhou et al., KDD 2018, section 6.1). A user "
            "with no click (or only clicks) has no pair and drops out of GAUC but not of the "
            "pooled AUC.")
    return concrete(template, ADS_AUC,
                    {**p, "users": [[[fraction_text(s), y] for s, y in u] for u in users]},
                    kind="numeric", prompt=prompt, answer=fraction_text(want), explanation=note,
                    hints=("Count pairs: for every click, the non-clicks it outscores (ties 1/2).",))


# ------------------------------------------------------------------ AP vs area under the PR curve

def pr_points(items: Sequence[tuple[Fraction, int]]) -> list[tuple[Fraction, Fraction]]:
    """(recall, precision) after each distinct score, highest first, from (0, 1): the points of
    scikit-learn's precision_recall_curve (tied scores are one threshold)."""
    positives = sum(y for _, y in items)
    points = [(Fraction(0), Fraction(1))]
    for s in sorted({s for s, _ in items}, reverse=True):
        kept = [y for t, y in items if t >= s]
        points.append((Fraction(sum(kept), positives), Fraction(sum(kept), len(kept))))
    return points


def step_ap(items: Sequence[tuple[Fraction, int]]) -> Fraction:
    """scikit-learn's average_precision_score: sum of (R_n - R_{n-1}) P_n."""
    pts = pr_points(items)
    return sum(((r - r0) * p for (r0, _), (r, p) in zip(pts, pts[1:], strict=False)), Fraction(0))


def trapezoid(items: Sequence[tuple[Fraction, int]]) -> Fraction:
    """auc(recall, precision): the trapezoidal rule over the same points."""
    pts = pr_points(items)
    return sum(((r - r0) * (p0 + p) / 2 for (r0, p0), (r, p) in zip(pts, pts[1:], strict=False)),
               Fraction(0))


@register(
    PR_AREA,
    topic="precision-recall",
    summary="Eight scored items with a tie: scikit-learn's average_precision_score, or the "
            "trapezoidal area auc(recall, precision) under its precision-recall curve",
    params={"ask": Param(str, "ap", "what to compute", choices=("ap", "trapezoid"))},
)
def pr_area(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(PR_AREA, params)
    while True:
        scores = rng.sample(range(1, 10), 7)
        scores.append(rng.choice(scores))  # one tie
        labels = [int(rng.random() < 0.4) for _ in scores]
        items = [(Fraction(s, 10), y) for s, y in zip(scores, labels, strict=True)]
        tied = [y for s, y in items if s == Fraction(scores[-1], 10)]
        if 2 <= sum(labels) <= 4 and len(set(tied)) == 2 and step_ap(items) != trapezoid(items):
            break
    items.sort(key=lambda x: -x[0])
    ap, area = step_ap(items), trapezoid(items)
    want = ap if p["ask"] == "ap" else area
    shown = ", ".join(f"{float(s):.1f}{'*' if y else ''}" for s, y in items)
    ask = ("Compute scikit-learn's average_precision_score(y_true, y_score): the sum over the "
           "thresholds of (R_n - R_{n-1}) x P_n, each distinct score one threshold."
           if p["ask"] == "ap" else
           "Compute auc(recall, precision) on scikit-learn's precision_recall_curve: the "
           "trapezoidal rule over the (recall, precision) points, one per distinct score, the "
           "curve starting at (recall 0, precision 1).")
    prompt = "\n".join([
        f"A classifier scores 8 items ({sum(labels)} positives, marked *), highest first:",
        f"  {shown}",
        ask + " Give a fraction or a decimal."])
    pts = "; ".join(f"({fraction_text(r)}, {fraction_text(q)})" for r, q in pr_points(items))
    note = (f"Points (recall, precision): {pts}. Step-wise AP = {_ftext(ap)}; trapezoidal area "
            f"= {_ftext(area)}. Average precision holds each precision over its whole recall step "
            "(no interpolation). The trapezoid joins the points by straight lines, which is not "
            "how precision moves between them: the achievable curve between two points is not "
            "linear, and the straight line can overstate the area (scikit-learn 1.x docs of "
            "average_precision_score: 'can be too optimistic'; Davis & Goadrich, 'The "
            "Relationship Between Precision-Recall and ROC Curves', ICML 2006). Here it is "
            + ("higher" if area > ap else "lower") + " than AP.")
    return concrete(template, PR_AREA, {**p, "items": [[fraction_text(s), y] for s, y in items]},
                    kind="numeric", prompt=prompt, answer=fraction_text(want), explanation=note,
                    hints=("Tied items enter together: one threshold, one point.",))


# ------------------------------------------------------------------ sampled softmax and logQ

@register(
    SAMPLED_SOFTMAX,
    topic="candidate-generation",
    summary="An in-batch softmax over four items with their sampling probabilities: the "
            "positive's probability or loss with the logQ correction",
    params={"ask": Param(str, "probability", "what to compute", choices=("probability", "loss"))},
)
def sampled_softmax(template: Question, params: Mapping[str, Any], rng: random.Random) -> Question:
    p = resolved(SAMPLED_SOFTMAX, params)
    qs = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 5), Fraction(1, 10), Fraction(1, 20),
          Fraction(1, 50), Fraction(1, 100))
    while True:
        logits = [rng.randint(0, 3) for _ in range(4)]
        probs = [rng.choice(qs) for _ in range(4)]
        if len(set(probs)) >= 3 and len(set(logits)) >= 2:
            break
    names = ["pos", "n1", "n2", "n3"]
    terms = [f"exp({s})*{fraction_text(1 / q)}" for s, q in zip(logits, probs, strict=True)]
    prob = f"({terms[0]})/({' + '.join(terms)})"
    value = (math.exp(logits[0]) / float(probs[0])) / sum(math.exp(s) / float(q) for s, q in zip(logits, probs, strict=True))
    plain = math.exp(logits[0]) / sum(math.exp(s) for s in logits)
    want = prob if p["ask"] == "probability" else f"ln(({' + '.join(terms)})/({terms[0]}))"
    rows = ["  item  logit s  sampling probability q"]
    rows += [f"  {n:>4}  {s:>7}  {fraction_text(q):>22}" for n, s, q in zip(names, logits, probs, strict=True)]
    ask = ("Compute the softmax probability of the positive over these four corrected logits."
           if p["ask"] == "probability" else
           "Compute the positive's cross-entropy loss, -ln of its softmax probability over these "
           "four corrected logits.")
    prompt = "\n".join([
        "A two-tower retriever is trained with an in-batch softmax. For one query the batch holds "
        "its positive and three other items; q is each item's probability of being in a batch "
        "(popular items are sampled more). With the logQ correction (Yi et al., RecSys 2019) "
        "every logit s becomes s - ln(q).", *rows,
        ask + " Give an exact expression with exp(...)"
        + (" and ln(...)" if p["ask"] == "loss" else "") + " or a decimal to 4 decimal places."])
    note = ("Corrected logits s - ln q: "
            + ", ".join(f"{s} + ln({fraction_text(1 / q)}) = {s - math.log(q):.3f}"
                        for s, q in zip(logits, probs, strict=True))
            + f". exp(s - ln q) = exp(s)/q, so the positive's probability is {value:.4f} "
            f"(loss {-math.log(value):.4f}); without the correction it would be {plain:.4f}. "
            "A popular item appears as a negative in many batches; subtracting ln q stops the "
            "model from learning to push popular items down just for being sampled often "
            "(Yi et al., 'Sampling-Bias-Corrected Neural Modeling for Large Corpus Item "
            "Recommendations', RecSys 2019; Bengio & Senecal, IEEE TNN 2008).")
    return concrete(replace(template, tolerance=FOUR_PLACES), SAMPLED_SOFTMAX,
                    {**p, "logits": logits, "q": [fraction_text(q) for q in probs]},
                    kind="numeric", prompt=prompt, answer=want, explanation=note,
                    hints=("exp(s - ln q) = exp(s) / q.",))
