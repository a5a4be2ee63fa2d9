"""``drills export anki`` (issue 16, part 1): the .apkg is opened as Anki would read it (a zip
holding the SQLite collection ``collection.anki2``) and checked against the packs loaded here
on their own, with yaml.safe_load: note counts per kind, fields, tags, decks, stable guids
and ids, escaping, byte-identical output, and the errors."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import zipfile
from collections import Counter
from functools import lru_cache
from html import unescape
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from drills.cli import cli
from tests.bank_text import point_texts

ROOT = Path(__file__).resolve().parents[1]
BANK = sorted((ROOT / "questions").glob("*.yaml"))
# The note types' ids are part of every deck users already imported: changing one breaks
# updates on re-import, so they are pinned here, not read from drills.publish.anki.
MODEL_IDS = {"drills numeric": 2020387545, "drills choice": 1076305099,
             "drills concept": 2015437549, "drills code": 1075460082}
FIXED = ("numeric", "choice", "concept", "code")


def guid_for(*values: object) -> str:
    import genanki

    return genanki.guid_for(*values)


def export(*args: str):
    return CliRunner().invoke(cli, ["export", "anki", *args])


def read_apkg(path: Path) -> dict:
    """The notes (fields, tags, guid, note type, deck), note types and decks of an .apkg."""
    with zipfile.ZipFile(path) as z:
        assert "collection.anki2" in z.namelist()
        data = z.read("collection.anki2")
    db_path = path.with_suffix(".anki2")
    db_path.write_bytes(data)
    con = sqlite3.connect(db_path)
    try:
        models_json, decks_json = con.execute("SELECT models, decks FROM col").fetchone()
        models = {int(k): v for k, v in json.loads(models_json).items()}
        decks = {int(k): v["name"] for k, v in json.loads(decks_json).items()}
        rows = con.execute("SELECT n.id, n.guid, n.mid, n.mod, n.tags, n.flds, c.did "
                           "FROM notes n JOIN cards c ON c.nid = n.id ORDER BY n.id").fetchall()
        n_cards = con.execute("SELECT count(*) FROM cards").fetchone()[0]
    finally:
        con.close()
    notes = []
    for _, guid, mid, mod, tags, flds, did in rows:
        names = [f["name"] for f in models[mid]["flds"]]
        values = flds.split("\x1f")
        assert len(names) == len(values)
        notes.append({"guid": guid, "model": models[mid]["name"], "mod": mod, "tags": tags.split(),
                      "fields": dict(zip(names, values, strict=True)), "deck": decks[did]})
    return {"notes": notes, "models": models, "decks": decks, "cards": n_cards}


def plain(field: str) -> str:
    """A field's text as read on the card: tags dropped (inline code's without a space),
    entities decoded, spaces collapsed."""
    field = re.sub(r"</?code>", "", field.replace("<br>", "\n"))
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", field)).split())


def words(text: str) -> str:
    """Pack text as the card shows it: spaces collapsed, inline code without its backticks."""
    return " ".join(text.replace("`", "").split())


@lru_cache(maxsize=1)
def load_bank() -> tuple[tuple[str, dict], ...]:
    """(pack name, question as written) for every question of the built-in packs."""
    out = []
    for f in BANK:
        data = yaml.safe_load(f.read_text(encoding="utf-8"))
        out += [(data["pack"]["name"], q) for q in data["questions"]]
    return tuple(out)


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    """The whole built-in bank exported once (default options), read back."""
    tmp = tmp_path_factory.mktemp("anki")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DRILLS_HOME", str(tmp / "home"))
        result = export("-o", str(tmp / "bank.apkg"))
    assert result.exit_code == 0, result.output
    return {"apkg": tmp / "bank.apkg", "stderr": result.stderr, **read_apkg(tmp / "bank.apkg")}


def by_kind_tag(notes: list[dict]) -> Counter:
    return Counter(t.split("::")[-1] for n in notes for t in n["tags"] if t.startswith("drills::kind::"))


def test_note_counts_per_kind_match_the_packs(bank):
    questions = load_bank()
    written = Counter(q["kind"] for _, q in questions)
    tagged = by_kind_tag(bank["notes"])
    for kind in FIXED:
        assert tagged[kind] == written[kind], kind
        assert all(n["model"] == f"drills {kind}" for n in bank["notes"]
                   if f"drills::kind::{kind}" in n["tags"])
    assert tagged["generated"] == 3 * written["generated"]
    fixed_steps = sum(len(q["steps"]) for _, q in questions if q["kind"] == "scenario" and "generator" not in q)
    drawn = [q["id"] for _, q in questions if q["kind"] == "scenario" and "generator" in q]
    assert drawn and fixed_steps > 0
    # a drawn scenario brings its own steps: 3 variants, each numbered 1..N
    step_guids = {guid_for("drills", sid, f"0:{v}", "step", 1) for sid in drawn for v in range(3)}
    assert step_guids <= {n["guid"] for n in bank["notes"]}
    assert tagged["scenario"] > fixed_steps
    assert len(bank["notes"]) == bank["cards"] == sum(tagged.values())
    assert len({n["guid"] for n in bank["notes"]}) == len(bank["notes"])
    counts = Counter(n["model"].split()[1] for n in bank["notes"])
    assert bank["stderr"].startswith(f"Wrote {bank['apkg']}: {len(bank['notes'])} notes in "
                                     f"{len(bank['decks']) - 1} decks (numeric {counts['numeric']}, "
                                     f"choice {counts['choice']}, concept {counts['concept']}, "
                                     f"code {counts['code']}; {3 * written['generated']} generated variants, "
                                     f"{tagged['scenario']} scenario steps)")


def test_every_question_is_a_note_with_its_guid_deck_and_tags(bank):
    notes = {n["guid"]: n for n in bank["notes"]}
    for pack, q in load_bank():
        expected = [f"drills::topic::{q['topic']}", f"drills::difficulty::{q['difficulty']}",
                    f"drills::pack::{pack}", f"drills::kind::{q['kind']}"]
        if q["kind"] == "generated" or "generator" in q:
            keys = [("drills", q["id"], f"0:{v}") for v in range(3)]
            if q["kind"] == "scenario":
                keys = [(*k, "step", "1") for k in keys]
        elif q["kind"] == "scenario":
            keys = [("drills", q["id"], "step", str(n)) for n in range(1, len(q["steps"]) + 1)]
        else:
            keys = [("drills", q["id"])]
        for key in keys:
            note = notes[guid_for(*key)]
            assert note["deck"] == f"drills::{pack}::{q['topic']}"
            assert sorted(note["tags"]) == sorted(expected)
        if q["kind"] == "scenario" and "generator" not in q:
            models = [notes[guid_for(*k)]["model"] for k in keys]
            assert models == [f"drills {s.get('kind', 'numeric')}" for s in q["steps"]]


def test_one_deck_per_pack_with_topic_sub_decks_and_fixed_ids(bank, tmp_path):
    bank_packs = {(pack, q["topic"]) for pack, q in load_bank()}
    names = set(bank["decks"].values()) - {"Default"}
    assert names == {f"drills::{p}" for p, _ in bank_packs} | {f"drills::{p}::{t}" for p, t in bank_packs}
    assert {m["name"]: mid for mid, m in bank["models"].items()} == MODEL_IDS
    # the same deck name gets the same id in another export
    result = export("--pack", "ndcg-lambdarank", "--variants", "1", "--seed", "5",
                    "-o", str(tmp_path / "one.apkg"))
    assert result.exit_code == 0, result.output
    one = read_apkg(tmp_path / "one.apkg")
    ids = {name: i for i, name in bank["decks"].items()}
    assert {name: i for i, name in one["decks"].items() if name != "Default"} == {
        name: ids[name] for name in ("drills::ndcg-lambdarank", "drills::ndcg-lambdarank::lambdarank")}


def test_numeric_back_has_the_exact_answer_its_decimal_and_a_worked_block(bank):
    note = next(n for n in bank["notes"] if n["guid"] == guid_for("drills", "worked-example-dcg"))
    f = note["fields"]
    assert note["model"] == "drills numeric"
    assert plain(f["Answer"]) == "13/2 + 1/log2(3)"
    assert f["Decimal"].startswith("7.1309")
    assert f["Worked"].startswith("<pre>") and f["Worked"].endswith("</pre>") and "DCG@4" in f["Worked"]
    assert "Almost half of the total comes from one document" in plain(f["Explanation"])
    assert "Answer:" not in f["Explanation"]  # the engine's answer line is not repeated
    assert "Compute DCG@4" in plain(f["Question"])
    # every engine-computed numeric question has its worked steps
    numeric = [n for n in bank["notes"] if n["model"] == "drills numeric"]
    assert sum(1 for n in numeric if "<pre>" in n["fields"]["Worked"]) > len(numeric) / 2


def test_choice_back_has_the_right_option_and_every_explanation(bank):
    notes = {n["guid"]: n for n in bank["notes"]}
    checked = 0
    for _, q in load_bank():
        if q["kind"] != "choice":
            continue
        f = notes[guid_for("drills", q["id"])]["fields"]
        letters = "abcdefghijklmnopqrstuvwxyz"
        for i, o in enumerate(q["options"]):
            assert f"{letters[i]}) {words(o['text'])}" in plain(f["Options"])
            if o.get("explanation"):
                assert words(o["explanation"]) in plain(f["Explanations"])
            assert (words(o["text"]) in plain(f["Answer"])) == bool(o.get("correct"))
        checked += 1
    assert checked > 100


def test_concept_and_code_notes(bank):
    notes = {n["guid"]: n for n in bank["notes"]}
    for _, q in load_bank():
        if q["kind"] == "concept":
            f = notes[guid_for("drills", q["id"])]["fields"]
            assert words(q["model_answer"]) in plain(f["ModelAnswer"])
            assert f["KeyPoints"].count("<li>") == len(point_texts(q["key_points"]))
        elif q["kind"] == "code":
            f = notes[guid_for("drills", q["id"])]["fields"]
            assert f"drills code check FILE --question {q['id']}" in f["Check"]
            assert "<pre>def " in f["Question"]


TEST_PACK = """\
pack:
  name: anki-test
  version: "1.0.0"
  description: A pack for the Anki export tests.
questions:
  - id: at-html
    topic: anki-html
    kind: numeric
    difficulty: easy
    hints: []
    prompt: |
      Precision at <k> for k = 2 & a "quoted" word: ranking [1, 0, 1].
    answer: "1/2"
    explanation: "<b>not bold</b>"
  - id: at-choice
    topic: anki-html
    kind: choice
    difficulty: hard
    hints: []
    prompt: "Pick <script>alert(1)</script>"
    options:
      - text: "<i>this</i>"
        correct: true
        explanation: "a < b"
      - text: "that"
        explanation: "c > d"
  - id: at-gen
    topic: anki-gen
    kind: generated
    difficulty: medium
    hints: []
    prompt: "Compute NDCG@k."
    generator: ndcg-hand
    params: {n: 4, k: 3, metric: ndcg, max_rel: 3, gain: exponential}
"""


@pytest.fixture
def test_pack(tmp_path) -> Path:
    path = tmp_path / "pack" / "anki-test.yaml"
    path.parent.mkdir()
    path.write_text(TEST_PACK, encoding="utf-8")
    return path


def test_pack_text_is_escaped_never_raw_html(test_pack, tmp_path):
    result = export("--pack", str(test_pack), "-o", str(tmp_path / "t.apkg"))
    assert result.exit_code == 0, result.output
    notes = {n["guid"]: n for n in read_apkg(tmp_path / "t.apkg")["notes"]}
    numeric = notes[guid_for("drills", "at-html")]["fields"]
    assert "at &lt;k&gt; for k = 2 &amp; a \"quoted\" word" in numeric["Question"]
    assert "<k>" not in numeric["Question"]
    assert numeric["Explanation"] == "&lt;b&gt;not bold&lt;/b&gt;"
    choice = notes[guid_for("drills", "at-choice")]["fields"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in choice["Question"] and "<script" not in choice["Question"]
    assert "&lt;i&gt;this&lt;/i&gt;" in choice["Answer"] and "a &lt; b" in choice["Explanations"]
    assert "c &gt; d" in choice["Explanations"]


def test_control_characters_are_removed_and_newlines_become_br():
    from drills.publish.anki import esc, tag

    assert esc("a\x1b[31mb\x07\u202ec\r\nd\x9b") == "a[31mbc<br>d"
    assert tag("two words\tand\nmore") == "two_words_and_more"


def test_variants_make_n_notes_per_generated_question(test_pack, tmp_path):
    for n in (1, 5):
        out = tmp_path / f"v{n}.apkg"
        result = export("--pack", str(test_pack), "--variants", str(n), "-o", str(out))
        assert result.exit_code == 0, result.output
        notes = read_apkg(out)["notes"]
        assert by_kind_tag(notes)["generated"] == n
        assert {guid_for("drills", "at-gen", f"0:{v}") for v in range(n)} <= {x["guid"] for x in notes}
        assert len({x["fields"]["Question"] for x in notes if "drills::kind::generated" in x["tags"]}) > n // 2


def test_same_options_write_the_same_bytes_and_a_seed_changes_only_variants(test_pack, tmp_path):
    paths = [tmp_path / name for name in ("a.apkg", "b.apkg", "c.apkg")]
    for path, seed in zip(paths, ("0", "0", "9"), strict=True):
        assert export("--pack", str(test_pack), "--seed", seed, "-o", str(path)).exit_code == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()
    a, c = (read_apkg(p)["notes"] for p in (paths[0], paths[2]))
    fixed = {guid_for("drills", "at-html"), guid_for("drills", "at-choice")}
    assert fixed <= {n["guid"] for n in a} and fixed <= {n["guid"] for n in c}
    assert guid_for("drills", "at-gen", "9:0") in {n["guid"] for n in c}
    assert oct(paths[0].stat().st_mode & 0o777) != "0o600"  # a normal new file, not a private temp


def test_an_edited_question_keeps_every_guid_and_is_newer(tmp_path):
    """A copy of a built-in pack (renamed, so it loads beside the bank), exported, then one
    prompt edited and exported again: every guid stays, only that note changes, and its
    modification time is later (Anki updates a note only from a newer copy)."""
    data = yaml.safe_load((ROOT / "questions" / "hand-computation.yaml").read_text(encoding="utf-8"))
    data["pack"]["name"] = "anki-copy"
    for q in data["questions"]:
        q["id"] = "copy-" + q["id"]
    kinds = Counter(q["kind"] for q in data["questions"])
    assert kinds["numeric"] and kinds["generated"] and kinds["choice"] and kinds["concept"]
    first, second = tmp_path / "v1" / "copy.yaml", tmp_path / "v2" / "copy.yaml"
    first.parent.mkdir()
    second.parent.mkdir()
    first.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    edited = data["questions"][0]
    edited["prompt"] = "EDITED. " + edited["prompt"]
    second.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    stamp = first.stat().st_mtime
    os.utime(second, (stamp + 60, stamp + 60))
    for pack, out in ((first, "1.apkg"), (second, "2.apkg")):
        assert export("--pack", str(pack), "-o", str(tmp_path / out)).exit_code == 0
    before = {n["guid"]: n for n in read_apkg(tmp_path / "1.apkg")["notes"]}
    after = {n["guid"]: n for n in read_apkg(tmp_path / "2.apkg")["notes"]}
    assert set(before) == set(after)
    assert len(before) == len(data["questions"]) + 2 * kinds["generated"]
    changed = [g for g in before if before[g]["fields"] != after[g]["fields"]]
    assert changed == [guid_for("drills", edited["id"])]
    assert "EDITED." in after[changed[0]]["fields"]["Question"]
    assert all(after[g]["mod"] > before[g]["mod"] for g in before)
    assert all(after[g]["deck"] == before[g]["deck"] and after[g]["tags"] == before[g]["tags"]
               for g in before)


def test_topic_filter(tmp_path):
    result = export("--topic", "lambdarank", "--variants", "1", "-o", str(tmp_path / "t.apkg"))
    assert result.exit_code == 0, result.output
    notes = read_apkg(tmp_path / "t.apkg")["notes"]
    assert notes and all("drills::topic::lambdarank" in n["tags"] for n in notes)
    expected = {(p, q["id"]) for p, q in load_bank() if q["topic"] == "lambdarank"}
    assert {p for p, _ in expected} == {n["deck"].split("::")[1] for n in notes}


@pytest.mark.parametrize(("args", "message"), [
    (["--pack", "no-such-pack"], "unknown pack 'no-such-pack'"),
    (["--topic", "no-such-topic"], "unknown topic 'no-such-topic'"),
    (["--variants", "0"], "--variants must be from 1 to 20, got 0"),
    (["--variants", "21"], "--variants must be from 1 to 20, got 21"),
    (["--seed", "-1"], "--seed must be a whole number"),
])
def test_bad_options_are_one_line_and_exit_2(args, message, tmp_path):
    result = export(*args, "-o", str(tmp_path / "x.apkg"))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {message}") and result.stderr.count("\n") == 1
    assert not (tmp_path / "x.apkg").exists()


def test_missing_output_is_a_usage_error():
    result = export()
    assert result.exit_code == 2 and "Missing option '-o' / '--output'" in result.stderr


@pytest.mark.parametrize("where", ["missing-dir/deck.apkg", "."])
def test_an_unwritable_output_is_one_line_and_exit_1(where, test_pack, tmp_path):
    target = tmp_path / where
    result = export("--pack", str(test_pack), "-o", str(target))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot write {target}: ") and result.stderr.count("\n") == 1
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_symlink_is_followed_and_its_target_gets_the_deck(test_pack, tmp_path):
    real = tmp_path / "real.apkg"
    real.write_bytes(b"old")
    link = tmp_path / "link.apkg"
    link.symlink_to(real.name)
    result = export("--pack", str(test_pack), "-o", str(link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == real.name
    assert real.read_bytes().startswith(b"PK") and read_apkg(real)["notes"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_dangling_symlink_creates_its_target(test_pack, tmp_path):
    link = tmp_path / "link.apkg"
    link.symlink_to("new.apkg")
    assert export("--pack", str(test_pack), "-o", str(link)).exit_code == 0
    assert link.is_symlink() and (tmp_path / "new.apkg").read_bytes().startswith(b"PK")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_written_through(test_pack, tmp_path):
    import stat
    import threading

    fifo = tmp_path / "deck.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    result = export("--pack", str(test_pack), "-o", str(fifo))
    reader.join(30)
    assert result.exit_code == 0, result.output
    assert got and got[0].startswith(b"PK")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck.fifo", "pack"]


def test_dev_full_is_exit_1_and_stays_a_device(test_pack, tmp_path):
    import stat

    if not os.path.exists("/dev/full") or not stat.S_ISCHR(os.stat("/dev/full").st_mode):
        pytest.skip("no /dev/full device here")
    result = export("--pack", str(test_pack), "-o", "/dev/full")
    assert result.exit_code == 1
    assert result.stderr == "Error: cannot write /dev/full: No space left on device\n"
    assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)
    assert not [p for p in Path("/dev").iterdir() if p.name.startswith(".full.")]


def test_an_empty_output_is_a_usage_error(tmp_path):
    result = export("-o", "")
    assert result.exit_code == 2 and result.stderr == "Error: -o needs a file name\n"


def test_no_questions_is_exit_1(monkeypatch, tmp_path):
    import drills.cli.export as export_cli

    monkeypatch.setattr(export_cli, "load_questions", lambda packs: [])
    result = export("-o", str(tmp_path / "x.apkg"))
    assert result.exit_code == 1 and result.stderr == "Error: no questions to export in these packs\n"


def test_a_generator_that_fails_is_one_line_and_exit_1(monkeypatch, test_pack, tmp_path):
    import drills.generators.instantiate as drawn

    real = drawn.instantiate

    def broken(template, rng):
        if template.id != "at-gen":  # pack validation draws too
            return real(template, rng)
        raise drawn.GenerationError(template.id, "generator ndcg-hand failed: boom")

    monkeypatch.setattr(drawn, "instantiate", broken)
    result = export("--pack", str(test_pack), "-o", str(tmp_path / "x.apkg"))
    assert result.exit_code == 1
    assert result.stderr == "Error: at-gen: generator ndcg-hand failed: boom\n"
    assert not (tmp_path / "x.apkg").exists()


def test_genanki_is_imported_only_when_writing():
    code = ("import sys, drills.publish.anki, drills.cli.export, drills.quiz.session, drills.cli\n"
            "print(sorted(m for m in ('genanki', 'chevron', 'frozendict') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True, timeout=120).stdout
    assert out.strip() == "[]"


def test_export_is_registered_with_help():
    result = CliRunner().invoke(cli, ["export", "anki", "--help"])
    assert result.exit_code == 0 and "drills export anki -o drills.apkg" in result.output


def test_anki_itself_imports_the_deck_and_updates_an_edited_note(test_pack, tmp_path):
    """With Anki's own library (``pip install anki``; skipped without it): a re-import of the
    same file adds nothing; after an edit the note is updated, not duplicated."""
    collection = pytest.importorskip("anki.collection")
    opts = collection.ImportAnkiPackageOptions(with_scheduling=False)

    def imported(col, path: Path):
        req = collection.ImportAnkiPackageRequest(package_path=str(path), options=opts)
        return col.import_anki_package(req).log

    first, second = tmp_path / "1.apkg", tmp_path / "2.apkg"
    assert export("--pack", str(test_pack), "-o", str(first)).exit_code == 0
    test_pack.write_text(TEST_PACK.replace("Pick <script>", "EDITED pick <script>"), encoding="utf-8")
    later = test_pack.stat().st_mtime + 60
    os.utime(test_pack, (later, later))
    assert export("--pack", str(test_pack), "-o", str(second)).exit_code == 0
    col = collection.Collection(str(tmp_path / "user.anki2"))
    try:
        assert len(imported(col, first).new) == 5
        assert len(imported(col, first).new) == 0
        log = imported(col, second)
        assert len(log.new) == 0 and len(log.updated) == 5
        assert col.note_count() == 5 and len(col.find_notes("EDITED")) == 1
        assert "drills::anki-test::anki-html" in {d.name for d in col.decks.all_names_and_ids()}
    finally:
        col.close()


FLOW_PACK = """\
pack:
  name: anki-flow
  version: "1.0.0"
  description: Hard-wrapped prose, lists and inline code for the Anki export.
questions:
  - id: af-concept
    topic: anki-flow
    kind: concept
    difficulty: easy
    hints: []
    prompt: |
      Why does `ndcg_score` in scikit-learn give tied scores the mean gain of their block
      rather than keep the input order?
    model_answer: |
      It averages the gains of a tied block, so the order of the input cannot change
      the score. Two things follow:
      - a tie between a grade-3 and a grade-0 document scores
        between the two orders
      - `ignore_ties=True` keeps the input order instead

      A second paragraph with ``a `tick` inside`` and a stray ` backtick.
    key_points:
      - "the mean gain over the tied block: `x < y`"
    explanation: |
      DCG with the tie averaged, by hand:
      DCG  = 3/2 + 3/2 / log2(3) = 2.4464
      IDCG = 3 + 0 = 3
"""
# Each field as its HTML should read, written out by hand from the YAML above.
FLOW_FIELDS = {
    "Question": ("Why does <code>ndcg_score</code> in scikit-learn give tied scores the mean gain "
                 "of their block rather than keep the input order?"),
    "ModelAnswer": ("It averages the gains of a tied block, so the order of the input cannot change "
                    "the score. Two things follow:"
                    "<br>- a tie between a grade-3 and a grade-0 document scores between the two orders"
                    "<br>- <code>ignore_ties=True</code> keeps the input order instead"
                    "<br><br>A second paragraph with <code>a &#96;tick&#96; inside</code> and a stray "
                    "backtick."),
    "KeyPoints": "<ul><li>the mean gain over the tied block: <code>x &lt; y</code></li></ul>",
    "Explanation": ("DCG with the tie averaged, by hand:<br>DCG  = 3/2 + 3/2 / log2(3) = 2.4464"
                    "<br>IDCG = 3 + 0 = 3"),
}


def test_fields_are_reflowed_with_inline_code_and_no_raw_backtick(tmp_path):
    pack = tmp_path / "pack" / "anki-flow.yaml"
    pack.parent.mkdir()
    pack.write_text(FLOW_PACK, encoding="utf-8")
    result = export("--pack", str(pack), "-o", str(tmp_path / "f.apkg"))
    assert result.exit_code == 0, result.output
    (note,) = read_apkg(tmp_path / "f.apkg")["notes"]
    for name, html_text in FLOW_FIELDS.items():
        assert note["fields"][name] == html_text, name


def test_no_field_of_the_bank_breaks_a_sentence_or_shows_a_backtick(bank):
    """Outside code blocks (<pre>), no field has a raw backtick, and no <br> falls between a
    word ending in a lowercase letter (or a comma) and one starting in lowercase, the mark
    of a YAML line joined back into its sentence; inline code became <code>."""
    broken, ticks, code = [], [], 0
    for n in bank["notes"]:
        for name, value in n["fields"].items():
            text = re.sub(r"<pre>.*?</pre>", "", value, flags=re.S)
            code += text.count("<code>")
            if "`" in text:
                ticks.append((n["guid"], name))
            broken += [(n["guid"], name, m.group(0)) for m in re.finditer(r"[a-z,]<br>[a-z]", text)]
    assert not ticks and not broken, (ticks[:5], broken[:5])
    assert code > 20  # the coding pack's prompts name their arguments in backticks


def test_an_export_leaves_nothing_in_the_temp_folder(tmp_path, monkeypatch):
    """genanki writes its SQLite file with tempfile.mkstemp() and never deletes it: the export
    keeps it in its own temporary folder, deleted with it (it left 150 KB in /tmp each time)."""
    import tempfile

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("DRILLS_HOME", str(tmp_path / "home"))
    result = export("--pack", "ndcg-conventions", "-o", str(tmp_path / "c.apkg"))
    assert result.exit_code == 0, result.output
    assert list(temp.iterdir()) == []
    assert tempfile.tempdir == str(temp)  # put back as it was
    assert read_apkg(tmp_path / "c.apkg")["notes"]
