"""Literal escapes of the reserved characters (``\\ue200``, ``&#xE200;`` …) and how to show markers
in messages without writing them."""

from __future__ import annotations

import re
from bisect import bisect_right

from ..lazy_re import lazy_compile
from ..records import record

__all__ = ["ESCAPE_RE", "OffsetMap", "has_escape", "normalize_escapes", "printable", "visible"]

ESCAPE_RE = lazy_compile(
    r"\\{1,2}(?:u([eE]20[0-6])|u\{([eE]20[0-6])\}|U0000([eE]20[0-6]))"
    # numeric references as browsers and pandoc read them: any case, zero padding, ``;`` optional
    r"|&#[xX]0*([eE]20[0-6])(?![0-9A-Fa-f]);?|&#0*(5785[6-9]|5786[0-2])(?!\d);?"
)

# each family alone, for has_escape: it starts with a fixed character the regex engine skips to
_BACKSLASH_ESCAPE = lazy_compile(r"\\\\?(?:u[eE]20[0-6]|u\{[eE]20[0-6]\}|U0000[eE]20[0-6])")
_NUMERIC_ESCAPE = lazy_compile(r"&#(?:[xX]0*[eE]20[0-6](?![0-9A-Fa-f])|0*(?:5785[6-9]|5786[0-2])(?!\d))")


def has_escape(text: str) -> bool:
    """Does ``text`` hold a literal escape of a reserved character (what ESCAPE_RE finds)?"""
    return ("\\" in text and _BACKSLASH_ESCAPE.search(text) is not None) or (
        "&#" in text and _NUMERIC_ESCAPE.search(text) is not None
    )


@record(frozen=True, slots=True)
class OffsetMap:
    """Maps offsets in escape-normalised text back to the original text."""

    breaks: tuple[int, ...] = ()
    shifts: tuple[int, ...] = ()

    def __call__(self, pos: int) -> int:
        k = bisect_right(self.breaks, pos)
        return pos + (self.shifts[k - 1] if k else 0)

    def __bool__(self) -> bool:
        return bool(self.breaks)


#: the map of a text without escapes (most of them): offsets are the same
_IDENTITY = OffsetMap()


def normalize_escapes(text: str) -> tuple[str, OffsetMap]:
    """Replace literal escapes of U+E200–U+E206 by the characters; map offsets back."""
    if not has_escape(text):
        return text, _IDENTITY
    pieces: list[str] = []
    breaks: list[int] = []
    shifts: list[int] = []
    pos = 0
    shift = 0
    for m in ESCAPE_RE.finditer(text):
        hexa = m.group(1) or m.group(2) or m.group(3) or m.group(4)
        pieces += (text[pos : m.start()], chr(int(hexa, 16)) if hexa else chr(int(m.group(5))))
        shift += m.end() - m.start() - 1
        breaks.append(m.end() - shift)  # where the escape ends in the normalised text
        shifts.append(shift)
        pos = m.end()
    if not breaks:
        return text, _IDENTITY
    pieces.append(text[pos:])
    return "".join(pieces), OffsetMap(tuple(breaks), tuple(shifts))


_SHOW = {"\ue200": "{START}", "\ue201": "{STOP}", "\ue202": "{DELIM}", "\ue203": "{HL}", "\ue204": "{/HL}"}


def printable(text: str, limit: int = 80) -> str:
    """``text`` quoted for a message, marker characters named (never the characters or escapes)."""
    out = "".join(_SHOW.get(c, f"{{U+{ord(c):04X}}}") if "\ue200" <= c <= "\ue206" else c for c in text[:limit])
    out = _name_escapes(out)
    return "'" + out + ("…'" if len(text) > limit else "'")


_INVISIBLE = lazy_compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ue200-\ue206]")


def visible(text: str) -> str:
    """``text`` safe to print on a terminal or in a log: control characters (escape sequences),
    bidirectional controls and marker characters are named, never sent (``\\x1b``, ``<U+202E>``,
    ``{U+E200}``); literal escapes of marker characters are named like :func:`printable` does."""
    return _name_escapes(_INVISIBLE.sub(_name, text))


def _name_escapes(text: str) -> str:
    """Each literal escape of a marker character as its name in braces (``{ue200}``)."""
    return ESCAPE_RE.sub(lambda m: "{" + m.group(0).lstrip("\\&#") + "}", text) if has_escape(text) else text


def _name(m: re.Match[str]) -> str:
    c = m.group(0)
    if c < "\xa0":
        return f"\\x{ord(c):02x}"
    return f"{{U+{ord(c):04X}}}" if "\ue200" <= c <= "\ue206" else f"<U+{ord(c):04X}>"
