"""Text positions as providers give them, made trustworthy: one internal unit (code points, as
Python indexes ``str``), converters from UTF-8 bytes (Gemini) and UTF-16 code units (JavaScript
SDKs), a check of each span against the text the provider says it covers (which finds the unit
and whether the end is inclusive), and where a citation goes: after the span's last word, before
trailing spaces, after the closing punctuation that belongs to the sentence.

A span that does not match or lies outside the text is snapped or clamped and reported as a
note ``(code, message)`` — never dropped silently."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

__all__ = ["UNITS", "Placed", "SpanReader", "after_last_word", "from_codepoints", "to_codepoints"]

UNITS = ("codepoint", "utf16", "utf8")
_SPACE = re.compile(r"\s+")
_CLOSING = ".,;:!?)]}\"'\u201d\u2019\u3002\uff0c\uff1b\uff1a\uff01\uff1f\u300d\u300f"


def _width(ch: str, unit: str) -> int:
    if unit == "utf8":
        return len(ch.encode("utf-8"))
    if unit == "utf16":
        return 2 if ord(ch) > 0xFFFF else 1
    return 1


def _table(text: str, unit: str) -> list[int]:
    """Cumulative widths: ``table[i]`` is the offset, in ``unit``, where character ``i`` starts."""
    out = [0]
    for ch in text:
        out.append(out[-1] + _width(ch, unit))
    return out


def to_codepoints(text: str, offset: int, unit: str) -> int:
    """``offset`` in ``unit`` as a code-point index (inside a character: the character's start)."""
    return offset if unit == "codepoint" else _index(_table(text, unit), offset)


def _index(table: list[int], offset: int) -> int:
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
    while end < len(text) and text[end] in _CLOSING:
        end += 1
    return end


def _loose(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


@dataclass
class Placed:
    """A span in code points, where its citation goes, and a note when it had to be repaired."""

    start: int
    end: int
    at: int
    note: tuple[str, str] | None = None


class SpanReader:
    """Reads one text's spans in a provider's unit (``unit``), checking each against the text it
    claims to cover when the provider gives it."""

    def __init__(self, text: str, unit: str = "codepoint") -> None:
        if unit not in UNITS:
            raise ValueError(f"unit must be one of {', '.join(UNITS)}")
        self.text, self.unit = text, unit
        self._tables: dict[str, list[int]] = {}

    def _units(self, unit: str) -> list[int]:
        """The text's table in ``unit`` (built once per reader)."""
        table = self._tables.get(unit)
        if table is None:
            table = self._tables[unit] = _table(self.text, unit)
        return table

    def _cp(self, offset: int, unit: str) -> int:
        return offset if unit == "codepoint" else _index(self._units(unit), offset)

    def _limit(self, unit: str) -> int:
        return len(self.text) if unit == "codepoint" else self._units(unit)[-1]

    def place(self, start: int | None, end: int | None, cited: str | None = None) -> Placed:
        """The span ``[start, end)`` (``start`` omitted: 0), placed. With ``cited``, the unit and
        end convention that make the span cover it are found; failing that, ``cited`` is looked up
        in the text; failing that, the declared unit is trusted and the mismatch reported."""
        text = self.text
        s0 = int(start or 0)
        e0 = int(end if end is not None else s0)
        want = _loose(cited) if cited and cited.strip() else ""
        if want:
            for unit in (self.unit, *(u for u in UNITS if u != self.unit)):
                for extra in (0, 1):  # exclusive end, then inclusive
                    s, e = self._cp(s0, unit), self._cp(e0 + extra, unit)
                    if 0 <= s <= e <= len(text) and _loose(text[s:e]) == want:
                        note = None
                        if unit != self.unit or extra:
                            how = f"{unit} offsets" + (", end inclusive" if extra else "")
                            note = ("CR503", f"span {s0}–{e0} matched its cited text as {how}")
                        return Placed(s, e, after_last_word(text, e), note)
            found = _locate(text, want)
            if found is not None:
                s, e = found
                note = ("CR503", f"span {s0}–{e0} did not match its cited text: placed where that text is")
                return Placed(s, e, after_last_word(text, e), note)
        limit = self._limit(self.unit)
        note = None
        if not 0 <= s0 <= e0 <= limit:
            note = ("CR504", f"span {s0}–{e0} is outside the text (length {limit}): clamped")
        s = self._cp(max(0, min(s0, limit)), self.unit)
        e = self._cp(max(0, min(max(e0, s0), limit)), self.unit)
        e = min(e, len(text))
        at = after_last_word(text, e)
        if note is None and want:
            note = ("CR503", f"span {s0}–{e0} did not match its cited text, which is not in the answer")
        if note is None and 0 < at < len(text) and text[at - 1].isalnum() and text[at].isalnum():
            while at < len(text) and text[at].isalnum():  # mid-word: after the word (and its stop)
                at += 1
            at = after_last_word(text, at)
            note = ("CR503", f"span {s0}–{e0} ends inside a word: placed after it")
        return Placed(s, e, at, note)


def _locate(text: str, want: str) -> tuple[int, int] | None:
    """The span of ``text`` that reads as ``want`` with its spacing collapsed."""
    m = re.search(r"\s+".join(re.escape(w) for w in want.split(" ")), text)
    return (m.start(), m.end()) if m else None
