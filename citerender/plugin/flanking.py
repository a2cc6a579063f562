"""Emphasis next to a citation marker: ``**Bold claim.**`` followed at once by a marker is bold.

CommonMark decides whether ``**`` can close by the characters on either side of it. A marker's
first character is a private-use character, neither white space nor punctuation, so ``.**`` before
it could not close and the reader saw the asterisks. A marker is a citation — punctuation in the
sentence, invisible — so beside a delimiter run it counts as punctuation: the run is judged as it
would be if the marker were not there and a punctuation mark followed (or preceded) it.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MethodType
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Scanned

__all__ = ["add_flanking_rule"]

#: the inline rules whose delimiter runs (``*``, ``_``, ``~``) are judged by ``scanDelims``
_DELIMITER_RULES = ("emphasis", "strikethrough")


def add_flanking_rule(md: MarkdownIt, markers: str) -> None:
    """Wrap the emphasis and strikethrough rules: while they run, the state's ``scanDelims``
    counts the characters of ``markers`` (a marker's first and last) as punctuation."""
    chars = frozenset(markers)
    for rule in list(md.inline.ruler.__rules__):
        if rule.name in _DELIMITER_RULES:
            md.inline.ruler.at(rule.name, _wrapped(rule.fn, chars))


def _wrapped(fn: Callable[[StateInline, bool], bool], chars: frozenset[str]) -> Callable[[StateInline, bool], bool]:
    def rule(state: StateInline, silent: bool) -> bool:
        if "scanDelims" not in vars(state):
            state.scanDelims = MethodType(partial_scan(chars), state)  # type: ignore[method-assign]
        return fn(state, silent)

    return rule


def partial_scan(chars: frozenset[str]) -> Callable[[StateInline, int, bool], Scanned]:
    """``StateInline.scanDelims``, with ``chars`` next to the run counted as punctuation."""

    def scan(self: Any, start: int, canSplitWord: bool) -> Scanned:
        scanned: Scanned = StateInline.scanDelims(self, start, canSplitWord)
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

    return scan
