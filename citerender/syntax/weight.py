"""What a text weighs in a page: its bytes once escaped (``<`` is ``&lt;``) and encoded in UTF-8,
and the longest start of it that fits a budget. A line of ``&`` or of CJK text is cut by what it
weighs, not by its length (the source views' lines, the cards' and printed quotes)."""

from __future__ import annotations

from html import escape

__all__ = ["fit_bytes", "text_bytes"]


def text_bytes(text: str) -> int:
    """The bytes ``text`` takes in a page: escaped (``<`` is ``&lt;``), in UTF-8."""
    return len(escape(text, quote=False).encode("utf-8"))


def fit_bytes(text: str, cap: int) -> str:
    """The longest start of ``text`` whose bytes in the page (:func:`text_bytes`) are at most
    ``cap``; ``text`` itself when it fits."""
    if len(text) * 5 <= cap:  # no character takes more than five bytes (``&amp;``)
        return text
    low, high = 0, min(len(text), cap)  # a character takes a byte at least
    if text_bytes(text[:high]) <= cap:
        return text[:high]
    while low < high:  # the longest start that fits: text_bytes(text[:low]) <= cap
        mid = (low + high + 1) // 2
        if text_bytes(text[:mid]) <= cap:
            low = mid
        else:
            high = mid - 1
    return text[:low]
