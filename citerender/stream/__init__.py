"""Streaming: render an answer as it arrives, never showing half a marker.

:class:`StreamRenderer` takes chunks in any split — inside a marker, inside a multi-byte UTF-8
sequence — and returns what is safe to show now:

* ``output="markdown"``: the answer's text with each citation replaced by stable placeholders
  (``[^1]`` by default) for a front end that renders Markdown itself; in code only the invisible
  marker characters go, the visible code is kept;
* ``output="html"``: HTML for each block (paragraph, list, fence…) once it is complete.

A marker is held back until it is decided (closed, broken by a newline or a new marker, or over
the length limit); nothing else waits. Citation numbers are fixed when first shown and never
change; :attr:`StreamRenderer.bibliography` is the bibliography so far. The work per chunk is
proportional to the chunk (plus a held-back tail bounded by the longest marker), so total cost
stays linear. Feeding everything at once gives the same output as any split.

The stream is a front and two sinks: the front (:mod:`.holdback`) decides what may be shown yet,
and hands it to the Markdown sink (:mod:`.markdown`) or the HTML sink (:mod:`.html`); both read
code with the one fence and code-span rule (:mod:`.code`), and number sources through the plugin's
numbering in one document state, so a streamed page is the one-shot page by construction.
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterable, AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostic, sort_key
from ..options import RenderOptions
from ..plugin.bibliography import render_consulted
from ..plugin.numbering import lookup, reference_for, report_uncited
from ..plugin.state import ENV_KEY, CitationState, Reference
from ..rendering.heading_ids import SLUGS_KEY
from ..rendering.pipeline import pipeline
from ..sources.model import Registry
from ..syntax.residue import clean_html
from .holdback import plain_prefix, quick_end, safe_end
from .html import HtmlSink
from .markdown import MarkdownSink

__all__ = ["StreamRenderer", "astream"]


class StreamRenderer:
    """Incremental rendering of one answer (see the module docstring).

    :param registry: the sources; unknown ids follow ``unknown`` as in ``render``.
    :param options: the same :class:`citerender.RenderOptions` as ``render`` (or keyword
        arguments that build one: ``style``, ``theme``, ``unknown``, ``fmt``, ``html`` …); the
        bibliography comes from :meth:`bibliography_html` when the stream ends.
    :param output: ``markdown`` (text with placeholders) or ``html`` (complete blocks).
    :param placeholder: the Markdown placeholder for one source, ``{n}`` its number.
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
        opts = RenderOptions.build(options, **kwargs)
        dialect = opts.dialect or getattr(registry, "dialect", None)  # (a non-registry is refused below)
        if dialect is not None and output != "html":  # its numbers would pass through unread
            raise ValueError(
                f"dialect {dialect!r} is read by the HTML stream (output='html'), which renders with the"
                " plugin; the Markdown stream rewrites markers only"
            )
        self.options = opts
        self.registry = registry
        self.output = output
        self.fmt = opts.fmt
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""  # raw text not yet decided
        self._closed = False
        # one document state for every block, numbered by the plugin's numbering
        p = pipeline(replace(opts, bibliography=False, list_all=False, standalone=False))
        env = p.new_env(registry, whole_document=False)
        env[SLUGS_KEY] = set()  # heading ids unique across blocks
        self._state: CitationState = env[ENV_KEY]
        self._diagnostics: list[Diagnostic] = []
        self._sink: HtmlSink | MarkdownSink = (
            HtmlSink(p, env, self._state)
            if output == "html"
            else MarkdownSink(opts.fmt, self._numbers, placeholder, self._diagnostics, opts.keep_code_residue)
        )
        self._prose = self._sink.prose if isinstance(self._sink, MarkdownSink) else None
        # HTML is written a whole block at a time: a chunk inside a line of a block (most of them)
        # only joins the line being built, added here without a call through the sink
        self._partial = self._sink.partial if isinstance(self._sink, HtmlSink) else None
        self._plain_prefix = plain_prefix(self.fmt)

    def feed(self, chunk: str | bytes) -> str:
        """Add a chunk; return what can be shown now (possibly empty)."""
        if self._closed:
            raise ValueError("feed() after close()")
        text = self._decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        if not text:
            return ""
        partial = self._partial
        if partial is not None:  # HTML reads whole lines: no marker spans a line break, so
            if "\n" not in text:  # nothing is held back before one
                partial.append(text)
                return ""
            return self._sink.write(text)
        whole = self._pending + text if self._pending else text
        k = self._plain_prefix(whole)  # most chunks are prose: shown at once, a word that may begin a mark held
        if k >= 0:
            self._pending = whole[k:]
            if k == 0:
                return ""
            part = whole[:k]
            out = self._prose(part) if self._prose is not None else None  # prose mid-line: in one step
            return out if out is not None else self._sink.write(part, plain=True)
        self._pending = whole
        safe = quick_end(self._pending, self.fmt)
        if safe is None:
            safe = safe_end(self._pending, self.fmt)
        if safe == 0:
            return ""
        committed, self._pending = self._pending[:safe], self._pending[safe:]
        return self._sink.write(committed)

    def close(self) -> str:
        """Flush everything (unterminated markers are reported and removed)."""
        if self._closed:
            return ""
        self._closed = True
        committed = self._pending + self._decoder.decode(b"", final=True)
        self._pending = ""
        if self._partial is not None:  # HTML: the last line, complete or not, is read by close
            self._partial.append(committed)
            out = self._sink.close()
        else:
            out = (self._sink.write(committed) if committed else "") + self._sink.close()
        report_uncited(self._state, consulted=self.options.consulted)
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

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return sorted(self._diagnostics + self._state.diagnostics, key=sort_key)

    def _numbers(self, source_ids: Sequence[str]) -> list[int]:
        """The numbers of the cited sources (unknown ones as ``unknown`` says), through the plugin's numbering."""
        st = self._state
        nums = []
        for sid in source_ids:
            source, known = lookup(st, sid, self.options.unknown, None)
            if source is not None:
                nums.append((st.by_id.get(sid) or reference_for(st, source, known=known)).number)
        return sorted(set(nums))


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
