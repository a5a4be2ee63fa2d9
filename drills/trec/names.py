"""trec_eval's measure names: ``P.5`` (or ``P_5``) to a ``Measure``, and back to ``P_5``.

Names as trec_eval spells them: ``map``, ``map_cut.K``, ``P.K``, ``recall.K``, ``Rprec``,
``recip_rank``, ``ndcg``, ``ndcg_cut.K``, ``success.K``; plus ``err.K`` and ``rbp.P``, which
trec_eval 9 lacks. ``P.5,10`` gives P_5 and P_10 (trec_eval's comma lists); a bare ``P``,
``recall``, ``map_cut``, ``ndcg_cut`` or ``success`` takes trec_eval's default cut-offs.
``rbp`` alone is trec_eval 10's default p = 0.9 and prints as ``rbp``; ``rbp.0.8``,
``rbp_0.8``, ``rbp.p=0.8`` (trec_eval 10's spelling) all print as ``rbp_p=0.8``.
Case is not significant on input (``p.5`` is ``P_5``). Which metric each family computes, and
whether it is binary, is the metric registry's (``registry.TREC``); the spellings are here.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from drills.engine.exact import fraction_text
from drills.engine.metrics.cascade import parse_persistence
from drills.engine.metrics.registry import METRICS, TREC
from drills.engine.problem import ProblemError
from drills.trec.files import TrecError, show

CUT = {"map_cut": "map_cut", "ndcg_cut": "ndcg_cut", "p": "P", "recall": "recall",
       "success": "success", "err": "err"}  # lower-case spelling -> trec_eval's
PLAIN = {"map": "map", "rprec": "Rprec", "recip_rank": "recip_rank", "ndcg": "ndcg"}
# The families that count grade >= the threshold as relevant (trec_eval -l): those of the
# metrics that take a threshold (map, map_cut, P, recall, Rprec, recip_rank, success).
BINARY = tuple(family for family, metric in TREC.items() if "threshold" in METRICS[metric].takes)
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
DEFAULT_CUTOFFS = {"P": TREC_CUTOFFS, "recall": TREC_CUTOFFS, "map_cut": TREC_CUTOFFS,
                   "ndcg_cut": TREC_CUTOFFS, "success": (1, 5, 10)}
MAX_CUTOFF = 1_000_000
RBP_DEFAULT = Fraction(9, 10)  # trec_eval 10's
KNOWN = ("map", "map_cut.K", "P.K", "recall.K", "Rprec", "recip_rank", "ndcg", "ndcg_cut.K",
         "success.K", "err.K", "rbp.P")
# trec_eval's default measures, as `drills solve --qrels --run` evaluates them without -m.
DEFAULT = ("map", "P.5", "P.10", "recall.10", "Rprec", "recip_rank", "ndcg", "ndcg_cut.10",
           "success.1")
# Other tools' names for the same measures: suggested, not accepted (trec_eval's names only).
ALIASES = {"precision": "P", "prec": "P", "mrr": "recip_rank", "rr": "recip_rank",
           "ap": "map", "mean_ap": "map", "hit": "success", "hits": "success",
           "hit_rate": "success", "hitrate": "success", "r-precision": "Rprec",
           "r_precision": "Rprec", "rprecision": "Rprec", "r-prec": "Rprec", "nerr": "err"}
HINT_CUTOFF = {"P": "10", "recall": "10", "map_cut": "10", "ndcg_cut": "10", "success": "1",
               "err": "20", "rbp": "0.8"}
# trec_eval measures drills does not compute (named as such, not as unknown).
OTHER_TREC = {"bpref", "infap", "num_ret", "num_rel", "num_rel_ret", "num_q", "runid",
              "iprec_at_recall", "11pt_avg", "gm_map", "gm_bpref", "rprec_mult", "utility",
              "relstring", "set_p", "set_recall", "set_f", "set_map", "set_relative_p",
              "relative_p", "ndcg_rel", "rndcg", "bing", "g", "dcg", "ideal_dcg", "ndcg_p",
              "num_nonrel_judged_ret", "p_avgjg", "map_avgjg", "rprec_mult_avgjg",
              "recall_avgjg", "prefs", "judged", "ndcg_cut_avgjg"}


@dataclass(frozen=True)
class Measure:
    """One trec_eval measure: its family (``P``), cut-off ``k`` or RBP's persistence ``p``."""

    family: str
    k: int | None = None
    p: Fraction | None = None

    @property
    def name(self) -> str:
        """As trec_eval prints it: ``P_5``, ``ndcg_cut_10``, ``map``, ``rbp_p=0.8``."""
        if self.family == "rbp":
            return "rbp" if self.p is None else f"rbp_p={persistence_text(self.p)}"
        return self.family if self.k is None else f"{self.family}_{self.k}"

    @property
    def persistence(self) -> Fraction:
        return RBP_DEFAULT if self.p is None else self.p

    @property
    def binary(self) -> bool:
        """Counts documents relevant at grade >= the threshold (trec_eval -l); the others
        (ndcg, ndcg_cut, err, rbp) use the grades themselves."""
        return self.family in BINARY


def persistence_text(p: Fraction) -> str:
    """``0.8`` for 4/5 (a terminating decimal), else ``2/3``."""
    d = p.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d != 1:
        return fraction_text(p)
    places = 0
    while (p * 10**places).denominator != 1:
        places += 1
    return f"{float(p):.{places}f}" if places <= 15 else fraction_text(p)


def _cutoffs(text: str, original: str) -> list[int]:
    out = []
    for piece in text.split(","):
        piece = piece.strip()
        if not piece.isdigit() or not piece.isascii() or len(piece) > 7 or int(piece) < 1:
            raise TrecError(f"measure {show(original)!r}: cut-off {show(piece)!r} is not a whole "
                            f"number from 1 to {MAX_CUTOFF:,} (e.g. P.10)")
        k = int(piece)
        if k > MAX_CUTOFF:
            raise TrecError(f"measure {show(original)!r}: cut-off {k} is above {MAX_CUTOFF:,}")
        out.append(k)
    return out


def _persistence(text: str, original: str) -> Fraction:
    try:
        return parse_persistence(text)
    except ProblemError as exc:
        raise TrecError(f"measure {show(original)!r}: {exc}") from None


def parse_measure(text: str) -> list[Measure]:
    """One ``-m`` value to its measures (``P.5,10`` is two); TrecError for an unknown name."""
    name = text.strip()
    low = name.lower()
    if low in PLAIN:
        return [Measure(PLAIN[low])]
    m = re.fullmatch(r"rbp(?:[._](?:p=)?(.+))?", low)
    if m:
        return [Measure("rbp", p=None if m.group(1) is None else _persistence(m.group(1), name))]
    m = re.fullmatch(r"(map_cut|ndcg_cut|p|recall|success|err)(?:[._](.+))?", low)
    if m:
        family = CUT[m.group(1)]
        if m.group(2) is None:
            if family not in DEFAULT_CUTOFFS:
                raise TrecError(f"measure {show(name)!r} needs a cut-off: e.g. {family}.20")
            return [Measure(family, k) for k in DEFAULT_CUTOFFS[family]]
        return [Measure(family, k) for k in _cutoffs(m.group(2), name)]
    raise TrecError(_unknown(name))


def _unknown(name: str) -> str:
    low = name.lower()
    m = re.fullmatch(r"(.*?)(?:[._@]((?:p=)?[0-9.,]+))?", low)
    stem, rest = (m.group(1), m.group(2) or "") if m else (low, "")
    known = ", ".join(KNOWN)
    if stem in OTHER_TREC or low in OTHER_TREC:
        return (f"{show(name)!r} is a trec_eval measure drills does not compute; "
                f"drills computes: {known}")
    family = ALIASES.get(stem)
    if family is None:
        close = difflib.get_close_matches(stem, [*PLAIN, *CUT, "rbp"], n=1, cutoff=0.6)
        family = (PLAIN.get(close[0]) or CUT.get(close[0]) or close[0]) if close else None
    hint = family
    if family in ("map", "ndcg") and rest:
        family = hint = f"{family}_cut"
    if family in HINT_CUTOFF:
        hint = f"{family}.{rest or HINT_CUTOFF[family]}"
    did = f" (did you mean {hint}?)" if hint else ""
    return f"unknown measure {show(name)!r}{did}; known: {known}"


def parse_measures(names: Iterable[str]) -> tuple[Measure, ...]:
    """Every ``-m`` value in order, each measure once (by its printed name)."""
    out: dict[str, Measure] = {}
    for text in names:
        for measure in parse_measure(text):
            out.setdefault(measure.name, measure)
    return tuple(out.values())
