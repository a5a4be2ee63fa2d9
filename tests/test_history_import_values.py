"""Imported values out of range (issue 26, point 2): a 401-digit integer, NaN or infinity
anywhere, a review card from the future or due centuries ahead, oversize options. Each makes
its row damaged (skipped, counted, exit 1, one line per file); a file is merged whole or not
at all; NaN never reaches the database and the JSON export stays standard JSON."""

from __future__ import annotations

import json
import math

import pytest

from drills.store.jsonvalues import finite_number, plain, strict_loads
from tests.test_history_sync import (
    counts,
    export_file,
    import_files,
    make_history,
    run,
    table,
)

HUGE = int("1" + "0" * 400)


def _export(tmp_path, tag: str) -> dict:
    home = tmp_path / f"home-{tag}"
    make_history(home, tag)
    return json.loads(export_file(home, tmp_path / f"{tag}.json").read_text())


def _write(tmp_path, name: str, data: dict, text: str | None = None):
    path = tmp_path / name
    path.write_text(text if text is not None else json.dumps(data))
    return path


@pytest.mark.parametrize("field", ["seconds", "expected_value"])
def test_a_401_digit_number_in_the_second_file_is_one_damaged_row(tmp_path, field):
    good = _write(tmp_path, "good.json", _export(tmp_path, "g"))
    bad_data = _export(tmp_path, "b")
    bad_data["attempts"][0][field] = HUGE
    bad = _write(tmp_path, "bad.json", bad_data)
    home = tmp_path / "mine"
    result = import_files(home, good, bad)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("Imported from") and "good.json" in lines[0]
    assert "bad.json" in lines[1] and lines[1].endswith("; 1 damaged row skipped")
    questions = {q for (q,) in table(home, "SELECT question_id FROM attempts")}
    assert len([q for q in questions if q.startswith("g")]) == 5  # the first file whole
    assert len([q for q in questions if q.startswith("b")]) == 4  # the second minus its bad row


def test_nan_and_infinity_anywhere_damage_only_their_rows(tmp_path):
    data = _export(tmp_path, "n")
    data["attempts"][0]["params"] = {"rel": [1, "@NAN@"]}
    data["attempts"][1]["seconds"] = "@INF@"
    data["sessions"][0]["options"] = {"count": "@NAN@"}
    text = json.dumps(data).replace('"@NAN@"', "NaN").replace('"@INF@"', "Infinity")
    path = _write(tmp_path, "nan.json", data, text)
    home = tmp_path / "mine"
    result = import_files(home, path)
    assert result.exit_code == 1, result.output
    # the session with NaN options is damaged, and with it its three answers have no session
    added, present, sessions, _, _, damaged = counts(result)
    assert sessions == 1 and added == 2 and damaged >= 3
    for (params,) in table(home, "SELECT params FROM attempts WHERE params IS NOT NULL"):
        strict_loads(params)
    for (options,) in table(home, "SELECT options FROM sessions"):
        strict_loads(options)
    exported = run(home, "history", "export", "--format", "json")
    assert exported.exit_code == 0
    strict_loads(exported.stdout)  # standard JSON: no NaN


def test_a_nan_stored_by_an_older_drills_never_reaches_the_export(tmp_path):
    home = tmp_path / "old"
    make_history(home, "o")
    with __import__("sqlite3").connect(home / "drills.db") as conn:
        conn.execute("UPDATE attempts SET params = '{\"x\": NaN}' WHERE id = 1")
        conn.execute("UPDATE attempts SET expected_value = ? WHERE id = 2", (math.nan,))  # SQLite: NULL
        conn.execute("UPDATE sessions SET report = '{\"r\": Infinity}' WHERE id = 1")
    exported = run(home, "history", "export", "--format", "json")
    assert exported.exit_code == 0, exported.output
    data = strict_loads(exported.stdout)
    assert len(data["attempts"]) == 4  # the row with NaN in params left out, and counted
    assert [a["expected_value"] for a in data["attempts"] if a["attempt_id"] == 2] == [None]
    assert data["sessions"][0]["report"] is None
    assert "Left out 1 answer" in exported.stderr


def test_review_cards_from_the_future_or_due_in_centuries_are_damaged(tmp_path):
    data = _export(tmp_path, "c")
    assert data["review_cards"], "make_history leaves review cards"
    card = data["review_cards"][0]
    future = dict(card, updated_at="9999-12-30T00:00:00+00:00", due="9999-12-31T00:00:00+00:00",
                  reviews=10**9)
    far = dict(card, item_key=card["item_key"] + "-far", due="2912-01-01T00:00:00+00:00")
    stable = dict(card, item_key=card["item_key"] + "-stable", card={**card["card"], "stability": 1e308})
    data["review_cards"] = [future, far, stable]
    path = _write(tmp_path, "cards.json", data)
    home = tmp_path / "mine"
    result = import_files(home, path)
    assert result.exit_code == 1, result.output
    assert counts(result)[4:] == (0, 3)
    assert table(home, "SELECT count(*) FROM review_cards") == [(0,)]


def test_a_session_with_oversize_options_is_damaged(tmp_path):
    data = _export(tmp_path, "s")
    data["sessions"][0]["report"] = {"blob": "x" * (2 * 1024 * 1024)}
    path = _write(tmp_path, "big.json", data)
    result = import_files(tmp_path / "mine", path)
    assert result.exit_code == 1
    assert counts(result)[5] >= 1


def test_plain_and_finite_number():
    assert plain({"a": [1, 2.5, None, True, "x"]})
    assert not plain({"a": float("nan")}) and not plain([HUGE]) and not plain({1: 2})
    nested: object = 1
    for _ in range(40):
        nested = [nested]
    assert not plain(nested)
    assert finite_number(2**63 - 1) and not finite_number(HUGE) and not finite_number(True)
    with pytest.raises(ValueError):
        strict_loads("[NaN]")
