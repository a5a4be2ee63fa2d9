"""Anki decks from the question packs: a note per question, one note type per kind.

``notes`` turns questions into ``AnkiNote`` values (pure: HTML text, deck, tags and what the
guid is made of); ``write_package`` alone imports genanki, inside the function, so importing
this module (or starting a quiz) never loads it. Generated templates become ``variants``
seeded concrete questions each; a scenario becomes one note per step.

Re-importing must update notes, never duplicate them, so nothing that can change with an
edit goes into an id: a note's guid comes from its question id (plus the variant's seed
and the step number), a deck's id from its name, and the note types' ids are fixed below.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import tempfile
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drills.coding.text import code_lines
from drills.engine.exact import decimal_text
from drills.generators import instantiate as drawing  # called through the module: tests patch it
from drills.grading.reference import reference
from drills.grading.solution import worked_for
from drills.model import LETTERS, Question
from drills.publish.anki_text import clean, esc, flowing, pre

ROOT = "drills"
DEFAULT_VARIANTS = 3
MAX_VARIANTS = 20
# Anki keeps a note when a package's copy is not newer; a build with no pack file to date it
# gets this moment (2024-01-01 UTC).
FALLBACK_TIMESTAMP = 1_704_067_200
# The zip entries' date: the one the zip format starts at, so the file depends on nothing else.
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
# Names of an already open descriptor (`-o /dev/stdout > file`): written to in place, even
# when they lead to a regular file, since replacing that file would bypass the descriptor.
_DESCRIPTOR = re.compile(r"/dev/(stdin|stdout|stderr|fd/\d+)|/proc/(self|thread-self|\d+)/fd/\d+")

# One note type per kind: (fixed id, name, fields). Anki will not update notes whose note type
# changed (a field added, renamed or moved): a changed note type needs a NEW id here.
MODELS: dict[str, tuple[int, str, tuple[str, ...]]] = {
    "numeric": (2020387545, "drills numeric",
                ("Question", "Answer", "Decimal", "Worked", "Explanation", "Source")),
    "choice": (1076305099, "drills choice",
               ("Question", "Options", "Answer", "Explanations", "Explanation", "Source")),
    "concept": (2015437549, "drills concept",
                ("Question", "ModelAnswer", "KeyPoints", "Explanation", "Source")),
    "code": (1075460082, "drills code", ("Question", "Check", "Explanation", "Source")),
}
_FRONT = {"choice": '<div class="text">{{Question}}</div><div class="options">{{Options}}</div>'}
_BACK = {
    "numeric": ('<div class="answer"><b>Answer:</b> {{Answer}}</div>'
                '{{#Decimal}}<div class="decimal">= {{Decimal}}</div>{{/Decimal}}'
                '{{#Worked}}<div class="worked">{{Worked}}</div>{{/Worked}}'),
    "choice": ('<div class="answer"><b>Answer:</b> {{Answer}}</div>'
               '<div class="notes">{{Explanations}}</div>'),
    "concept": ('<div class="answer"><b>Model answer:</b></div><div class="text">{{ModelAnswer}}</div>'
                '{{#KeyPoints}}<div class="points"><b>Key points:</b>{{KeyPoints}}</div>{{/KeyPoints}}'),
    "code": '<div class="answer">{{Check}}</div>',
}
CSS = """\
.card { font-family: -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 18px;
        text-align: left; line-height: 1.4; max-width: 46em; margin: 0 auto; }
.text, .explanation { white-space: pre-wrap; }
pre { font-family: Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 14px;
      white-space: pre; overflow-x: auto; background: rgba(127,127,127,0.12); padding: 0.5em; }
.setup { border-left: 3px solid #888; padding-left: 0.6em; margin-bottom: 0.6em; white-space: pre-wrap; }
.step { font-weight: bold; margin-bottom: 0.3em; }
.option { margin: 0.2em 0; }
.note { margin: 0.4em 0; }
.right { color: #2e7d32; }
.wrong { color: #c62828; }
.explanation { margin-top: 0.8em; }
code { font-family: Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 0.9em;
       background: rgba(127,127,127,0.12); padding: 0 0.2em; border-radius: 3px; }
.source { margin-top: 1em; color: #888; font-size: 12px; }
"""

class ExportError(ValueError):
    """A question that cannot become a note (a generator that fails for a seed)."""


@dataclass(frozen=True)
class AnkiNote:
    """One note: its note type (a kind of MODELS), deck, HTML fields, guid parts and tags."""

    kind: str
    deck: str
    fields: tuple[str, ...]
    key: tuple[str, ...]  # genanki.guid_for(*key)
    tags: tuple[str, ...]
    origin: str  # the kind written in the pack: numeric, choice, ..., generated, scenario


def tag(text: str) -> str:
    """A tag: Anki splits tags at whitespace."""
    return re.sub(r"\s+", "_", clean(text).strip()) or "_"


def deck_name(pack: str, topic: str | None = None) -> str:
    parts = [ROOT, pack or "unnamed", *([topic] if topic else [])]
    return "::".join(clean(p).replace("::", ":").strip() or "_" for p in parts)


def deck_id(name: str) -> int:
    """A deck's id from its name: stable across exports, in genanki's range [2^30, 2^31)."""
    digest = hashlib.sha256(f"{ROOT} deck {name}".encode()).digest()
    return (1 << 30) + int.from_bytes(digest[:8], "big") % (1 << 30)


def _front(q: Question, scenario: Question | None = None) -> str:
    head = ""
    if scenario is not None and q.part is not None:
        setup = q.part.setup or scenario.prompt
        head = (f'<div class="setup">{flowing(setup)}</div>'
                f'<div class="step">Step {q.part.step}/{q.part.of}</div>')
    code = code_lines(q)
    return head + flowing(q.prompt) + (pre("\n".join(code).strip("\n")) if code else "")


def _numeric(q: Question) -> tuple[str, ...]:
    ref = reference(q)
    exact, value = ref.text, decimal_text(ref.decimal(), 15)
    unit = f" {q.unit}" if q.unit else ""
    worked = worked_for(q)
    return (esc(exact + unit), esc(value + unit) if value != exact else "",
            pre(worked) if worked else "", flowing(q.prose))


def _choice(q: Question) -> tuple[str, ...]:
    options = "".join(f'<div class="option"><b>{LETTERS[i]})</b> {flowing(o.text)}</div>'
                      for i, o in enumerate(q.options))
    right = "<br>".join(f"{LETTERS[i]}) {flowing(o.text)}" for i, o in enumerate(q.options) if o.correct)
    notes = "".join(
        f'<div class="note {"right" if o.correct else "wrong"}"><b>{LETTERS[i]}) '
        f'{"right" if o.correct else "wrong"}:</b> {flowing(o.explanation or "")}</div>'
        for i, o in enumerate(q.options))
    return options, right, notes, flowing(q.prose)


def _concept(q: Question) -> tuple[str, ...]:
    points = "".join(f"<li>{flowing(p)}</li>" for p in q.key_points)
    return flowing(q.model_answer or ""), f"<ul>{points}</ul>" if points else "", flowing(q.prose)


def _code(q: Question, pack: str) -> tuple[str, ...]:
    if q.part is None:
        check = ("Write the function in a file, then check it on the hidden cases with:"
                 + pre(f"drills code check FILE --question {q.id}"))
    else:  # a scenario's code step is checked inside its scenario
        check = "Answer this step in a session:" + pre(f"drills practice --pack {pack}")
    return check, flowing(q.prose)


def _fields(q: Question, front: str, source: str, pack: str) -> tuple[str, ...]:
    if q.kind == "numeric":
        body = _numeric(q)
    elif q.kind == "choice":
        body = _choice(q)
    elif q.kind == "concept":
        body = _concept(q)
    elif q.kind == "code":
        body = _code(q, pack)
    else:
        raise ExportError(f"{q.id}: a {q.kind} question cannot be a note")
    return (front, *body, esc(source))


def _note(q: Question, template: Question, key: tuple[str, ...], source: str,
          scenario: Question | None = None) -> AnkiNote:
    """The note for concrete question ``q`` made from ``template`` (deck, tags and origin)."""
    pack = template.pack
    fields = _fields(q, _front(q, scenario), source, pack)
    tags = tuple(tag(t) for t in (f"{ROOT}::topic::{template.topic}",
                                  f"{ROOT}::difficulty::{q.difficulty or template.difficulty}",
                                  f"{ROOT}::pack::{pack or 'unnamed'}",
                                  f"{ROOT}::kind::{template.kind}"))
    return AnkiNote(q.kind, deck_name(pack, template.topic), fields, key, tags, template.kind)


def _steps(template: Question, made: Question, key: tuple[str, ...], source: str) -> list[AnkiNote]:
    out = []
    for n, step in enumerate(made.steps, 1):
        number = step.part.step if step.part is not None else n
        where = f"{source} · step {number}/{len(made.steps)}"
        out.append(_note(step, template, (*key, "step", str(number)), where, scenario=made))
    return out


def notes(questions: Sequence[Question], *, seed: int = 0,
          variants: int = DEFAULT_VARIANTS) -> list[AnkiNote]:
    """Every note for ``questions``, in a stable order (by question id, then variant, step).

    Fixed questions are taken as written (a choice question's options in the author's
    order, so its letters match the pack); a generated template or scenario gives
    ``variants`` concrete questions, variant ``v`` drawn with ``item_rng(seed, v, id)``.
    """
    if not 1 <= variants <= MAX_VARIANTS:
        raise ValueError(f"variants must be from 1 to {MAX_VARIANTS}, got {variants}")
    out: list[AnkiNote] = []
    for q in sorted(questions, key=lambda q: (q.id, q.pack, str(q.source))):
        try:
            out += _question_notes(q, seed, variants)
        except ExportError:
            raise
        except (ValueError, ArithmeticError) as exc:  # GenerationError, an engine failure
            raise ExportError(str(exc) if isinstance(exc, drawing.GenerationError) else f"{q.id}: {exc}") from exc
    return out


def _question_notes(q: Question, seed: int, variants: int) -> list[AnkiNote]:
    out: list[AnkiNote] = []
    where = f"{q.pack or 'unnamed'} · {q.id}"
    drawn = q.kind == "generated" or (q.kind == "scenario" and bool(q.generator))
    if not drawn:
        key = (ROOT, q.id)
        return _steps(q, q, key, where) if q.kind == "scenario" else [_note(q, q, key, where)]
    for v in range(variants):
        made = drawing.instantiate(q, drawing.item_rng(seed, v, q.id))
        key = (ROOT, q.id, f"{seed}:{v}")
        label = f"{where} · variant {v + 1}/{variants} (seed {seed})"
        out += _steps(q, made, key, label) if q.kind == "scenario" else [_note(made, q, key, label)]
    return out


def decks(items: Sequence[AnkiNote]) -> list[str]:
    """The decks the notes need: each pack's deck and its topic sub-decks, sorted."""
    names = {n.deck for n in items} | {n.deck.rsplit("::", 1)[0] for n in items}
    return sorted(names)


def summary(path: str, items: Sequence[AnkiNote]) -> str:
    """``Wrote deck.apkg: 412 notes in 19 decks (numeric 120, ...; 153 generated variants, ...)``."""
    kinds = Counter(n.kind for n in items)
    origins = Counter(n.origin for n in items)
    by_kind = ", ".join(f"{k} {kinds[k]}" for k in MODELS if kinds[k])
    extra = [f"{origins['generated']} generated variants"] if origins["generated"] else []
    extra += [f"{origins['scenario']} scenario steps"] if origins["scenario"] else []
    tail = f"; {', '.join(extra)}" if extra else ""
    return f"Wrote {path}: {len(items)} notes in {len(decks(items))} decks ({by_kind}{tail})"


def _models() -> dict[str, object]:
    import genanki

    out: dict[str, object] = {}
    for kind, (model_id, name, fields) in MODELS.items():
        front = _FRONT.get(kind, '<div class="text">{{Question}}</div>')
        back = ('{{FrontSide}}<hr id="answer">' + _BACK[kind]
                + '{{#Explanation}}<div class="explanation">{{Explanation}}</div>{{/Explanation}}'
                + '<div class="source">{{Source}}</div>')
        out[kind] = genanki.Model(model_id, name, fields=[{"name": f} for f in fields],
                                  templates=[{"name": "Card 1", "qfmt": front, "afmt": back}],
                                  css=CSS)
    return out


def write_package(items: Sequence[AnkiNote], path: str | os.PathLike[str], timestamp: int) -> None:
    """Write the notes as an .apkg at ``path`` (replaced whole, or left as it was on an error).

    A regular file (or a new one) is written beside its real target, through symlinks, and
    renamed over it, so a failed write leaves no half file. Anything else that exists (a
    FIFO, a device, /dev/stdout) is opened and written through, never replaced.
    genanki stamps every note's modification time with ``timestamp``; the zip entries get a
    fixed date, so the same notes and timestamp give the same bytes.
    """
    import genanki

    name = os.fspath(path)
    if not name:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
    try:
        st: os.stat_result | None = os.stat(name)  # follows symlinks
    except FileNotFoundError:
        st = None  # a new file (or a dangling symlink: its target is created)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    through = st is not None and (not stat.S_ISREG(st.st_mode)
                                  or bool(_DESCRIPTOR.fullmatch(os.path.abspath(name))))
    models = _models()
    by_deck: dict[str, list[AnkiNote]] = {d: [] for d in decks(items)}
    for n in items:
        by_deck[n.deck].append(n)
    package_decks = []
    for deck_name, members in by_deck.items():
        deck = genanki.Deck(deck_id(deck_name), deck_name)
        for n in members:
            deck.add_note(genanki.Note(model=models[n.kind], fields=list(n.fields),
                                       guid=genanki.guid_for(*n.key), tags=list(n.tags)))
        package_decks.append(deck)
    with tempfile.TemporaryDirectory(prefix="drills-anki-") as tmp:
        raw = Path(tmp) / "raw.apkg"
        _write_package(genanki.Package(package_decks), raw, timestamp, Path(tmp))
        if through:  # the temp folder (and its files) goes whatever happens
            stable = Path(tmp) / "stable.apkg"
            _stable_zip(raw, stable)
            with open(name, "wb") as out:  # ENOSPC on /dev/full comes from the final flush
                out.write(stable.read_bytes())
            return
        target = Path(os.path.realpath(name))
        fd, partial = tempfile.mkstemp(prefix=f".{target.name[:200]}.", suffix=".tmp",
                                       dir=target.parent)
        os.close(fd)
        try:
            _stable_zip(raw, Path(partial))
            mask = os.umask(0)  # mkstemp made it private; give it a new file's mode
            os.umask(mask)
            os.chmod(partial, 0o666 & ~mask)
            os.replace(partial, target)
        except BaseException:
            Path(partial).unlink(missing_ok=True)
            raise


def _write_package(package: Any, raw: Path, timestamp: float, folder: Path) -> None:
    """``package.write_to_file(raw)``, its working SQLite file kept in ``folder``: genanki
    makes it with ``tempfile.mkstemp()`` in the system temp folder and never deletes it (a
    150 KB file left in /tmp by every export). ``tempfile.tempdir`` points at ``folder``
    meanwhile, which is deleted with the file."""
    saved = tempfile.tempdir
    tempfile.tempdir = str(folder)
    try:
        package.write_to_file(str(raw), timestamp=timestamp)
    finally:
        tempfile.tempdir = saved


def _stable_zip(source: Path, target: Path) -> None:
    """``source`` rewritten with fixed entry dates (genanki takes them from a temp file's mtime)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for info in zin.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=_ZIP_DATE)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.create_system = 3  # Unix, also on Windows: the same bytes everywhere
            entry.external_attr = 0o644 << 16
            zout.writestr(entry, zin.read(info.filename))
