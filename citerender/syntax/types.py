"""The values parsing produces: line locators, citations and marks."""

from __future__ import annotations

import re
from enum import StrEnum

from ..lazy_re import lazy_compile
from ..records import record

__all__ = [
    "MAX_MARKER_BODY",
    "Citation",
    "LineRange",
    "Mark",
    "MarkKind",
    "line_locator",
    "parse_locator",
    "pop_locator",
]

#: at most nine digits: no source has a billion lines
_STRICT_LOCATOR = re.compile(r"L(\d{1,9})(?:-L(\d{1,9}))?\Z")
_LOOSE_LOCATOR = lazy_compile(r"\s*L\s*(\d{1,9})\s*(?:[-\u2010-\u2015\u2212~]\s*L?\s*(\d{1,9}))?\s*\Z")
#: The longest body a marker may have before we call it unterminated (real ones are < 200).
MAX_MARKER_BODY = 4000


def line_locator(first: int, last: int) -> str:
    """The machine form of a line locator, ``L8`` or ``L8-L13``: the one place it is written
    (markers, Markdown note labels, passage anchors, the checks' messages, Codex citations)."""
    return f"L{first}" if first == last else f"L{first}-L{last}"


@record(frozen=True, slots=True)
class LineRange:
    """A line locator, ``L8`` or ``L8-L13`` (1-based, inclusive)."""

    first: int
    last: int

    def __str__(self) -> str:
        return line_locator(self.first, self.last)

    @property
    def is_reversed(self) -> bool:
        return self.first > self.last

    @property
    def low(self) -> int:
        return min(self.first, self.last)

    @property
    def high(self) -> int:
        return max(self.first, self.last)

    def label(self, unit: str = "line") -> str:
        """Human form: ``line 8`` or ``lines 8–13`` (``unit``: what the source's numbered rows
        are, ``passage`` for the passages a provider quoted)."""
        return f"{unit} {self.low}" if self.low == self.high else f"{unit}s {self.low}\u2013{self.high}"


def parse_locator(text: str) -> tuple[LineRange | None, bool]:
    """Parse a line locator; return ``(range, canonical)``.

    ``canonical`` is False when the text was tolerated rather than exact (``L8–L13``, spaces).
    """
    m = _STRICT_LOCATOR.match(text)
    canonical = m is not None
    if m is None:
        m = _LOOSE_LOCATOR.match(text)
        if m is None:
            return None, False
    first = int(m.group(1))
    last = int(m.group(2)) if m.group(2) else first
    return LineRange(first, last), canonical


def pop_locator(parts: list[str]) -> tuple[str | None, LineRange | None, str | None]:
    """Take a trailing line locator off a marker's parts (in place): ``(locator, range, written)``.

    ``locator`` is the canonical form (``L8-L13``), ``written`` what the marker said when it was
    tolerated rather than exact (``L8–L13``), else None; all None when the last part is no locator.
    """
    if not parts or "L" not in parts[-1]:  # cheap test before parsing a locator
        return None, None, None
    lines, canonical = parse_locator(parts[-1])
    if lines is None:
        return None, None, None
    last = parts.pop()
    return (last, lines, None) if canonical else (str(lines), lines, last)


@record(slots=True)
class Citation:
    """One parsed citation, with the guide's fields (offsets in code points of the input)."""

    raw: str
    family: str
    source_ids: tuple[str, ...]
    locator: str | None
    start: int
    end: int
    lines: LineRange | None = None
    dialect: str = "canonical"
    title: str | None = None

    def as_dict(self) -> dict[str, object]:
        """The guide helper's dict for this citation."""
        return {
            "raw": self.raw,
            "family": self.family,
            "source_ids": list(self.source_ids),
            "locator": self.locator,
            "start": self.start,
            "end": self.end,
        }


class MarkKind(StrEnum):
    """What a found mark stands for."""

    CITATION = "citation"  # cite these sources (text, if any, is shown before it)
    TEXT = "text"  # replace by ``text`` (entity display names)
    HIGHLIGHT_OPEN = "highlight_open"
    HIGHLIGHT_CLOSE = "highlight_close"
    DROPPED = "dropped"  # nothing to show; a diagnostic says why


@record(slots=True)
class Mark:
    """A span of the input that is marker syntax, and what to show instead of it.

    ``notes`` pairs a diagnostic code with a detail message, for every non-canonical thing
    about the mark (its dialect, a normalised locator, why it was dropped).
    """

    kind: MarkKind
    start: int
    end: int
    raw: str
    citation: Citation | None = None
    text: str = ""
    notes: tuple[tuple[str, str], ...] = ()

    @classmethod
    def drop(
        cls, start: int, end: int, raw: str, code: str, message: str, notes: tuple[tuple[str, str], ...] = ()
    ) -> Mark:
        """A span removed from the text, with why (after ``notes``)."""
        return cls(MarkKind.DROPPED, start, end, raw, notes=(*notes, (code, message)))

    @classmethod
    def cite(cls, cit: Citation, *notes: tuple[str, str]) -> Mark:
        """The mark of ``cit``, over its span."""
        return cls(MarkKind.CITATION, cit.start, cit.end, cit.raw, citation=cit, notes=notes)
