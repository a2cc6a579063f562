"""Operations on marks: apply them to text, move them between texts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from .escapes import OffsetMap
from .types import Mark

__all__ = ["apply_marks", "remap", "shift"]


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
