"""Vercel AI SDK ``UIMessage`` (AI SDK 5, documentation of 2025-09), in and out.

In: ``parts`` of type ``text``, ``source-url`` (``sourceId``, ``url``, ``title``) and
``source-document`` (``sourceId``, ``mediaType``, ``title``, ``filename``). A source with a span
(``startIndex``/``endIndex``, and ``citedText``, which newer versions carry in ``providerMetadata``,
as the LangChain adapter does) is placed after the words it names in the text part it follows;
any other source has no position — the SDK shows them after the text — so a text part is cited
by the spanless source parts that follow it (one group at its end). A UI message stream
(``text-delta``, ``source-url`` … chunks) folds into a message.

``generateText``'s ``content`` (or ``steps[i].content``, and ``streamText``'s full stream) is read
too: ``text`` parts and ``source`` parts (``sourceType`` ``url`` or ``document``); a tool's result
that names web pages (a provider's web search: its ``sources``, the page an ``openPage`` or
``findInPage`` action read) gives consulted sources; reasoning left out. A text part that carries
its provider's own annotations in ``providerMetadata`` (OpenAI's, Azure's and xAI's
``url_citation`` spans, which the SDK passes through) places each source where those spans say,
instead of grouping every source at the part's end.

Out (``--to ai-sdk``): a ``UIMessage`` a Next.js front end renders as it is — the answer's text
without markers, one ``source-url``/``source-document`` part per reference in our numbering (the
number and cited lines in ``providerMetadata.citerender``; with the consulted option, the
sources never cited after them, marked ``consulted``), and a ``data-citerender-citations``
part listing every citation group with its offset in that text (code points and UTF-16) and
its numbers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .common import Builder, consult, insert_edits, searched, url_citations, url_source
from .offsets import SpanReader

if TYPE_CHECKING:
    from ..rendering.exports.parsed import Parsed

__all__ = ["collect_stream", "to_ui_message", "ui_message"]


def ui_message(msg: Mapping[str, Any], b: Builder) -> list[str]:
    out: list[str] = []
    pending: list[str] = []
    spanned: set[str] = set()  # URLs the last text part's provider annotations placed
    placed: dict[int, list[tuple[int, int, str]]] = {}  # text part -> markers of sources with a span
    read: list[Any] = []  # pages a tool read: consulted, named after the cited ones (as OpenAI's are)

    readers: dict[int, SpanReader] = {}  # one per text part, however many sources cite it

    def flush() -> None:
        if pending and out:  # at the part's end, placed with the rest (out of code and links)
            end = len(out[-1].rstrip())
            placed.setdefault(len(out) - 1, []).append((end, end, b.fmt.marker(*dict.fromkeys(pending))))
        elif pending:
            b.note(("CR505", "sources came before any text: listed, not cited"))
        pending.clear()

    for part in msg.get("parts") or []:
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind == "source":  # generateText's content: one type, told apart by sourceType
            kind = "source-url" if part.get("sourceType") == "url" else "source-document"
        if isinstance(kind, str) and kind.startswith("tool-"):  # a web search tool's result (``tool-result``,
            read += searched(part.get("output", part.get("result")))  # or a UI message's tool part)
            continue
        if kind == "text":
            flush()
            text = str(part.get("text", ""))
            out.append(text)
            anns = _provider_annotations(part)
            edits = url_citations(text, anns, b) if anns else []
            if edits:
                placed.setdefault(len(out) - 1, []).extend(edits)
            spanned = {str(a.get("url")) for a in anns if _has_span(a)}
        elif kind in ("source-url", "source-document"):
            url = part.get("url")
            title = part.get("title") or part.get("filename")
            if url:  # the key the provider's own annotations use, so both name one source
                sid = url_source({"url": url, "title": title}, b)
                b.sources[sid].setdefault("meta", {}).setdefault("sourceId", part.get("sourceId", part.get("id")))
            else:
                sid = b.source(
                    f"doc:{part.get('sourceId', part.get('id'))}",
                    "file",
                    title=title,
                    meta={"sourceId": part.get("sourceId", part.get("id"))},
                )
            span = _span(part)
            if span is None and out and url in spanned:
                continue  # placed already, by the text part's own annotation of it
            if span is None or not out:
                pending.append(sid)
                continue
            start, end, cited = span  # into the text part it follows (UTF-16: the SDK is JavaScript)
            locator = b.add_line(sid, cited) if cited and cited.strip() else None
            reader = readers.get(len(out) - 1) or readers.setdefault(len(out) - 1, SpanReader(out[-1], "utf16"))
            at = b.place(reader, start, end, cited)
            placed.setdefault(len(out) - 1, []).append((at, at, b.marker(sid, locator)))
    flush()
    for index, edits in placed.items():
        out[index] = insert_edits(out[index], edits)
    consult(read, b)
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
    """A source part's span in the text before it: ``startIndex``/``endIndex`` on the part or in
    its ``providerMetadata`` (the LangChain adapter's, with ``citedText``), or None."""
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
    for c in chunks:
        kind = c.get("type")
        if kind == "text-start":
            texts[str(c.get("id"))] = part = {"type": "text", "text": ""}
            deltas.pop(str(c.get("id")), None)
            parts.append(part)
        elif kind == "text-delta":  # a UI message stream's ``delta``, streamText's full stream's ``text``
            key = str(c.get("id"))
            if key not in texts:
                texts[key] = {"type": "text", "text": ""}
                parts.append(texts[key])
            deltas.setdefault(key, []).append(str(c.get("delta", c.get("text", ""))))
        elif kind in ("text", "source-url", "source-document", "source"):  # a whole part (generateText's content)
            parts.append(dict(c))
        elif isinstance(kind, str) and kind.startswith("tool-") and ("output" in c or "result" in c):
            parts.append(dict(c))  # a tool's result (``tool-result``, ``tool-output-available``): pages it read
    for key, pieces in deltas.items():
        texts[key]["text"] += "".join(pieces)
    return {"role": "assistant", "parts": parts}


def to_ui_message(p: Parsed, message_id: str = "citerender") -> dict[str, Any]:
    """The parsed answer as a ``UIMessage`` (see the module docstring)."""
    from ..rendering.exports.json import to_json_data  # only the export pays for it

    data = to_json_data(p)
    parts: list[dict[str, Any]] = [{"type": "text", "text": data["text"], "state": "done"}]
    listed = [(ref, False) for ref in data["bibliography"]] + [(ref, True) for ref in data["consulted"]]
    for ref, consulted in listed:
        meta: dict[str, Any] = {
            "citerender": {"number": ref["number"], "lines": ref["lines"], "verified": ref["verified"]}
        }
        if consulted:  # listed after the cited ones, cited nowhere (the consulted option)
            meta["citerender"]["consulted"] = True
        if ref["url"]:
            part = {
                "type": "source-url",
                "sourceId": ref["id"],
                "url": ref["url"],
                "title": ref["title"] or ref["domain"],
            }
        else:
            part = {
                "type": "source-document",
                "sourceId": ref["id"],
                "mediaType": "text/plain",
                "title": ref["title"] or ref["id"],
            }
        parts.append({**part, "providerMetadata": meta})
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
