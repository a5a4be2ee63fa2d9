"""Cached questions read when first used: a launch decodes only the questions it asks.

To plan a session the quiz needs, of every question in the bank, only what selects and
orders them: its *head* (id, topic, kind, difficulty, pack, source). The rest of a question
(prompt, problem, options, rubric, steps: nine in ten of the cache's records) is needed only
for the few questions drawn. So the pack cache (drills.packs.cache) keeps each question's
record as its own JSON text, and a cache hit makes an ``Unread``: a ``Question`` holding
its head and that text. The first use of any other field decodes the text (type-checked,
as every cached record is), fills the question's fields, and turns it into a plain
``Question``, class and all: it then compares, hashes, prints and is replaced exactly as
one parsed from YAML. Until then it compares, hashes, prints and copies by reading itself
first, so no caller can tell the difference except by speed.

A text that fails its checks (a cache edited and resealed by hand) is never served: the
``Reader`` that made it supplies the question again from its pack's YAML, or refuses.
Questions are read on the thread that uses them (the quiz reads them on one); two reads of
one question at once both decode it, to the same fields.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from drills.model import Question

HEAD = ("id", "topic", "kind", "difficulty", "pack", "source")  # read at once, in this order
_PENDING = "_drills_unread"  # an unread question's __dict__ key: (text, answers, reader)


class Reader(Protocol):
    def __call__(self, head: Question, text: str, answers: Any) -> Question:
        """The whole question ``text`` holds, whose head is ``head``'s (or its pack's own)."""


class Unread(Question):
    """A Question of which only the head has been read (see the module docstring).

    Not a dataclass of its own: it has Question's fields and frozen ``__setattr__``; every
    field beyond the head is a ``_Field`` until read. Never made by ``__init__``: ``unread``.
    """

    def __eq__(self, other: object) -> bool:
        return read(self) == other

    def __hash__(self) -> int:
        return hash(read(self))

    def __repr__(self) -> str:
        return repr(read(self))

    def __reduce_ex__(self, protocol: Any) -> Any:  # copy, deepcopy, pickle: the question read
        return read(self).__reduce_ex__(protocol)


class _Field:
    """A field not read yet: reading it reads the whole question (a non-data descriptor, so
    the value then in the instance's ``__dict__`` wins; the class is Question by then)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:  # on the class: Question's own default, as for a plain Question
            return getattr(Question, self.name)
        return getattr(read(obj), self.name)


for _f in dataclasses.fields(Question):
    if _f.name not in HEAD:
        setattr(Unread, _f.name, _Field(_f.name))


def unread(head: dict[str, Any], text: str, answers: Any, reader: Reader) -> Question:
    """A question whose ``head`` (the HEAD fields, checked by the caller) is read and whose
    other fields are in ``text``, for ``reader`` to decode at first use."""
    q = object.__new__(Unread)
    state = q.__dict__
    state.update(head)
    state[_PENDING] = (text, answers, reader)
    return q


def read(q: Question) -> Question:
    """``q`` with every field read: an Unread becomes a plain Question (in place); any
    other question is returned as it is."""
    state = q.__dict__
    pending = state.get(_PENDING)
    if pending is None:
        if type(q) is Unread:  # made by __init__ (``replace`` given every field): whole already
            object.__setattr__(q, "__class__", Question)
        return q
    text, answers, reader = pending
    whole = reader(q, text, answers)  # raises before anything changes
    # every field first (each is then found in the instance before the class), then the
    # pending text goes and the class changes: a read racing this one finds a whole question
    state.update(whole.__dict__)
    state.pop(_PENDING, None)
    object.__setattr__(q, "__class__", Question)
    return q


def is_read(q: Question) -> bool:
    """Has ``q`` been read whole (a plain Question always has)?"""
    return _PENDING not in q.__dict__


__all__ = ["HEAD", "Reader", "Unread", "is_read", "read", "unread"]
