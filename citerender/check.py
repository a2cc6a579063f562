"""``check``: every problem in an answer, before anything is shown to a reader."""

from __future__ import annotations

from collections.abc import Sequence

from .diagnostics import Diagnostic, sort_key
from .format import CitationFormat
from .sources import Registry
from .state import CitationState

__all__ = ["check"]


def check(
    text: str,
    registry: Registry | None = None,
    *,
    families: Sequence[str] = ("cite", "filecite"),
    fmt: CitationFormat | None = None,
) -> list[Diagnostic]:
    """Validity (ids, locators, syntax, dialects) and placement diagnostics, sorted by place.

    Placement is judged on markdown-it-py's tokens, so a marker in a code span or emphasis is
    recognised as such whatever the Markdown around it.
    """
    from .rendering import make_markdown

    md = make_markdown("footnotes", None, "keep", tuple(families), False, False, False, fmt)
    st = CitationState(registry=registry)
    md.parse(text, {"citerender": st})
    return sorted(st.diagnostics, key=sort_key)
