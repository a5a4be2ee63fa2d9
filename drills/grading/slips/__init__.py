"""Every known slip (wrong formula), one module per family, registered by decorator.

SLIPS is ordered family by family (FAMILIES), then by registration: the tie-break order
when two slips give the same number. See docs/diagnosis.md for the list with each formula and its value on
the worked example.
"""

from __future__ import annotations

from drills.grading.slips import (  # noqa: F401
    binary,
    cascade,
    convention,
    cutoff,
    discount,
    gain,
    ideal,
    labels,
    quantity,
)
from drills.grading.slips.registry import FAMILIES, SLIPS, Case, Slip, put_in_order, slips_for

put_in_order()

__all__ = ["FAMILIES", "SLIPS", "Case", "Slip", "slips_for"]
