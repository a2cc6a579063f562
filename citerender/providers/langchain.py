"""LangChain v1 standard content blocks (documentation of 2025-10): an AI message's
``content_blocks`` (or ``content``) of ``text`` blocks with ``citation`` annotations (LangChain.js:
camelCase, UTF-16 offsets), serialised or as streamed chunks; another annotation type is CR507. A
``content`` still in ``ChatAnthropic``'s or ``ChatOpenAI``'s own blocks is read by that provider's
reader; an unfinished answer, by the field ``response_metadata`` copies, is CR514."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import anthropic, openai
from .common import Builder, as_map, insert_edits, unknown_annotation
from .offsets import SpanReader
from .stops import TOKEN_LIMIT, cut_off

__all__ = ["collect_chunks", "message", "unwrap"]

#: the ``finish_reason`` values of an unfinished answer (OpenAI's, Mistral's, Google's as LangChain copies it)
_FINISH_STOPS = TOKEN_LIMIT | openai.CHAT_STOPS | {"safety", "recitation", "prohibited_content", "blocklist", "spii"}
#: OpenAI's Responses annotation types (LangChain's own is ``citation``)
_OPENAI_TYPES = frozenset({"url_citation", "file_citation", "container_file_citation", "file_path"})


def unwrap(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The message itself, out of LangChain's serialisation envelope."""
    kwargs = data.get("kwargs")
    return kwargs if data.get("lc") and isinstance(kwargs, Mapping) else data


def _blocks(msg: Mapping[str, Any]) -> list[Any]:
    blocks = msg.get("content_blocks", msg.get("content"))
    return blocks if isinstance(blocks, list) else [{"type": "text", "text": blocks or ""}]


def message(data: Mapping[str, Any], b: Builder) -> list[str]:
    msg = unwrap(data)
    _ended(msg, b)
    native = _native(msg)
    if native == "anthropic":
        return anthropic.messages({"content": msg["content"]}, b)
    if native == "openai":
        return ["".join(openai.responses({"output": _as_responses_output(msg["content"])}, b))]
    out = []
    for block in _blocks(msg):
        if not isinstance(block, Mapping) or block.get("type") != "text":
            continue
        text = str(block.get("text", ""))
        readers = {"codepoint": SpanReader(text, "codepoint"), "utf16": SpanReader(text, "utf16")}
        edits = []
        for ann in block.get("annotations") or []:
            if not isinstance(ann, Mapping):
                continue
            start, end, cited, unit = _span(ann)
            marker = _marker(ann, cited, b)
            if marker is not None:
                at = b.place(readers[unit], start, end, None) if end is not None else len(text.rstrip())
                edits.append((at, at, marker))
        out.append(insert_edits(text, edits))
    return ["".join(out)]


def _marker(ann: Mapping[str, Any], cited: Any, b: Builder) -> str | None:
    """The marker of a ``citation`` annotation (CR505 naming nothing), or of another type (CR507)."""
    if ann.get("type") != "citation":
        return unknown_annotation(str(ann.get("type")), ann, b)
    url, title = ann.get("url"), ann.get("title")
    if not (url or title):
        b.note(("CR505", "a citation annotation names neither URL nor title: left out"))
        return None
    sid = b.source(f"url:{url or title}", "search", title=title, url=url)
    return b.marker(sid, b.add_line(sid, cited) if isinstance(cited, str) and cited.strip() else None)


def _ended(msg: Mapping[str, Any], b: Builder) -> None:
    """An answer its model did not finish (CR514), by the provider's field ``response_metadata`` copies."""
    meta = as_map(msg.get("response_metadata"))
    for field, stops in (
        ("finish_reason", _FINISH_STOPS),
        ("stop_reason", anthropic.STOPS),
        ("stopReason", TOKEN_LIMIT | {"model_context_window_exceeded", "guardrail_intervened", "content_filtered"}),
    ):
        if cut_off(b, f"response_metadata.{field}", meta.get(field), stops):
            return
    openai.unfinished(openai.ending(meta), b)


def _native(msg: Mapping[str, Any]) -> str | None:
    """Whose own blocks ``content`` keeps (``anthropic``, ``openai``) without ``content_blocks``."""
    content = msg.get("content")
    if "content_blocks" in msg or not isinstance(content, list):
        return None
    blocks = [blk for blk in content if isinstance(blk, Mapping)]
    if any(isinstance(blk.get("citations"), list) for blk in blocks):
        return "anthropic"
    anns = [a for blk in blocks if isinstance(blk.get("annotations"), list) for a in blk["annotations"]]
    return "openai" if any(isinstance(a, Mapping) and a.get("type") in _OPENAI_TYPES for a in anns) else None


def _as_responses_output(content: list[Any]) -> list[Any]:
    """LangChain's copy of a Responses ``output``, back in its shape (tool calls as they are)."""
    out: list[Any] = []
    for blk in content:
        if not isinstance(blk, Mapping):
            continue
        if blk.get("type") == "text":
            part = {"type": "output_text", "text": blk.get("text", ""), "annotations": blk.get("annotations") or []}
            out.append({"type": "message", "content": [part]})
        else:
            out.append(blk)
    return out


def _span(ann: Mapping[str, Any]) -> tuple[Any, Any, Any, str]:
    """``(start, end, cited text, unit)``: snake_case counts code points, LangChain.js UTF-16 units."""
    if "end_index" in ann or "start_index" in ann or "cited_text" in ann:
        return ann.get("start_index"), ann.get("end_index"), ann.get("cited_text"), "codepoint"
    return ann.get("startIndex"), ann.get("endIndex"), ann.get("citedText"), "utf16"


def collect_chunks(chunks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Merge streamed message chunks: text blocks with the same ``index`` joined, annotations kept."""
    merged: dict[Any, dict[str, Any]] = {}
    meta: dict[str, Any] = {}  # the chunks' response metadata (the last says how the answer ended)
    for chunk in chunks:
        found = unwrap(chunk).get("response_metadata")
        meta.update({k: v for k, v in found.items() if v is not None} if isinstance(found, Mapping) else {})
        for k, block in enumerate(_blocks(unwrap(chunk))):
            if not isinstance(block, Mapping) or block.get("type") != "text":
                continue
            key = block.get("index", k)
            m = merged.setdefault(key, {"type": "text", "text": [], "annotations": []})
            m["text"].append(str(block.get("text", "")))  # joined once, below: linear in the stream
            m["annotations"].extend(block.get("annotations") or [])
    for m in merged.values():
        m["text"] = "".join(m["text"])
    return {"type": "ai", "content_blocks": [merged[k] for k in merged], "response_metadata": meta}
