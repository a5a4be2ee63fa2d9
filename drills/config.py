"""``$DRILLS_HOME/config.toml``: defaults for the commands, read as data and checked.

Tables and keys are a fixed schema (``SCHEMA``); an unknown key is an error with a "did
you mean", a wrong type names what it takes, and a file that is not TOML names its line
and column. ``parse`` is pure (text in, settings out); ``load`` reads the file. The
command line always wins: the settings become click's ``default_map``.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drills import paths

FILE_NAME = "config.toml"
MEMO_NAME = "config.json"  # in $DRILLS_HOME/cache/: the file's text and its parse (parse's memo)
MAX_BYTES = 64 * 1024


@dataclass(frozen=True)
class Key:
    """One setting config.toml may hold: its type, help, and the values it may take."""

    kind: type | tuple[type, ...]
    help: str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    item: type | None = None  # for lists


SCHEMA: dict[str, dict[str, Key]] = {
    "practice": {
        "count": Key(int, "questions per session", low=1, high=1000),
        "tolerance": Key(str, "accepted error: 0.01, 1% or 0.01,1%"),
        "feedback": Key(str, "after a miss: a short card, or the worked solution at once",
                        choices=("brief", "full")),
        "topics": Key(list, "only these topics", item=str),
        "difficulty": Key(str, "only this difficulty", choices=("easy", "medium", "hard")),
    },
    "mock": {
        "minutes": Key((int, float), "time for the whole interview", low=0.01, high=24 * 60),
        "count": Key(int, "questions per interview", low=1, high=1000),
        "per_question": Key((int, float), "seconds per question", low=0.01, high=24 * 3600),
        "feedback": Key(str, "when explanations come", choices=("end", "brief", "full")),
    },
    "display": {
        "color": Key(str, "colour in a terminal", choices=("auto", "always", "never")),
        "width": Key(int, "wrap prose at this many columns at most", low=40, high=400),
        "pager": Key(str, "the pager for long output (default: $PAGER, else less)"),
    },
    "review": {
        "daily_limit": Key(int, "new items a day in drills review", low=1, high=10_000),
    },
    "profile": {
        "learner": Key(str, "your name in history exports (default: the login name)"),
    },
    "code": {
        "python": Key(str, "the Python 3.10+ that runs your code in the coding round "
                           "(default: drills' own)"),
    },
}
LEARNER_WIDTH = 80  # characters of a learner's name kept in an export

STARTER = """\
# drills settings. Every key is optional; a command-line option always wins.
# `drills config` shows the settings in force and where each comes from.

[practice]
# count = 10             # questions per session
# tolerance = "0.005,0.5%"
# feedback = "brief"     # brief: a short card after a miss (s shows the steps); full
# topics = ["hand-computation", "lambdarank"]
# difficulty = "medium"  # easy, medium or hard

[mock]
# minutes = 20
# count = 8
# per_question = 90      # seconds
# feedback = "end"       # end, brief or full

[display]
# color = "auto"         # auto, always or never (NO_COLOR and FORCE_COLOR are respected)
# width = 100            # wrap prose at most this wide
# pager = "less -R"

[review]
# daily_limit = 20       # new items a day (unset: no limit)

[profile]
# learner = "Ada"        # your name in `drills history export` (default: the login name)

[code]
# python = "~/venvs/ml/bin/python"  # run your code in the coding round under this Python
#                                   # 3.10+, with its numpy, pandas, scikit-learn
"""


class ConfigError(ValueError):
    """One line: where in the file, and what is wrong."""


@dataclass(frozen=True)
class Settings:
    """The values the file sets: ``values[table][key]``; ``path`` is None when there is no file."""

    values: dict[str, dict[str, Any]] = field(default_factory=dict)
    path: Path | None = None

    def get(self, table: str, key: str, default: Any = None) -> Any:
        return self.values.get(table, {}).get(key, default)


def _toml() -> Any:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    import tomli  # the same parser, for Python 3.10

    return tomli


def _where(text: str, table: str, key: str | None) -> str:
    """``line:column`` of a table header or a key, for messages about values (tomllib keeps none)."""
    header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]")
    in_table = False
    for n, line in enumerate(text.splitlines(), start=1):
        col = len(line) - len(line.lstrip()) + 1
        if line.lstrip().startswith("["):
            in_table = bool(header.match(line))
            if in_table and key is None:
                return f"{n}:{col}"
            continue
        if in_table and key is not None and re.match(rf"^\s*\"?{re.escape(key)}\"?\s*=", line):
            return f"{n}:{col}"
    return "?"


def _suggest(word: str, known: list[str]) -> str:
    import difflib  # only when a word is unknown: it costs start-up time otherwise

    close = difflib.get_close_matches(word, known, n=1)
    return f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(known)})"


_KIND_NAMES = {int: "a whole number", float: "a number", str: "a string", list: "a list"}


def _check(value: Any, spec: Key) -> str | None:
    """None when ``value`` fits ``spec``, else what it should be."""
    kinds = spec.kind if isinstance(spec.kind, tuple) else (spec.kind,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        return f"must be {_KIND_NAMES[kinds[-1]]}, not {value!r}"
    if spec.choices and value not in spec.choices:
        return f"must be one of {', '.join(spec.choices)}, not {value!r}"
    if spec.low is not None and spec.high is not None and not spec.low <= value <= spec.high:
        return f"must be from {spec.low:g} to {spec.high:g}, not {value!r}"
    if spec.item is not None and not all(isinstance(v, spec.item) for v in value):
        return "must be a list of strings"
    return None


def _remembered(text: str, memo: Path | None) -> dict[str, Any] | None:
    """What TOML ``text`` parsed to last time, from ``memo`` (JSON holding the text, its parse
    and a checksum of both): the same text, the same parse, without importing tomllib (3 ms
    of a launch). A memo that is damaged, or is of another text, gives None."""
    if memo is None:
        return None
    try:
        known = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if isinstance(known, dict) and known.get("text") == text and isinstance(known.get("data"), dict) \
            and known.get("sum") == _seal(text, known["data"]):
        return known["data"]
    return None


def _seal(text: str, data: dict[str, Any]) -> str:
    """CRC-32 of a memo's text and parse: damage to either is found (a hand edit that
    recomputes it could as well edit config.toml)."""
    import zlib  # stdlib, built in: cheap

    both = json.dumps([text, data], sort_keys=True)
    return f"{zlib.crc32(both.encode('utf-8', 'surrogatepass')):08x}"


def _remember(text: str, data: dict[str, Any], memo: Path | None) -> None:
    """Keep ``data``, ``text``'s parse, in ``memo`` if JSON holds it exactly (a TOML date does
    not: then nothing is kept); a failure to write it costs the next launch a parse."""
    try:
        if memo is None or json.loads(json.dumps(data)) != data:
            return
    except (TypeError, ValueError):
        return
    kept = json.dumps({"text": text, "data": data, "sum": _seal(text, data)})
    paths.write_cache(memo, kept.encode("utf-8", "surrogatepass"))


def parse(text: str, path: Path | None = None, memo: Path | None = None) -> Settings:
    """Settings from TOML ``text``; ConfigError (one line, with its line) for anything wrong.
    ``memo``: a JSON file keeping the parse of the text last read (the checks run again)."""
    name = str(path) if path is not None else FILE_NAME
    remembered = _remembered(text, memo)
    if remembered is not None:
        try:
            return _checked(remembered, text, name, path)
        except ConfigError:  # parsed again below: the text itself says what is wrong, if anything
            pass
    toml = _toml()
    try:
        data = toml.loads(text)
    except toml.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        what = msg[: m.start()].strip() if m else msg
        where = f"{m.group(1)}:{m.group(2)}" if m else "?"
        raise ConfigError(f"{name}:{where}: {what}") from None
    settings = _checked(data, text, name, path)
    _remember(text, data, memo)
    return settings


def _checked(data: dict[str, Any], text: str, name: str, path: Path | None) -> Settings:
    """The settings ``data`` (``text``'s parse) holds, each table and key checked."""
    values: dict[str, dict[str, Any]] = {}
    for table, body in data.items():
        if table not in SCHEMA:
            raise ConfigError(f"{name}:{_where(text, table, None)}: unknown table [{table}]"
                              f"{_suggest(table, list(SCHEMA))}")
        if not isinstance(body, dict):
            raise ConfigError(f"{name}:{_where(text, table, None)}: {table} must be a table [{table}]")
        for key, value in body.items():
            spec = SCHEMA[table].get(key)
            if spec is None:
                raise ConfigError(f"{name}:{_where(text, table, key)}: unknown key {key!r} in "
                                  f"[{table}]{_suggest(key, list(SCHEMA[table]))}")
            problem = _check(value, spec)
            if problem is not None:
                raise ConfigError(f"{name}:{_where(text, table, key)}: [{table}] {key} {problem}")
            values.setdefault(table, {})[key] = value
    return Settings(values, path)


def path() -> Path:
    return paths.home() / FILE_NAME


def load() -> Settings:
    """The settings of ``$DRILLS_HOME/config.toml``; empty when there is none."""
    where = path()
    try:
        if not where.is_file():
            return Settings(path=None)
        with open(where, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{where}: cannot be read: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise ConfigError(f"{where}: larger than {MAX_BYTES // 1024} KB; is it the right file?")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not UTF-8 text (byte {exc.start})") from None
    return parse(text, where, paths.home() / "cache" / MEMO_NAME)


def login_name() -> str:
    """The login name (``getpass.getuser``), or "learner" where there is none to find."""
    import getpass

    try:
        return getpass.getuser() or "learner"
    except Exception:  # noqa: BLE001 - no USER/LOGNAME and no passwd entry (a container)
        return "learner"


def learner(settings: Settings) -> str:
    """The name an export carries: ``[profile] learner``, else the login name (whitespace
    runs made one space, at most LEARNER_WIDTH characters)."""
    name = " ".join(str(settings.get("profile", "learner") or "").split())
    if not name:
        name = " ".join(login_name().split()) or "learner"
    return name[:LEARNER_WIDTH]


def default_map(settings: Settings) -> dict[str, dict[str, Any]]:
    """Click's ``default_map``: command -> parameter -> value (the command line still wins)."""
    practice = dict(settings.values.get("practice", {}))
    mock = dict(settings.values.get("mock", {}))
    out: dict[str, dict[str, Any]] = {}
    if practice:
        out["practice"] = practice
    if mock:
        out["mock"] = mock
    return out
