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
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterable, AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostic, sort_key
from ..options import RenderOptions
from ..plugin.numbering import lookup, reference_for, report_uncited
from ..plugin.state import ENV_KEY, CitationState, Reference
from ..rendering.anchors import SLUGS_KEY
from ..rendering.pipeline import pipeline
from ..sources.model import Registry
from ..syntax.format import RESERVED_RE
from ..syntax.marks import SEPARATOR_CONTEXT, ZWSP, needs_separator
from ..syntax.residue import RESIDUE, clean_html, has_residue
from ..syntax.scanner import scan
from ..syntax.types import MarkKind
from .holds import plainly_safe, quick_end, safe_end

__all__ = ["StreamRenderer", "astream"]

_CONTEXT = 16
_HEAD = 256  # how much of a line the Markdown stream keeps to read fences
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


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
        self.options = opts
        self.registry = registry
        self.output = output
        self.unknown = opts.unknown
        self.placeholder = placeholder
        self.fmt = opts.fmt
        self.style = opts.style
        self.theme_name = opts.theme
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""  # raw text not yet decided
        # one document state for every block, numbered by the plugin's numbering
        self._pipeline = pipeline(replace(opts, bibliography=False, list_all=False, standalone=False))
        self._env = self._pipeline.new_env(registry, whole_document=False)
        self._state: CitationState = self._env[ENV_KEY]
        self._closed = False
        # markdown mode: where the committed text stands
        self._in_fence: str | None = None
        self._line = ""  # the head of the current line (at most _HEAD characters)
        self._line_blank = True  # and whether everything after the head is blank
        self._ticks = 0  # backticks seen in the current paragraph (odd: inside a code span)
        self._diagnostics: list[Diagnostic] = []
        # html mode: complete lines of the block being built, the partial line, fence state
        self._lines: list[str] = []
        self._cur: list[str] = []  # the partial line, in pieces
        self._tail = ""  # markdown mode: the end of what was shown (enough to see a definition start)
        self._context = ""  # the last input characters committed: they decide word boundaries
        self._open_cut = False  # a removal at the very end of what was shown
        self._blank_at: int | None = None
        self._block_fence: str | None = None
        self._env[SLUGS_KEY] = set()  # heading ids unique across blocks

    # ------------------------------------------------------------------ public API

    def feed(self, chunk: str | bytes) -> str:
        """Add a chunk; return what can be shown now (possibly empty)."""
        if self._closed:
            raise ValueError("feed() after close()")
        text = self._decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        if not text:
            return ""
        if not self._pending and plainly_safe(text, self.fmt):
            return self._emit(text, final=False)
        self._pending += text
        safe = quick_end(self._pending, self.fmt)
        if safe is None:
            safe = safe_end(self._pending, self.fmt)
        if safe == 0:
            return ""
        committed, self._pending = self._pending[:safe], self._pending[safe:]
        return self._emit(committed, final=False)

    def close(self) -> str:
        """Flush everything (unterminated markers are reported and removed)."""
        if self._closed:
            return ""
        self._closed = True
        tail = self._decoder.decode(b"", final=True)
        committed, self._pending = self._pending + tail, ""
        out = self._emit(committed, final=True)
        report_uncited(self._state)
        return out

    @property
    def bibliography(self) -> list[Reference]:
        """The references numbered so far, in order."""
        return list(self._state.references)

    def bibliography_html(self) -> str:
        """The bibliography so far, rendered with the theme (empty before the first citation)."""
        from ..rendering.themes import load_theme

        refs = self._state.references
        return clean_html(load_theme(self.theme_name).render_bibliography(refs, self.style))[0] if refs else ""

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return sorted(self._diagnostics + self._state.diagnostics, key=sort_key)

    # ------------------------------------------------------------------ emitting

    def _emit(self, text: str, *, final: bool) -> str:
        if self.output == "markdown":
            return self._emit_markdown(text)
        return self._emit_html(text, final=final)

    def _numbers(self, source_ids: Sequence[str]) -> list[int]:
        st = self._state
        nums = []
        for sid in source_ids:
            source, known = lookup(st, sid, self.unknown, None)
            if source is not None:
                nums.append((st.by_id.get(sid) or reference_for(st, source, known=known)).number)
        return sorted(set(nums))

    def _emit_markdown(self, text: str) -> str:
        out: list[str] = []
        cuts: list[int] = []  # output offsets where something was removed inside the text
        size = 0  # characters in out (a running count: summing per mark would be quadratic)
        pos = 0
        for mk in scan(text, fmt=self.fmt, context=self._context):
            size += self._plain(text[pos : mk.start], out, cuts, size)
            if self._in_code:  # the author's code: only the invisible characters go
                kept = RESERVED_RE.sub("", mk.raw)
                if kept != mk.raw:
                    self._diagnostics.append(Diagnostic.make("CR302", "invisible marker characters removed from code"))
                size += self._advance(kept, out)
                pos = mk.end
                continue
            for code, detail in mk.notes:
                self._diagnostics.append(Diagnostic.make(code, detail))
            if mk.kind is MarkKind.CITATION and mk.citation is not None:
                size += self._advance(mk.text, out)
                placeholder = "".join(self.placeholder.format(n=n) for n in self._numbers(mk.citation.source_ids))
                out.append(placeholder)
                size += len(placeholder)
            else:
                cuts.append(size)
                size += self._advance(mk.text, out)
            pos = mk.end
        self._plain(text[pos:], out, cuts, size)
        self._context = (self._context + text)[-_CONTEXT:]
        return self._join_at_cuts("".join(out), cuts)

    def _plain(self, text: str, out: list[str], cuts: list[int], at: int) -> int:
        """Copy plain text; percent-encoded residue (``%EE%88%80``) goes, and is noted as a cut at
        its output offset (``at`` is where the text starts). Returns the characters copied."""
        if "%" not in text or not has_residue(text):
            return self._advance(text, out)
        copied = 0
        pos = 0
        for m in RESIDUE.finditer(text):
            copied += self._advance(text[pos : m.start()], out)
            pos = m.end()
            if self._in_code and not RESERVED_RE.fullmatch(m.group(0)):
                copied += self._advance(m.group(0), out)  # visible: the author's code, kept
                continue
            cuts.append(at + copied)
            self._diagnostics.append(Diagnostic.make("CR109", "marker residue removed from the output"))
        copied += self._advance(text[pos:], out)
        return copied

    @property
    def _in_code(self) -> bool:
        """Is the committed Markdown inside a fence or a code span?"""
        return self._in_fence is not None or self._ticks % 2 == 1

    def _join_at_cuts(self, text: str, cuts: list[int]) -> str:
        """Where a removal joined two pieces of one word, put a zero-width space between them.

        The client renders this Markdown itself, and removing characters inside a word can make a
        URL the removal changed (``java`` + U+E201 + ``script:``, ``(`` + U+E201 + ``javascript:``).
        A zero-width space is invisible in prose but no scheme may contain or start with one, so a
        URL that needed a removal is never a live link. A cut at the end of what is shown waits
        for the next character, so any split of the input gives the same output.
        """
        out: list[str] = []
        pos = 0
        points = sorted(set(cuts))
        if not points and not self._open_cut:
            self._tail = (self._tail + text)[-SEPARATOR_CONTEXT:]
            return text
        if self._open_cut and text:
            if not points or points[0] != 0:
                points.insert(0, 0)
            self._open_cut = False
        for c in points:
            if c >= len(text):
                self._open_cut = True
                continue
            out.append(text[pos:c])
            if needs_separator(
                (self._tail + text[max(0, c - SEPARATOR_CONTEXT) : c])[-SEPARATOR_CONTEXT:], text[c : c + 1]
            ):
                out.append(ZWSP)
            pos = c
        out.append(text[pos:])
        result = "".join(out)
        self._tail = (self._tail + result)[-SEPARATOR_CONTEXT:]
        return result

    def _advance(self, text: str, out: list[str]) -> int:
        """Copy committed plain text, tracking fences and code spans line by line; returns its length.

        Of the current line only its head is kept (and whether the rest is blank): enough to read a
        fence, and a long line streamed in small chunks stays linear.
        """
        if not text:
            return 0
        out.append(text)
        *complete, rest = text.split("\n")
        for piece in complete:
            room = max(_HEAD - len(self._line), 0)
            self._end_line(self._line + piece[:room], self._line_blank and not piece[room:].strip(), piece)
            self._line, self._line_blank = "", True
        room = max(_HEAD - len(self._line), 0)
        self._line += rest[:room]
        self._line_blank = self._line_blank and not rest[room:].strip()
        if self._in_fence is None:
            self._ticks += rest.count("`")
        return len(text)

    def _end_line(self, head: str, tail_blank: bool, last: str) -> None:
        """A line ended: ``head`` is its start, ``tail_blank`` whether the rest is blank, ``last``
        the part that arrived with its end (backticks before it were counted as they came)."""
        fence = _FENCE.match(head)
        blank = tail_blank and not head.strip()
        if self._in_fence is None:
            if fence:  # a fence starts a new block: backticks counted on its partial line go
                self._in_fence = fence.group(1)
                self._ticks = 0
            elif blank:
                self._ticks = 0
            else:
                self._ticks += last.count("`")
        elif (
            fence
            and fence.group(1)[0] == self._in_fence[0]
            and len(fence.group(1)) >= len(self._in_fence)
            and tail_blank
            and not head[fence.end() :].strip()
        ):
            self._in_fence = None
            self._ticks = 0

    # ------------------------------------------------------------------ html blocks

    def _emit_html(self, text: str, *, final: bool) -> str:
        """Collect complete lines into blocks; a block ends at a blank line outside a fence when
        the next non-blank line starts a new block (not an indented or list continuation)."""
        out: list[str] = []
        if "\n" in text:  # the partial line is joined only when it ends (one long line stays linear)
            first, *more = text.split("\n")
            complete = ["".join(self._cur) + first, *more[:-1]]
            self._cur = [more[-1]] if more[-1] else []
            for line in complete:
                self._take_line(line + "\n", out)
        elif text:
            self._cur.append(text)
        if self._blank_at is not None and self._block_fence is None:
            # the next block has started: decide as soon as its first characters tell (a head of
            # blanks decides nothing: such a line continues the block or is blank)
            head = self._cur_head(16)
            decidable = (
                head[:1] in (" ", "\t")
                or head[:1] not in "-*+0123456789"
                or len(head) > 11
                or _LIST_ITEM.match(head) is not None
            )
            if head.strip() and decidable and not self._continues(head):
                out.append(self._render_block("".join(self._lines)))
                self._lines = []
                self._blank_at = None
        if final:
            if self._cur:
                self._take_line("".join(self._cur), out)
                self._cur = []
            if "".join(self._lines).strip():
                out.append(self._render_block("".join(self._lines)))
            self._lines = []
        return "".join(out)

    def _cur_head(self, n: int) -> str:
        """The first ``n`` characters of the partial line."""
        head = ""
        for part in self._cur:
            head += part
            if len(head) >= n:
                break
        return head[:n]

    def _take_line(self, line: str, out: list[str]) -> None:
        blank = not line.strip()
        if self._blank_at is not None and not blank and self._block_fence is None:
            if not self._continues(line):
                out.append(self._render_block("".join(self._lines)))
                self._lines = []
            self._blank_at = None
        self._lines.append(line)
        m = _FENCE.match(line)
        if self._block_fence is None:
            if m:
                self._block_fence = m.group(1)
            elif blank and "".join(self._lines[:-1]).strip() and self._blank_at is None:
                self._blank_at = len(self._lines) - 1
        elif (
            m
            and m.group(1)[0] == self._block_fence[0]
            and len(m.group(1)) >= len(self._block_fence)
            and not line.strip()[len(m.group(1)) :].strip()
        ):
            self._block_fence = None

    def _continues(self, line: str) -> bool:
        """Does a line after a blank line continue the block (indented, or the list goes on)?"""
        return line[:1] in (" ", "\t") or (
            _LIST_ITEM.match(line) is not None and bool(self._lines) and _LIST_ITEM.match(self._lines[0]) is not None
        )

    def _render_block(self, block: str) -> str:
        p = self._pipeline
        html, removed = clean_html(p.html(p.parse_in(block, self._env)))
        if removed:
            self._state.report("CR109", "marker residue removed from the output", None)
        return html


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
