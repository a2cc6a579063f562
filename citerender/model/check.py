"""``check``: every problem in an answer, before anything is shown to a reader."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostic, sort_key
from ..options import RenderOptions
from ..plugin.state import CitationState
from ..rendering.html import make_markdown
from ..sources.model import Registry

__all__ = ["check"]


def check(
    text: str, registry: Registry | None = None, options: RenderOptions | None = None, **kwargs: Any
) -> list[Diagnostic]:
    """Validity (ids, locators, syntax, dialects), placement and support (CR401–CR406)
    diagnostics, sorted by place.

    Placement is judged on markdown-it-py's tokens, so a marker in a code span or emphasis is
    recognised as such whatever the Markdown around it. ``options`` (or keyword arguments such as
    ``families`` and ``fmt``) as for :func:`citerender.render`; unknown ids are always reported.
    """
    opts = replace(
        RenderOptions.build(options, **kwargs), style="footnotes", unknown="keep", bibliography=False, evidence=True
    )
    md = make_markdown(opts)
    st = CitationState(registry=registry)
    md.parse(text, {"citerender": st})
    return sorted(st.diagnostics, key=sort_key)
