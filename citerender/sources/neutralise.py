"""Reversible neutralisation of source text shown to the model.

Source text that could be mistaken for the presentation's structure gets a backslash escape, so
the model sees unambiguous units and the presentation reads back into an equal registry:

* a line starting with ``[L<n>]``, ``[Block<n>]``, ``Citation Marker:`` or a header key gets a
  leading ``\\`` (one more if it already starts with backslashes);
* ``<BLOCK`` / ``</BLOCK`` inside text becomes ``<\\BLOCK`` / ``<\\/BLOCK`` likewise;
* the reserved characters U+E200–U+E206 become ``\\uE20x`` escapes (and existing escapes gain a
  backslash), so no marker can hide inside a source.
"""

from __future__ import annotations

import re

from ..lazy_re import lazy_compile
from ..syntax.format import RESERVED_RE

__all__ = ["escape_reserved", "escape_text", "unescape_line", "unescape_text"]

_STRUCT_LINE = lazy_compile(r"(\\*)(\[L\d+\]|\[Block\d+\]|Citation Marker:|(?:Title|URL|Updated):)", re.I)
_BLOCK_TAG = lazy_compile(r"<(\\*)(/?BLOCK)", re.I)
_ESCAPED_RESERVED = lazy_compile(r"(\\+)(u[eE]20[0-6])")


def escape_reserved(text: str) -> str:
    text = _ESCAPED_RESERVED.sub(lambda m: "\\" + m.group(1) + m.group(2), text)
    return RESERVED_RE.sub(lambda m: f"\\uE{ord(m.group(0)) - 0xE000:03X}", text)


def _unescape_reserved(text: str) -> str:
    def back(m: re.Match[str]) -> str:
        slashes, esc = m.group(1), m.group(2)
        if len(slashes) == 1:
            return chr(int(esc[1:], 16))
        return slashes[1:] + esc

    return _ESCAPED_RESERVED.sub(back, text)


def escape_text(text: str) -> str:
    """Neutralise a piece of source text (one line or a block body)."""
    text = escape_reserved(text)
    text = _BLOCK_TAG.sub(lambda m: "<\\" + m.group(1) + m.group(2), text)
    return "\n".join(
        _STRUCT_LINE.sub(lambda m: "\\" + m.group(1) + m.group(2), line, count=1) if _STRUCT_LINE.match(line) else line
        for line in text.split("\n")
    )


def unescape_line(line: str) -> str:
    """Undo :func:`escape_text` on one line."""
    m = _STRUCT_LINE.match(line)
    if m and m.group(1):
        line = line[1:]
    line = _BLOCK_TAG.sub(lambda m: "<" + m.group(1)[1:] + m.group(2) if m.group(1) else m.group(0), line)
    return _unescape_reserved(line)


def unescape_text(text: str) -> str:
    return "\n".join(unescape_line(x) for x in text.split("\n"))
