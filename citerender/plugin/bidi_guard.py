"""Bidirectional controls in the model's text never move a citation.

An embedding, override or isolate left open reorders everything after it in its paragraph,
citations included; a mark pulls a citation into the run after it. So in a block holding any of
these, each citation is written between closers and openers: every control still open before it
is closed (CR312), the citation stands between two marks of its paragraph's direction, and the
controls are opened again after it. Nothing is removed.
"""

from __future__ import annotations

from typing import Any

from markdown_it.token import Token

from ..lazy_re import lazy_compile
from .locate import where
from .state import CitationState, citation_state

__all__ = ["BIDI_CONTROLS", "guard_citations", "guarded", "open_controls"]

#: every bidirectional formatting character and mark
BIDI_CONTROLS = lazy_compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def _holds_control(text: str) -> bool:
    """Does ``text`` hold a bidirectional control? (C scans, no regex compiled.)"""
    return not text.isascii() and any(c in text for c in _CONTROLS)


_EMBEDDINGS = "\u202a\u202b\u202d\u202e"  # LRE RLE LRO RLO, closed by PDF
_ISOLATES = "\u2066\u2067\u2068"  # LRI RLI FSI, closed by PDI
_PDF, _PDI = "\u202c", "\u2069"
_LRM, _RLM = "\u200e", "\u200f"
#: a strong character of each direction (the first one sets a ``dir="auto"`` block's direction)
_STRONG_RTL = lazy_compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u200f\u061c]")
#: the inline tokens whose text is part of the paragraph a browser orders
_TEXTUAL = frozenset({"text", "code_inline", "math_inline", "math_inline_double"})


def open_controls(text: str, stack: list[str] | None = None) -> list[str]:
    """The embeddings, overrides and isolates still open after ``text`` (outermost first), as UAX #9 matches them."""
    open_: list[str] = [] if stack is None else stack
    for m in BIDI_CONTROLS.finditer(text):
        c = m.group()
        if c in _EMBEDDINGS or c in _ISOLATES:
            open_.append(c)
        elif c == _PDF and open_ and open_[-1] in _EMBEDDINGS:
            open_.pop()
        elif c == _PDI and any(x in _ISOLATES for x in open_):
            while open_.pop() not in _ISOLATES:
                pass
    return open_


def _closers(open_: list[str]) -> str:
    return "".join(_PDF if c in _EMBEDDINGS else _PDI for c in reversed(open_))


def _mark(text: str) -> str:
    """The mark of a block's direction: its first strong character's outside isolates (rule P2)."""
    depth = 0
    for c in text:
        if c in _ISOLATES:
            depth += 1
        elif c == _PDI:
            depth = max(depth - 1, 0)
        elif depth == 0 and (c.isalpha() or c in "\u200e\u200f\u061c"):
            return _RLM if _STRONG_RTL.match(c) else _LRM
    return _LRM


#: the cache (per parse) of what each guarded citation stands between, by ``id`` of its token
_GUARDS = "bidi_guard.between"


def guarded(st: CitationState, citation: Token) -> tuple[str, str]:
    """What a citation is written between (:func:`guard_citations`), for the exports; else ``("", "")``."""
    found: dict[int, tuple[str, str]] = st.cache(_GUARDS, dict, per_parse=True)
    return found.get(id(citation), ("", ""))


def guard_citations(state: Any) -> None:
    """Core rule: each citation in a block holding a bidirectional control closed off from its text."""
    if not _holds_control(state.src):
        return
    st = citation_state(state.env)
    between: dict[int, tuple[str, str]] = st.cache(_GUARDS, dict, per_parse=True)
    for block in state.tokens:
        children = block.children
        if block.type != "inline" or not children or not _holds_control(block.content):
            continue
        if not any(c.type == "citation" for c in children):
            continue
        mark = _mark("".join(c.content for c in children if c.type in _TEXTUAL))
        open_: list[str] = []
        out: list[Token] = []
        reported = False
        for child in children:
            if child.type != "citation":
                out.append(child)
                if child.type in _TEXTUAL:
                    open_controls(child.content, open_)
                continue
            if open_ and not reported:
                reported = True
                names = ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(open_))
                message = f"bidirectional control {names} left open before a citation: closed there"
                st.report("CR312", message, where(child, st))
            before, after = _closers(open_) + mark, mark + "".join(open_)
            between[id(child)] = (before, after)
            out.extend((Token("text", "", 0, content=before), child, Token("text", "", 0, content=after)))
        block.children = out
