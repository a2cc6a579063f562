"""Numbers, amounts, percentages, dates and durations in prose, normalised so that a claim and
its evidence can be compared whatever the spelling: ``sixty days``, ``60-day`` and ``thirty (30)``
give the values 60 and 30; ``June 1, 2026``, ``1 June 2026`` and ``2026-06-01`` give one date;
``two weeks`` and ``14 days`` one duration.

Tuned for precision: what cannot be read with confidence (ordinals, fractions, roman numerals,
ambiguous ``06/01`` dates, a lone ``one``) yields nothing, so a check built on it never raises a false alarm."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["NUMBER_WORDS", "Quantity", "quantities"]

_UNITS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    w: 10 * n
    for n, w in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], start=2)
}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ]
    )
}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9

#: days a unit spans, as a (shortest, longest) range: a month is 28–31 days
_DAYS = {
    "day": (1, 1),
    "week": (7, 7),
    "fortnight": (14, 14),
    "month": (28, 31),
    "quarter": (90, 92),
    "year": (365, 366),
}

_BELOW_100 = {**_UNITS, **_TENS}
NUMBER_WORDS = frozenset([*_BELOW_100, *_SCALES])
_NUMBER_WORD = "|".join(sorted([*_BELOW_100, *_SCALES], key=len, reverse=True))
_WORDS = re.compile(
    rf"\b(?:(?:{_NUMBER_WORD})(?:[\s-]+(?:and[\s-]+)?(?:{_NUMBER_WORD}))*)\b",
    re.I,
)
# a number standing alone (CJK letters may touch it: 报销500欧元), not part of a word like "v2"
_DIGITS = re.compile(r"(?<![A-Za-z0-9_.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![A-Za-z0-9_]|[.,]\d)")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_MDY = re.compile(rf"\b({_MONTH_NAMES})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_DATE_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_NAMES})\.?,?\s+(\d{{4}})\b", re.I)
_TIME = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
#: each form of a date or a time, and its groups holding the parts in order (a month by name or number)
_WHEN = ((_ISO_DATE, (1, 2, 3)), (_DATE_MDY, (3, 1, 2)), (_DATE_DMY, (3, 2, 1)), (_TIME, (1, 2)))
_ORDINAL = re.compile(r"\b\d+(?:st|nd|rd|th)\b", re.I)
_UNIT_AFTER = re.compile(
    r"[\s-]*(?:\(\s*\d[\d,.]*\s*\)[\s-]*)?(?:calendar[\s-]+|business[\s-]+|working[\s-]+)?"
    r"(days?|weeks?|fortnights?|months?|quarters?|years?|hours?|minutes?)\b",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Quantity:
    """One quantity as written (``text``) and as compared: a number, a date or a time, and the
    duration unit that follows it, if any (``day`` … ``year``)."""

    text: str
    value: float | tuple[int, ...]
    unit: str | None = None

    def days(self) -> tuple[float, float] | None:
        """The duration in days, as a (shortest, longest) range; ``None`` if not a duration."""
        if self.unit not in _DAYS or not isinstance(self.value, float):
            return None
        lo, hi = _DAYS[self.unit]
        return self.value * lo, self.value * hi


def _words_value(words: str) -> float | None:
    """``sixty-five`` → 65, ``two hundred and ten`` → 210, ``three million`` → 3e6."""
    total, current = 0, 0
    seen = False
    for w in re.split(r"[\s-]+", words.lower()):
        if w == "and" or not w:
            continue
        if w in _BELOW_100:
            current += _BELOW_100[w]
        elif w in _SCALES:
            scale = _SCALES[w]
            if scale == 100:
                current = (current or 1) * 100
            else:
                total += (current or 1) * scale
                current = 0
        else:
            return None
        seen = True
    return float(total + current) if seen else None


def _unit_after(text: str, end: int) -> tuple[str | None, int]:
    m = _UNIT_AFTER.match(text, end)
    if m is None:
        return None, end
    return m.group(1).lower().removesuffix("s"), m.end()


_ANY_DIGIT = re.compile(r"\d")
_LOWER_WORD = re.compile(r"[a-z]+")


def quantities(text: str) -> list[Quantity]:
    """Every quantity in ``text``, in order of position (dates and times before the numbers
    inside them, which are then not read again)."""
    found: list[tuple[int, Quantity]] = []
    taken: list[tuple[int, int]] = []
    if _ANY_DIGIT.search(text) is None:  # most claims hold no digit: six searches (~30 µs) skipped
        return _spelled(text, found, taken)

    for pattern, order in _WHEN:
        for m in pattern.finditer(text):
            parts = tuple(_part(m.group(i)) for i in order)
            if pattern is _ISO_DATE and not (1 <= parts[1] <= 12 and 1 <= parts[2] <= 31):
                continue  # not a calendar date: its digits are read as numbers
            if _free(taken, *m.span()):
                found.append((m.start(), Quantity(m.group(0), parts)))
                taken.append(m.span())
    taken.extend(m.span() for m in _ORDINAL.finditer(text))  # "the 3rd" names a position, not an amount
    for m in _DIGITS.finditer(text):
        if not _free(taken, *m.span()):
            continue
        whole = m.group(1).replace(",", "")
        value = float(f"{whole}.{m.group(2)}") if m.group(2) else float(whole)
        unit, end = _unit_after(text, m.end())
        found.append((m.start(), Quantity(text[m.start() : end], value, unit)))
        taken.append((m.start(), m.end()))
    return _spelled(text, found, taken)


def _spelled(text: str, found: list[tuple[int, Quantity]], taken: list[tuple[int, int]]) -> list[Quantity]:
    """Add the amounts spelled out in words (outside ``taken``) and return all, in order."""
    if not NUMBER_WORDS.isdisjoint(_LOWER_WORD.findall(text.lower())):
        for m in _WORDS.finditer(text):
            if not _free(taken, *m.span()):
                continue
            said = _words_value(m.group(0))
            if said is None:
                continue
            unit, end = _unit_after(text, m.end())
            if said == 1 and unit is None:  # "each one", "one of them": a pronoun, not an amount
                continue
            found.append((m.start(), Quantity(text[m.start() : end], said, unit)))
            taken.append(m.span())
    found.sort(key=lambda x: x[0])
    return [q for _, q in found]


def _part(group: str) -> int:
    """A date's or a time's part as a number (a month's name as its number)."""
    return int(group) if group.isdigit() else _MONTHS[group.lower()]


def _free(taken: list[tuple[int, int]], a: int, b: int) -> bool:
    return all(b <= x or a >= y for x, y in taken)
