"""In-quiz keys: command aliases, "did you mean", Tab completion, an answers-only history."""

from __future__ import annotations

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.history import InMemoryHistory

from drills.engine.problem import Problem
from drills.model import Question
from drills.quiz.session import InvalidAnswer, Notice, Options, Session, StepsShown, command_name
from drills.tui.keys import AnswersOnly, CommandCompleter, progress_bar

NDCG = Question(id="n", topic="t", kind="numeric", prompt="?", metric="ndcg",
                problem=Problem(relevance=(2, 1, 3, 0), judged=(3, 2, 1, 0)))


def test_aliases_name_their_commands():
    assert command_name(":q") == "quit" and command_name(":h") == "hint" and command_name(":s") == "steps"
    assert command_name(":HINT") == "hint" and command_name(":nope") is None


def test_alias_runs_the_command():
    s = Session([NDCG, NDCG])
    s.start()
    s.submit("0.8675")
    assert [type(e) for e in s.submit(":s")][0] is StepsShown
    assert s.submit(":q")[-1].summary.asked == 1


def test_a_bare_command_word_gets_did_you_mean():
    s = Session([NDCG])
    s.start()
    for word in ("hint", "skip", "quit", "steps", "Hint"):
        (ev,) = s.submit(word)
        assert isinstance(ev, InvalidAnswer) and f"did you mean :{word.lower()}?" in ev.message
    assert not s.records  # nothing was counted


def test_tab_completes_a_colon_word():
    def complete(text):
        return [c.text for c in CommandCompleter().get_completions(Document(text), CompleteEvent())]

    assert complete(":h") == [":hint"]  # the alias's own command, so one Tab completes it
    assert complete(":he") == [":help"]
    assert set(complete(":")) >= {":hint", ":skip", ":steps", ":quit", ":help"}
    assert complete("0.7") == [] and complete(":hint now") == []


def test_history_keeps_answers_not_commands():
    inner = InMemoryHistory()
    waiting = [False]
    history = AnswersOnly(inner, lambda text: not text.startswith(":") and not waiting[0])
    for text in ("0.7592", ":hint", "13/2"):
        history.append_string(text)
    waiting[0] = True
    history.append_string("s")
    assert list(history.get_strings()) == ["0.7592", "13/2"]


def test_progress_bar():
    assert progress_bar(0, 10) == "[----------]"
    assert progress_bar(5, 10) == "[#####-----]"
    assert progress_bar(3, 3, 6) == "[######]"


def test_while_waiting_a_letter_is_not_taken_as_the_next_answer():
    s = Session([NDCG, NDCG], Options(pause=True))
    s.start()
    s.submit("0.8675")
    events = s.submit("0.7592")
    assert isinstance(events[0], Notice) and len(s.records) == 1


def test_the_toolbar_after_the_last_miss_says_enter_brings_the_summary():
    from drills.tui.keys import keys_hint

    s = Session([NDCG, NDCG], Options(pause=True))
    s.start()
    s.submit("0.8675")
    assert keys_hint(s).startswith("Enter next  s steps")
    s.go_on()
    s.submit("0.8675")  # the last one
    assert keys_hint(s).startswith("Enter summary  s steps")
