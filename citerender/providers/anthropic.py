"""Anthropic Messages: ``citations`` on text blocks (``char_location``, ``page_location``,
``content_block_location``, ``web_search_result_location``, ``web_fetch_result_location``,
``search_result_location``, each with ``cited_text``); any other type is reported (CR507), its URL
kept. Text blocks that tool calls separate are separate paragraphs. A document location names the
request's documents, then the pages ``web_fetch`` read (documentation of 2026-05): a fetched page
is one source, linked. An unfinished ``stop_reason`` is reported (CR514)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..syntax.escapes import printable
from .common import Builder, as_map, index_range, insert_edits, unknown_annotation, web_url
from .offsets import after_last_word
from .stops import cut_off

__all__ = ["CITATION_KINDS", "citation_marker", "citation_source", "collect_events", "fetched_document", "messages"]

CITATION_KINDS = (
    "web_search_result_location",
    "web_fetch_result_location",
    "search_result_location",
    "char_location",
    "page_location",
    "content_block_location",
)
#: a stream's blocks by index, and the pieces of their fields (joined once: linear in the stream)
_Blocks = dict[int, dict[str, Any]]
_Deltas = dict[tuple[int, str], list[str]]
#: the ``stop_reason`` values that leave an answer unfinished ("Handling stop reasons", 2026)
STOPS = frozenset({"max_tokens", "model_context_window_exceeded", "refusal", "pause_turn"})


def citation_source(c: Mapping[str, Any], b: Builder, documents: Sequence[Mapping[str, Any]]) -> tuple[str, str | None]:
    """The source one citation names, and the locator of its ``cited_text`` (a numbered line)."""
    kind = c.get("type")
    cited = str(c.get("cited_text", "") or "")
    page = None  # the page the cited text is on, for a PDF
    if kind in ("web_search_result_location", "web_fetch_result_location"):
        sid = b.source(f"url:{c.get('url')}", "search", title=c.get("title"), url=c.get("url"))
    elif kind == "search_result_location":
        sid = _search_result(c, b)
    else:
        sid, page = _document_source(c, b, documents)
    return sid, (b.add_line(sid, cited, page) if cited else None)


def _search_result(c: Mapping[str, Any], b: Builder) -> str:
    """A search result the caller passed in: its ``source`` linked, or shown beside its title."""
    src = " ".join(str(c.get("source") or "").split())[:500]
    title = " ".join(str(c.get("title") or "").split())[:500]
    url = web_url(src)
    if not url and src and title and src != title:
        title = f"{title} ({src})"
    key = f"result:{src or c.get('search_result_index')}"
    sid = b.source(key, "search", title=title or src or None, url=url, meta={"source": src} if src else None)
    blocks = index_range("block", "blocks", c.get("start_block_index"), c.get("end_block_index"))
    b.sources[sid].setdefault("meta", {}).setdefault("locations", []).append(blocks)
    return sid


def _document_source(
    c: Mapping[str, Any], b: Builder, documents: Sequence[Mapping[str, Any]]
) -> tuple[str, str | None]:
    """A document's source (a fetched page is that page) and the page its cited text is on."""
    idx = c.get("document_index", 0)
    doc = _document(c, documents)
    # an untitled document is named by its place in the request, never by its id (turn0file0)
    fallback = f"document {idx + 1}" if isinstance(idx, int) and idx >= 0 and not doc.get("url") else None
    title = c.get("document_title") or doc.get("title") or fallback
    meta = {"document_index": idx}
    if doc.get("fetched") and isinstance(doc.get("url"), str):
        sid = b.source(f"url:{doc['url']}", "search", title=title, url=doc["url"], meta=meta)
    else:
        sid = b.source(f"doc:{idx}", "file", title=title, url=doc.get("url"), meta=meta)
    where = page = None
    kind = c.get("type")
    if kind == "page_location":
        where = page = index_range("page", "pages", c.get("start_page_number"), c.get("end_page_number"))
    elif kind == "content_block_location":
        where = index_range("block", "blocks", c.get("start_block_index"), c.get("end_block_index"))
    elif kind == "char_location":
        where = f"characters {c.get('start_char_index')}–{c.get('end_char_index')}"
    if where:
        b.sources[sid].setdefault("meta", {}).setdefault("locations", []).append(where)
    return sid, page


def _document(c: Mapping[str, Any], documents: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The document a citation's ``document_index`` names, or the one its ``document_title`` names."""
    idx = c.get("document_index", 0)
    doc = documents[idx] if isinstance(idx, int) and 0 <= idx < len(documents) else {}
    title = c.get("document_title")
    if title and doc.get("title") != title:
        named = [d for d in documents if d.get("title") == title]
        if len(named) == 1:
            return named[0]
    return doc


def fetched_document(block: Mapping[str, Any]) -> dict[str, Any] | None:
    """The page a ``web_fetch_tool_result`` block read, as a document citations may name, or None."""
    content = block.get("content")
    if block.get("type") != "web_fetch_tool_result" or not isinstance(content, Mapping):
        return None
    if content.get("type") != "web_fetch_result" or not isinstance(content.get("url"), str):
        return None
    doc = content.get("content")
    title = doc.get("title") if isinstance(doc, Mapping) else None
    return {"url": content["url"], "title": title if isinstance(title, str) else None, "fetched": True}


def messages(resp: Mapping[str, Any], b: Builder, documents: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    """A block's citations go after its last word, past the punctuation the next block opens with
    (``…week`` + ``. Next`` → ``…week.[1] Next``), as everywhere (:func:`.offsets.after_last_word`)."""
    text = ""
    edits: list[tuple[int, int, str]] = []
    blocks = [bl for bl in resp.get("content", []) or [] if isinstance(bl, Mapping)]
    documents = [*documents, *(d for bl in blocks if (d := fetched_document(bl)) is not None)]
    apart = False  # a tool call (or its result) came between this text block and the last
    tool_urls: dict[str, str] = {}
    for block in blocks:
        if block.get("type") != "text":
            apart = apart or bool(text)
            _tool_block(block, b, tool_urls)
            continue
        piece = str(block.get("text", ""))
        if apart and piece and not text.endswith("\n\n"):
            text = text.rstrip(" \t") + ("\n" if text.endswith("\n") else "\n\n")  # its own paragraph
        apart = False
        text += piece
        markers = [m for c in block.get("citations") or [] if (m := citation_marker(c, b, documents)) is not None]
        edits.extend((len(text), len(text), m) for m in dict.fromkeys(markers))
    placed = [(after_last_word(text, at), after_last_word(text, at), m) for at, _, m in edits]
    why = as_map(resp.get("stop_details")).get("explanation")  # a refusal's explanation
    cut_off(b, "stop_reason", resp.get("stop_reason"), STOPS, detail=why)
    return [insert_edits(text, placed)]


def citation_marker(c: Any, b: Builder, documents: Sequence[Mapping[str, Any]]) -> str | None:
    """The marker of one citation (of a type read here, or another carrying a URL: CR507), or None."""
    if not isinstance(c, Mapping):
        return None
    if c.get("type") in CITATION_KINDS:
        return b.marker(*citation_source(c, b, documents))
    return unknown_annotation(str(c.get("type") or "untyped"), c, b)


def _tool_block(block: Mapping[str, Any], b: Builder, tool_urls: dict[str, str]) -> None:
    """Every search result and fetched page a source; a failed search or fetch reported (CR511)."""
    kind, content = block.get("type"), block.get("content")
    if kind == "server_tool_use" and isinstance(block.get("input"), Mapping):
        asked = block["input"].get("url", block["input"].get("query"))  # a fetch's page, a search's query
        if isinstance(asked, str):
            tool_urls[str(block.get("id"))] = asked
    elif kind == "web_search_tool_result" and isinstance(content, list):
        for r in content:
            if isinstance(r, Mapping) and isinstance(r.get("url"), str):
                b.source(f"url:{r['url']}", "search", title=r.get("title"), url=r["url"])
    elif kind == "web_search_tool_result" and isinstance(content, Mapping) and "error" in str(content.get("type")):
        query = tool_urls.get(str(block.get("tool_use_id")))
        what = f"for {printable(query, 200)}" if query else "it ran"
        err = content.get("error_code")
        b.note(("CR511", f"Anthropic's web search {what} failed ({err}): the answer has none of its results"))
    elif kind == "web_fetch_tool_result" and isinstance(content, Mapping):
        if (page := fetched_document(block)) is not None:
            b.source(f"url:{page['url']}", "search", title=page["title"], url=page["url"])
        elif "error" in str(content.get("type")):
            url = tool_urls.get(str(block.get("tool_use_id")), "a page")
            b.note(("CR511", f"Anthropic's web fetch could not read {url[:200]} ({content.get('error_code')})"))


def collect_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold a streaming event sequence into the final response object."""
    message: dict[str, Any] = {"type": "message", "role": "assistant", "content": []}
    blocks: _Blocks = {}
    deltas: _Deltas = {}
    for e in events:
        t = e.get("type")
        if t == "message_start":
            message.update({k: v for k, v in (e.get("message") or {}).items() if k != "content"})
        elif t == "message_delta" and isinstance(e.get("delta"), Mapping):  # how the message ended
            message.update({k: v for k, v in e["delta"].items() if k in ("stop_reason", "stop_details") and v})
        elif t == "content_block_start":
            _block_start(e, blocks, deltas)
        elif t == "content_block_delta":
            _block_delta(e, blocks, deltas)
    for (index, name), pieces in deltas.items():
        blocks[index][name] = str(blocks[index].get(name, "")) + "".join(pieces)
    for block in blocks.values():
        if "partial_json" in block:
            with contextlib.suppress(ValueError):
                block["input"] = json.loads(block.pop("partial_json") or "{}")
    message["content"] = [blocks[k] for k in sorted(blocks)]
    return message


def _block_start(e: Mapping[str, Any], blocks: _Blocks, deltas: _Deltas) -> None:
    """One ``content_block_start``: the block, begun again (what an earlier block at its index gathered goes)."""
    block = dict(e.get("content_block") or {})
    if block.get("type") == "text":
        block.setdefault("text", "")
        block["citations"] = list(block.get("citations") or [])
    index = int(e.get("index", 0))
    blocks[index] = block
    for name in ("text", "partial_json"):
        deltas.pop((index, name), None)


def _block_delta(e: Mapping[str, Any], blocks: _Blocks, deltas: _Deltas) -> None:
    """One ``content_block_delta``: text and a tool's input gathered as pieces, a citation added."""
    index = int(e.get("index", 0))
    block = blocks.setdefault(index, {"type": "text", "text": "", "citations": []})
    d = e.get("delta") or {}
    if d.get("type") == "text_delta":
        deltas.setdefault((index, "text"), []).append(str(d.get("text", "")))
    elif d.get("type") == "citations_delta":
        block.setdefault("citations", []).append(d.get("citation"))
    elif d.get("type") == "input_json_delta":
        deltas.setdefault((index, "partial_json"), []).append(str(d.get("partial_json", "")))
