"""Streaming: render an answer as it arrives, never showing half a marker.

:class:`StreamRenderer` takes chunks in any split — inside a marker, inside a multi-byte UTF-8
sequence — and returns what is decided so far; everything it returns, joined, is the one-shot
output of the whole answer, for any chunking:

* ``output="html"``: ``render(text, bibliography=False).body``; with :meth:`~StreamRenderer.bibliography_html`
  after ``close``, ``render(text).body``;
* ``output="markdown"``: ``citerender render --to markdown`` of the answer (note definitions with ``close``).

Both sinks read whole lines (no marker spans a line break) and parse each block the parser has
closed (:mod:`.blocks`) with the pipeline ``render()`` uses, into one document state: numbering,
labels, heading ids and checks are ``render()``'s own. A block waits longer while its output can
still change: it looked up a label not yet defined (:mod:`.sink`), or, in Markdown, it may cite
(:mod:`.markdown`). Past 1,024 characters an open block (a long list, table or fence) is read
again only once it has grown by a quarter: the cost stays linear, its end shown a little later.
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostic, sort_key
from ..options import RenderOptions
from ..plugin.bibliography import render_consulted
from ..plugin.document import write_table
from ..plugin.numbering import report_uncited
from ..plugin.state import CitationState, Reference, citation_state, keep
from ..rendering.heading_ids import SLUGS_KEY
from ..rendering.pipeline import pipeline
from ..sources.model import Registry
from ..syntax.residue import clean_html
from .html import HtmlSink
from .markdown import MarkdownSink

__all__ = ["StreamRenderer", "astream"]


class StreamRenderer:
    """Incremental rendering of one answer (see the module docstring).

    :param registry: the sources; unknown ids follow ``unknown`` as in ``render``.
    :param options: the same :class:`citerender.RenderOptions` as ``render`` (or keyword
        arguments that build one: ``style``, ``theme``, ``unknown``, ``fmt``, ``html`` …); the
        bibliography comes from :meth:`bibliography_html` when the stream ends.
    :param output: ``markdown`` (the Markdown export, block by block) or ``html`` (``render()``'s
        page, block by block).
    :param placeholder: no longer read (the Markdown stream writes the export's note labels);
        only its old default is accepted.
    """

    def __init__(
        self,
        registry: Registry | None = None,
        options: RenderOptions | None = None,
        *,
        output: str = "markdown",
        placeholder: str = "[^{n}]",
        **kwargs: Any,
    ) -> None:
        if output not in ("markdown", "html"):
            raise ValueError("output must be 'markdown' or 'html'")
        if placeholder != "[^{n}]":
            raise ValueError("placeholder is no longer read: the Markdown stream writes the Markdown export's labels")
        opts = RenderOptions.build(options, **kwargs)
        dialect = opts.dialect or getattr(registry, "dialect", None)  # (a non-registry is refused below)
        if dialect is not None and output != "html":
            raise ValueError(f"dialect {dialect!r} is read by the HTML stream (output='html')")
        self.options = opts
        self.registry = registry
        self.output = output
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._closed = False
        if output == "html":
            p = pipeline(replace(opts, bibliography=False, list_all=False, standalone=False))
        else:  # as the Markdown export parses (exports.parsed.parse_answer)
            unknown = "keep" if opts.unknown == "error" else opts.unknown
            p = pipeline(replace(opts, style="footnotes", bibliography=False, html=False, unknown=unknown))
        env = p.new_env(registry, spans=output == "markdown", whole_document=False)
        env[SLUGS_KEY] = set()  # heading ids unique across blocks
        self._state: CitationState = citation_state(env)
        self._sink: HtmlSink | MarkdownSink = (
            HtmlSink(p, env, self._state)
            if output == "html"
            else MarkdownSink(p, env, self._state, allow_html=opts.html, consulted=opts.consulted)
        )
        self._partial = self._sink.partial  # a chunk without a line break only joins the line

    def feed(self, chunk: str | bytes) -> str:
        """Add a chunk; return what can be shown now (possibly empty)."""
        if chunk.__class__ is str and "\n" not in chunk and not self._closed:  # most chunks: one test
            self._partial.append(chunk)
            return ""
        if self._closed:
            raise ValueError("feed() after close()")
        text = self._decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        if "\n" not in text:  # a line goes on (no marker spans a line break: nothing is read before one)
            self._partial.append(text)
            return ""
        keep(self._state)  # at hand for the rules (other documents may have been parsed since)
        return self._sink.write(text)

    def close(self) -> str:
        """Flush everything (unterminated markers are reported and removed)."""
        if self._closed:
            return ""
        self._closed = True
        self._partial.append(self._decoder.decode(b"", final=True))
        keep(self._state)
        out = self._sink.close()
        if self.output == "html":  # (the Markdown sink reports before it writes the sources listed apart)
            report_uncited(self._state, consulted=self.options.consulted)
        write_table(self._state, self._state.table)  # the whole document, as plain data in env
        return out

    @property
    def bibliography(self) -> list[Reference]:
        """The references numbered so far, in order."""
        return list(self._state.references)

    def bibliography_html(self) -> str:
        """The bibliography so far, rendered with the theme (empty before the first citation), and
        after ``close`` the consulted sources with the consulted option."""
        from ..rendering.themes import load_theme

        refs, consulted = self._state.references, self._state.consulted
        opts = self.options
        cited = load_theme(opts.theme).render_bibliography(refs, opts.style) if refs else ""
        return clean_html(cited + render_consulted(consulted))[0] if refs or consulted else ""

    def bibliography_markdown(self) -> str:
        """The Markdown twin of :meth:`bibliography_html`: empty, as ``close`` writes the note
        definitions (and the sources listed apart) at the end of the Markdown export's text."""
        return ""

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return sorted(self._state.diagnostics, key=sort_key)


async def astream(
    chunks: AsyncIterable[str | bytes], registry: Registry | None = None, **options: object
) -> AsyncIterator[str]:
    """Async variant: ``async for html in astream(source, registry, output="html"): …``."""
    sr = StreamRenderer(registry, **options)  # type: ignore[arg-type]
    async for chunk in chunks:
        out = sr.feed(chunk)
        if out:
            yield out
    tail = sr.close()
    if tail:
        yield tail
