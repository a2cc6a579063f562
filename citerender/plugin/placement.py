"""Placement checks: where a citation stands in the text (CR301, CR303, CR305–CR307, CR309)."""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it.token import Token

from ..sources.model import Registry
from ..syntax.patterns import TURN_ID
from .locate import Locator, where
from .state import CitationState

__all__ = [
    "check_before_punctuation",
    "check_citation_only_lines",
    "check_grouped_at_end",
    "check_in_emphasis",
    "check_in_link",
    "report_verbatim_ids",
    "verbatim_ids",
    "verbatim_offsets",
]

# A word that could be a source id written verbatim: letters, then a digit somewhere.
_ID_WORD = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*(?![\w-])")
_TURN_ID = re.compile(TURN_ID + r"\Z")
_DIGIT = re.compile(r"[0-9]")
_LETTERS = re.compile("[A-Za-z]+")


def verbatim_ids(text: str, registry: Registry | None) -> list[re.Match[str]]:
    """Words in ``text`` that are source ids: ``turnNkindN`` or a registry id with a digit."""
    if _DIGIT.search(text) is None or _ID_WORD.search(text) is None:  # the common case: none
        return []
    return [m for m in _ID_WORD.finditer(text) if _is_source_id(m.group(0), registry)]


def _is_source_id(word: str, registry: Registry | None) -> bool:
    return _TURN_ID.match(word) is not None or (registry is not None and word in registry)


def verbatim_offsets(text: str, registry: Registry | None) -> list[int]:
    """Where the words of :func:`verbatim_ids` start in ``text``, found from the ids' leading
    letters (``turn``, ``src``): a regex with a literal start skips ahead in C, where the general
    word pattern is tried at each of a page's 200,000 positions (10 ms on the CommonMark spec)."""
    found = []
    for prefix in _prefixes(tuple(registry) if registry is not None else ()):
        if prefix not in text:
            continue
        for m in _prefix_word(prefix).finditer(text):
            start = m.start()
            if start and (text[start - 1].isalnum() or text[start - 1] in "_-"):
                continue  # inside a longer word
            word = m.group(0)
            if _ID_WORD.fullmatch(word) and _is_source_id(word, registry):
                found.append(start)
    return sorted(found)


@lru_cache(maxsize=64)
def _prefixes(ids: tuple[str, ...]) -> tuple[str, ...]:
    """The leading letters of every id that can be a verbatim word, and ``turn``."""
    out = {"turn"}
    for sid in ids:
        if _ID_WORD.fullmatch(sid):
            out.add(_LETTERS.match(sid).group(0))  # type: ignore[union-attr]
    return tuple(sorted(out))


@lru_cache(maxsize=256)
def _prefix_word(prefix: str) -> re.Pattern[str]:
    return re.compile(re.escape(prefix) + r"[\w-]*")


def check_grouped_at_end(blocks: list[tuple[Token, bool, bool]], st: CitationState) -> None:
    text_blocks = [b for b in blocks if b[1] or b[2]]
    cited = [i for i, b in enumerate(text_blocks) if b[2]]
    if len(text_blocks) < 3 or not cited or cited[0] != len(text_blocks) - 1:
        return
    last = text_blocks[-1][0]
    cites = [c for c in last.children or [] if c.type == "citation"]
    n = sum(len(c.meta["uses"]) for c in cites)
    if n >= 2:
        st.report("CR305", "every citation is in the last paragraph", where(cites[0], st))


_PUNCT_AFTER = tuple(".,;:!?\u3002\uff0c\uff1b\uff1a\uff01\uff1f)")


def check_in_emphasis(st: CitationState, tok: Token, depth: int) -> None:
    """CR301: a citation inside bold or italics."""
    if depth:
        st.report("CR301", "citation inside bold or italics", where(tok, st))


def check_in_link(st: CitationState, tok: Token, in_link: bool) -> None:
    """CR309: a citation inside link text."""
    if in_link:
        st.report("CR309", "citation inside link text", where(tok, st))


def check_before_punctuation(st: CitationState, citation: Token, following: str) -> None:
    """CR303: a citation directly before the punctuation that ends its sentence."""
    if following.lstrip().startswith(_PUNCT_AFTER):
        st.report("CR303", "citation placed before punctuation", where(citation, st))


def check_citation_only_lines(
    st: CitationState, cites: list[Token], cite_only_lines: list[Token], *, has_text: bool
) -> None:
    """CR306: a paragraph, or a line of one, that holds nothing but citations."""
    if not cites:
        return
    if not has_text:
        st.report("CR306", "a paragraph holds nothing but citations", where(cites[0], st))
        return
    for tok in cite_only_lines:
        if tok in cites:
            st.report("CR306", "a line holds nothing but citations", where(tok, st))


def report_verbatim_ids(st: CitationState, loc: Locator, block: Token, text: str, cursor: int) -> None:
    """CR307: a source id written in the text outside any marker."""
    content = block.content
    for m in verbatim_ids(text, st.registry):
        off = loc.offset(block, content, content.find(m.group(0), cursor), m.group(0))
        st.report("CR307", f"source id {m.group(0)!r} written outside a marker", off)
