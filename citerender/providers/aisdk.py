"""Vercel AI SDK ``UIMessage`` (AI SDK 5, documentation of 2025-09), in and out.

In: ``text``, ``source-url`` and ``source-document`` parts (or ``generateText``'s ``content``). A
source with a span (``startIndex``/``endIndex``, ``citedText``, maybe in ``providerMetadata``) goes
after the words it names in the text part before it; a spanless one at that part's end, unless the
part's own ``url_citation`` annotations place it. Tool results naming pages are consulted; a stream
folds into a message, its ``finish`` reason or ``abort`` reported (CR514).

Out (``--to ai-sdk``): the text without markers, one source part per reference (number and lines
in ``providerMetadata.citerender``) and a ``data-citerender-citations`` part with each group's offset."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .common import Builder, consult, insert_edits, searched, url_citations, url_source
from .offsets import SpanReader
from .stops import cut_off

if TYPE_CHECKING:
    from ..rendering.exports.parsed import Parsed

__all__ = ["collect_stream", "to_ui_message", "ui_message"]


def ui_message(msg: Mapping[str, Any], b: Builder) -> list[str]:
    reader = _Message(b)
    for part in msg.get("parts") or []:
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if isinstance(kind, str) and kind.startswith("tool-"):  # a web search tool's result (``tool-result``,
            reader.read += searched(part.get("output", part.get("result")))  # or a UI message's tool part)
        elif kind == "text":
            reader.text(part)
        elif kind in ("source-url", "source-document", "source"):  # generateText's content: ``source``
            reader.source(part)
    cut_off(b, "finishReason", msg.get("finishReason"), {"length", "content-filter", "error"})
    cut_off(b, "type", "abort" if "aborted" in msg else None, {"abort"}, detail=msg.get("aborted"))
    return reader.close()


class _Message:
    """One message read part by part: its text parts, and where each source part puts its marker."""

    def __init__(self, b: Builder) -> None:
        self.b = b
        self.out: list[str] = []  # the text parts
        self.pending: list[str] = []  # spanless sources since the last text part: cited at its end
        self.spanned: set[str] = set()  # URLs the last text part's provider annotations placed
        self.placed: list[list[tuple[int, int, str]]] = []  # each text part's markers
        self.read: list[Any] = []  # pages a tool read: consulted, named after the cited ones (as OpenAI's are)
        self.readers: dict[int, SpanReader] = {}  # one per text part, however many sources cite it

    def flush(self) -> None:
        if self.pending and self.out:  # at the part's end, placed with the rest (out of code and links)
            end = len(self.out[-1].rstrip())
            self.placed[-1].append((end, end, self.b.fmt.marker(*dict.fromkeys(self.pending))))
        elif self.pending:
            self.b.note(("CR505", "sources came before any text: listed, not cited"))
        self.pending.clear()

    def text(self, part: Mapping[str, Any]) -> None:
        """A text part, and the spans its provider's own annotations (passed through) place."""
        self.flush()
        text = str(part.get("text", ""))
        self.out.append(text)
        anns = _provider_annotations(part)
        self.placed.append(url_citations(text, anns, self.b) if anns else [])
        self.spanned = {str(a.get("url")) for a in anns if _has_span(a)}

    def source(self, part: Mapping[str, Any]) -> None:
        """A source part: placed by its span in the text part before it, else cited at its end."""
        b, url = self.b, part.get("url")
        title = part.get("title") or part.get("filename")
        source_id = part.get("sourceId", part.get("id"))
        if url:  # the key the provider's own annotations use, so both name one source
            sid = url_source({"url": url, "title": title}, b)
            b.sources[sid].setdefault("meta", {}).setdefault("sourceId", source_id)
        else:
            sid = b.source(f"doc:{source_id}", "file", title=title, meta={"sourceId": source_id})
        span = _span(part)
        if span is None and self.out and url in self.spanned:
            return  # placed already, by the text part's own annotation of it
        if span is None or not self.out:
            self.pending.append(sid)
            return
        start, end, cited = span  # into the text part it follows (UTF-16: the SDK is JavaScript)
        locator = b.add_line(sid, cited) if cited and cited.strip() else None
        index = len(self.out) - 1
        reader = self.readers.get(index) or self.readers.setdefault(index, SpanReader(self.out[-1], "utf16"))
        at = b.place(reader, start, end, cited)
        self.placed[-1].append((at, at, b.marker(sid, locator)))

    def close(self) -> list[str]:
        self.flush()
        out = [insert_edits(text, edits) for text, edits in zip(self.out, self.placed, strict=True)]
        consult(self.read, self.b)
        return ["".join(out)]  # text parts are consecutive pieces of one message: their own spacing holds


def _provider_annotations(part: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ``url_citation`` annotations a text part's ``providerMetadata`` passes through."""
    out: list[Mapping[str, Any]] = []
    for meta in (part.get("providerMetadata") or {}).values():
        anns = meta.get("annotations") if isinstance(meta, Mapping) else None
        if isinstance(anns, list):
            out.extend(a for a in anns if isinstance(a, Mapping) and a.get("type") == "url_citation")
    return out


def _has_span(a: Mapping[str, Any]) -> bool:
    start, end = a.get("start_index"), a.get("end_index")
    return isinstance(start, int) and isinstance(end, int) and end > start


def _span(part: Mapping[str, Any]) -> tuple[int, int, str | None] | None:
    """A source part's span (and ``citedText``), on the part or in its ``providerMetadata``, or None."""
    holders = [part, *(v for v in (part.get("providerMetadata") or {}).values() if isinstance(v, Mapping))]
    for h in holders:
        start, end = h.get("startIndex"), h.get("endIndex")
        if isinstance(start, int) and isinstance(end, int) and not isinstance(start, bool):
            cited = h.get("citedText")
            return start, end, cited if isinstance(cited, str) else None
    return None


def collect_stream(chunks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold UI message stream chunks, or ``generateText``'s content parts, into a ``UIMessage``."""
    parts: list[dict[str, Any]] = []
    texts: dict[str, dict[str, Any]] = {}
    deltas: dict[str, list[str]] = {}  # joined once at the end: a long stream stays linear
    ended: dict[str, Any] = {}  # how the stream says the answer ended: ``finish``'s reason, an ``abort``
    for c in chunks:
        kind = c.get("type")
        if kind == "abort":  # its reason, else that it was aborted
            ended["aborted"] = str(c.get("reason") or "")
        elif kind == "finish" and isinstance(c.get("finishReason"), str):
            ended["finishReason"] = c["finishReason"]
        elif kind in ("text-start", "text-delta"):
            key = str(c.get("id"))
            if kind == "text-start" or key not in texts:  # begun (again)
                texts[key] = {"type": "text", "text": ""}
                deltas.pop(key, None)
                parts.append(texts[key])
            if kind == "text-delta":  # a UI message stream's ``delta``, streamText's full stream's ``text``
                deltas.setdefault(key, []).append(str(c.get("delta", c.get("text", ""))))
        elif kind in ("text", "source-url", "source-document", "source"):  # a whole part (generateText's content)
            parts.append(dict(c))
        elif isinstance(kind, str) and kind.startswith("tool-") and ("output" in c or "result" in c):
            parts.append(dict(c))  # a tool's result (``tool-result``, ``tool-output-available``): pages it read
    for key, pieces in deltas.items():
        texts[key]["text"] += "".join(pieces)
    return {"role": "assistant", "parts": parts, **ended}


def to_ui_message(p: Parsed, message_id: str = "citerender") -> dict[str, Any]:
    """The parsed answer as a ``UIMessage`` (see the module docstring)."""
    from ..rendering.exports.json import to_json_data  # only the export pays for it

    data = to_json_data(p)
    parts: list[dict[str, Any]] = [{"type": "text", "text": data["text"], "state": "done"}]
    listed = [(ref, False) for ref in data["bibliography"]] + [(ref, True) for ref in data["consulted"]]
    for ref, consulted in listed:
        ours = {"number": ref["number"], "lines": ref["lines"], "verified": ref["verified"]}
        if consulted:  # listed after the cited ones, cited nowhere (the consulted option)
            ours["consulted"] = True
        part: dict[str, Any] = {"type": "source-url" if ref["url"] else "source-document", "sourceId": ref["id"]}
        if ref["url"]:
            part.update(url=ref["url"], title=ref["title"] or ref["domain"])
        else:
            part.update(mediaType="text/plain", title=ref["title"] or ref["id"])
        parts.append({**part, "providerMetadata": {"citerender": ours}})
    citations = [
        {
            "offset": c["clean"]["offset"],
            "offsetUtf16": c["clean"]["offset_utf16"],
            "numbers": sorted({s["number"] for s in c["sources"]}),
            "sourceIds": [s["id"] for s in c["sources"]],
        }
        for c in data["citations"]
    ]
    parts.append({"type": "data-citerender-citations", "data": citations})
    return {"id": message_id, "role": "assistant", "parts": parts}
