"""Gain slips: the grade itself, 2^rel - 1 where rel was asked, 2^rel without the - 1."""

from __future__ import annotations

from drills.engine.metrics.ndcg import Formula
from drills.grading.slips.registry import NDCG_FAMILY, formula_slip

GAIN_METRICS = (*NDCG_FAMILY, "ndcg_difference", "gain_ratio", "contribution")

formula_slip(
    "linear_gain", "linear gain instead of 2^rel - 1",
    "You used the grade itself as the gain. This question uses exponential gain 2^rel - 1, "
    "which makes a highly relevant document count far more than a marginal one.",
    Formula(gain="linear"), metrics=GAIN_METRICS, gains=("exponential",), family="gain", short="linear gain",
    descriptions={
        "gain_ratio": "You divided the grades themselves (linear gain). Under 2^rel - 1 the ratio "
                      "of two grades' gains is (2^a - 1) / (2^b - 1), which tends to 2 for "
                      "neighbouring grades.",
        "contribution": "You used the grade itself as the gain. Under 2^rel - 1 a grade-g document "
                        "earns 2^g - 1 (grade 3 earns 7, not 3) before the discount.",
    })
formula_slip(
    "exponential_gain", "exponential gain instead of linear",
    "You used 2^rel - 1 as the gain, but this question uses linear gain: gain = rel.",
    Formula(gain="exponential"), metrics=GAIN_METRICS, gains=("linear",), family="gain", short="exponential gain")
formula_slip(
    "gain_without_minus_one", "gain 2^rel instead of 2^rel - 1",
    "You dropped the - 1: with 2^rel an irrelevant document (rel 0) still earns gain 1. "
    "The - 1 makes rel 0 worth exactly nothing.",
    Formula(gain="pow2"), metrics=GAIN_METRICS, gains=("exponential",), family="gain", short="gain 2^rel without the - 1",
    descriptions={
        "gain_ratio": "You dropped the - 1: under 2^rel the ratio of two grades is exactly "
                      "2^(a - b). With 2^rel - 1 it is (2^a - 1) / (2^b - 1), a little more.",
    })
