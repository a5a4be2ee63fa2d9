"""A ``drills code`` check recorded as practice records an answer: one session row of its own
(mode ``code``) holding one attempt of kind ``code``, written by the quiz's own ``Recorder``
(the review card updated, a failed save retried once, then printed so nothing is lost).

``drills code check --examples`` (the visible examples only) is never recorded.
"""

from __future__ import annotations

from typing import Any

from drills.cli.quiz.recorder import Recorder, Signals
from drills.grading.scenario import RIGHT
from drills.quiz.events import Options, Record, summarize
from drills.tui.output import SaveFailed

MODE = "code"


def record_check(store: Any, question: Any, source: str, outcome: Any, seconds: float,
                 command: str) -> Recorder:
    """Save one graded check (an ``Outcome``) in a session row of its own and end that row;
    the Recorder says whether it was saved (``failed``, ``schedule_failed``) and prints what
    was not (``report_unsaved``). ``command``: "code" or "code check", kept in the row's options.
    ``seconds``: the time spent writing (the editor or typing), 0 for a file checked."""
    record = Record(0, question, outcome.verdict, given=source, seconds=round(seconds, 3),
                    expected=outcome.expected, expected_value=outcome.expected_value,
                    misconceptions=tuple(outcome.misconceptions), outcome=outcome, item=0)
    score = int(outcome.verdict in RIGHT)
    with Signals() as signals:  # SIGTERM waits until the answer is written
        session_id = store.start_session(MODE, None, {"command": command, "question": question.id})
        recorder = Recorder(store, session_id, None, signals)
        try:
            recorder(record)
        except SaveFailed:
            pass  # kept in recorder.unsaved; the caller prints it after the verdict
        summary = summarize(Options(mode=MODE), [record], 1, score, score, False, False)
        store.end_session(session_id, summary.score, summary.asked, {
            "counts": summary.counts,
            "by_topic": {k: list(v) for k, v in summary.by_topic.items()},
            "misconceptions": summary.misconceptions, "review": list(summary.review),
            "asked": summary.asked, "quit_early": False})
    return recorder
