"""The cheap prechecks every answer goes through agree with the definitions they stand for.

They exist for speed (issue 27): a rule that finds nothing to do in a chat answer should cost
nanoseconds. Each is checked here against the plain regex it replaced, on generated text.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from citerender.plugin.placement import _ID_WORD, _is_source_id, _verbatim_words, verbatim_ids
from citerender.sources.model import Registry, Source
from citerender.syntax.charset import CharSet

MARKERS = "\ue200\ue201\ue202\u3010"
#: letters, digits and the id punctuation, the characters around them, and a few non-ASCII ones
ALPHABET = st.sampled_from([*"tunrsceab019_- .,\n", "é", "—", "东", "\u05d0", "\ue200", "\u3010", "😀"])


@given(st.text(ALPHABET, max_size=400), st.sampled_from([MARKERS, "0123456789", "-_", "é东", "😀"]))
def test_a_charset_finds_exactly_what_a_character_class_finds(text: str, chars: str) -> None:
    expected = re.search(f"[{re.escape(chars)}]", text) is not None
    assert CharSet(chars).found_in(text) is expected
    assert CharSet(chars).found_in(text * 3) is expected  # the long-text path too


def test_a_charset_needs_characters() -> None:
    try:
        CharSet("")
    except ValueError as e:
        assert "at least one" in str(e)
    else:
        raise AssertionError("an empty CharSet was accepted")


REGISTRY = Registry([Source("src1"), Source("s2"), Source("doc-7"), Source("abc"), Source("turn0file0")])


@given(st.text(ALPHABET, max_size=300), st.sampled_from([REGISTRY, None]))
def test_verbatim_ids_are_the_id_words_that_are_source_ids(text: str, registry: Registry | None) -> None:
    """Found from the ids' leading letters, they are exactly the words of the general pattern."""
    expected = [m for m in _ID_WORD.finditer(text) if _is_source_id(m.group(0), registry)]
    assert verbatim_ids(text, registry) == [m.group(0) for m in expected]
    assert [m.start() for m in _verbatim_words(text, registry)] == [m.start() for m in expected]


def test_verbatim_ids_in_prose() -> None:
    text = "See src1 and turn0search3, not xsrc1, src1x0 or s2-b, and doc-7 (twice: doc-7)."
    assert verbatim_ids(text, REGISTRY) == ["src1", "turn0search3", "doc-7", "doc-7"]
    assert verbatim_ids(text, None) == ["turn0search3"]
    assert verbatim_ids("No digit here at all: src abc turn", REGISTRY) == []
