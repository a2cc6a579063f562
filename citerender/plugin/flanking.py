"""Emphasis next to a citation marker: ``**Bold claim.**`` followed at once by a marker is bold.

A marker's first character is private-use, neither white space nor punctuation, so ``.**`` before
it could not close. Beside a delimiter run a marker counts as punctuation: text holding a marker
character is parsed with a ``StateInline`` subclass whose ``scanDelims`` says so (a subclass: an
attribute set on each state would slow its every attribute read).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Scanned
from markdown_it.token import Token

from ..syntax.charset import CharSet

__all__ = ["add_flanking_rule", "state_class"]


def add_flanking_rule(md: MarkdownIt, markers: CharSet) -> None:
    """Make ``md``'s inline parser judge delimiter runs beside ``markers``' characters as beside punctuation."""
    cls = state_class(frozenset(markers.chars))
    inline = md.inline
    marked = markers.found_in

    def parse(src: str, md: MarkdownIt, env: Any, tokens: list[Token]) -> list[Token]:
        # markdown-it's ParserInline.parse, with the state class chosen by the text
        state = (cls if marked(src) else StateInline)(src, md, env, tokens)
        inline.tokenize(state)
        for rule in inline.ruler2.getRules(""):
            rule(state)
        return state.tokens

    inline.parse = parse  # type: ignore[method-assign]


@lru_cache(maxsize=16)
def state_class(chars: frozenset[str]) -> type[StateInline]:
    """A ``StateInline`` whose ``scanDelims`` counts ``chars`` next to a run as punctuation."""

    class CitationStateInline(StateInline):
        def scanDelims(self, start: int, canSplitWord: bool) -> Scanned:
            scanned = super().scanDelims(start, canSplitWord)
            src, end = self.src, start + scanned.length
            last = src[start - 1] if start > 0 else " "
            nxt = src[end] if end < self.posMax else " "
            if last not in chars and nxt not in chars:
                return scanned
            last_ws, next_ws = isWhiteSpace(ord(last)), isWhiteSpace(ord(nxt))
            last_p = last in chars or isMdAsciiPunct(ord(last)) or isPunctChar(last)
            next_p = nxt in chars or isMdAsciiPunct(ord(nxt)) or isPunctChar(nxt)
            left = not (next_ws or (next_p and not (last_ws or last_p)))
            right = not (last_ws or (last_p and not (next_ws or next_p)))
            can_open = left and (canSplitWord or not right or last_p)
            can_close = right and (canSplitWord or not left or next_p)
            return Scanned(can_open, can_close, scanned.length)

    return CitationStateInline
