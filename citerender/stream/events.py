"""Live answers from providers' streaming events: each event in as it arrives, safe output out
(through :class:`StreamRenderer`), citations placed where the one-shot adapter would put them.

Providers send citations as events of their own, after (OpenAI, Cohere), around (Anthropic) or
at the very end of (Gemini) the text they cover. A citation goes after the last word of its span
and after the punctuation that follows it, so text is shown once nothing can still land inside
it: never the last delta (OpenAI, Cohere: its annotations come right after it), never trailing
spaces or a span's end before the next word has come, and — Gemini sends its grounding with the
last chunk — nothing of a Gemini answer before that chunk. Processing is one event at a time, so
any grouping of the events into :meth:`LiveAnswer.feed` calls gives the same output, equal to the
one-shot adapter's answer rendered by :class:`StreamRenderer`. A citation for text already shown
(a provider sending it late) is placed where the text has got to, and reported (CR503).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..diagnostics import Diagnostic
from ..errors import CiterenderError
from ..options import RenderOptions
from ..providers.common import Builder, link_span_at, unknown_annotation, url_source
from ..providers.offsets import Placed, SpanReader
from ..providers.openai import file_source, output_file_marker
from ..providers.zones import Zones
from ..sources.clean import clean_data
from ..sources.model import Registry, registry_from_data
from . import StreamRenderer

__all__ = ["LIVE_PROVIDERS", "LiveAnswer"]

LIVE_PROVIDERS = ("openai-responses", "anthropic", "gemini", "cohere")


class LiveAnswer:
    """One answer streamed by ``provider``: :meth:`feed` events, then :meth:`close`.

    :param sources: sources the citations name by id when the events do not carry them.
    :param wait: show a text part only once it is complete (OpenAI ``output_text.done``, Cohere
        ``content-end``): for streams (or proxies) that send citations after all the text, the
        one-shot result exactly, at the cost of showing nothing of a part before its end.
    Other arguments as for :class:`StreamRenderer` (``output``, ``style``, ``options`` …)."""

    def __init__(
        self,
        provider: str,
        options: RenderOptions | None = None,
        *,
        sources: Registry | None = None,
        output: str = "markdown",
        wait: bool = False,
        **kwargs: Any,
    ) -> None:
        if provider not in LIVE_PROVIDERS:
            raise ValueError(f"live events are read for {', '.join(LIVE_PROVIDERS)}, not {provider!r}")
        opts = RenderOptions.build(options, **kwargs)
        self.provider = provider
        self.registry = Registry()
        self.renderer = StreamRenderer(self.registry, opts, output=output)
        self.b = Builder(opts.fmt, sources)
        self.text = ""
        self.shown = 0  # code points of ``text`` handed to the renderer
        self.hold = 0  # text the provider can no longer cite inside ends here
        self.cites: list[tuple[int, int, str | None, str, str]] = []  # (start, end, cited, unit, marker)
        self.parts: dict[Any, int] = {}  # a provider's part → where it starts in ``text``
        self.block: list[str] = []  # Anthropic: the open block's markers
        self.closed = False
        self.wait = wait
        self.sep = "" if provider in ("anthropic", "gemini", "cohere") else "\n\n"
        self.apart = False  # Anthropic: a tool call came between this text block and the last
        self.fetched: list[dict[str, Any]] = []  # Anthropic: the pages web fetch read, as documents
        self.recited: list[Mapping[str, Any]] = []  # Gemini: citation sources not placed yet
        self.recited_seen: set[tuple[Any, ...]] = set()  # … and every one met (one sent twice is one)
        self.grounding: Mapping[str, Any] | None = None  # Gemini: the last grounding metadata
        self.made: set[tuple[int, str]] = set()  # (place, marker) of each citation shown
        self.zone_from = 0  # where the text's zones are looked for from (all before is shown and settled)

    # ------------------------------------------------------------------ public API

    def feed(self, events: Mapping[str, Any] | Iterable[Mapping[str, Any]]) -> str:
        """Take one event (or several, in order); return the output that is safe to show now.

        An event of a shape the provider never sends (not an object, a field of the wrong type,
        nested too deeply) is a :class:`CiterenderError` naming the provider, as :func:`adapt`
        makes it: never a raw ``TypeError`` or ``AttributeError`` from inside."""
        if self.closed:
            raise ValueError("feed() after close()")
        if isinstance(events, str | bytes) or not isinstance(events, Iterable):
            raise CiterenderError(
                f"feed() takes a {self.provider} event (an object) or a list of them, not {type(events).__name__}"
            )
        batch = [events] if isinstance(events, Mapping) else list(events)
        out = []
        read = getattr(self, "_" + self.provider.replace("-", "_"))
        for e in batch:
            if not isinstance(e, Mapping):
                raise CiterenderError(f"a {self.provider} event must be an object, not {type(e).__name__}")
            surrogates: list[str] = []
            e = clean_data(e, surrogates)  # as adapt() cleans a response: its depth bounded, surrogates replaced
            if surrogates:
                self.b.note(("CR114", "lone surrogates replaced by U+FFFD in an event"))
            try:
                read(e)
            except _SHAPE_ERRORS as err:
                raise _shape_error(self.provider, err) from None
            out.append(self._release(final=False))
        return "".join(out)

    def close(self) -> str:
        """Show everything that is left."""
        if self.closed:
            return ""
        self.closed = True
        self._recite()
        if self.grounding is not None:  # Gemini's Search Suggestions, a paragraph after the answer
            from ..providers.search_suggestions import after_answer, suggestions

            self.text += after_answer(self.text, suggestions(self.grounding, self.b))
        return self._release(final=True) + self.renderer.close()

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """What the renderer found, and every citation that had to be repaired (CR503–CR505)."""
        notes = [Diagnostic.make(code, message) for code, message in self.b.notes]
        return notes + self.renderer.diagnostics

    def bibliography_html(self) -> str:
        return self.renderer.bibliography_html()

    # ------------------------------------------------------------------ placing

    def _append(self, key: Any, delta: str) -> None:
        if key not in self.parts:
            if self.text and self.sep:
                self.text += self.sep  # separate parts are paragraphs, as in the one-shot adapters
            self.parts[key] = len(self.text)
        self.text += delta

    def _sync_sources(self) -> None:
        """Sources made or changed since the last release (the builder's ``touched``), into the
        renderer's registry: each release costs what changed, not every source again."""
        touched, self.b.touched = self.b.touched, {}
        for sid in touched:
            if sid in self.b.sources:
                self.registry.put(registry_from_data([self.b.sources[sid]])[sid])

    def _place(self, start: int, end: int, cited: str | None, unit: str, at: _At) -> tuple[Placed, int, str]:
        """Where a citation goes, where the text resumes after it (past the span when the span is
        only a ``([site](url))`` link the marker replaces, as the one-shot adapter does), and what
        must precede it there; outside code and links, by the adapters' one rule (:mod:`.zones`)."""
        text = self.text
        link = link_span_at(text, start, end) if unit == "codepoint" else None
        if link is not None and link >= self.shown:
            return Placed(start, end, link), end, ""
        before = ""
        if link is not None:  # the link it replaces is shown already: after it, below
            p = Placed(start, end, link)
        else:
            p = at.reader(unit).place(start, end, cited if isinstance(cited, str) else None)
            p.at, before = at.zones().settle(p.at)
        if p.at < self.shown:  # its text is shown already: where the text has got to, out of code and links
            p.at, before = at.zones().settle(self.shown, forward=True)
            p.note = ("CR503", f"a citation arrived after its text was shown: placed at character {p.at}")
        return p, p.at, before

    def _release(self, *, final: bool) -> str:
        """Hand the renderer the text no citation can still land inside, with the markers in it."""
        text = self.text
        body = len(text)  # trailing spaces wait: a citation may go before them
        while body > self.shown and text[body - 1].isspace():
            body -= 1
        limit = len(text) if final else min(self.hold, body)
        placed = []
        where = _At(text, final, self.zone_from)
        for start, end, cited, unit, marker in self.cites:
            p, resume, before = self._place(start, end, cited, unit, where)
            settled = final or resume < body  # a word follows: no more punctuation can come between
            placed.append((p, resume, before + marker, settled))
            if not settled:
                limit = min(limit, max(self.shown, p.at))
        ready = [(p, r, m) for p, r, m, settled in placed if settled and r <= limit]
        self.cites = [c for c, (p, r, _, s) in zip(self.cites, placed, strict=True) if not (s and r <= limit)]
        self._sync_sources()
        chunks: list[str] = []
        pos = self.shown
        for p, resume, marker in sorted(ready, key=lambda x: x[0].at):
            at = p.at
            self.b.note(p.note)
            if at < pos:
                self.b.note(("CR503", f"a citation arrived after its text was shown: placed at character {pos}"))
                at = resume = pos
            if (at, marker) in self.made:  # the same citation twice at one place: once, as insert_edits does
                continue
            self.made.add((at, marker))
            chunks.append(text[pos:at] + marker)
            pos = max(at, resume)
        if limit > pos:
            chunks.append(text[pos:limit])
            pos = limit
        self.shown = max(self.shown, pos)
        if where.found is not None and not final:  # what is shown is settled: the next look starts there
            self.zone_from = max(self.zone_from, where.found.restart(self.shown))
        piece = "".join(chunks)
        return self.renderer.feed(piece) if piece else ""

    # ------------------------------------------------------------------ providers

    def _openai_responses(self, e: Mapping[str, Any]) -> None:
        kind = e.get("type")
        key = (e.get("output_index", 0), e.get("content_index", 0))
        if kind == "response.output_text.delta":
            if not self.wait:
                self.hold = len(self.text)  # the last delta waits for its annotations
            self._append(key, str(e.get("delta", "")))
        elif kind == "response.output_text.annotation.added":
            ann = e.get("annotation") or {}
            base = self.parts.get(key, 0)
            if ann.get("type") == "url_citation" and ann.get("url"):  # the one-shot adapter's sources
                marker = self.b.marker(url_source(ann, self.b))
                start, end = int(ann.get("start_index", 0)), int(ann.get("end_index", 0))
                self.cites.append((base + start, base + end, None, "codepoint", marker))
            elif ann.get("type") == "file_citation":
                at = base + int(ann.get("index", 0))
                self.cites.append((at, at, None, "codepoint", self.b.marker(file_source(ann, self.b))))
            elif ann.get("type") != "url_citation":  # an output file, or a type no adapter reads: never dropped
                other = output_file_marker(ann, self.b) or unknown_annotation(
                    str(ann.get("type") or "untyped"), ann, self.b
                )
                if other is not None:
                    start, end = int(ann.get("start_index", 0) or 0), int(ann.get("end_index", 0) or 0)
                    self.cites.append((base + start, base + end, None, "codepoint", other))
        elif kind in ("response.output_text.done", "response.completed"):
            self.hold = len(self.text)

    def _anthropic(self, e: Mapping[str, Any]) -> None:
        from ..providers.anthropic import citation_marker, fetched_document

        kind = e.get("type")
        d = e.get("delta") or {}
        if kind == "content_block_start" and (e.get("content_block") or {}).get("type") == "text":
            self.block = []
            if self.apart and not self.text.endswith("\n\n"):  # its own paragraph, as the one-shot adapter makes it
                self.text = self.text.rstrip(" \t") + ("\n" if self.text.endswith("\n") else "\n\n")
            self.apart = False
            self._append(("block", e.get("index", 0)), "")
        elif kind == "content_block_start":
            self.apart = self.apart or bool(self.text)
            if (page := fetched_document(e.get("content_block") or {})) is not None:
                self.fetched.append(page)  # a page web fetch read: the documents its citations name
        elif kind == "content_block_delta" and d.get("type") == "text_delta":
            self._append(("block", e.get("index", 0)), str(d.get("text", "")))
        elif kind == "content_block_delta" and d.get("type") == "citations_delta":
            if (m := citation_marker(d.get("citation") or {}, self.b, self.fetched)) is not None:
                self.block.append(m)
        elif kind == "content_block_stop":
            end = len(self.text)
            self.cites.extend((end, end, None, "codepoint", m) for m in dict.fromkeys(self.block))
            self.block = []
        self.hold = len(self.text)  # a block's citations go at its end: nothing inside it waits

    def _gemini(self, e: Mapping[str, Any]) -> None:
        from ..providers.gemini import camel_keys, supports
        from ..providers.gemini_citations import citation_sources, entry_key

        for cand in (camel_keys(e).get("candidates") or [])[:1]:  # an SDK's dump (snake_case) as the API writes it
            for k, part in enumerate((cand.get("content") or {}).get("parts") or []):
                if "text" in part:
                    self._append(("part", k), str(part["text"]))
            meta = cand.get("groundingMetadata")
            if meta:
                self.grounding = meta
                offsets: dict[int, int] = {}  # a part's start in UTF-8 bytes, counted once per part
                for part_index, start, end, cited, marker in supports(meta, self.b):
                    base = self.parts.get(("part", part_index), 0)
                    if base not in offsets:
                        offsets[base] = len(self.text[:base].encode("utf-8"))
                    offset = offsets[base]
                    s = offset + int(start or 0)
                    t = offset + int(end if end is not None else start or 0)
                    self.cites.append((s, t, cited, "utf8", marker))
            for c in citation_sources(cand):  # each chunk's, its offsets from the answer's start
                if (key := entry_key(c)) not in self.recited_seen:
                    self.recited_seen.add(key)
                    self.recited.append(c)
            if meta or cand.get("finishReason"):
                self._recite()  # the text they name is complete
                self.hold = len(self.text)  # grounding comes with the last chunk: until then, nothing is final

    def _recite(self) -> None:
        """Gemini's citation sources met so far, placed after their words as the one-shot adapter
        places them (:func:`~citerender.providers.gemini_citations.recited_places`)."""
        if self.recited:
            from ..providers.gemini_citations import recited_places

            for at, marker in recited_places(self.recited, self.text, self.b):
                self.cites.append((at, at, None, "codepoint", marker))
            self.recited = []

    def _cohere(self, e: Mapping[str, Any]) -> None:
        from ..providers.cohere import citation_marker

        kind = e.get("type")
        delta = (e.get("delta") or {}).get("message") or {}
        if kind == "content-delta":
            if not self.wait:
                self.hold = len(self.text)  # the last delta waits for its citations
            self._append("text", str((delta.get("content") or {}).get("text", "")))
        elif kind == "citation-start":
            cits = delta.get("citations")
            for cit in cits if isinstance(cits, list) else [cits]:
                if isinstance(cit, Mapping) and (marker := citation_marker(cit, self.b)) is not None:
                    self.cites.append(
                        (int(cit.get("start", 0)), int(cit.get("end", 0)), cit.get("text"), "codepoint", marker)
                    )
        elif kind in ("content-end", "message-end"):
            self.hold = len(self.text)


#: what reading an event of the wrong shape raises inside (as :func:`~citerender.providers.adapt` catches)
_SHAPE_ERRORS = (AttributeError, TypeError, ValueError, KeyError, IndexError, OverflowError, RecursionError)


def _shape_error(provider: str, err: BaseException) -> CiterenderError:
    """The clear error for an event ``provider`` never sends, with what reading it tripped on."""
    detail = str(err).splitlines()[0][:120] if str(err) else type(err).__name__
    return CiterenderError(
        f"the {provider} event has an unexpected shape ({detail})",
        hint="feed the events exactly as the provider streams them (each a JSON object)",
    )


class _At:
    """What placing one release's citations reads, made once for all of them: a span reader per
    unit and the text's zones (:class:`Zones`; an answer still streaming may have a code span or
    a link open at its end)."""

    def __init__(self, text: str, final: bool, start: int) -> None:
        self.text, self.final, self.start = text, final, start
        self._readers: dict[str, SpanReader] = {}
        self.found: Zones | None = None

    def reader(self, unit: str) -> SpanReader:
        """The span reader of the text in ``unit``, made on first use."""
        if unit not in self._readers:
            self._readers[unit] = SpanReader(self.text, unit)
        return self._readers[unit]

    def zones(self) -> Zones:
        """The text's zones, found on first use."""
        if self.found is None:
            self.found = Zones(self.text, complete=self.final, start=self.start)
        return self.found
