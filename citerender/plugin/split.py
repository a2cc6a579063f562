"""Copy-paste marks (``citeturn0search0``, ``:contentReference[…]``) that markdown-it read as
text: the text token split around them into text, ``citation`` and ``citation_dropped`` tokens."""

from __future__ import annotations

from markdown_it.token import Token

from ..syntax.types import Mark, MarkKind
from .state import CitationState

__all__ = ["split_text"]


def _token(kind: str, content: str = "", mark: int | None = None, after: int = 0) -> Token:
    return Token(kind, "", 0, content=content, meta={"mark": mark, "after": after})


def split_text(tok: Token, marks: list[Mark], st: CitationState) -> list[Token]:
    """Split a text token around copy-paste marks (entered in the state's table) into tokens."""
    out: list[Token] = []
    pos = 0
    text = tok.content
    for mk in marks:
        after = mk.start - pos  # text between the last mark and this one: the search starts past it
        if after:
            out.append(_token("text", text[pos : mk.start]))
        k = st.add_mark(mk)
        if mk.kind is MarkKind.TEXT or (mk.kind is MarkKind.CITATION and mk.text):
            out.append(_token("text", mk.text))
            if mk.kind is MarkKind.TEXT:
                out.append(_token("citation_dropped", mark=k, after=after))
        if mk.kind is MarkKind.CITATION:
            out.append(_token("citation", mark=k, after=after))
        elif mk.kind in (MarkKind.DROPPED, MarkKind.HIGHLIGHT_OPEN, MarkKind.HIGHLIGHT_CLOSE):
            out.append(_token("citation_dropped", mark=k, after=after))
        pos = mk.end
    if pos < len(text):
        out.append(_token("text", text[pos:]))
    return out
