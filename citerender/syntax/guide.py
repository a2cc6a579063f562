"""The guide's API: ``extract_citations`` and ``strip_citations``, same fields and results as the
guide's reference helper on every input it handles correctly, but linear and never letting a
broken marker swallow the markers after it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from .format import DEFAULT_FORMAT, CitationFormat
from .marks import edit_text, strip_marks
from .scanner import scan
from .types import Citation, pop_locator

__all__ = ["extract_citations", "strip_citations"]


@lru_cache(maxsize=64)
def _token_re(fmt: CitationFormat, families: tuple[str, ...]) -> re.Pattern[str]:
    s, d, e = (re.escape(c) for c in (fmt.start, fmt.delimiter, fmt.stop))
    fam = "|".join(re.escape(f) for f in families)
    # The body stops at the first STOP, and may not contain a START: an unterminated marker
    # then fails to match instead of running on to (and swallowing) the next marker.
    return re.compile(rf"{s}({fam}){d}([^{s}{e}]*){e}")


def extract_citations(
    text: str,
    *,
    families: Sequence[str] = ("cite",),
    fmt: CitationFormat = DEFAULT_FORMAT,
) -> list[Citation]:
    """Extract canonical citation markers, as the guide's helper does.

    Same results as the helper on every input it handles correctly; beyond it, a broken marker
    never swallows the markers after it, a loosely written locator (``L8–L13``, ``L 8``) is
    accepted in normalised form, and the cost is linear in ``len(text)``.
    """
    if not families:
        return []
    out: list[Citation] = []
    delim, id_re = fmt.delimiter, fmt.id_re
    for m in _token_re(fmt, tuple(families)).finditer(text):
        family, body = m.groups()
        if delim in body:
            parts = [p for p in map(str.strip, body.split(delim)) if p]
        else:  # one id, most markers: no split (a dataset's markers are read by the tens of thousands)
            body = body.strip()
            parts = [body] if body else []
        if not parts:
            continue
        locator, lines, _ = pop_locator(parts)
        if parts and (id_re.match(parts[0]) if len(parts) == 1 else all(map(id_re.match, parts))):
            out.append(Citation(m.group(0), family, tuple(parts), locator, m.start(), m.end(), lines))
    return out


def strip_citations(
    text: str,
    citations: Iterable[Citation] | None = None,
    *,
    fmt: CitationFormat = DEFAULT_FORMAT,
    tidy: bool = False,
) -> str:
    """Remove markers from ``text``.

    With ``citations`` (from :func:`extract_citations`), remove exactly those spans, as the
    guide's helper does but in one linear pass. Without, remove every mark :func:`scan` finds,
    dialects included, keeping what they mean as text (entity names, highlighted words), and
    percent-encoded residue. The result is text: to publish it as Markdown, pass it through
    :func:`citerender.rendering.exports.markdown.guard_markdown` (``citerender strip`` does), since
    a removal inside a URL can change what the URL means. ``tidy`` (off: the guide's exact result)
    leaves no stray space where something was removed: none before punctuation or a line end,
    never two in a row.
    """
    if citations is None:
        return strip_marks(text, scan(text, fmt=fmt), tidy=tidy)
    return edit_text(text, ((c.start, c.end, "") for c in sorted(citations, key=lambda c: c.start)), tidy=tidy)
