"""Page titles from answers: the first ATX heading, markers removed."""

from __future__ import annotations

import re

from ..lazy_re import lazy_compile
from .guide import strip_citations
from .residue import remove_residue

__all__ = ["first_heading"]

_ATX_HEADING = lazy_compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)


def first_heading(text: str) -> str | None:
    """The text of the first ATX heading of a Markdown answer, markers removed (for page titles)."""
    m = _ATX_HEADING.search(text)
    return (remove_residue(strip_citations(m.group(1))).strip()[:200] or None) if m else None
