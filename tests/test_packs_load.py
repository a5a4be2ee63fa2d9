"""drills.packs as a library: safe YAML reading, checks with file:line, discovery."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from drills.authoring.template import starter_pack
from drills.cli import cli
from drills.engine.problem import Problem
from drills.generators import REGISTRY, Param, register
from drills.model import KINDS, Tolerance
from drills.packs import PackError, discover, load_pack, schema, validate_paths, yamlsafe
from drills.packs import discovery as discovery_mod
from drills.packs.fieldreader import FieldReader
from drills.packs.schema import build_pack
from drills.packs.yamlsafe import parse_text
from drills.paths import home, packs_dir

FIXTURES = Path(__file__).parent / "fixtures" / "packs"
ROOT = Path(__file__).resolve().parent.parent

CONCEPT = """\
  - id: {id}
    topic: conventions
    kind: concept
    prompt: "p"
    model_answer: "m"
    key_points: ["k"]
"""


def write_pack(path: Path, name: str, ids: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(CONCEPT.format(id=i) for i in ids)
    path.write_text(f'pack:\n  name: {name}\n  version: "1"\nquestions:\n{body}', encoding="utf-8")
    return path


def only_error(path: Path) -> PackError:
    pack = load_pack(path)
    assert len(pack.errors) == 1, [str(e) for e in pack.errors]
    assert pack.questions == ()
    return pack.errors[0]


# --- a valid pack -------------------------------------------------------------------------
def test_each_kind_is_given_only_the_field_reader(monkeypatch):
    # schema.py is the orchestrator; a question kind is a Check over the FieldReader alone
    # (fieldreader.py), registered once in schema.REGISTRY; a scenario's steps use the same checks.
    seen: list[tuple[str, type]] = []
    for name, kind in list(schema.REGISTRY.items()):
        def spy(c, item, p, meta, _check=kind.check, _name=name):
            seen.append((_name, type(c)))
            return _check(c, item, p, meta)

        monkeypatch.setitem(schema.REGISTRY, name, schema.Kind(kind.fields, spy))
    built = 0
    for path, builtin in ((FIXTURES / "good.yaml", False), (ROOT / "questions" / "coding.yaml", True),
                          (ROOT / "questions" / "scenarios.yaml", True)):
        doc = parse_text(path.read_text(encoding="utf-8"), path.name)
        _, questions = build_pack(doc, builtin=builtin)
        assert doc.errors == [] and questions
        built += len(questions)
    assert {name for name, _ in seen} == set(KINDS) == set(schema.REGISTRY)
    assert {reader for _, reader in seen} == {FieldReader} and built == len(seen)
    assert not any(hasattr(FieldReader, name) for name in ("pack", "meta", "question"))


def test_good_pack_builds_every_kind_with_defaults_merged():
    pack = load_pack(FIXTURES / "good.yaml")
    assert pack.errors == []
    assert pack.meta is not None and (pack.meta.name, pack.meta.version) == ("fixture-good", "1.2.0")
    q = {x.id: x for x in pack.questions}
    assert list(q) == ["good.answer", "good.problem", "good.swap", "good.int-answer", "good.choice",
                       "good.concept", "good.generated"]
    answer = q["good.answer"]
    assert answer.answer == "15/7" and answer.difficulty == "easy" and answer.unit == "ratio"
    assert answer.hints == ("2^4 - 1 = 15", "2^3 - 1 = 7")
    assert answer.tolerance == Tolerance(absolute=0.001, relative=0.001)  # merged over the default
    assert answer.source.line == 12 and answer.source.path.endswith("good.yaml")
    assert answer.pack == "fixture-good"
    problem = q["good.problem"]
    assert problem.problem == Problem((2, 1, 3, 0), (3, 2, 1, 0, 0), 4, "linear", None)  # default gain
    assert problem.metric == "ndcg" and problem.difficulty == "hard"  # default difficulty
    assert problem.tolerance == Tolerance(0.01, 0.001)
    assert q["good.swap"].problem.swap == (1, 3) and q["good.swap"].topic == "my-own-topic"
    assert q["good.int-answer"].answer == "0"
    choice = q["good.choice"]
    assert [o.correct for o in choice.options] == [True, False]
    assert choice.options[1].explanation == "That is DCG itself."
    assert q["good.concept"].key_points == ("DCG depends on the query", "IDCG is the best possible DCG")
    gen = q["good.generated"]
    assert gen.generator == "ndcg-hand" and dict(gen.params) == {"n": 5, "k": 3, "metric": "ndcg"}


def test_anchors_and_merge_keys_work():
    pack = load_pack(FIXTURES / "other.yaml")
    assert pack.errors == []
    one, two = pack.questions
    assert two.model_answer == one.model_answer and two.prompt == "And when does it matter?"
    assert two.source.line == 12


def test_pack_error_format():
    assert str(PackError("a.yaml", 3, "questions[0].id", "bad")) == "a.yaml:3: questions[0].id: bad"
    assert str(PackError("a.yaml", 0, "", "missing")) == "a.yaml: missing"


# --- broken packs: the right file, line and message ---------------------------------------
@pytest.mark.parametrize("name, line, field, words", [
    ("answer-no.yaml", 9, "questions[0].answer", ["NO", "boolean", "number or expression in quotes", "choice"]),
    ("answer-float.yaml", 9, "questions[0].answer", ["1.10", "1.1", 'answer: "1.10"']),
    ("unknown-kind.yaml", 7, "questions[0].kind", ["essay", "numeric, generated, choice, concept"]),
    ("unknown-generator.yaml", 9, "questions[0].generator", ["ndcg-handz", "did you mean `ndcg-hand`"]),
    ("duplicate-ids.yaml", 11, "questions[1].id", ["duplicate id 'same'", "line 5"]),
    ("duplicate-key.yaml", 9, "questions[0].prompt", ["duplicate key 'prompt'", "line 8"]),
    ("python-tag.yaml", 9, "questions[0].answer", ["!!python/object/apply:os.system", "not allowed"]),
    ("unsafe-answer.yaml", 9, "questions[0].answer", ["not a valid answer expression"]),
    ("invalid-yaml.yaml", 9, "", ["invalid YAML", "flow sequence"]),
    ("empty.yaml", 1, "", ["empty"]),
])
def test_broken_fixture(name, line, field, words):
    error = only_error(FIXTURES / name) if name != "duplicate-ids.yaml" else load_pack(FIXTURES / name).errors[0]
    assert error.path.endswith(name)
    assert (error.line, error.field) == (line, field)
    for word in words:
        assert word in error.message
    assert str(error).startswith(f"{FIXTURES / name}:{line}: ")


def test_duplicate_id_keeps_the_first_question():
    pack = load_pack(FIXTURES / "duplicate-ids.yaml")
    assert [q.prompt for q in pack.questions] == ["One"]
    assert len(pack.errors) == 1


def test_wrong_types_reports_every_error():
    pack = load_pack(FIXTURES / "wrong-types.yaml")
    got = [(e.line, e.field) for e in pack.errors]
    assert got == [
        (3, "pack.version"), (8, "questions[0].difficulty"), (10, "questions[0].hints"),
        (11, "questions[0].problem.relevance[1]"), (11, "questions[0].problem.relevance[2]"),
        (11, "questions[0].problem.k"), (17, "questions[1].options"),
    ]
    assert 'write it in quotes: "1.0"' in pack.errors[0].message
    assert pack.meta is None and pack.questions == ()


def test_missing_fields():
    pack = load_pack(FIXTURES / "missing-fields.yaml")
    got = [(e.line, e.field, e.message.split(" ")[0]) for e in pack.errors]
    assert got == [
        (5, "questions[0]", "`id`"), (5, "questions[0]", "`prompt`"),
        (8, "questions[1]", "a"), (12, "questions[2]", "a"), (21, "questions[3].options", "no"),
    ]
    assert "key_points" in pack.errors[3].message and "correct: true" in pack.errors[4].message


def test_nothing_in_a_pack_is_executed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("python-tag.yaml", "unsafe-answer.yaml"):
        assert load_pack(FIXTURES / name).errors
    assert not (tmp_path / "pwned").exists()
    assert not (FIXTURES / "pwned").exists() and not (ROOT / "pwned").exists()


def test_over_size_file_is_rejected_before_reading(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("# x\n" * (yamlsafe.MAX_FILE_BYTES // 4 + 1), encoding="utf-8")
    error = only_error(big)
    assert error.line == 0 and "limited to" in error.message


def test_a_fifo_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    link = tmp_path / "link.yaml"
    link.symlink_to(fifo.name)
    done = threading.Event()

    def unblock() -> None:  # were the FIFO opened for reading, let that open return (not hang)
        while not done.wait(0.05):
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # ENXIO: nobody is reading it
                continue

    threading.Thread(target=unblock, daemon=True).start()
    try:
        errors = [only_error(fifo), only_error(link)]
    finally:
        done.set()
    for error in errors:
        assert error.line == 0 and "not a regular file" in error.message


def test_a_folder_is_not_read_as_a_pack(tmp_path):
    from drills.packs.yamlsafe import read_file

    doc = read_file(tmp_path)
    assert doc.fatal and "not a regular file" in doc.errors[0].message


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
def test_read_is_capped_when_the_size_is_unknown(monkeypatch):
    # /proc files are regular files whose stat() size is 0, like a device's: only the
    # bounded read can tell they are over the limit (/dev/zero would never end).
    status = Path("/proc/self/status")
    assert status.stat().st_size == 0 and len(status.read_bytes()) > 64
    monkeypatch.setattr(yamlsafe, "MAX_FILE_BYTES", 64)
    doc = yamlsafe.read_file(status)
    assert doc.fatal and len(doc.errors) == 1
    assert doc.errors[0].message.startswith("file is more than 64 bytes; packs are limited to 64 bytes")


def test_alias_bomb_is_rejected_fast(tmp_path):
    lines = ['pack: {name: bomb, version: "1"}', "lol0: &a0 [lol]"]
    lines += [f"lol{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n", encoding="utf-8")
    error = only_error(bomb)
    assert "alias" in error.message and error.line == 9  # stops at lol7: 9**7 > MAX_NODES


def test_too_many_aliases(tmp_path):
    n = yamlsafe.MAX_ALIASES + 1
    path = tmp_path / "aliases.yaml"
    path.write_text("a: &x 1\nb: [" + ", ".join(["*x"] * n) + "]\n", encoding="utf-8")
    error = only_error(path)
    assert error.line == 2 and f"more than {yamlsafe.MAX_ALIASES} aliases" in error.message


@pytest.mark.parametrize("text, line, words", [
    ("a: " + "[" * 5000 + "]" * 5000 + "\n", 1, "nested more than"),  # past libyaml's own limit
    ("a: " + "[" * 100 + "]" * 100 + "\n", 1, "nested more than"),  # past ours only
    ("a:\n" + "".join("  " * i + "- \n" for i in range(80)) + "  " * 80 + "- x\n", 65, "nested more than"),
    ("a: &x [1, *x]\n", 1, "contains it"),
    ("pack: {}\n---\nb: 2\n", 2, "second YAML document"),
    ("a: b\nc: \x01\n", 2, "control characters"),
    ("a: !!set {x}\n", 1, "!!set is not allowed"),
    ("a: !local x\n", 1, "!local is not allowed"),
    ("a: b\nc: DCG@2: 3\n", 2, "text that contains ': ' must be quoted"),
])
def test_yaml_guards(tmp_path, text, line, words):
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    errors = load_pack(path).errors
    assert errors and errors[0].line == line and words in errors[0].message, [str(e) for e in errors]


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"pack:\n  name: caf\xe9\n")
    error = only_error(path)
    assert error.line == 2 and "UTF-8" in error.message


def test_yaml_retyping_is_explained_where_text_is_expected(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("pack:\n  name: p\n  version: 1.10\nquestions:\n"
                    "  - id: q\n    topic: conventions\n    kind: choice\n    prompt: yes\n"
                    "    options:\n      - {text: on, correct: true}\n      - {text: x, correct: \"true\"}\n",
                    encoding="utf-8")
    messages = {(e.line, e.field): e.message for e in load_pack(path).errors}
    assert 'write it in quotes: "1.10"' in messages[(3, "pack.version")]
    assert "'yes' in quotes" in messages[(8, "questions[0].prompt")]
    assert "'on' in quotes" in messages[(10, "questions[0].options[0].text")]
    assert "true or false (no quotes)" in messages[(11, "questions[0].options[1].correct")]


def test_unknown_fields_are_reported_with_suggestions(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text('pack: {name: p, version: "1"}\nquestion: []\nquestions:\n'
                    '  - {id: q, topic: conventions, kind: concept, prompt: p, model_answer: m,\n'
                    '     key_points: [k], hint: [h], options: []}\n', encoding="utf-8")
    messages = [str(e) for e in load_pack(path).errors]
    assert any(":2: question: unknown top-level field" in m and "`questions`" in m for m in messages)
    assert any("questions[0].hint: unknown field `hint` (did you mean `hints`?)" in m for m in messages)
    assert any("`options` is not used by kind 'concept'" in m for m in messages)


def test_problem_checks(tmp_path):
    body = ('pack: {name: p, version: "1"}\nquestions:\n'
            "  - {id: a, topic: t, kind: numeric, prompt: p, metric: ndcg,\n"
            "     problem: {relevance: [2, 2], judged: [2, 1]}}\n"
            "  - {id: b, topic: t, kind: numeric, prompt: p, metric: delta_ndcg, problem: {relevance: [1, 0]}}\n"
            "  - {id: c, topic: t, kind: numeric, prompt: p, metric: ndcg, problem: {relevance: [1, 0], swap: [1, 3]}}\n"
            '  - {id: d, topic: t, kind: numeric, prompt: p, answer: "1/2", problem: {relevance: [1]}}\n'
            "  - {id: e, topic: t, kind: numeric, prompt: p}\n")
    path = tmp_path / "p.yaml"
    path.write_text(body, encoding="utf-8")
    errors = {e.field: e for e in load_pack(path).errors}
    assert "missing: [2]" in errors["questions[0].problem.judged"].message
    assert "needs `swap" in errors["questions[1].problem"].message
    assert errors["questions[2].problem.swap[1]"].message == "must be from 1 to 2, got 3"
    assert "needs `metric:` too" in errors["questions[3].metric"].message  # an answer may carry its problem
    assert "needs `answer" in errors["questions[4]"].message and errors["questions[4]"].line == 8


def test_builtin_packs_must_use_known_topics(tmp_path):
    path = write_pack(tmp_path / "p.yaml", "p", ["a"])
    path.write_text(path.read_text().replace("topic: conventions", "topic: my-topic"), encoding="utf-8")
    assert load_pack(path).errors == []
    [error] = load_pack(path, builtin=True).errors
    assert error.field == "questions[0].topic" and "built-in" in error.message


def test_generator_params_are_validated_by_the_generator(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text('pack: {name: p, version: "1"}\nquestions:\n'
                    "  - id: g\n    topic: t\n    kind: generated\n    prompt: p\n    generator: ndcg-hand\n"
                    "    params:\n      bogus: 1\n", encoding="utf-8")
    [error] = load_pack(path).errors
    assert (error.line, error.field) == (9, "questions[0].params.bogus")
    assert "unknown parameter" in error.message


# --- many packs -----------------------------------------------------------------------------
def test_cross_pack_duplicate_ids_name_both_places():
    errors = validate_paths([FIXTURES / "cross"])
    assert len(errors) == 1
    error = errors[0]
    assert error.path.endswith("b.yaml") and error.line == 11
    assert "shared.id" in error.message and f"{FIXTURES / 'cross' / 'a.yaml'}:5" in error.message


def test_validate_paths_reports_missing_and_empty_folders(tmp_path):
    (tmp_path / "empty").mkdir()
    errors = validate_paths([tmp_path / "empty", tmp_path / "nope.yaml"])
    assert [e.message for e in errors] == ["no .yaml or .yml pack files in this folder", "no such file or folder"]


def test_all_fixtures_fail_except_the_good_ones():
    broken = {p.name for p in FIXTURES.glob("*.yaml")} - {"good.yaml", "other.yaml"}
    failing = {Path(e.path).name for e in validate_paths([FIXTURES]) if Path(e.path).parent == FIXTURES}
    assert failing == broken


def test_ten_thousand_questions_load(tmp_path):
    kinds = [
        "kind: numeric, problem: {{relevance: [2, 1, 3, 0], judged: [3, 2, 1, 0], k: 4}}, metric: ndcg",
        'kind: numeric, answer: "{i}/7"',
        'kind: choice, options: [{{text: "a", correct: true}}, {{text: "b"}}]',
        "kind: generated, generator: ndcg-hand, params: {{n: 5, k: 3}}",
    ]
    rows = [f"  - {{id: q{i}, topic: hand-computation, prompt: p, " + kinds[i % 4].format(i=i) + "}\n"
            for i in range(10_000)]
    path = tmp_path / "big.yaml"
    path.write_text('pack: {name: big, version: "1"}\nquestions:\n' + "".join(rows), encoding="utf-8")
    pack = load_pack(path)
    assert pack.errors == [] and len(pack.questions) == 10_000
    assert pack.questions[-1].source.line == 10_002


def test_importing_and_loading_packs_never_imports_sympy():
    code = ("import sys, drills.packs as p\n"
            "assert 'sympy' not in sys.modules and 'click' not in sys.modules, 'import'\n"
            f"pack = p.load_pack({str(FIXTURES / 'good.yaml')!r})\n"
            "assert not pack.errors, pack.errors\n"
            "assert 'sympy' not in sys.modules, 'load'\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.fixture
def ndcg_hand():
    """The starter pack names generator ndcg-hand: register a stand-in only while it is missing."""
    added = "ndcg-hand" not in REGISTRY
    if added:
        register("ndcg-hand", topic="hand-computation", summary="test stand-in", params={
            "n": Param(int, 5, minimum=1), "k": Param(int, 3, minimum=1), "metric": Param(str, "ndcg"),
        })(lambda template, params, rng: template)
    yield
    if added:
        del REGISTRY["ndcg-hand"]


def test_starter_pack_validates(tmp_path, ndcg_hand):
    path = tmp_path / "mine.yaml"
    path.write_text(starter_pack("mine"), encoding="utf-8")
    pack = load_pack(path)
    assert pack.errors == [], [str(e) for e in pack.errors]
    assert sorted({q.kind for q in pack.questions}) == ["choice", "concept", "generated", "numeric"]


# --- discovery ------------------------------------------------------------------------------
def test_paths_follow_drills_home(tmp_path, monkeypatch):
    monkeypatch.setenv("DRILLS_HOME", str(tmp_path / "elsewhere"))
    assert home() == tmp_path / "elsewhere" and packs_dir() == tmp_path / "elsewhere" / "packs"
    assert not (tmp_path / "elsewhere").exists()  # nothing is created by asking


def test_discover_order_sources_and_skips(tmp_path, monkeypatch):
    monkeypatch.setattr(discovery_mod, "_entry_point_paths", lambda errors, memo=None: [])
    user = packs_dir()
    write_pack(user / "mine.yaml", "mine", ["user.one", "user.two"])
    (user / "broken.yaml").write_text("pack: [\n", encoding="utf-8")
    extra = write_pack(tmp_path / "extra" / "x.yaml", "extra", ["extra.one", "user.one"])
    catalog = discover([extra.parent, user / "mine.yaml"])  # the user pack again: loaded once
    sources = [(p.name, p.source) for p in catalog.packs]
    builtin = [s for s in sources if s[1] == "builtin"]
    assert sources[len(builtin):] == [("mine", "user"), ("extra", "path")]
    ids = [q.id for q in catalog.questions]
    assert ids[-3:] == ["user.one", "user.two", "extra.one"]
    assert [p.questions for p in catalog.packs][-1] == 1
    messages = [str(e) for e in catalog.errors]
    assert len(messages) == 2
    assert "broken.yaml:2" in messages[0] and "pack skipped" in messages[0]
    assert "duplicate id 'user.one'" in messages[1] and "mine.yaml:5" in messages[1]


def test_builtin_packs_are_found_and_valid(monkeypatch):
    monkeypatch.setattr(discovery_mod, "_entry_point_paths", lambda errors, memo=None: [])
    catalog = discover()
    assert catalog.errors == [], [str(e) for e in catalog.errors]
    assert catalog.packs and all(p.source == "builtin" for p in catalog.packs)
    assert len(catalog.by_id()) == len(catalog.questions)


def test_entry_points_paths_callables_and_failures(tmp_path, monkeypatch):
    one = write_pack(tmp_path / "ep1" / "a.yaml", "ep-one", ["ep.a"])
    two = write_pack(tmp_path / "ep2" / "b.yaml", "ep-two", ["ep.b"])

    def boom() -> str:
        raise RuntimeError("plugin is broken")

    eps = [
        SimpleNamespace(name="a", value="x:a", load=lambda: str(one)),
        SimpleNamespace(name="b", value="x:b", load=lambda: (lambda: [two.parent])),
        SimpleNamespace(name="c", value="x:c", load=lambda: boom),
        SimpleNamespace(name="d", value="x:d", load=lambda: 42),
    ]
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: eps if group == "drills.packs" else [])
    monkeypatch.setattr(discovery_mod, "_declared_anywhere", lambda: True)
    catalog = discover()
    assert [(p.name, p.source) for p in catalog.packs][-2:] == [("ep-one", "entry-point"), ("ep-two", "entry-point")]
    messages = [str(e) for e in catalog.errors]
    assert any("entry point c (x:c)" in m and "plugin is broken" in m for m in messages)
    assert any("entry point d (x:d)" in m and "a path or a list of paths" in m for m in messages)


# --- never a traceback ----------------------------------------------------------------------
GOOD_TEXT = (FIXTURES / "good.yaml").read_text(encoding="utf-8")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_text_gives_errors_not_exceptions(text):
    doc = parse_text(text, "fuzz.yaml")
    build_pack(doc)
    assert all(isinstance(e, PackError) for e in doc.errors)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, len(GOOD_TEXT)), st.integers(0, 12),
       st.sampled_from(["", "x", ":", "- ", "  ", "\n", "[", "{", "&a ", "*a", "!!", "NO", "1.10", "'", '"', "~"]))
def test_mutated_good_pack_gives_errors_not_exceptions(start, length, insert):
    doc = parse_text(GOOD_TEXT[:start] + insert + GOOD_TEXT[start + length:], "mutant.yaml")
    meta, questions = build_pack(doc)
    assert all(isinstance(e, PackError) and e.line >= 0 for e in doc.errors)
    if not doc.errors:
        assert meta is not None and questions
    items = doc.data.get("questions") if isinstance(doc.data, dict) else None
    if isinstance(items, list):  # every question is either built or has an error of its own
        flagged = {i for i in range(len(items)) if any(e.field.startswith(f"questions[{i}]") for e in doc.errors)}
        assert len(questions) + len(flagged) >= len(items)


def test_the_documented_example_pack_validates(tmp_path):
    doc = (ROOT / "docs" / "packs.md").read_text(encoding="utf-8")
    example = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.yaml"
    path.write_text(example, encoding="utf-8")
    pack = load_pack(path)
    assert pack.errors == [], [str(e) for e in pack.errors]
    assert {q.kind for q in pack.questions} == {"numeric", "generated", "choice", "concept"}
    # every other complete pack shown in the doc (a block with `pack:`) validates too
    for n, block in enumerate(doc.split("```yaml\n")[2:]):
        text = block.split("```", 1)[0]
        if "\npack:" in "\n" + text:
            other = tmp_path / f"block{n}.yaml"
            other.write_text(text, encoding="utf-8")
            assert load_pack(other).errors == [], text


def test_x_keys_hold_shared_anchors_and_are_ignored(tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text(
        "x-base: &base {topic: hand-computation, kind: numeric, difficulty: easy}\n"
        "pack: {name: anchors, version: '1'}\n"
        "questions:\n"
        "  - <<: *base\n"
        "    id: anchors.a\n"
        "    prompt: 'Ranked [1, 0]: DCG@2?'\n"
        "    problem: {relevance: [1, 0]}\n"
        "    metric: dcg\n"
        "  - <<: *base\n"
        "    id: anchors.b\n"
        "    difficulty: hard\n"
        "    prompt: '1 + 1?'\n"
        "    answer: '2'\n", encoding="utf-8")
    pack = load_pack(path)
    assert pack.errors == []
    assert [(q.id, q.topic, q.difficulty) for q in pack.questions] == [
        ("anchors.a", "hand-computation", "easy"), ("anchors.b", "hand-computation", "hard")]
    other = tmp_path / "other.yaml"
    other.write_text(path.read_text(encoding="utf-8").replace("x-base:", "base:"), encoding="utf-8")
    assert "unknown top-level field `base`" in load_pack(other).errors[0].message


def test_every_problem_field_error_is_reported_at_once(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(
        "pack: {name: many, version: '1'}\n"
        "questions:\n"
        "  - id: many.a\n"
        "    topic: hand-computation\n"
        "    kind: numeric\n"
        "    prompt: 'Ranked [0, 1, 2]: NDCG?'\n"
        "    problem: {relevance: [0, 1, 2], judged: [2, 0, 0], k: 0, gain: lin, swap: [1, 1]}\n"
        "    metric: ndcg\n", encoding="utf-8")
    fields = sorted(e.field for e in load_pack(path).errors)
    assert fields == ["questions[0].problem.gain", "questions[0].problem.judged",
                      "questions[0].problem.k", "questions[0].problem.swap"], fields


def test_a_pack_answer_without_an_exact_decimal_is_refused(tmp_path):
    # the float of 1/(sqrt(2)^2 - 2) is 4.5e15, but the value is 1/0: the quiz could not grade it
    path = tmp_path / "p.yaml"
    path.write_text(
        "pack: {name: nodec, version: '1'}\n"
        "questions:\n"
        "  - id: nodec.a\n"
        "    topic: t\n"
        "    kind: numeric\n"
        "    prompt: 'x?'\n"
        "    answer: '1/(sqrt(2)^2 - 2)'\n", encoding="utf-8")
    (error,) = load_pack(path).errors
    assert error.line == 7 and error.field == "questions[0].answer"
    assert "cannot be evaluated precisely" in error.message


def test_judged_null_means_the_list_itself(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(
        "pack: {name: jn, version: '1'}\n"
        "questions:\n"
        "  - id: jn.a\n"
        "    topic: t\n"
        "    kind: numeric\n"
        "    prompt: 'Ranked [2, 1, 3, 0]: NDCG?'\n"
        "    problem: {relevance: [2, 1, 3, 0], judged: null}\n"
        "    metric: ndcg\n", encoding="utf-8")
    pack = load_pack(path)
    assert pack.errors == []
    (q,) = pack.questions
    assert q.problem is not None and q.problem.judged is None
    from drills.grading.reference import reference

    assert reference(q).value == pytest.approx(0.759191924319732)  # the pool is the list itself


# --- duplicate keys: the first one's line, whatever its value -------------------------------
@pytest.mark.parametrize("first, second", [
    ("problem:\n      relevance: [1, 0]", "problem:\n      relevance: [0, 1]"),   # mappings
    ("problem: {relevance: [1, 0]}", "problem: {relevance: [0, 1]}"),           # flow mappings
    ("hints:\n      - a\n      - b", "hints:\n      - c"),                       # lists
    ("hints: [a, b]", "hints: [c]"),
])
def test_a_duplicate_key_names_the_line_of_the_first(first, second):
    text = ("pack: {name: dup, version: '1'}\n"          # 1
            "questions:\n"                               # 2
            "  - id: dup.a\n"                            # 3
            "    topic: t\n"                             # 4
            "    kind: numeric\n"                        # 5
            "    prompt: 'Ranked [1, 0]: DCG?'\n"        # 6
            "    metric: dcg\n"                          # 7
            f"    {first}\n"                             # 8
            "    unit: x\n"
            f"    {second}\n")
    key = first.split(":")[0]
    second_line = 10 + first.count("\n")
    doc = parse_text(text, "d.yaml")
    build_pack(doc)
    dup = [e for e in doc.errors if "duplicate key" in e.message]
    assert [(e.line, e.field, e.message.split(";")[0]) for e in dup] == [
        (second_line, f"questions[0].{key}", f"duplicate key '{key}' (first at line 8)")]
    assert doc.line(("questions", 0, key)) == 8  # the kept first value keeps its own lines


# --- the placeholder for a value already reported never shows in a message ------------------
@pytest.mark.parametrize("fields", [
    {"params": "{n: !!python/name:os.system x, k: [!!set {a}]}"},  # read by the generator
    {"kind": "[!!foo 1]"}, {"kind": "{n: !!foo 1}"}, {"difficulty": "{n: !!foo 1}"},
    {"kind": "numeric", "answer": "[!!foo 1]"}, {"<<": "!!foo {a: 1}"},
    {"kind": "choice", "options": "[{text: a, correct: [!!foo 1]}, {text: b}]"},
])
def test_messages_never_show_the_invalid_placeholder(fields):
    question = {"id": "inv.a", "topic": "t", "kind": "generated", "prompt": "p", "generator": "ndcg-hand"}
    question.update(fields)
    text = ("pack: {name: inv, version: '1'}\nquestions:\n  - "
            + "\n    ".join(f"{k}: {v}" for k, v in question.items()) + "\n")
    doc = parse_text(text, "i.yaml")
    build_pack(doc)
    assert doc.errors and not any("duplicate key" in e.message for e in doc.errors)
    for error in doc.errors:
        assert not any(word in str(error) for word in ("_Invalid", "INVALID", "object at 0x")), str(error)


def test_entry_points_are_looked_for_without_importlib_metadata(tmp_path, monkeypatch):
    """The start-up check reads entry_points.txt files; it finds a declared drills.packs group."""
    assert discovery_mod._declared_anywhere() is False  # the test environment declares none
    dist = tmp_path / "site" / "my_packs-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "entry_points.txt").write_text("[console_scripts]\nx = y:z\n\n[drills.packs]\nmine = my_packs:paths\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert discovery_mod._declared_anywhere() is True


def test_the_entry_point_look_is_remembered_until_a_folder_on_sys_path_changes(tmp_path, monkeypatch):
    """A launch stats the folders on sys.path instead of listing them, while none changed;
    a distribution installed since (a folder changed) is found at the next launch."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    memo = tmp_path / "entry-points.json"
    assert discovery_mod._declared_remembered(memo) is False
    looks = []
    real = discovery_mod._declared_anywhere

    def looking(folders=None, seen=None):
        if folders is None or any(f not in ("", ".") for f in folders):  # the working folder: live
            looks.append(1)
        return real(folders, seen)

    monkeypatch.setattr(discovery_mod, "_declared_anywhere", looking)
    assert discovery_mod._declared_remembered(memo) is False and looks == []  # remembered
    dist = site / "my_packs-1.0.dist-info"
    dist.mkdir()  # installed: the folder changed
    (dist / "entry_points.txt").write_text("[drills.packs]\nmine = my_packs:paths\n")
    os.utime(site, ns=(1, 1))  # a different mtime even on a coarse clock
    assert discovery_mod._declared_remembered(memo) is True and looks == [1]
    memo.write_text("{damaged")
    assert discovery_mod._declared_remembered(memo) is True and looks == [1, 1]
    (dist / "entry_points.txt").write_text("[console_scripts]\nx = y:z\n")  # edited in place:
    os.utime(site, ns=(1, 1))  # ... its folder's time as it was (an editable egg-info's case)
    assert discovery_mod._declared_remembered(memo) is False and looks == [1, 1, 1]
    assert discovery_mod._declared_remembered(memo) is False and looks == [1, 1, 1]  # remembered


def test_a_cache_folder_that_is_a_file_costs_nothing(drills_home):
    """Neither the pack cache nor the entry-point memo can be written: packs load all the same."""
    drills_home.mkdir(parents=True)
    (drills_home / "cache").write_text("not a folder")
    result = CliRunner().invoke(cli, ["packs", "list"])
    assert result.exit_code == 0, result.output
    assert "ndcg-conventions" in result.output
