"""``render``: one answer and its sources to an HTML fragment or a self-contained page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..diagnostics import Diagnostic, sort_key
from ..errors import CiterenderError
from ..options import RenderOptions
from ..plugin import citation_plugin, plugin_options
from ..plugin.rules import LinkPolicy
from ..plugin.state import CitationState, Reference
from ..rendering.themes import load_theme
from ..sources.model import Registry
from ..syntax.headings import first_heading
from ..syntax.residue import clean_html
from .anchors import add_anchors
from .blockwise import render_blockwise
from .features import add_features

__all__ = ["DEFAULT_OPTIONS", "MAX_ANSWER_CHARS", "Rendered", "UnknownSourceError", "make_markdown", "render"]

#: The largest answer ``render`` accepts (see SECURITY.md).
MAX_ANSWER_CHARS = 20_000_000
DEFAULT_OPTIONS = RenderOptions()


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


@lru_cache(maxsize=64)
def make_markdown(options: RenderOptions = DEFAULT_OPTIONS, *, citations: bool = True) -> MarkdownIt:
    """A configured parser for ``options`` (cached: parsers keep no per-document state);
    ``citations=False`` is the same parser without citerender's markers (the neutrality tests'
    baseline; it keeps the one URL allow-list).

    ``markdown="full"`` adds what models write (see :mod:`citerender.rendering.features`).
    ``images="text"`` (the default for publishing) shows a Markdown image from the answer as its
    alt text, so a model cannot make every reader's browser fetch a URL (tracking pixels);
    ``data:`` images and ``images="keep"`` render as usual.
    """
    full = options.markdown == "full"
    md = MarkdownIt("commonmark", {"html": options.html}).enable(["table", "strikethrough"])
    if full:
        add_features(md, options.id_prefix)
    if citations:
        theme = load_theme(options.theme)
        md.use(citation_plugin, options=options, bibliography_renderer=theme.render_bibliography)
    else:  # the same URL allow-list as the plugin's
        LinkPolicy(options.fmt.marker_chars).install(md)
    if full:
        add_anchors(md, options.id_prefix)
    if options.images == "text":
        md.add_render_rule("image", _image_as_text)
    return md


def _image_as_text(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    tok = tokens[idx]
    src = str(tok.attrGet("src") or "")
    if src.startswith("data:image/"):
        return str(self.image(tokens, idx, options, env))
    alt = self.renderInlineAsText(tok.children or [], options, env)
    return f'<span class="citerender-image" title="{escape(src)}">[image: {escape(alt or "untitled")}]</span>'


def _title_of(text: str) -> str:
    return (first_heading(text) or "Answer")[:200]


def render(
    text: str,
    registry: Registry | None = None,
    options: RenderOptions | None = None,
    *,
    title: str | None = None,
    **kwargs: Any,
) -> Rendered:
    """Render an answer with its citations.

    :param registry: the sources; without one, ids are numbered but not checked.
    :param options: every setting (:class:`citerender.RenderOptions`); keyword arguments
        (``style="hovercard"``, ``theme="report"``, ``standalone=True``, ``families=…`` …) build
        or change one. ``unknown="error"`` raises :class:`UnknownSourceError`.
    :param title: the page title with ``standalone`` (default: the answer's first heading).
    """
    if len(text) > MAX_ANSWER_CHARS:
        raise CiterenderError(
            f"answer has {len(text):,} characters, over the limit of {MAX_ANSWER_CHARS:,}", hint="split the answer"
        )
    opts = RenderOptions.build(options, **kwargs)
    th = load_theme(opts.theme)
    md = make_markdown(opts)
    st = CitationState(registry=registry)
    body = None
    if opts.engine == "fast" and not opts.evidence:
        from .fast import holds_placeholder, render_fast  # the splice pass loads only when asked for

        if not holds_placeholder(text):
            body = render_fast(text, st, md, plugin_options(md))
    if body is None:  # the default engine (and answers the fast engine leaves to it)
        st = CitationState(registry=registry)
        env = {"citerender": st}
        body = render_blockwise(md, text, env)
        if body is None:  # a core rule of the caller's (or the evidence checks) reads the whole stream
            body = md.render(text, env)
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
