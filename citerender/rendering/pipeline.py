"""The one pipeline: the only place a parser and a document's citation state are built.

``pipeline(options)`` (cached per :class:`~citerender.options.RenderOptions`) gives ``parse`` and
``html``, together exactly ``md.render(text, env)`` with the plugin. Every render, check, export,
host transform, build and stream goes through it, so grouping, numbering and labels exist once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import field
from functools import cached_property, lru_cache
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..diagnostics import Diagnostic, sort_key
from ..errors import CiterenderError
from ..options import RenderOptions
from ..plugin import citation_plugin
from ..plugin.links import LinkPolicy
from ..plugin.state import CitationState, Reference, citation_state, keep, new_state
from ..records import record
from ..sources.model import Registry
from .frugal import PageRenderer, normalize
from .full_preset import add_cjk_emphasis, add_features
from .heading_ids import add_anchors
from .themes import load_theme

__all__ = [
    "DEFAULT_OPTIONS",
    "MAX_ANSWER_CHARS",
    "Parsed",
    "Pipeline",
    "make_markdown",
    "permissive_reader",
    "pipeline",
]

#: The largest answer the pipeline accepts (see SECURITY.md).
MAX_ANSWER_CHARS = 20_000_000
DEFAULT_OPTIONS = RenderOptions()


@record(compile_init=False)  # built a few times a process: no __init__ compiled at import
class Parsed:
    """An answer parsed once: its tokens and document state, for HTML, every export and the checks."""

    input: str
    tokens: list[Token]
    state: CitationState
    env: dict[str, Any] = field(repr=False)
    #: the answer's raw HTML may pass into the Markdown and JSON exports (the parse escapes it)
    allow_html: bool = False
    #: claims were checked against their passages (``state.claims``)
    evidence: bool = False

    @cached_property
    def groups(self) -> list[Token]:
        """Every ``citation`` token, in document order."""
        return [t for t in _walk(self.tokens) if t.type == "citation"]

    @property
    def references(self) -> list[Reference]:
        return self.state.references

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return sorted(self.state.diagnostics, key=sort_key)


def _walk(tokens: Sequence[Token]) -> Iterator[Token]:
    for tok in tokens:
        yield tok
        if tok.children:
            yield from _walk(tok.children)


class Pipeline:
    """One configured parser for one :class:`RenderOptions`; see :func:`pipeline`."""

    def __init__(self, options: RenderOptions, *, citations: bool = True) -> None:
        self.options = options
        self.md = _markdown(options, citations)

    def parse(self, text: str, registry: Registry | None = None, *, spans: bool = False) -> Parsed:
        """Parse ``text`` against ``registry``; ``spans`` records where every mark sits in the
        text (the exports rewrite it)."""
        if len(text) > MAX_ANSWER_CHARS:
            raise CiterenderError(
                f"answer has {len(text):,} characters, over the limit of {MAX_ANSWER_CHARS:,}", hint="split the answer"
            )
        env = self.new_env(registry, spans=spans)
        return self.parse_in(text, env, citation_state(env))

    def new_env(
        self, registry: Registry | None = None, *, spans: bool = False, whole_document: bool = True
    ) -> dict[str, Any]:
        """A fresh ``env`` holding a document state (a stream parses its blocks into one, not
        a ``whole_document``: its document-wide checks wait for the end)."""
        env: dict[str, Any] = {}
        st = new_state(env, registry)
        st.whole_document = whole_document
        if spans:
            st.spans = []
        return env

    def parse_in(self, text: str, env: dict[str, Any], state: CitationState | None = None) -> Parsed:
        """Parse ``text`` into an existing ``env`` (the numbering and ids it holds go on;
        ``state``: its working state, when the caller holds it)."""
        st = keep(state) if state is not None else citation_state(env)
        tokens = self.md.parse(text, env)
        return Parsed(text, tokens, st, env, self.options.html, self.options.evidence)

    def html(self, parsed: Parsed) -> str:
        """The HTML of a parse: markdown-it's renderer with the plugin's rules."""
        keep(parsed.state)
        return str(self.md.renderer.render(parsed.tokens, self.md.options, parsed.env))

    def html_inline(self, tokens: Sequence[Token], parsed: Parsed) -> str:
        """The HTML of some inline tokens of a parse (a host's placeholder: one citation group)."""
        keep(parsed.state)
        return str(self.md.renderer.renderInline(tokens, self.md.options, parsed.env))  # type: ignore[attr-defined]


@lru_cache(maxsize=64)
def pipeline(options: RenderOptions = DEFAULT_OPTIONS, *, citations: bool = True) -> Pipeline:
    """The pipeline for ``options`` (cached); ``citations=False`` is the same parser without
    citerender's markers (the neutrality tests' baseline; it keeps the one URL allow-list)."""
    return Pipeline(options, citations=citations)


def make_markdown(options: RenderOptions = DEFAULT_OPTIONS, *, citations: bool = True) -> MarkdownIt:
    """The configured markdown-it parser of :func:`pipeline`, for callers that drive it themselves."""
    return pipeline(options, citations=citations).md


def _markdown(options: RenderOptions, citations: bool) -> MarkdownIt:
    """``markdown="full"`` adds what models write (:mod:`citerender.rendering.full_preset`).
    ``images="text"`` shows an image as its alt text, so a model cannot make every reader's
    browser fetch a URL (tracking pixels); ``data:`` images render as usual."""
    full = options.markdown == "full"
    md = MarkdownIt("commonmark", {"html": options.html}, renderer_cls=PageRenderer)
    md.enable(["table", "strikethrough"])
    md.core.ruler.at("normalize", normalize)
    if full:
        add_features(md, options.id_prefix)
    if citations:
        theme = load_theme(options.theme)
        md.use(citation_plugin, options=options, bibliography_renderer=theme.render_bibliography)
    else:  # the same URL allow-list as the plugin's
        LinkPolicy(options.fmt.marker_chars).install(md)
    if full:
        add_anchors(md, options.id_prefix)
        add_cjk_emphasis(md, frozenset(options.fmt.marker_chars) if citations else frozenset())
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


@lru_cache(maxsize=1)
def permissive_reader() -> MarkdownIt:
    """A reader that links every destination and passes raw HTML, as pandoc does: what the exports'
    guard reads their output back with. Destinations stay as written (no punycode, no escapes)."""
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    md.normalizeLink = lambda url: url  # type: ignore[method-assign]
    return md
