"""Where each line of a text starts: the one table that turns offsets into line numbers."""

from __future__ import annotations

from array import array
from itertools import accumulate

__all__ = ["line_starts"]

_PLUS_ONE = (1).__add__


def line_starts(text: str) -> array[int]:
    """Offsets at which the lines of ``text`` start (only ``\\n`` ends a line; the first is 0),
    summed from line lengths in C, as an array of machine integers (it lives as long as the parse)."""
    return array("q", accumulate(map(_PLUS_ONE, map(len, text.split("\n")[:-1])), initial=0))
