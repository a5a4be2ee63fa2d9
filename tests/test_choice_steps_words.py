"""``:steps`` after a choice question says the answer in words (issue 23, point 6): "Right:
you picked b, the answer is b) False." through the piped quiz, never a bare ``correct:``."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from drills.cli import cli

# div-ndcg-ia-one (questions/diversity.yaml) as written: a) True, b) False, b correct.
QUESTION = "div-ndcg-ia-one"


@pytest.mark.parametrize("seed", ["1", "7"])
def test_steps_after_a_right_choice_says_the_answer_in_words(seed):
    result = CliRunner().invoke(cli, ["practice", "--seed", seed, "--question", QUESTION,
                                      "--question", "norm-idcg-at-2"], input="b\n:steps\n\n\n")
    out = result.output
    assert "Right: you picked b, the answer is b) False." in out, out
    assert not any(line.startswith("correct:") for line in out.splitlines()), out
