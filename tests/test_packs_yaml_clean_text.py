"""The pack reader checks each scalar for terminal control characters only when it can hold
one (issue 25, point 4: 10,000 questions under 1 s): when the file's text holds none, only a
double-quoted scalar can (its escapes make characters the text does not hold). Checked here:
whatever the scalars' styles and contents, the values, lines and errors are those of checking
every scalar."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drills.packs import yamlbuild, yamlsafe
from drills.packs.document import Document

SCALARS = [
    "plain text", "'single quoted'", '"double quoted"', '"\\e[31mred"', '"bell \\a"',
    '"\\u202e reversed"', '"\\x1b"', '"NEL \\N"', '"line\\Lsep"', "'it''s'", "42", "1.10",
    "no", "'\x1b raw in single'", "raw \x07 plain", '"raw \x1b in double"', "\u202e plain bidi",
    "|\n    block\n    text", ">\n    folded\n    text", '"tab\\tok"', "'\t tab'", "~",
]
KEYS = ["id", "prompt", '"k\\e"', "'q'", "plain key", '"\\u200b"', "k\x1b"]


def _build(text: str, clean: bool | None) -> Document:
    """``clean=None``: as the reader runs (the text decides); False: every scalar checked."""
    doc = Document("p.yaml")
    builder = yamlbuild.Builder(doc, max_aliases=yamlsafe.MAX_ALIASES, max_nodes=yamlsafe.MAX_NODES,
                                max_depth=yamlsafe.MAX_DEPTH)
    if clean is None:
        builder.run(text, yamlsafe._LOADER)
    else:
        loader = yamlsafe._LOADER(text)
        try:
            builder.loop(loader.get_event, clean)
        finally:
            loader.dispose()
    return doc


def _seen(doc: Document) -> tuple:
    return repr(doc.data), sorted(doc.lines.items(), key=repr), [str(e) for e in doc.errors]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KEYS), st.sampled_from(SCALARS)), min_size=1, max_size=6),
       st.booleans())
def test_the_same_document_as_checking_every_scalar(pairs, in_list):
    lines = []
    for i, (key, value) in enumerate(pairs):
        indent = "  " if in_list else ""
        lines.append(f"{indent}{'- ' if in_list and i == 0 else '  ' if in_list else ''}"
                     f"{key if i == 0 else f'{key[:-1]}{i}{key[-1]}' if key[0] in chr(34) + chr(39) else f'{key}{i}'}: "
                     + value.replace("\n", "\n" + indent + ("  " if in_list else "")))
    text = ("items:\n" if in_list else "") + "\n".join(lines) + "\n"
    try:
        fast = _build(text, None)
    except Exception as exc:  # noqa: BLE001 - the YAML itself may be invalid: both must agree
        try:
            _build(text, False)
        except Exception as same:  # noqa: BLE001
            assert type(same) is type(exc)
            return
        raise
    assert _seen(fast) == _seen(_build(text, False))


def test_an_escape_in_a_clean_file_is_still_an_error():
    doc = _build('prompt: "\\e[2J"\n', None)
    assert [e.message for e in doc.errors] == ["contains a terminal control character U+001B"]
