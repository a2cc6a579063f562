"""The stream's front: where pending text may be cut — the longest prefix whose marks are all decided.

Anything that may still become (or stop being) a marker is held back: an open marker, an open
bracket, a bare anchor whose ids may grow, a literal escape or numeric reference cut in the
middle, percent-encoded residue cut in the middle, a copy-paste form or ``entity[…]`` being written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache

from ..syntax.escapes import OffsetMap, normalize_escapes
from ..syntax.format import CitationFormat
from ..syntax.patterns import open_copy_residue
from ..syntax.scanner import Scanner
from ..syntax.types import MAX_MARKER_BODY

__all__ = ["WORD_START_TAILS", "plain_prefix", "plainly_safe", "quick_end", "safe_end"]

_ESCAPE_PREFIX = re.compile(
    r"(?:\\{1,2}(?:u(?:\{(?:[eE](?:2(?:0[0-6]?)?)?)?|[eE](?:2(?:0[0-6]?)?)?)?|U(?:0{0,4}(?:[eE](?:2(?:0[0-6]?)?)?)?)?)?"
    # a numeric reference, complete or not: its ``;`` is optional and may follow
    r"|&(?:#(?:[xX]0*(?:[eE](?:2(?:0[0-6]?)?)?)?|0*(?:5(?:7(?:8(?:[5-6]\d?)?)?)?)?)?)?)\Z"
)
# the start of percent-encoded residue, cut by the chunk boundary
_OPEN_PERCENT = re.compile(r"%(?:[eE](?:[eE](?:%(?:8(?:8(?:%(?:8[0-6]?)?)?)?)?)?)?)?\Z")
_OPEN_REFERENCE = re.compile(r"&#(?:[xX]0*[eE]20[0-6]|0*(?:5785[6-9]|5786[0-2]))\Z")
_WORD_TAIL = re.compile(r"[A-Za-z0-9_\-\u2013\[\]\"':,]*\Z")


def _prefixes(*words: str) -> str:
    """Every non-empty prefix of ``words`` as one alternation, longest first."""
    return "|".join(sorted({re.escape(w[:k]) for w in words for k in range(1, len(w) + 1)}, key=len, reverse=True))


# the start of a copy-paste word, which starts a word
_COPY_START = f"(?<![A-Za-z0-9])(?:{_prefixes('filecite', 'cite', 'entity')})"
# a trailing word that is, or may become, a copy-paste marker: contains cite / entity[, or ends
# with a prefix of filecite, cite or entity
_COPY_TAIL = re.compile(r"(?:cite|entity\[)[A-Za-z0-9_\-\u2013\[\]\"':,]*\Z|" + _COPY_START + r"\Z")
# the end of a chunk that may start a copy-paste word, or residue (which may start at any ``c``)
_OPENING_TAIL = re.compile(f"(?:{_prefixes('contentReference')}|{_COPY_START})" + r"\Z")


@lru_cache(maxsize=16)
def _special(fmt: CitationFormat) -> re.Pattern[str]:
    """What may start, continue or split a mark, an escape or residue: the marker characters,
    escapes' ``\\ & %``, residue's ``:`` and ``[``, brackets, and a carriage return."""
    return re.compile("[" + re.escape(fmt.marker_chars + "\\&%:[\u3010\u3011\r") + "]")


#: the letters a copy-paste word or residue can have begun with at a chunk's end (``c``ontentReference,
#: ``f``ilecite, ``e``ntity and every longer prefix): a chunk ending otherwise skips that search
WORD_START_TAILS = frozenset("contentReference" + "filecite" + "entity")


@lru_cache(maxsize=16)
def plain_prefix(fmt: CitationFormat) -> Callable[[str], int]:
    """For one format, its patterns bound (a stream asks it of every chunk): how much of a text
    is plainly safe to show — all of it; all but a trailing word that may begin a copy-paste
    word or residue (``pric`` + ``c``ontentReference…), held; or -1 when it holds a character or
    word a mark, an escape or residue is written with, which :func:`safe_end` decides."""
    special = _special(fmt).search
    tail = _OPENING_TAIL.search

    def prefix(text: str) -> int:
        if special(text) is not None or "cite" in text or "entity" in text:
            return -1
        if text[-1:] not in WORD_START_TAILS:
            return len(text)
        m = tail(text, max(0, len(text) - 16))
        return len(text) if m is None else m.start()

    return prefix


def plainly_safe(text: str, fmt: CitationFormat) -> bool:
    """Is all of ``text`` (a chunk arriving with nothing held) safe to show, without reading it as
    :func:`safe_end` does? True only when it holds none of the characters marks, escapes,
    brackets, entities and residue are written with, no ``cite``/``entity``, and does not end with
    the start of a copy-paste word. A stream asks this for every chunk, most of which are prose."""
    return plain_prefix(fmt)(text) == len(text)


@lru_cache(maxsize=16)
def _simple_marks(fmt: CitationFormat) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A whole well-formed marker of plain ids and locators, and what may follow an open one."""
    start, delimiter, stop = (re.escape(c) for c in (fmt.start, fmt.delimiter, fmt.stop))
    families = "|".join(re.escape(f) for f in sorted(fmt.families, key=len, reverse=True))
    body = rf"[A-Za-z0-9_\-{delimiter}]*"
    return re.compile(rf"{start}(?:{families}){delimiter}{body}{stop}"), re.compile(body)


def quick_end(raw: str, fmt: CitationFormat) -> int | None:
    """:func:`safe_end` for what a stream holds most often: prose and whole well-formed markers,
    perhaps ending in a marker still being written (held from its start); None for anything else,
    which ``safe_end`` decides. (A chunk overlapping a marker asked ``safe_end`` every time.)"""
    whole, open_tail = _simple_marks(fmt)
    pos, n = 0, len(raw)
    while True:
        i = raw.find(fmt.start, pos)
        end = n if i == -1 else i
        if end > pos and not plainly_safe(raw[pos:end], fmt):
            return None
        if i == -1:
            return n
        m = whole.match(raw, i)
        if m is None:
            return i if n - i <= MAX_MARKER_BODY and open_tail.fullmatch(raw, i + 1) is not None else None
        pos = m.end()


def safe_end(raw: str, fmt: CitationFormat) -> int:
    """Length of the longest prefix of ``raw`` whose marks are all decided."""
    buf, omap = normalize_escapes(raw)  # escaped markers are markers too
    n = len(buf)
    cut = n
    # an open marker: undecided until its stop, a newline or another start
    i = buf.rfind(fmt.start)
    if i != -1 and buf.find(fmt.stop, i) == -1 and buf.find("\n", i) == -1 and n - i <= MAX_MARKER_BODY:
        cut = open_at = i
    else:
        open_at = -1
    # the first bracket opened after the last close on this line: it may close after a later one
    j = buf.find("\u3010", max(buf.rfind("\u3011"), buf.rfind("\n")) + 1)
    if j != -1 and n - j <= MAX_MARKER_BODY:
        cut = min(cut, j)
    # a bare anchor or an open bracket-pipe may still grow its ids
    k = buf.rfind(fmt.delimiter)
    if (
        k != -1
        and n - k <= MAX_MARKER_BODY  # ids longer than any marker: decided, and pending stays bounded
        and _anchor_ids(fmt.delimiter).fullmatch(buf, k + 1) is not None
    ):
        cut = min(cut, _anchor_start(buf, k, fmt.delimiter))
    # a copy-paste form or entity[…] still being written
    if _COPY_TAIL.search(buf, max(0, n - 4000)) is not None:
        w = _WORD_TAIL.search(buf, max(0, n - 4000))
        if w is not None and w.start() < n and _COPY_TAIL.search(buf, w.start()) is not None:
            cut = min(cut, w.start())
    e = buf.rfind("entity[")
    if e != -1 and e < cut and buf.find("\n", e) == -1 and n - e <= MAX_MARKER_BODY:
        try:
            json.JSONDecoder().raw_decode(buf, e + 6)
        except (ValueError, RecursionError):
            cut = min(cut, e)
    # ChatGPT copy residue still being written
    r = open_copy_residue(buf)
    if r is not None:
        cut = min(cut, r)
    # never end on a carriage return that a newline may follow (CRLF is one line break)
    if cut == n and buf.endswith("\r"):
        cut -= 1
    # a hold inside a mark that is already whole (a bracket inside a marker): cut before it. Not
    # needed at the start of the open marker (a marker ends at the next start) unless an entity's
    # JSON or a bracket could hold that start
    if cut < n and not (cut == open_at and "entity[" not in buf and "\u3010" not in buf):
        for mk in reversed(Scanner(buf, fmt).scan()):
            if mk.start < cut < mk.end:
                cut = mk.start
            elif mk.end <= cut:
                break
    start = _straddled(raw, buf, omap, cut)
    if start is None:
        return omap(cut) if omap else cut
    # decide again on the shorter text: moving the cut back may open a marker it had closed
    return safe_end(raw[:start], fmt)


@lru_cache(maxsize=16)
def _anchor_ids(delimiter: str) -> re.Pattern[str]:
    """What may follow a bare anchor's delimiter while its ids are still being written."""
    return re.compile(r"[A-Za-z0-9_\-\u2013" + re.escape(delimiter) + r"]*")


_ID_RUN = re.compile(r"[A-Za-z0-9_\-\u2013]*")


def _anchor_start(buf: str, k: int, delimiter: str) -> int:
    """The first delimiter of the bare anchor whose last delimiter is at ``k``: ``Dturn0search0D``
    may still go on with more ids, all of one group, so the whole run waits (cut at its last
    delimiter only, a split there gave ``[^1][^1]`` where the whole text gives ``[^1]``)."""
    first, n = k, len(buf)
    while True:
        prev = buf.rfind(delimiter, max(0, n - MAX_MARKER_BODY), first)
        if prev == -1 or _ID_RUN.fullmatch(buf, prev + 1, first) is None:
            return first
        first = prev


def _straddled(raw: str, buf: str, omap: OffsetMap, cut: int) -> int | None:
    """Where an escape that the cut (in ``buf``) would split starts, in ``raw`` offsets, or None:
    a literal escape (``\\ue20``), a numeric reference that may still gain its ``;``, or
    percent-encoded residue (``%EE%88%``), wherever the cut falls, not only at the end."""
    near = buf[max(0, cut - 12) : cut]
    if "\\" in near or "&" in near:  # what every escape starts with
        m = _ESCAPE_PREFIX.search(buf, max(0, cut - 12), cut)
        if m is not None and m.start() < cut:
            return omap(m.start()) if omap else m.start()
    end = omap(cut) if omap else cut
    near = raw[max(0, end - 16) : end]
    if "&" not in near and "%" not in near:
        return None
    r = _OPEN_REFERENCE.search(raw, max(0, end - 16), end) or _OPEN_PERCENT.search(raw, max(0, end - 9), end)
    return r.start() if r is not None and r.start() < end else None
