"""The event-stream builder behind yamlsafe: YAML events -> plain values with lines.

Split from yamlsafe.py to keep modules small; see yamlsafe.py for why packs are
read this way, and document.py for what it builds. The caps are passed in by the
caller so they stay configurable in one place (yamlsafe's module constants).
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from drills.packs.document import INVALID, Document, Stop
from drills.packs.errors import FieldPath, excerpt
from drills.safetext import first_control

__all__ = ["INVALID", "Builder", "Document", "Stop"]

_T = "tag:yaml.org,2002:"
_STR, _SEQ, _MAP = _T + "str", _T + "seq", _T + "map"
_SCALAR_TAGS = {_T + name for name in ("str", "int", "float", "bool", "null", "timestamp")}
_RESOLVER = Resolver()
_CONSTRUCTOR = SafeConstructor()


class _Dropped:
    """A path part for a value that is read (so its own problems are reported) but not kept.

    Under a repeated key, a key with a control character, or a list, mapping or alias
    used as a key. Shown as ``shown`` in field names; never equal to a real key, so the
    lines recorded under it never replace those of the value that is kept.
    """

    __slots__ = ("shown",)

    def __init__(self, shown: str) -> None:
        self.shown = shown

    def __str__(self) -> str:
        return self.shown

    __repr__ = __str__


_NOKEY = object()
_MERGE_KEY = _Dropped("<<")  # merged at the mapping's end, not stored under a key
_BAD_KEY = "(key)"  # how a list, mapping or alias used as a key shows in a field name


class _Frame:
    __slots__ = ("value", "is_map", "path", "line", "anchor", "start", "key", "key_line", "merges", "bad")

    def __init__(self, value: Any, path: FieldPath, line: int, anchor: str | None, start: int) -> None:
        self.value = value
        self.is_map = type(value) is dict
        self.path = path
        self.line = line
        self.anchor = anchor
        self.start = start  # node count when this container opened (for alias sizes)
        self.key: Any = _NOKEY
        self.key_line = 0
        self.merges: list[tuple[Any, int]] = []
        self.bad = False



class Builder:
    """Turns the event stream into values, enforcing every cap as it goes.

    ``run`` is one tight loop with the common cases inlined (plain text, small ints,
    mapping keys): a 10,000-question pack is ~300,000 events.
    """

    def __init__(self, doc: Document, *, max_aliases: int, max_nodes: int, max_depth: int) -> None:
        self.doc = doc
        self.max_aliases, self.max_nodes, self.max_depth = max_aliases, max_nodes, max_depth
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, int]] = {}  # name -> (value, expanded size)
        self.open_anchors: set[str] = set()
        self.aliases = 0
        self.documents = 0

    def run(self, text: str, loader_class: Any) -> None:
        loader = loader_class(text)
        try:
            self.loop(loader.get_event, first_control(text) is None)
        finally:
            loader.dispose()

    def loop(self, get: Any, clean: bool = False) -> None:  # noqa: C901 - one loop on purpose (speed)
        """``clean``: the file's text holds no control character, so only a double-quoted
        scalar (whose escapes, ``\\e`` or ``\\u202e``, make characters the text does not
        hold) can hold one; every scalar is checked otherwise."""
        doc, lines, stack = self.doc, self.doc.lines, self.stack
        resolvers = _RESOLVER.yaml_implicit_resolvers
        scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
        map_start, seq_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
        map_end, seq_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
        top: _Frame | None = None
        nodes = 0
        while True:
            ev = get()
            kind = type(ev)
            if kind is scalar_event:
                nodes += 1
                text = ev.value
                simple = ev.tag is None and not ev.anchor
                check = not clean or ev.style == '"'
                if top is not None and top.is_map and top.key is _NOKEY:
                    top.key_line = ev.start_mark.line + 1
                    if check and first_control(text) is not None:
                        self.control_key(top, ev)
                    elif simple:
                        top.key = _MERGE_KEY if text == "<<" and ev.implicit[0] else text
                    else:
                        self.slow_key(top, ev)
                    if top.key in top.value:
                        self.repeated_key(top)
                    continue
                if check and first_control(text) is not None:  # every scalar: text, numbers, tagged
                    value = self.control_value(ev, self.path_of(top))
                elif simple and not ev.implicit[0]:  # quoted or block text
                    value: Any = text
                elif (simple and len(text) < 19 and text.isdigit() and text.isascii()
                      and (text[0] != "0" or len(text) == 1)):
                    value = int(text)
                elif simple and text and (text[0] not in resolvers or not any(
                        rx.match(text) for _tag, rx in resolvers[text[0]])):
                    value = text  # plain text YAML would not retype ("numeric", "ndcg")
                else:
                    value = self.slow_scalar(ev, self.path_of(top))
                if top is None:
                    doc.data = value
                    lines[()] = ev.start_mark.line + 1
                elif top.is_map:
                    self.put_map(top, value)
                else:  # flow lists share their line: record only items on their own line
                    line = ev.start_mark.line + 1
                    if line != top.line:
                        lines[(*top.path, len(top.value))] = line
                    top.value.append(value)
            elif kind is map_start or kind is seq_start:
                nodes += 1
                top = self.open(ev, top, kind is map_start, nodes)
            elif kind is map_end or kind is seq_end:
                frame = stack.pop()
                top = stack[-1] if stack else None
                value = self.close(frame, nodes)
                if value is _NOKEY:
                    continue
                if top is None:
                    doc.data = value
                elif top.is_map:
                    self.put_map(top, value)
                else:
                    top.value.append(value)
            elif kind is alias_event:
                nodes, value = self.alias(ev, top, nodes)
                if value is _NOKEY:
                    continue
                if top is None:
                    doc.data = value
                elif top.is_map:
                    self.put_map(top, value)
                else:
                    line = ev.start_mark.line + 1
                    if line != top.line:
                        lines[(*top.path, len(top.value))] = line
                    top.value.append(value)
            elif kind is yaml.DocumentStartEvent:
                self.documents += 1
                if self.documents > 1:
                    raise Stop(ev.start_mark.line + 1, "a second YAML document (---): one pack per file")
            elif kind is yaml.StreamEndEvent:
                return

    @staticmethod
    def path_of(top: _Frame | None) -> FieldPath:
        """Path of the next value written into ``top``."""
        if top is None:
            return ()
        if top.is_map:
            return (*top.path, top.key)
        return (*top.path, len(top.value))

    def put_map(self, top: _Frame, value: Any) -> None:
        key, top.key = top.key, _NOKEY
        if key is _MERGE_KEY:
            top.merges.append((value, top.key_line))
            return
        if type(key) is _Dropped:  # already reported
            return
        top.value[key] = value
        self.doc.lines[(*top.path, key)] = top.key_line

    def repeated_key(self, top: _Frame) -> None:
        """The same key twice: reported now, while the first one's line is still on record.

        The first value stays; the second is read under a _Dropped part of its own, so
        its lines never replace the first's. The error marks the question broken.
        """
        key = top.key
        path = (*top.path, key)
        self.doc.error(path, f"duplicate key {excerpt(key)!r} (first at line {self.doc.lines.get(path, 0)}); "
                             "YAML would silently keep only the last one", top.key_line)
        top.key = _Dropped(str(key))

    def control_key(self, top: _Frame, ev: Any) -> None:
        """A key with a terminal control character: reported, and its value dropped."""
        self.doc.error((*top.path, ev.value), "the key contains a terminal control character "
                                              f"{first_control(ev.value)}", top.key_line)
        top.key = _Dropped(ev.value)
        if ev.anchor:
            self.anchors[ev.anchor] = (INVALID, 1)

    def control_value(self, ev: Any, path: FieldPath) -> Any:
        """A value with a terminal control character (ESC, BEL, C1, bidi...): an error, never shown."""
        self.doc.error(path, f"contains a terminal control character {first_control(ev.value)}",
                       ev.start_mark.line + 1)
        if ev.anchor:
            self.anchors[ev.anchor] = (INVALID, 1)
        return INVALID

    def slow_key(self, top: _Frame, ev: Any) -> None:
        """A mapping key with a tag or an anchor (rare)."""
        if ev.tag is not None and ev.tag not in ("!", _STR):
            self.bad_tag(top.path, ev.tag, top.key_line)
        top.key = ev.value  # keys are names: keep the text, never YAML's retyping
        if ev.anchor:
            self.anchors[ev.anchor] = (ev.value, 1)

    def slow_scalar(self, ev: Any, path: FieldPath) -> Any:
        """A tagged, anchored or implicitly typed scalar: resolve it like SafeLoader would."""
        text, tag = ev.value, ev.tag
        if tag is None or tag == "!":
            tag = _STR if tag == "!" or not ev.implicit[0] else _RESOLVER.resolve(
                yaml.ScalarNode, text, ev.implicit)
        if tag == _STR:
            value: Any = text
        elif tag not in _SCALAR_TAGS:
            self.bad_tag(path, tag, ev.start_mark.line + 1)
            value = INVALID
        else:
            try:
                value = _CONSTRUCTOR.yaml_constructors[tag](_CONSTRUCTOR, yaml.ScalarNode(tag, text))
            except Exception:  # 2024-13-45, a 5000-digit int, !!bool maybe: never a traceback
                what = tag[len(_T):]
                self.doc.error(path, f"YAML cannot read {excerpt(text, 40)!r} as a {what}; "
                                     "write it in quotes if it is text", ev.start_mark.line + 1)
                value = INVALID
            else:
                if type(value) is int and value.bit_length() > 256:  # str() of it may even fail
                    self.doc.error(path, f"number {text[:20]}... is too large", ev.start_mark.line + 1)
                    value = INVALID
                elif not isinstance(value, str) and str(value) != text:
                    self.doc.raw[path] = text
        if ev.anchor:
            self.anchors[ev.anchor] = (value, 1)
        return value

    def bad_tag(self, path: FieldPath, tag: str, line: int) -> None:
        shown = excerpt("!!" + tag[len(_T):] if tag.startswith(_T) else tag)
        self.doc.error(path, f"YAML tag {shown} is not allowed in a pack "
                             "(only plain text, numbers, true/false, lists and mappings)", line)

    def open(self, ev: Any, top: _Frame | None, mapping: bool, nodes: int) -> _Frame:
        line = ev.start_mark.line + 1
        if len(self.stack) >= self.max_depth:
            raise Stop(line, f"nested more than {self.max_depth} levels deep")
        is_key = False
        if top is None:
            path: FieldPath = ()
        elif type(top.value) is list:
            path = (*top.path, len(top.value))
        elif top.key is _NOKEY:
            path, is_key = top.path, True
        else:
            path = (*top.path, top.key)
        frame = _Frame({} if mapping else [], path, line, ev.anchor, nodes - 1)
        if is_key:
            self.doc.error(path, "a mapping key must be plain text, not a list or mapping", line)
            frame.bad = True
        tag = ev.tag
        if tag is not None and tag != "!" and tag != (_MAP if mapping else _SEQ):
            self.bad_tag(path, tag, line)
            frame.bad = True
        if ev.anchor:
            self.open_anchors.add(ev.anchor)
        if not is_key:
            self.doc.lines[path] = line
        self.stack.append(frame)
        return frame

    def close(self, frame: _Frame, nodes: int) -> Any:
        """The finished container's value, or _NOKEY when it was (wrongly) a mapping key."""
        if nodes > self.max_nodes:
            raise Stop(self.doc.line(frame.path), f"more than {self.max_nodes:,} values")
        if frame.merges:
            self.merge(frame)
        value = INVALID if frame.bad else frame.value
        if frame.anchor:
            self.open_anchors.discard(frame.anchor)
            self.anchors[frame.anchor] = (value, nodes - frame.start)
        parent = self.stack[-1] if self.stack else None
        if parent is not None and parent.is_map and parent.key is _NOKEY:
            parent.key = _Dropped(_BAD_KEY)  # a container used as a key: its value is dropped
            return _NOKEY
        return value

    def alias(self, ev: Any, top: _Frame | None, nodes: int) -> tuple[int, Any]:
        line = ev.start_mark.line + 1
        self.aliases += 1
        if self.aliases > self.max_aliases:
            raise Stop(line, f"more than {self.max_aliases} aliases (*name) in one file")
        name = ev.anchor
        if name in self.open_anchors:
            raise Stop(line, f"alias *{name} refers to a list or mapping that contains it")
        if name not in self.anchors:  # libyaml reports this itself; kept for the fallback
            raise Stop(line, f"alias *{name} is used before &{name} is defined")
        value, size = self.anchors[name]
        nodes += size
        if nodes > self.max_nodes:
            raise Stop(line, f"more than {self.max_nodes:,} values after expanding aliases "
                              "(an alias bomb?)")
        if top is not None and top.is_map and top.key is _NOKEY:
            self.doc.error(top.path, "an alias cannot be used as a mapping key", line)
            top.key, top.key_line = _Dropped(_BAD_KEY), line
            return nodes, _NOKEY
        return nodes, value

    def merge(self, frame: _Frame) -> None:
        """``<<: *defaults``: keys not written in the mapping come from the merged ones."""
        for value, line in frame.merges:
            sources = value if isinstance(value, list) else [value]
            for source in sources:
                if source is INVALID:
                    continue
                if not isinstance(source, dict):
                    self.doc.error(frame.path, "<< (merge) needs a mapping or a list of mappings", line)
                    frame.bad = True
                    continue
                for key, item in source.items():
                    if key not in frame.value:
                        frame.value[key] = item
                        self.doc.lines.setdefault((*frame.path, key), line)
