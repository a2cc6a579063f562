"""A few characters looked for in a whole text, the cheapest way for that text (the prechecks that
decide whether a rule has anything to do run on every answer): a C scan per character, none in an
ASCII text for non-ASCII characters, one regex call on a short text.
"""

from __future__ import annotations

import re

from ..lazy_re import lazy_compile

__all__ = ["CharSet"]

#: below this length one regex call costs less than one ``in`` per character
_SHORT = 128


class CharSet:
    """``chars``, with :meth:`found_in` answering whether a text holds any of them."""

    __slots__ = ("_class", "_non_ascii", "chars")

    def __init__(self, chars: str) -> None:
        if not chars:
            raise ValueError("a CharSet needs at least one character")
        self.chars = "".join(sorted(set(chars)))
        self._class = lazy_compile(f"[{re.escape(self.chars)}]")  # only short texts need it
        self._non_ascii = not self.chars.isascii() and all(ord(c) > 127 for c in self.chars)

    def found_in(self, text: str) -> bool:
        """Does ``text`` hold any of the characters?"""
        if self._non_ascii and text.isascii():
            return False
        if len(text) < _SHORT:
            return self._class.search(text) is not None
        for ch in self.chars:  # noqa: SIM110  (a loop: no generator made for each text)
            if ch in text:
                return True
        return False

    def __repr__(self) -> str:
        return f"CharSet({self.chars!r})"
