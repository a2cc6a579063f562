"""Placement checks (CR303, CR305–CR307; the citation rule reports CR301 and CR309 itself), and the
``citerender_placement`` core rule: the checks over the whole answer (CR305, CR308's dialect hint)."""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..lazy_re import lazy_compile
from ..sources.model import Registry
from ..syntax.charset import CharSet
from ..syntax.patterns import TURN_ID
from .dialects import active_dialect, dialect_hint
from .locate import Locator, where
from .options import PluginOptions
from .state import CitationState, citation_state

__all__ = [
    "check_before_punctuation",
    "check_citation_only_lines",
    "check_grouped_at_end",
    "placement_rule",
    "report_verbatim_ids",
    "verbatim_ids",
]

# A word that could be a source id written verbatim: letters, then a digit somewhere.
_ID_WORD = lazy_compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*(?![\w-])")
_TURN_ID = lazy_compile(TURN_ID + r"\Z")
_DIGITS = CharSet("0123456789")
_LETTERS = lazy_compile("[A-Za-z]+")


def verbatim_ids(text: str, registry: Registry | None) -> list[str]:
    """Words in ``text`` that are source ids, in order: ``turnNkindN`` or a registry id with a digit."""
    return [m.group(0) for m in _verbatim_words(text, registry)]


def _verbatim_words(text: str, registry: Registry | None) -> list[re.Match[str]]:
    """The words of :func:`verbatim_ids`, found from the ids' leading letters (``turn``, ``src``):
    a regex with a literal start skips ahead in C; text without a digit holds none."""
    if not _DIGITS.found_in(text):
        return []
    found: dict[int, re.Match[str]] = {}
    for prefix in _prefixes(registry):
        if prefix not in text:
            continue
        for m in _prefix_word(prefix).finditer(text):
            start = m.start()
            if start in found or (start and (text[start - 1].isalnum() or text[start - 1] in "_-")):
                continue  # inside a longer word, or found from a shorter prefix
            word = m.group(0)
            if _ID_WORD.fullmatch(word) and _is_source_id(word, registry):
                found[start] = m
    return [found[k] for k in sorted(found)]


def _is_source_id(word: str, registry: Registry | None) -> bool:
    return _TURN_ID.match(word) is not None or (registry is not None and word in registry)


def _prefixes(registry: Registry | None) -> tuple[str, ...]:
    """The leading letters of every id that can be a verbatim word, and ``turn`` (kept with the registry)."""
    if registry is None:
        return ("turn",)
    return registry.derived("placement.id-prefixes", lambda: _id_prefixes(tuple(registry)))


def _id_prefixes(ids: tuple[str, ...]) -> tuple[str, ...]:
    out = {"turn"}
    for sid in ids:
        if _ID_WORD.fullmatch(sid):
            out.add(_LETTERS.match(sid).group(0))  # type: ignore[union-attr]
    return tuple(sorted(out))


@lru_cache(maxsize=256)
def _prefix_word(prefix: str) -> re.Pattern[str]:
    return re.compile(re.escape(prefix) + r"[\w-]*")


def placement_rule(state: StateCore, *, opts: PluginOptions) -> None:
    """The ``citerender_placement`` core rule (a stream's blocks wait for its end)."""
    st = citation_state(state.env, opts.registry)
    if not st.whole_document:
        return
    check_grouped_at_end(st.blocks, state.tokens, st)
    if not st.references and st.registry and active_dialect(opts, st) is None:
        hint = dialect_hint(state.src)
        if hint is not None:
            st.report("CR308", f"no source is cited, but {hint} as citations", None)


def check_grouped_at_end(blocks: list[tuple[int, bool, bool]], tokens: list[Token], st: CitationState) -> None:
    """CR305: three or more blocks of text, and every citation in the last one."""
    text_blocks = [b for b in blocks if b[1] or b[2]]
    cited = [i for i, b in enumerate(text_blocks) if b[2]]
    if len(text_blocks) < 3 or not cited or cited[0] != len(text_blocks) - 1:
        return
    last = tokens[text_blocks[-1][0]]
    cites = [c for c in last.children or [] if c.type == "citation"]
    n = sum(len(c.meta["uses"]) for c in cites)
    if n >= 2:
        st.report("CR305", "every citation is in the last paragraph", where(cites[0], st))


_PUNCT_AFTER = tuple(".,;:!?\u3002\uff0c\uff1b\uff1a\uff01\uff1f)")


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
    citing = {id(tok) for tok in cites}  # by identity: ``in`` on a list compared tokens field by field, n² times
    for tok in cite_only_lines:
        if id(tok) in citing:
            st.report("CR306", "a line holds nothing but citations", where(tok, st))


def report_verbatim_ids(st: CitationState, loc: Locator, block: Token, text: str, cursor: int) -> None:
    """CR307: a source id written in the text outside any marker."""
    content = block.content
    for word in verbatim_ids(text, st.registry):
        off = loc.offset(block, content, content.find(word, cursor), word)
        st.report("CR307", f"source id {word!r} written outside a marker", off)
