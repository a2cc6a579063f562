"""Operations on marks: apply them to text, move them between texts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from .escapes import OffsetMap
from .residue import PCT_RESIDUE
from .types import Mark

__all__ = [
    "CLOSING",
    "URL_CUT",
    "ZWSP",
    "apply_marks",
    "joins_runs",
    "remap",
    "shift",
    "strip_marks",
    "tidy_seam",
]

#: Put where a removal joined two pieces a URL could run across: invisible in prose, and no URL
#: scheme may contain or start with it, so ``java`` + U+E201 + ``script:`` never becomes a link.
ZWSP = "\u200b"
#: Stands, in an export's rewritten text, where a marker cut a URL (or a link destination) in two:
#: the export's link guard keeps that URL unlinked, then removes it. A noncharacter: never text.
URL_CUT = "\ufdd0"


#: what may follow a removal without the space before it (a sentence's punctuation, a close)
CLOSING = ".,;:!?)]}\u3002\uff0c\uff1b\uff1a\uff01\uff1f\u3001"


def joins_runs(text: str, start: int, end: int, runs: str = "`") -> bool:
    """Would removing ``text[start:end]`` join two runs of a character in ``runs`` (backticks, and
    tildes in a fence) into one, and so move where a code span or a fence ends?"""
    return start > 0 and end < len(text) and text[start - 1] in runs and text[end] in runs


def tidy_seam(left: str, right: str) -> tuple[str, str]:
    """The text either side of a removal, without the space it would leave: none at the start of a
    block, before punctuation or the end of a line, never two in a row (``Valid and invalid .`` ->
    ``Valid and invalid.``; ``First  second`` -> ``First second``)."""
    stripped = right.lstrip(" \t")
    if not left:
        return left, stripped
    left_space, right_space = left[-1] in " \t", len(stripped) != len(right)
    if not (left_space or right_space):
        return left, right
    after = stripped[:1]
    if not after or after in "\n\r" or after in CLOSING:
        return left.rstrip(" \t"), stripped
    if left_space and right_space:
        return left, stripped
    return left, right


def strip_marks(text: str, marks: Iterable[Mark], *, tidy: bool = False) -> str:
    """Like :func:`apply_marks`, also removing percent-encoded residue outside the marks; with
    ``tidy``, a removal leaves no stray space (:func:`tidy_seam`)."""
    edits = [(mk.start, mk.end, mk.text) for mk in marks]
    if "%" in text and PCT_RESIDUE.search(text):
        spans = iter(edits)
        nxt = next(spans, None)
        extra: list[tuple[int, int, str]] = []
        for m in PCT_RESIDUE.finditer(text):
            while nxt is not None and nxt[1] <= m.start():
                nxt = next(spans, None)
            if nxt is None or m.end() <= nxt[0]:
                extra.append((m.start(), m.end(), ""))
        edits = sorted(edits + extra)
    return edit_text(text, edits, tidy=tidy)


def edit_text(text: str, edits: Iterable[tuple[int, int, str]], *, tidy: bool) -> str:
    """``text`` with each ``(start, end, replacement)`` applied, in order (an edit overlapping the
    previous one only extends what is removed). With ``tidy``, each removal's seam is tidied."""
    out: list[str] = [""]
    pos = 0
    seam = False
    for start, end, rep in edits:
        if start < pos:  # overlaps the previous edit: what it covers goes too (the guide's helper)
            pos = max(pos, end)
            continue
        chunk = text[pos:start]
        if seam:
            chunk = tidy_into(out, chunk)
        out.append(chunk + rep)
        seam = tidy and not rep
        pos = end
    tail = text[pos:]
    out.append(tidy_into(out, tail) if seam else tail)
    return "".join(out)


def tidy_into(out: list[str], right: str) -> str:
    """Tidy the seam between the last non-empty piece of ``out`` (changed in place) and
    ``right``; returns the new ``right``. With nothing before, ``right`` starts the text. The empty
    pieces after it are dropped (they join to nothing), so a run of removals is not walked again
    at each seam: linear, not n² (issue 46, G14)."""
    j = len(out) - 1
    while j >= 0 and not out[j]:
        j -= 1
    del out[j + 1 :]
    left, right = tidy_seam(out[j] if j >= 0 else "", right)
    if j >= 0:
        out[j] = left
    return right


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
