"""``render``: one answer and its sources to an HTML fragment or a self-contained page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from markdown_it.token import Token

from ..diagnostics import Diagnostic, sort_key
from ..errors import CiterenderError
from ..options import RenderOptions
from ..plugin.state import Reference
from ..sources.model import Registry
from ..syntax.headings import first_heading
from ..syntax.residue import clean_html
from .pipeline import pipeline
from .themes import load_theme

__all__ = ["Rendered", "UnknownSourceError", "demote_headings", "render"]


class UnknownSourceError(CiterenderError):
    """Raised by ``render(..., unknown="error")`` when the answer cites ids the registry lacks."""

    def __init__(self, ids: Sequence[str], diagnostics: list[Diagnostic]) -> None:
        uniq = list(dict.fromkeys(ids))
        super().__init__(
            f"unknown source id(s): {', '.join(repr(i) for i in uniq)}",
            hint="add them to the sources or use --unknown drop",
        )
        self.ids = uniq
        self.diagnostics = diagnostics


@dataclass
class Rendered:
    """The result of :func:`render`."""

    html: str
    body: str
    css: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    bibliography: list[Reference] = field(default_factory=list)


def _title_of(text: str) -> str:
    return (first_heading(text) or "Answer")[:200]


def demote_headings(tokens: Sequence[Token], levels: int) -> None:
    """Move the headings of a parse down ``levels`` levels, at most to ``h6``: the page's own
    ``h1`` (a conversation's title) stays its one ``h1`` whatever the answer's ``#`` headings."""
    for tok in tokens:
        if tok.type in ("heading_open", "heading_close") and tok.tag[:1] == "h" and tok.tag[1:].isdigit():
            tok.tag = f"h{min(6, int(tok.tag[1:]) + levels)}"


def render(
    text: str,
    registry: Registry | None = None,
    options: RenderOptions | None = None,
    *,
    title: str | None = None,
    demote: int = 0,
    **kwargs: Any,
) -> Rendered:
    """Render an answer with its citations.

    :param registry: the sources; without one, ids are numbered but not checked.
    :param options: every setting (:class:`citerender.RenderOptions`); keyword arguments
        (``style="hovercard"``, ``theme="report"``, ``standalone=True``, ``families=…`` …) build
        or change one. ``unknown="error"`` raises :class:`UnknownSourceError`.
    :param title: the page title with ``standalone`` (default: the answer's first heading).
    :param demote: move every heading of the answer down this many levels (``h6`` stays ``h6``):
        1 when the answer sits under a page's own ``h1``, as in a conversation page.
    """
    opts = RenderOptions.build(options, **kwargs)
    th = load_theme(opts.theme)
    p = pipeline(opts)
    parsed = p.parse(text, registry)
    if demote:
        demote_headings(parsed.tokens, demote)
    st = parsed.state
    body = p.html(parsed)
    body, removed = clean_html(body)  # safety net: the rules above should leave nothing
    if removed:
        st.report("CR109", "marker residue removed from the output", None)
    diagnostics = sorted(st.diagnostics, key=sort_key)
    if opts.unknown == "error" and st.unknown_ids:
        raise UnknownSourceError(st.unknown_ids, diagnostics)
    css = th.css
    page = body
    if opts.standalone:
        page = clean_html(th.render_page(body, title=title or _title_of(text), css=css))[0]
    return Rendered(page, body, css, diagnostics, list(st.references))
