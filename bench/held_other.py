"""What the other providers' recordings hold, read from their documented fields (see
:mod:`bench.corpus_held`): Anthropic Messages, Gemini and Vertex AI ``generateContent`` and the
Interactions API, Cohere v2, Bedrock Converse and Knowledge Bases, Mistral's Conversations, the
AI SDK's parts, LangChain messages, LlamaIndex, RAGFlow and Vertex AI Search answers."""

from __future__ import annotations

import re
from typing import Any

from bench.corpus_held import Held, is_web
from bench.held_openai import annotation, annotations, numbers, without_link_spans

# --- Anthropic --------------------------------------------------------------------------------


def _anthropic_blocks(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        return list(data.get("content") or [])
    blocks: dict[int, dict[str, Any]] = {}
    for e in data:
        t = e.get("type")
        if t == "message_start":
            for i, b in enumerate((e.get("message") or {}).get("content") or []):
                blocks[i] = dict(b)
        elif t == "content_block_start":
            blocks[e["index"]] = dict(e.get("content_block") or {})
        elif t == "content_block_delta":
            b = blocks.setdefault(e["index"], {"type": "text", "text": ""})
            d = e.get("delta") or {}
            if d.get("type") == "text_delta":
                b["text"] = str(b.get("text") or "") + str(d.get("text") or "")
            elif d.get("type") == "citations_delta":
                b["citations"] = [*(b.get("citations") or []), d.get("citation")]
    return [blocks[i] for i in sorted(blocks)]


def anthropic(data: Any) -> Held:
    h = Held("anthropic")
    text = ""
    blocks = _anthropic_blocks(data)
    fetched = [_fetched(b) for b in blocks if _fetched(b)]
    for block in blocks:
        if block.get("type") != "text":
            continue
        text += str(block.get("text") or "")
        for c in block.get("citations") or []:
            h.cite(
                len(text), (c.get("type"), c.get("url"), c.get("cited_text"), c.get("document_index"), c.get("source"))
            )
            h.url(c.get("url"), c.get("source"))
            if c.get("type") in ("char_location", "page_location", "content_block_location"):
                page = _fetched_page(c, fetched)
                h.url(page.get("url"))
                h.file(c.get("document_title") if not page else None)
    h.text = text
    return h


def _fetched(block: dict[str, Any]) -> dict[str, Any] | None:
    """The page a ``web_fetch_tool_result`` read: its ``url`` and its document's ``title``."""
    content = block.get("content") if block.get("type") == "web_fetch_tool_result" else None
    if not isinstance(content, dict) or not isinstance(content.get("url"), str):
        return None
    doc = content.get("content") if isinstance(content.get("content"), dict) else {}
    return {"url": content["url"], "title": doc.get("title")}


def _fetched_page(c: dict[str, Any], fetched: list[Any]) -> dict[str, Any]:
    """The fetched page a document citation names: by its title, else by its index."""
    named = [f for f in fetched if c.get("document_title") and f["title"] == c.get("document_title")]
    i = c.get("document_index")
    if named:
        return dict(named[0])
    return dict(fetched[i]) if isinstance(i, int) and 0 <= i < len(fetched) and not c.get("document_title") else {}


# --- Gemini and Vertex AI generateContent ----------------------------------------------------


def gemini(data: Any) -> Held:
    h = Held("gemini")
    text = ""
    for chunk in data if isinstance(data, list) else [data]:
        cand = (chunk.get("candidates") or [{}])[0]
        for p in (cand.get("content") or {}).get("parts") or []:
            if isinstance(p.get("text"), str) and not p.get("thought"):
                text += p["text"]
        g = cand.get("groundingMetadata") or {}
        for s in g.get("groundingSupports") or []:
            _support(h, s, g.get("groundingChunks") or [])
        meta = cand.get("citationMetadata") or {}
        for c in meta.get("citationSources") or meta.get("citations") or []:
            h.cite(c.get("endIndex"), (c.get("uri"), c.get("title")))
            h.url(c.get("uri"))
    h.text = text
    return h


def _support(h: Held, s: dict[str, Any], chunks: list[Any]) -> None:
    """A grounding support: a place (its segment's end) citing the chunks it names."""
    idx = s.get("groundingChunkIndices") or []
    seg = s.get("segment") or {}
    h.cite(seg.get("endIndex"), idx, bool(seg.get("endIndex")))
    for i in idx:
        c = chunks[i] if isinstance(i, int) and 0 <= i < len(chunks) else {}
        for kind in ("web", "retrievedContext", "maps"):
            h.url((c.get(kind) or {}).get("uri"))
        h.url((c.get("image") or {}).get("sourceUri"))
        h.file((c.get("retrievedContext") or {}).get("title"))


def interactions(data: Any) -> Held:
    h = Held("gemini-interactions")
    parts: list[tuple[str, list[Any]]] = []
    if isinstance(data, dict):
        for step in data.get("steps") or []:
            for c in step.get("content") or []:
                if c.get("type") == "text":
                    parts.append((str(c.get("text") or ""), c.get("annotations") or []))
    else:
        by: dict[Any, list[Any]] = {}
        for e in data:
            d = e.get("delta") or {}
            if e.get("event_type") == "step.delta" and d.get("type") in ("text", "text_annotation_delta"):
                t = by.setdefault(e.get("index"), ["", []])
                t[0] += str(d.get("text") or "")
                t[1] += d.get("annotations") or []
        parts = [(t, a) for t, a in by.values()]
    for n, (_, notes) in enumerate(parts):
        annotations(notes, h, n)
    h.text = "\n\n".join(t for t, _ in parts)
    return h


# --- Cohere, Bedrock --------------------------------------------------------------------------


def cohere(data: Any) -> Held:
    h = Held("cohere")
    text, cits = "", []
    if isinstance(data, dict):
        msg = data.get("message") or {}
        text = "".join(str(c.get("text") or "") for c in msg.get("content") or [] if c.get("type") == "text")
        cits = msg.get("citations") or []
    else:
        for e in data:
            m = (e.get("delta") or {}).get("message") or {}
            if e.get("type") == "content-delta":
                text += str((m.get("content") or {}).get("text") or "")
            elif e.get("type") == "citation-start":
                cits.append(m.get("citations") or {})
    for c in cits:
        h.cite(c.get("end"), c.get("sources"))
        for s in c.get("sources") or []:
            h.url((s.get("document") or {}).get("url"))
    h.text = text
    return h


def _converse_blocks(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        return list(((data.get("output") or {}).get("message") or {}).get("content") or [])
    blocks: dict[int, dict[str, Any]] = {}
    for e in data:
        d = e.get("contentBlockDelta")
        if not d:
            continue
        b = blocks.setdefault(d.get("contentBlockIndex", 0), {"text": "", "citations": []})
        b["text"] += str((d.get("delta") or {}).get("text") or "")
        if (d.get("delta") or {}).get("citation"):
            b["citations"].append(d["delta"]["citation"])
    return [blocks[i] for i in sorted(blocks)]


def bedrock_converse(data: Any) -> Held:
    h = Held("bedrock-converse")
    text = ""
    for b in _converse_blocks(data):
        cc = b.get("citationsContent")
        if cc:
            text += "".join(str(c.get("text") or "") for c in cc.get("content") or [])
            cits = cc.get("citations") or []
        else:
            text += str(b.get("text") or "")
            cits = b.get("citations") or []
        for c in cits:
            h.cite(len(text), (c.get("location"), c.get("title")))
            h.url(((c.get("location") or {}).get("web") or {}).get("url"))
            if not ((c.get("location") or {}).get("web")):
                h.file(c.get("title"))
    h.text = text
    return h


def bedrock_kb(data: Any) -> Held:
    h = Held("bedrock-kb")
    events = data if isinstance(data, list) else [data]
    text = "".join(str((e.get("output") or {}).get("text") or "") for e in events)
    cits = [c for e in events for c in (e.get("citations") or ([e["citation"]] if e.get("citation") else []))]
    for c in cits:
        span = ((c.get("generatedResponsePart") or {}).get("textResponsePart") or {}).get("span") or {}
        refs = c.get("retrievedReferences") or []
        h.cite(span.get("end"), len(refs), span.get("end") is not None)
        for r in refs:
            loc = r.get("location") or {}
            h.url((loc.get("webLocation") or {}).get("url"))
            s3 = (loc.get("s3Location") or {}).get("uri")
            h.file(s3.rsplit("/", 1)[-1] if isinstance(s3, str) else None)
    h.text = text
    return h


# --- Frameworks -------------------------------------------------------------------------------


def mistral(data: Any) -> Held:
    h = Held("mistral")
    text = ""
    for out in data.get("outputs") or []:
        content = out.get("content")
        if isinstance(content, str):
            text += content
            continue
        for c in content or []:
            if c.get("type") == "tool_reference":
                h.cite(len(text), (c.get("url"), c.get("title")))
                h.url(c.get("url"))
            else:
                text += str(c.get("text") or "")
    h.text = text
    return h


def langchain(data: Any) -> Held:
    h = Held("langchain")
    msgs = data if isinstance(data, list) else [data]
    text = ""
    for m in msgs:
        blocks = m.get("content_blocks") or m.get("content") or []
        if isinstance(blocks, str):
            text += blocks
            continue
        for b in blocks:
            if b.get("type") != "text":
                continue
            text += without_link_spans(str(b.get("text") or ""), b.get("annotations") or [])
            for a in b.get("annotations") or []:
                if a.get("type") == "citation":
                    h.cite(a.get("end_index"), a.get("url"), a.get("end_index") is not None)
                    h.url(a.get("url"))
                else:
                    annotation(a, h, 0)
            for c in b.get("citations") or []:  # Anthropic's own blocks
                h.cite(len(text), (c.get("type"), c.get("url"), c.get("cited_text"), c.get("document_index")))
                h.url(c.get("url"))
                h.file(c.get("document_title"))
    h.text = text
    return h


def ai_sdk(data: Any) -> Held:
    h = Held("ai-sdk")
    parts = data.get("parts") if isinstance(data, dict) else data
    text = ""
    for p in parts or []:
        t = p.get("type")
        if t in ("text", "text-delta"):
            notes = [
                a for meta in (p.get("providerMetadata") or {}).values() for a in (meta or {}).get("annotations") or []
            ]
            annotations(notes, h, len(text))
            text += without_link_spans(str(p.get("text") or p.get("delta") or ""), notes)
        elif t in ("source", "source-url", "source-document"):
            h.cite("source", (p.get("sourceId") or p.get("id"), p.get("url"), p.get("title")), False)
            h.url(p.get("url"))
            if t == "source-document" or p.get("sourceType") == "document":
                h.file(p.get("filename") or p.get("title"))
    h.text = text
    return h


def llamaindex(data: Any) -> Held:
    h = Held("llamaindex")
    nodes = data.get("source_nodes") or []

    def nth(n: str) -> Any:
        i = int(n) - 1
        if not 0 <= i < len(nodes):
            return None
        meta = (nodes[i].get("node") or {}).get("metadata") or {}
        h.file(meta.get("file_name"))
        return {"url": meta.get("url")}

    h.text = numbers(str(data.get("response") or ""), h, nth, 0)
    return h


def ragflow(data: Any) -> Held:
    h = Held("ragflow")
    d = data["data"]
    chunks = (d.get("reference") or {}).get("chunks") or []

    def one(m: re.Match[str]) -> str:
        i = int(m.group(1))
        if 0 <= i < len(chunks):
            h.cite(m.start(), i)
            h.url(chunks[i].get("url"))
            h.file(chunks[i].get("document_name"))
            return ""
        return m.group(0)

    h.text = re.sub(r"\s?##(\d+)\$\$", one, str(d.get("answer") or ""))
    return h


def vertex_search(data: Any) -> Held:
    h = Held("vertex-ai-search")
    a = data["answer"]
    refs = a.get("references") or []
    for c in a.get("citations") or []:
        h.cite(c.get("endIndex"), c.get("sources"))
        for s in c.get("sources") or []:
            i = int(s.get("referenceId", -1))
            doc = ((refs[i] if 0 <= i < len(refs) else {}).get("chunkInfo") or {}).get("documentMetadata") or {}
            uri = doc.get("uri")
            h.url(uri)
            if not is_web(uri):
                h.file(doc.get("title"))
    h.text = str(a.get("answerText") or "")
    return h


READERS = {
    "anthropic": anthropic,
    "gemini": gemini,
    "gemini-interactions": interactions,
    "cohere": cohere,
    "bedrock-converse": bedrock_converse,
    "bedrock-kb": bedrock_kb,
    "mistral": mistral,
    "langchain": langchain,
    "ai-sdk": ai_sdk,
    "llamaindex": llamaindex,
    "ragflow": ragflow,
    "vertex-ai-search": vertex_search,
}
