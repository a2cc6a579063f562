"""Anthropic Messages: ``citations`` on text blocks (``char_location``, ``page_location``,
``content_block_location``, ``web_search_result_location``, ``web_fetch_result_location``,
``search_result_location``, each with ``cited_text``); any other type is reported (CR507) and its
URL kept. Text blocks that tool calls separate are separate paragraphs."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .common import Builder, index_range, insert_edits, unknown_annotation
from .offsets import after_last_word

__all__ = ["CITATION_KINDS", "citation_source", "collect_events", "messages"]


def citation_source(c: Mapping[str, Any], b: Builder, documents: Sequence[Mapping[str, Any]]) -> tuple[str, str | None]:
    """The source one citation names, and the locator of its ``cited_text`` (a numbered line)."""
    kind = c.get("type")
    cited = str(c.get("cited_text", "") or "")
    page = None  # the page the cited text is on, for a PDF
    if kind in ("web_search_result_location", "web_fetch_result_location"):
        sid = b.source(f"url:{c.get('url')}", "search", title=c.get("title"), url=c.get("url"))
    elif kind == "search_result_location":  # a search result the caller passed in: its source is a URL or a name
        src = str(c.get("source") or "")
        url = src if src.lower().startswith(("http://", "https://")) else None
        sid = b.source(
            f"result:{src or c.get('search_result_index')}", "search", title=c.get("title") or src or None, url=url
        )
        blocks = index_range("block", "blocks", c.get("start_block_index"), c.get("end_block_index"))
        b.sources[sid].setdefault("meta", {}).setdefault("locations", []).append(blocks)
    else:
        idx = c.get("document_index", 0)
        doc = documents[idx] if isinstance(idx, int) and 0 <= idx < len(documents) else {}
        sid = b.source(
            f"doc:{idx}",
            "file",
            title=c.get("document_title") or doc.get("title"),
            url=doc.get("url"),
            meta={"document_index": idx},
        )
        where = None
        if kind == "page_location":
            where = page = index_range("page", "pages", c.get("start_page_number"), c.get("end_page_number"))
        elif kind == "content_block_location":
            where = index_range("block", "blocks", c.get("start_block_index"), c.get("end_block_index"))
        elif kind == "char_location":
            where = f"characters {c.get('start_char_index')}–{c.get('end_char_index')}"
        if where:
            b.sources[sid].setdefault("meta", {}).setdefault("locations", []).append(where)
    return sid, (b.add_line(sid, cited, page) if cited else None)


CITATION_KINDS = (
    "web_search_result_location",
    "web_fetch_result_location",
    "search_result_location",
    "char_location",
    "page_location",
    "content_block_location",
)


def messages(resp: Mapping[str, Any], b: Builder, documents: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    """A block's citations go after its last word, past the punctuation the next block opens with
    (``…week`` + ``. Next`` → ``…week.[1] Next``), as everywhere (:func:`.offsets.after_last_word`)."""
    text = ""
    edits: list[tuple[int, int, str]] = []
    apart = False  # a tool call (or its result) came between this text block and the last
    tool_urls: dict[str, str] = {}
    for block in resp.get("content", []) or []:
        if block.get("type") != "text":
            apart = apart or bool(text)
            _tool_block(block, b, tool_urls)
            continue
        piece = str(block.get("text", ""))
        if apart and piece and not text.endswith("\n\n"):
            text = text.rstrip(" \t") + ("\n" if text.endswith("\n") else "\n\n")  # its own paragraph
        apart = False
        text += piece
        markers = []
        for c in block.get("citations") or []:
            if not isinstance(c, Mapping):
                continue
            if c.get("type") in CITATION_KINDS:
                markers.append(b.marker(*citation_source(c, b, documents)))
            elif (m := unknown_annotation(str(c.get("type") or "untyped"), c, b)) is not None:
                markers.append(m)
        edits.extend((len(text), len(text), m) for m in dict.fromkeys(markers))
    placed = [(after_last_word(text, at), after_last_word(text, at), m) for at, _, m in edits]
    return [insert_edits(text, placed)]


def _tool_block(block: Mapping[str, Any], b: Builder, tool_urls: dict[str, str]) -> None:
    """What the server tools looked at: every search result and fetched page a source (consulted
    unless cited); a page web fetch could not read, or a search that failed, is reported (CR511)."""
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
        what = f"for {query[:200]!r}" if query else "it ran"
        b.note(
            (
                "CR511",
                f"Anthropic's web search {what} failed ({content.get('error_code')}): the answer has none of its results",
            )
        )
    elif kind == "web_fetch_tool_result" and isinstance(content, Mapping):
        if content.get("type") == "web_fetch_result" and isinstance(content.get("url"), str):
            doc = content.get("content")
            title = doc.get("title") if isinstance(doc, Mapping) else None
            b.source(f"url:{content['url']}", "search", title=title, url=content["url"])
        elif "error" in str(content.get("type")):
            url = tool_urls.get(str(block.get("tool_use_id")), "a page")
            b.note(("CR511", f"Anthropic's web fetch could not read {url[:200]} ({content.get('error_code')})"))


def collect_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold a streaming event sequence into the final response object."""
    message: dict[str, Any] = {"type": "message", "role": "assistant", "content": []}
    blocks: dict[int, dict[str, Any]] = {}
    deltas: dict[tuple[int, str], list[str]] = {}  # (block, field) → pieces, joined once: linear in the stream
    for e in events:
        t = e.get("type")
        if t == "message_start":
            message.update({k: v for k, v in (e.get("message") or {}).items() if k != "content"})
        elif t == "content_block_start":
            block = dict(e.get("content_block") or {})
            if block.get("type") == "text":
                block.setdefault("text", "")
                block["citations"] = list(block.get("citations") or [])
            blocks[int(e.get("index", 0))] = block
            deltas.pop((int(e.get("index", 0)), "text"), None)
            deltas.pop((int(e.get("index", 0)), "partial_json"), None)
        elif t == "content_block_delta":
            index = int(e.get("index", 0))
            block = blocks.setdefault(index, {"type": "text", "text": "", "citations": []})
            d = e.get("delta") or {}
            if d.get("type") == "text_delta":
                deltas.setdefault((index, "text"), []).append(str(d.get("text", "")))
            elif d.get("type") == "citations_delta":
                block.setdefault("citations", []).append(d.get("citation"))
            elif d.get("type") == "input_json_delta":  # a server tool's input (web fetch's URL)
                deltas.setdefault((index, "partial_json"), []).append(str(d.get("partial_json", "")))
    for (index, name), pieces in deltas.items():
        blocks[index][name] = str(blocks[index].get(name, "")) + "".join(pieces)
    for block in blocks.values():
        if "partial_json" in block:
            with contextlib.suppress(ValueError):
                block["input"] = json.loads(block.pop("partial_json") or "{}")
    message["content"] = [blocks[k] for k in sorted(blocks)]
    return message
