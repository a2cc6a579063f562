"""Amazon Bedrock (documentation of 2025-10): the Converse API's ``citationsContent`` blocks
(``content`` and ``citations[{title, source, sourceContent, location}]``) and Knowledge Bases
``RetrieveAndGenerate`` (``output.text`` and ``citations[{generatedResponsePart.textResponsePart
{text, span}, retrievedReferences[{content, location, metadata}]}]``, spans in characters).
Their streams fold into a response."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .common import Builder, index_range, insert_edits, web_url
from .offsets import SpanReader
from .stops import cut_off

__all__ = ["collect_events", "collect_kb_events", "converse", "knowledge_base"]

#: the Converse ``stopReason`` values that leave an answer unfinished (the malformed_* are about tools)
_STOPS = frozenset({"max_tokens", "model_context_window_exceeded", "guardrail_intervened", "content_filtered"})
#: a location's range counts (one, many), end exclusive; a character range (None) is left as offsets
_WHERE: dict[str, tuple[str, str] | None] = {
    "documentChar": None,
    "documentPage": ("page", "pages"),
    "documentChunk": ("chunk", "chunks"),
    "searchResultLocation": ("search result block", "search result blocks"),
}


def _converse_source(cit: Mapping[str, Any], b: Builder) -> tuple[str, str | None]:
    loc = cit.get("location") or {}
    web = loc.get("web") if isinstance(loc, Mapping) else None
    cited = " ".join(str(c.get("text", "")) for c in cit.get("sourceContent") or [] if isinstance(c, Mapping)).strip()
    page = None  # the page the cited text is on, for a PDF
    if isinstance(web, Mapping):
        url = web.get("url")
        sid = b.source(f"url:{url}", "search", title=cit.get("title") or web.get("domain"), url=url)
    else:
        kind, where = next(((k, v) for k, v in loc.items() if k in _WHERE), ("document", {}))
        index = where.get("documentIndex", where.get("searchResultIndex", 0)) if isinstance(where, Mapping) else 0
        key = f"bedrock:{kind}:{index}:{cit.get('source') or cit.get('title')}"
        meta = {"location": kind, "index": index}
        sid = b.source(key, "file", title=cit.get("title") or cit.get("source"), meta=meta)
        if kind in _WHERE and isinstance(where, Mapping):
            units = _WHERE[kind]
            start, end = where.get("start"), where.get("end")
            shown = index_range(*units, start, end) if units else f"characters {start}–{end}"
            b.sources[sid].setdefault("meta", {}).setdefault("locations", []).append(shown)
            page = shown if kind == "documentPage" else None
    return sid, (b.add_line(sid, cited, page) if cited else None)


def converse(resp: Mapping[str, Any], b: Builder) -> list[str]:
    message = (resp.get("output") or {}).get("message") or {}
    out: list[str] = []
    size = 0
    edits: list[tuple[int, int, str]] = []  # each cited block's markers at its end, placed in the whole text
    for block in message.get("content") or []:
        if "text" in block:
            text = str(block["text"])
        elif isinstance(block.get("citationsContent"), Mapping):
            cc = block["citationsContent"]
            text = "".join(str(c.get("text", "")) for c in cc.get("content") or [] if isinstance(c, Mapping))
            markers = [b.marker(*_converse_source(c, b)) for c in cc.get("citations") or [] if isinstance(c, Mapping)]
            if markers:
                end = size + len(text.rstrip())
                edits.append((end, end, "".join(dict.fromkeys(markers))))
        else:
            continue
        out.append(text)
        size += len(text)
    cut_off(b, "stopReason", resp.get("stopReason"), _STOPS)
    return [insert_edits("".join(out), edits)]


def knowledge_base(resp: Mapping[str, Any], b: Builder) -> list[str]:
    text = str((resp.get("output") or {}).get("text") or "")
    reader = SpanReader(text, "codepoint")
    edits = []
    for cit in resp.get("citations") or []:
        part = ((cit.get("generatedResponsePart") or {}).get("textResponsePart")) or {}
        span = part.get("span") or {}
        ids = [b.marker(*kb_source(ref, b)) for ref in cit.get("retrievedReferences") or [] if isinstance(ref, Mapping)]
        if not ids:
            continue
        end = span.get("end")  # inclusive in AWS's examples: read one further (trailing space is ignored)
        at = b.place(reader, span.get("start"), end + 1 if isinstance(end, int) else end, part.get("text"))
        edits.append((at, at, "".join(dict.fromkeys(ids))))
    return [insert_edits(text, edits)]


def kb_source(ref: Mapping[str, Any], b: Builder, *, quote: bool = True) -> tuple[str, str | None]:
    """The source of a Knowledge Bases ``retrievedReference`` and the line quoting its passage."""
    loc = ref.get("location") or {}
    uri = next((v.get("uri") or v.get("url") for v in loc.values() if isinstance(v, Mapping)), None)
    content = (ref.get("content") or {}).get("text")
    title = (ref.get("metadata") or {}).get("title") or (uri.rsplit("/", 1)[-1] if isinstance(uri, str) else None)
    sid = b.source(f"kb:{uri or content}", "file", title=title, url=web_url(uri), meta={"location": uri})
    number = (ref.get("metadata") or {}).get("x-amz-bedrock-kb-document-page-number")  # a float: 7.0
    page = None
    if isinstance(number, int | float) and number >= 1 and number == int(number):
        page = f"page {int(number)}"
        where = b.sources[sid].setdefault("meta", {}).setdefault("locations", [])
        if page not in where:
            where.append(page)
    quoted = quote and isinstance(content, str) and bool(content.strip())
    return sid, b.add_line(sid, str(content), page) if quoted else None


def collect_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold ConverseStream events (``contentBlockDelta``s, ``messageStop``'s ``stopReason``)."""
    blocks: dict[int, dict[str, Any]] = {}
    stop: Any = None
    for e in events:
        if isinstance(e.get("messageStop"), Mapping):
            stop = e["messageStop"].get("stopReason")
        d = e.get("contentBlockDelta")
        if not isinstance(d, Mapping):
            continue
        i = int(d.get("contentBlockIndex", 0))
        block = blocks.setdefault(i, {"text": [], "citations": []})  # text pieces joined once: linear
        delta = d.get("delta") or {}
        if "text" in delta:
            block["text"].append(str(delta["text"]))
        if isinstance(delta.get("citation"), Mapping):
            block["citations"].append(delta["citation"])
    content: list[dict[str, Any]] = []
    for i in sorted(blocks):
        text, cited = "".join(blocks[i]["text"]), blocks[i]["citations"]
        cited_block = {"citationsContent": {"content": [{"text": text}], "citations": cited}}
        content.append(cited_block if cited else {"text": text})
    return {"output": {"message": {"role": "assistant", "content": content}}, "stopReason": stop}


def collect_kb_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold RetrieveAndGenerateStream events (``output`` text pieces, ``citation`` events)."""
    text = "".join(str((e.get("output") or {}).get("text", "")) for e in events if isinstance(e.get("output"), Mapping))
    citations = [e["citation"] for e in events if isinstance(e.get("citation"), Mapping)]
    return {"output": {"text": text}, "citations": citations}
