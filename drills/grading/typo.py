"""Is a decimal answer one keystroke from the right one? Then it is a typo, not a slip.

A learner who meant 0.6646 and typed 0.646 (a digit dropped), 0.6464 (two swapped) or
0.6656 (one wrong) made no wrong formula, whatever slip happens to land near the number.
The diagnosis names a slip only when the answer is nearer the slip's value than the right
one by a margin (``MARGIN``) and is no such typo of the right value, unless the slip gives
exactly the digits typed (0.869 for a right 0.8675 is one digit off 0.868, but it is also
the log2(i) discount's 0.8689 to the digit: the slip is named).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

# a slip is named only when the answer is at least this many times nearer its value than
# the right value: 0.646 against a right 0.661 and a slip at 0.6447 (11x) names it; an
# answer a third of the way from the right value to a slip's is no evidence of the slip
MARGIN = 3
# fewer significant digits than this, and a different digit is a different answer: 0.5
# for 0.7 is no typo
MIN_DIGITS = 3


def _plain(text: str) -> tuple[str, int] | None:
    """The digits of a plain decimal answer (sign and point kept) and its decimals, else None."""
    t = text.strip()
    body = t[1:] if t[:1] in "+-" else t
    whole, dot, frac = body.partition(".")
    if not (whole or frac) or not (whole + frac).isdigit() or len(body) > 40:
        return None
    return t.lstrip("+"), len(frac) if dot else 0


def _significant(text: str) -> int:
    return len(text.replace("-", "").replace(".", "").lstrip("0"))


def _rounded(value: Decimal, decimals: int) -> str:
    try:
        q = value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN)
    except InvalidOperation:
        return ""
    return format(q, "f")


def _one_edit(a: str, b: str) -> bool:
    """One substitution, adjacent transposition, insertion or deletion turns ``a`` into ``b``."""
    if a == b:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) == 1:
            return True
        i = diff[0]
        return len(diff) == 2 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    if abs(len(a) - len(b)) != 1:
        return False
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def one_digit_typo(given: str, correct: Decimal) -> bool:
    """``given`` is the right value (rounded to as many decimals as typed, or one more) with
    one digit wrong or swapped with its neighbour, or one digit dropped. (A digit added at
    the end is more precision, not a typo: 0.412 is no typo of 0.41.)"""
    plain = _plain(given)
    if plain is None:
        return False
    text, decimals = plain
    if _significant(text) < MIN_DIGITS:
        return False
    for places in (decimals, decimals + 1):
        right = _rounded(correct, places)
        if right and (right == text or _one_edit(text, right)):
            return right != text
    return False


def rounds_to(value: Decimal, given: str) -> bool:
    """``value`` rounded to as many decimals as ``given`` has is ``given``."""
    plain = _plain(given)
    return plain is not None and _rounded(value, plain[1]) == plain[0]


def nearer_by_margin(learner: float, slip: float, correct: float) -> bool:
    """The answer is at least ``MARGIN`` times nearer the slip's value than the right one."""
    return MARGIN * abs(learner - slip) <= abs(learner - correct) + 1e-15


__all__ = ["MARGIN", "MIN_DIGITS", "nearer_by_margin", "one_digit_typo", "rounds_to"]
