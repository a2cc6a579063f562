"""Operations on marks: apply them to text, move them between texts."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from .escapes import OffsetMap
from .types import Mark

__all__ = ["SEPARATOR_CONTEXT", "ZWSP", "apply_marks", "needs_separator", "remap", "shift", "strip_marks"]

#: Put where a removal joined two pieces a URL could run across: invisible in prose, and no URL
#: scheme may contain or start with it, so ``java`` + U+E201 + ``script:`` never becomes a link.
ZWSP = "\u200b"
#: How much text before a removal :func:`needs_separator` looks at (a link label is at most 999 characters)
SEPARATOR_CONTEXT = 1024
# a character that could make a scheme across a removal: a letter or digit, the colon, or part of
# an entity or escape that a Markdown reader turns into one (``&#58;``, ``\:``)
_JOINS_URL = re.compile(r"[A-Za-z0-9:&#;\\]")
# a link reference definition's destination starts here (a label is at most 999 characters)
_DEFINITION_START = re.compile(r"(?:\A|\n) {0,3}\[[^\]\n]{1,999}\]:[ \t]*\Z")
_PCT_RESIDUE = re.compile(r"%EE%88%8[0-6]", re.I)


def needs_separator(before: str, after: str) -> bool:
    """Would joining ``before`` (the text up to a removal, its last ~1,000 characters suffice)
    and ``after`` (what follows) let a URL run across the removal? Inside a word, or where a
    link reference definition's destination starts."""
    if not after or _JOINS_URL.match(after) is None:
        return False
    if before and not before[-1].isspace():
        return True
    return _DEFINITION_START.search(before[-SEPARATOR_CONTEXT:]) is not None


def strip_marks(text: str, marks: Iterable[Mark]) -> str:
    """Like :func:`apply_marks`, also removing percent-encoded residue outside the marks."""
    edits = [(mk.start, mk.end, mk.text) for mk in marks]
    if "%" in text and _PCT_RESIDUE.search(text):
        spans = iter(edits)
        nxt = next(spans, None)
        extra: list[tuple[int, int, str]] = []
        for m in _PCT_RESIDUE.finditer(text):
            while nxt is not None and nxt[1] <= m.start():
                nxt = next(spans, None)
            if nxt is None or m.end() <= nxt[0]:
                extra.append((m.start(), m.end(), ""))
        edits = sorted(edits + extra)
    out: list[str] = []
    pos = 0
    for start, end, rep in edits:
        out.append(text[pos:start])
        out.append(rep)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def apply_marks(text: str, marks: Iterable[Mark]) -> str:
    """Replace each mark by the text it stands for (nothing, for citations)."""
    pieces: list[str] = []
    pos = 0
    for mk in marks:
        pieces.append(text[pos : mk.start])
        pieces.append(mk.text)
        pos = mk.end
    pieces.append(text[pos:])
    return "".join(pieces)


# --------------------------------------------------------------------------- the scanner


def shift(mk: Mark, by: int) -> Mark:
    """``mk`` moved by ``by`` characters."""
    start, end = mk.start + by, mk.end + by
    cit = mk.citation
    if cit is not None:
        cit = replace(cit, start=start, end=end)
    return replace(mk, start=start, end=end, citation=cit)


def remap(mk: Mark, omap: OffsetMap, original: str) -> Mark:
    """Move a mark found in escape-normalised text back onto the original text."""
    start, end = omap(mk.start), omap(mk.end)
    if end - start == mk.end - mk.start:
        if start == mk.start:
            return mk
        notes = mk.notes
    else:
        notes = (*mk.notes, ("CR201", "marker written with literal escapes"))
    raw = original[start:end]
    cit = mk.citation
    if cit is not None:
        cit = replace(cit, raw=raw, start=start, end=end)
    return replace(mk, start=start, end=end, raw=raw, citation=cit, notes=notes)
