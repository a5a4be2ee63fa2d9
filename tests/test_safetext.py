"""Terminal control characters from packs, file names and the learner never reach the terminal.

Unit and property tests of ``drills.safetext``, then the commands: a pack built
through the Python API (so validation never sees it) with OSC 52, OSC 8, a screen clear,
BEL and C1 in every text field, run through ``practice``, ``mock``, ``generate`` (text,
Markdown, JSON) and ``review --list``: no ESC, BEL or C1 byte comes out.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from drills.cli import cli
from drills.model import Option, Question
from drills.safetext import first_control, json_text, shorten, terminal_text, visible

OSC52 = "\x1b]52;c;cHduZWQ=\x07"
OSC8 = "\x1b]8;;http://x/\x07"
CLEAR = "\x1b[2J"
HOSTILE = f"{OSC52}{OSC8}{CLEAR}\x9b2J\u202e\r"
# What a terminal could act on: ESC, BEL, CR, any other C0 but newline and tab, DEL, C1, bidi.
ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A visible unit (what one unsafe character becomes) never contains a character it replaces.
text_with_controls = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(
    ["\x1b", "\x07", "\x9b", "\r", "\u202e", "\x00", "\x7f", "\n", "\t", "[", "]"]), max_size=60)


def test_visible_shows_each_kind_of_control():
    assert visible("a\x1bb") == "a^[b"
    assert visible("\x07\r\x00\x7f") == "^G^M^@^?"
    assert visible("\x9b") == "\\x9b"
    assert visible("\u202eabc") == "<U+202E>abc"
    assert visible("line\n\tindented") == "line\n\tindented"  # newline and tab are kept
    assert visible("plain · text é") == "plain · text é"


def test_first_control_names_the_code_point():
    assert first_control("ok") is None
    assert first_control("x\x1b]52") == "U+001B"
    assert first_control("a\u202e") == "U+202E"
    assert first_control("tab\tand\nnewline") is None


@given(text_with_controls)
def test_visible_output_has_nothing_a_terminal_acts_on(text):
    assert not ACTIVE.search(visible(text))


@given(text_with_controls, st.integers(min_value=0, max_value=40))
def test_shorten_never_splits_a_shown_control(text, width):
    out = shorten(text, width)
    shown = visible(text)
    assert not ACTIVE.search(out)
    if len(shown) <= width:
        assert out == shown
    else:
        assert out.endswith("...") and len(out) <= max(width, 3)
        kept = out[:-3]
        assert shown.startswith(kept)
        # the cut falls between units: what is kept is exactly the visible form of a prefix
        assert any(visible(text[:i]) == kept for i in range(len(text) + 1))


def test_terminal_text_lets_only_drills_own_colours_through():
    ours = "\x1b[1;36mQuestion\x1b[0m \x1b[31mWrong\x1b[0m"
    assert terminal_text(ours) == ours
    assert terminal_text("\x1b[8mhidden\x1b[0m") == "^[[8mhidden\x1b[0m"  # conceal is not ours
    assert "\x1b" not in terminal_text(OSC52 + OSC8 + CLEAR)


@given(text_with_controls)
def test_json_text_round_trips_and_escapes_c1(text):
    out = json_text({"t": text}, ensure_ascii=False)
    assert json.loads(out) == {"t": text}
    assert not ACTIVE.search(out)


def hostile_questions() -> list[Question]:
    """Every text field carries escapes; built directly, so no validator ever saw them."""
    common = dict(topic=f"topic{CLEAR}", difficulty="easy", hints=(f"hint {OSC52}",),
                  explanation=f"because {OSC8}link", pack="evil")
    return [
        Question(id=f"evil-num{OSC8}", kind="numeric", prompt=f"Compute {OSC52} 1/2.", answer="1/2",
                 unit=f"units{CLEAR}", **common),
        Question(id="evil-choice", kind="choice", prompt=f"Pick {HOSTILE}",
                 options=(Option(f"right {OSC52}", True, f"yes {CLEAR}"), Option("wrong\x07", False)),
                 **common),
        Question(id="evil-concept", kind="concept", prompt=f"Why {CLEAR}?",
                 model_answer=f"model {OSC8}answer", key_points=(f"point {OSC52}",), **common),
    ]


@pytest.fixture
def hostile(monkeypatch):
    questions = hostile_questions()
    for module in ("drills.cli.quiz.practice", "drills.cli.quiz.mock", "drills.cli.generate"):
        monkeypatch.setattr(f"{module}.load_questions", lambda packs, topics=None: list(questions))
    monkeypatch.setattr("drills.cli.quiz.practice.check_topics", lambda topics, qs: None)
    return questions


def assert_clean(result):
    out = result.stdout_bytes + result.stderr_bytes
    assert b"\x1b" not in out and b"\x07" not in out, out[:2000]
    assert not ACTIVE.search(out.decode("utf-8", "replace")), out[:2000]


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_practice_shows_pack_controls_instead_of_sending_them(hostile):
    result = run("practice", "--count", "3", "--seed", "1",
                 input=f":hint\n:steps\n0.4 {OSC52}\n0.5\n:hint\nb\nmy answer {CLEAR}\n\ngood\n")
    assert result.exit_code == 0, result.output
    assert_clean(result)
    assert "^[]52;c;cHduZWQ=^G" in result.stdout  # shown, so the learner sees the trick


def test_mock_report_shows_pack_controls_instead_of_sending_them(hostile):
    result = run("mock", "--count", "3", "--seed", "2", input="0.3\na\nwhy\n\nagain\n")
    assert result.exit_code == 0, result.output
    assert "Mock interview report" in result.stdout
    assert_clean(result)


@pytest.mark.parametrize("form", [(), ("--markdown",), ("--json",)])
def test_generate_shows_pack_controls_instead_of_sending_them(hostile, form):
    result = run("generate", "--count", "3", "--seed", "3", *form)
    assert result.exit_code == 0, result.output
    assert_clean(result)
    if form == ("--json",):  # JSON stays JSON: the escapes are \u001b, and the text round-trips
        items = json.loads(result.stdout)
        assert any(OSC52 in item["prompt"] for item in items)


def test_review_list_shows_history_controls_instead_of_sending_them(drills_home):
    from drills.store import Attempt, Store

    with Store.open(drills_home) as store:
        sid = store.start_session("practice", 1, {})
        store.record_attempt(sid, Attempt(f"evil{OSC52}", f"topic{CLEAR}", "numeric", "wrong",
                                          f"0.1{OSC8}", "1/2", 0.5, ("linear_gain",), 1.0))
    result = run("review", "--list")
    assert result.exit_code == 0, result.output
    assert "evil^[]52" in result.stdout
    assert_clean(result)


def test_error_lines_with_a_hostile_file_name_are_shown_not_sent(tmp_path):
    result = run("practice", "--transcript", str(tmp_path / f"no{CLEAR}dir" / "t.jsonl"))
    assert result.exit_code == 2
    assert "no^[[2Jdir" in result.stderr
    assert_clean(result)
