"""How well the concept grader agrees with labelled answers: ``python bench/concept_dev.py [DIR]``.

DIR holds ``PACK.json`` files of labelled candidate answers (default: ../shared/data/
concept-answers beside the repository, or $DRILLS_CONCEPT_SET); each answer names its
question, its verdict (correct | partial | wrong), the key points it makes (by the key
point's text) and its wrong beliefs (in words). The answers are graded with the built-in
packs' rubrics and the figures issue 22 asks for are printed, with their targets:

- verdict accuracy (target >= 80%);
- wrong-belief answers graded correct (target 0) and all wrong answers graded correct (<= 5%);
- wrong-belief answers with a misconception named (>= 70%);
- right answers with a misconception named (<= 5%);
- key-point precision and recall, over the points the labels name.

``--verbose`` lists every disagreement. Exit 0 when every target is met, 1 otherwise,
2 when the set cannot be found.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from drills.grading.concept.grade import grade_concept  # noqa: E402 - after the path is set
from drills.model import Question  # noqa: E402
from drills.packs.load import load_pack  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "data" / "concept-answers"
TARGETS = {"verdict accuracy": (0.80, ">="), "wrong-belief answers graded correct": (0.0, "<="),
           "wrong answers graded correct": (0.05, "<="), "wrong beliefs named": (0.70, ">="),
           "right answers accused": (0.05, "<=")}


def concept_questions() -> dict[str, Question]:
    out: dict[str, Question] = {}
    for path in sorted((ROOT / "questions").glob("*.yaml")):
        for q in load_pack(path, builtin=True).questions:
            for c in (q, *q.steps):
                if c.kind == "concept":
                    out[c.id if c.part is None else f"{q.id}#{c.part.step}"] = c
    return out


def measure(answers: list[dict], questions: dict[str, Question], verbose: bool = False) -> dict[str, float]:
    n = Counter()
    lines = []
    for a in answers:
        q = questions.get(a["question"])
        if q is None or q.rubric is None:
            n["no rubric"] += 1
            continue
        got = grade_concept(q.rubric, a["answer"])
        n["answers"] += 1
        n["verdict right"] += got.verdict == a["verdict"]
        holds = bool(a["wrong_beliefs"])
        named = bool(got.misconceptions)
        if holds:
            n["wrong-belief"] += 1
            n["wrong-belief graded correct"] += got.verdict == "correct"
            n["wrong-belief named"] += named
        if a["verdict"] == "wrong":
            n["wrong"] += 1
            n["wrong graded correct"] += got.verdict == "correct"
        if a["verdict"] == "correct":
            n["right"] += 1
            n["right accused"] += named
        labelled = set(a["key_points_covered"])
        made = {p.text for p in got.made}
        known = {p.text for p in q.rubric.points}
        n["points labelled"] += len(labelled & known)
        n["points made"] += len(made)
        n["points agreed"] += len(made & labelled)
        if verbose and (got.verdict != a["verdict"] or holds != named or made != labelled & known):
            lines.append(f"{a['question']} [{a.get('style', '')}] expected {a['verdict']}, got "
                         f"{got.verdict}; beliefs {a['wrong_beliefs']} -> "
                         f"{[m.id + ': ' + m.evidence for m in got.misconceptions]}\n"
                         f"    extra points {sorted(made - labelled)}\n    missed points "
                         f"{sorted((labelled & known) - made)}\n    answer: {a['answer'][:300]}")
    if verbose:
        print("\n".join(lines))

    def share(a: str, b: str) -> float:
        return n[a] / n[b] if n[b] else 0.0

    return {"answers": n["answers"], "without a rubric": n["no rubric"],
            "verdict accuracy": share("verdict right", "answers"),
            "wrong-belief answers graded correct": share("wrong-belief graded correct", "wrong-belief"),
            "wrong answers graded correct": share("wrong graded correct", "wrong"),
            "wrong beliefs named": share("wrong-belief named", "wrong-belief"),
            "right answers accused": share("right accused", "right"),
            "key-point precision": share("points agreed", "points made"),
            "key-point recall": share("points agreed", "points labelled")}


def load_set(directory: Path) -> list[dict]:
    answers = []
    for path in sorted(directory.glob("*.json")):
        answers += json.loads(path.read_text(encoding="utf-8"))["answers"]
    return answers


def main(argv: list[str]) -> int:
    verbose = "--verbose" in argv
    args = [a for a in argv if not a.startswith("--")]
    directory = Path(args[0] if args else os.environ.get("DRILLS_CONCEPT_SET", DEFAULT))
    if not directory.is_dir() or not any(directory.glob("*.json")):
        print(f"no labelled answers in {directory} (give the directory as an argument)", file=sys.stderr)
        return 2
    figures = measure(load_set(directory), concept_questions(), verbose)
    failed = 0
    print(f"{'figure'.ljust(38)} {'value':>7}  target")
    for name, value in figures.items():
        if isinstance(value, int):
            print(f"{name.ljust(38)} {value:>7}")
            continue
        target = TARGETS.get(name)
        mark = ""
        if target is not None:
            ok = value >= target[0] if target[1] == ">=" else value <= target[0]
            failed += not ok
            mark = f"{target[1]} {target[0]:.0%}  {'ok' if ok else 'NO'}"
        print(f"{name.ljust(38)} {value:>7.1%}  {mark}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
