"""Cohere v2 chat (documentation of 2025-09): ``message.content[]`` text and ``message.citations``
(``start``, ``end`` in characters of the joined text, ``text``, ``sources`` of documents or tool
outputs); a stream folds into a response, its ``message-end`` saying how it ended (CR514)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .common import Builder, as_map, insert_edits
from .offsets import SpanReader
from .stops import cut_off

__all__ = ["chat", "citation_marker", "collect_events"]

#: the v2 ``finish_reason`` values that leave an answer unfinished
_STOPS = frozenset({"max_tokens", "error", "timeout"})


def _source(src: Mapping[str, Any], b: Builder) -> str | None:
    sid = str(src.get("id") or "")
    doc = as_map(src.get("document") if src.get("type", "document") == "document" else src.get("tool_output"))
    supplied = b.supplied(sid)
    if supplied is not None:
        return supplied
    title = doc.get("title") or doc.get("name") or (f"tool output {sid}" if src.get("type") == "tool" else None)
    text = doc.get("snippet") or doc.get("text") or doc.get("content")
    if not (title or doc.get("url") or text):
        b.note(("CR505", f"a citation names source {sid[:60]!r} without its content; pass --sources"))
        return None
    kind = "file" if src.get("type", "document") == "document" else "tool"
    text = text if isinstance(text, str) else None
    return b.source(f"cohere:{sid}", kind, title=title, url=doc.get("url"), text=text, meta={"cohere_id": sid})


def chat(resp: Mapping[str, Any], b: Builder) -> list[str]:
    msg = resp.get("message") or {}
    text = "".join(str(c.get("text", "")) for c in msg.get("content") or [] if c.get("type", "text") == "text")
    reader = SpanReader(text, "codepoint")
    edits = []
    for cit in msg.get("citations") or []:
        marker = citation_marker(cit, b)
        if marker is not None:
            at = b.place(reader, cit.get("start"), cit.get("end"), cit.get("text"))
            edits.append((at, at, marker))
    cut_off(b, "finish_reason", resp.get("finish_reason"), _STOPS)
    return [insert_edits(text, edits)]


def citation_marker(cit: Mapping[str, Any], b: Builder) -> str | None:
    """The marker of one citation's sources (None when none can be named)."""
    ids = [sid for sid in (_source(s, b) for s in cit.get("sources") or [] if isinstance(s, Mapping)) if sid]
    return b.fmt.marker(*dict.fromkeys(ids)) if ids else None


def collect_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold a v2 chat stream into the final response."""
    text: list[str] = []
    citations: list[Any] = []
    out: dict[str, Any] = {}
    for e in events:
        delta = (e.get("delta") or {}).get("message") or {}
        if e.get("type") == "message-end" and isinstance(e.get("delta"), Mapping):  # how the message ended
            out["finish_reason"] = e["delta"].get("finish_reason")
        elif e.get("type") == "content-delta":
            text.append(str((delta.get("content") or {}).get("text", "")))
        elif e.get("type") == "citation-start":
            cits = delta.get("citations")
            citations.extend(cits if isinstance(cits, list) else [cits])
    content = [{"type": "text", "text": "".join(text)}]
    return {**out, "message": {"role": "assistant", "content": content, "citations": citations}}
