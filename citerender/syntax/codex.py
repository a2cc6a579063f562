"""Codex's file citations: ``【F:src/app.py†L23-L51】`` and ``【F:README.md†L4】``.

A citation of a repository file and a line range; the path is the source id (resolved against a
checkout or a repository URL by :class:`citerender.sources.repo.Repository`).
"""

from __future__ import annotations

import re

from .escapes import printable
from .types import Citation, Mark, line_locator, parse_locator

__all__ = ["CODEX_RE", "codex_mark"]

CODEX_RE = re.compile(
    r"\u3010F:([^\u3010\u3011\u2020\n\ue200-\ue206]{1,1000})\u2020L(\d{1,9})(?:[-\u2013]L?(\d{1,9}))?\u3011"
)


def codex_mark(i: int, m: re.Match[str]) -> Mark:
    """The mark of a :data:`CODEX_RE` match at ``i``."""
    path = m.group(1).strip()
    low = int(m.group(2))
    high = int(m.group(3)) if m.group(3) else low
    locator = line_locator(low, high)
    lines, _ = parse_locator(locator)
    if not path:
        return Mark.drop(i, m.end(), m.group(0), "CR104", "Codex citation without a path")
    cit = Citation(m.group(0), "cite", (path,), locator, i, m.end(), lines, "codex")
    return Mark.cite(cit, ("CR213", f"Codex citation of {printable(path, 60)}, {locator}"))
