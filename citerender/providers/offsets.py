"""Text positions as providers give them, made trustworthy: code points inside (as Python indexes
``str``), converted from UTF-8 bytes (Gemini) or UTF-16 units (JavaScript SDKs), each span checked
against the text it says it covers (which finds the unit, and an inclusive end), and a citation put
after the span's last word and closing punctuation. A span that does not match or lies outside the
text is snapped or clamped and reported as a note ``(code, message)``, never dropped."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

__all__ = [
    "UNITS",
    "LooseText",
    "Placed",
    "SpanReader",
    "Spans",
    "after_last_word",
    "from_codepoints",
    "loose_text",
    "past_closing",
    "to_codepoints",
]

UNITS = ("codepoint", "utf16", "utf8")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SPACE = re.compile(r"\s+")
_CLOSING = ".,;:!?)]}\"'\u201d\u2019\u3002\uff0c\uff1b\uff1a\uff01\uff1f\u300d\u300f"


def _width(ch: str, unit: str) -> int:
    if unit == "utf8":
        return len(ch.encode("utf-8"))
    return 2 if ord(ch) > 0xFFFF else 1  # utf16


def _table(text: str, unit: str) -> Sequence[int]:
    """Cumulative widths: ``table[i]`` is the offset, in ``unit``, where character ``i`` starts
    (a ``range`` when every character is one unit wide, else a compact array)."""
    if unit == "codepoint" or text.isascii() or (unit == "utf16" and _ASTRAL.search(text) is None):
        return range(len(text) + 1)
    return array("q", accumulate((_width(ch, unit) for ch in text), initial=0))


def to_codepoints(text: str, offset: int, unit: str) -> int:
    """``offset`` in ``unit`` as a code-point index (inside a character: the character's start)."""
    return offset if unit == "codepoint" else _index(_table(text, unit), offset)


def _index(table: Sequence[int], offset: int) -> int:
    return max(0, bisect_right(table, offset) - 1)


def from_codepoints(text: str, index: int, unit: str) -> int:
    """A code-point index as an offset in ``unit``."""
    if unit == "codepoint":
        return index
    return _table(text[:index], unit)[-1]


def after_last_word(text: str, end: int) -> int:
    """Where a citation for a span ending at ``end`` goes: back over trailing spaces, then on
    over closing punctuation (``week. Renewals`` → after ``week.``; ``week`` → after ``week.``)."""
    end = max(0, min(end, len(text)))
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return past_closing(text, end)


def past_closing(text: str, at: int) -> int:
    """``at`` moved past the closing punctuation that follows it (a stop, a quote, a bracket)."""
    while at < len(text) and text[at] in _CLOSING:
        at += 1
    return at


def loose_text(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


@dataclass
class Placed:
    """A span in code points, where its citation goes, and a note when it had to be repaired."""

    start: int
    end: int
    at: int
    note: tuple[str, str] | None = None


class LooseText:
    """A text with each run of spaces read as one space (``flat``), and both ways between its
    positions and the text's: a span is compared with its cited text in time linear in the latter."""

    def __init__(self, text: str) -> None:
        flat: list[str] = []
        to_flat = array("q")  # text index → flat index (the flat length of text[:i])
        to_text = array("q")  # flat index → text index
        pos = n = 0
        for m in _SPACE.finditer(text):
            a, b = m.span()
            flat.append(text[pos:a])
            to_flat.extend(range(n, n + a - pos))
            to_text.extend(range(pos, a))
            n += a - pos
            flat.append(" ")
            to_flat.append(n)
            to_flat.extend([n + 1] * (b - a - 1))
            to_text.append(a)
            n += 1
            pos = b
        flat.append(text[pos:])
        to_flat.extend(range(n, n + len(text) - pos + 1))
        to_text.extend(range(pos, len(text) + 1))
        self.flat = "".join(flat)
        self.to_flat, self.to_text = to_flat, to_text
        self.words: set[str] | None = None
        self.grams: set[str] | None = None
        self.found: dict[str, tuple[int, int] | None] = {}
        #: characters :meth:`find` may still scan, a few times the text: linear time in all
        self.budget = 32 * (len(self.flat) + 1) + (1 << 22)

    def covers(self, s: int, e: int, want: str) -> bool:
        """Does ``text[s:e]``, spacing collapsed and stripped, read as ``want``?"""
        flat = self.flat
        a, b = self.to_flat[s], self.to_flat[e]
        if a < b and flat[a] == " ":
            a += 1
        if b > a and flat[b - 1] == " ":
            b -= 1
        return b - a == len(want) and flat.startswith(want, a)

    def find(self, want: str) -> tuple[int, int] | None:
        """The first span of the text that reads as ``want`` (spacing collapsed), else None."""
        if want in self.found:
            return self.found[want]
        pieces = want.split(" ")
        if len(pieces) > 2:  # its inner words are whole words of the text, or it is not there
            if self.words is None:
                self.words = set(self.flat.split(" "))
            if any(p not in self.words for p in pieces[1:-1]):
                self.found[want] = None
                return None
        if self.grams is None:  # every three characters of the text, to rule out most texts not in it
            flat = self.flat
            self.grams = {flat[i : i + 3] for i in range(len(flat) - 2)}
        if any(want[i : i + 3] not in self.grams for i in range(len(want) - 2)):
            self.found[want] = None
            return None
        if self.budget <= 0:
            return None  # not looked up (reported by the caller as not found)
        at = self.flat.find(want)
        self.budget -= (at if at != -1 else len(self.flat)) + len(want)
        found = None if at == -1 else (self.to_text[at], self.to_text[at + len(want) - 1] + 1)
        self.found[want] = found
        return found


class SpanReader:
    """Reads one text's spans in a provider's ``unit``, checking each against the text it claims to
    cover when the provider gives it (what is known of the text computed once per reader)."""

    def __init__(self, text: str, unit: str = "codepoint") -> None:
        if unit not in UNITS:
            raise ValueError(f"unit must be one of {', '.join(UNITS)}")
        self.text, self.unit = text, unit
        self._tables: dict[str, Sequence[int]] = {}
        self.loose_text: LooseText | None = None

    def _units(self, unit: str) -> Sequence[int]:
        """The text's table in ``unit`` (built once per reader)."""
        table = self._tables.get(unit)
        if table is None:
            table = self._tables[unit] = _table(self.text, unit)
        return table

    def _cp(self, offset: int, unit: str) -> int:
        return offset if unit == "codepoint" else _index(self._units(unit), offset)

    def place(self, start: int | None, end: int | None, cited: str | None = None) -> Placed:
        """The span ``[start, end)`` (``start`` omitted: 0), placed. With ``cited``, the unit and
        end convention that make the span cover it are found; failing that, ``cited`` is looked up
        in the text; failing that, the declared unit is trusted and the mismatch reported."""
        text = self.text
        s0 = int(start or 0)
        e0 = int(end if end is not None else s0)
        want = loose_text(cited) if cited and cited.strip() else ""
        if want:
            if self.loose_text is None:
                self.loose_text = LooseText(self.text)
            loose = self.loose_text
            for unit in (self.unit, *(u for u in UNITS if u != self.unit)):
                for extra in (0, 1):  # exclusive end, then inclusive
                    s, e = self._cp(s0, unit), self._cp(e0 + extra, unit)
                    if 0 <= s <= e <= len(text) and loose.covers(s, e, want):
                        note = None
                        if unit != self.unit or extra:
                            how = f"{unit} offsets" + (", end inclusive" if extra else "")
                            note = ("CR503", f"span {s0}–{e0} matched its cited text as {how}")
                        return Placed(s, e, after_last_word(text, e), note)
            found = loose.find(want)
            if found is not None:
                s, e = found
                note = ("CR503", f"span {s0}–{e0} did not match its cited text: placed where that text is")
                return Placed(s, e, after_last_word(text, e), note)
            if want not in loose.found:
                return self._declared(s0, e0, "", "its cited text was not looked up (too many spans did not match)")
        return self._declared(s0, e0, want)

    def _declared(self, s0: int, e0: int, want: str, why: str | None = None) -> Placed:
        """The span placed at its declared offsets (clamped into the text, reported)."""
        text = self.text
        limit = self._units(self.unit)[-1]
        note = None
        if not 0 <= s0 <= e0 <= limit:
            note = ("CR504", f"span {s0}–{e0} is outside the text (length {limit}): clamped")
        s = self._cp(max(0, min(s0, limit)), self.unit)
        e = self._cp(max(0, min(max(e0, s0), limit)), self.unit)
        e = min(e, len(text))
        at = after_last_word(text, e)
        if note is None and (want or why):
            note = ("CR503", f"span {s0}–{e0} did not match its cited text, " + (why or "which is not in the answer"))
        if note is None and 0 < at < len(text) and text[at - 1].isalnum() and text[at].isalnum():
            while at < len(text) and text[at].isalnum():  # mid-word: after the word (and its stop)
                at += 1
            at = after_last_word(text, at)
            note = ("CR503", f"span {s0}–{e0} ends inside a word: placed after it")
        return Placed(s, e, at, note)


class Spans:
    """Spans of a text (``(start, end)``, an insertion ``(at, at)`` covering the character at
    ``at``), asked whether any overlaps a range: sorted once, each question a bisection."""

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        ordered = sorted((s, max(e, s + 1)) for s, e in spans)
        self.starts = [s for s, _ in ordered]
        self.reach = list(accumulate((e for _, e in ordered), max))  # the furthest end of the first k

    def overlaps(self, start: int, end: int) -> bool:
        """Does a span start before ``end`` and end after ``start``?"""
        k = bisect_right(self.starts, end - 1)
        return k > 0 and self.reach[k - 1] > start

    def holds(self, at: int) -> bool:
        """Does a span hold the position ``at``?"""
        return self.overlaps(at, at + 1)
