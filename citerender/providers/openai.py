"""OpenAI: Responses (``output_text`` annotations), Chat Completions (``message.annotations``) and
Assistants (``【4:0†source】`` text backed by ``file_citation`` annotations)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .common import Builder, insert_edits, url_citations

__all__ = ["assistants", "chat", "collect_chat_chunks", "collect_events", "file_source", "responses"]


def responses(resp: Mapping[str, Any], b: Builder) -> list[str]:
    parts = []
    for item in resp.get("output", []) or []:
        if item.get("type") != "message":
            continue
        for content in item.get("content", []) or []:
            if content.get("type") != "output_text":
                continue
            text = str(content.get("text", ""))
            anns = content.get("annotations", []) or []
            edits = url_citations(text, anns, b)
            for a in anns:
                if a.get("type") == "file_citation":
                    at = min(max(int(a.get("index", len(text))), 0), len(text))
                    edits.append((at, at, b.marker(file_source(a, b))))
            parts.append(insert_edits(text, edits))
    return parts


def file_source(a: Mapping[str, Any], b: Builder) -> str:
    """The source of a Responses ``file_citation`` annotation."""
    return b.source(f"file:{a.get('file_id')}", "file", title=a.get("filename"), meta={"file_id": a.get("file_id")})


def chat(resp: Mapping[str, Any], b: Builder) -> list[str]:
    parts = []
    for choice in (resp.get("choices") or [])[:1]:
        msg = choice.get("message") or {}
        text = str(msg.get("content") or "")
        parts.append(insert_edits(text, url_citations(text, msg.get("annotations") or [], b)))
    return parts


def assistants(resp: Mapping[str, Any], b: Builder) -> list[str]:
    parts = []
    for content in resp.get("content", []) or []:
        if content.get("type") != "text":
            continue
        t = content.get("text") or {}
        text = str(t.get("value", ""))
        edits = []
        for a in t.get("annotations", []) or []:
            if a.get("type") == "file_citation":
                fc = a.get("file_citation") or {}
                sid = b.source(
                    f"file:{fc.get('file_id')}",
                    "file",
                    title=fc.get("file_name") or fc.get("filename"),
                    meta={"file_id": fc.get("file_id")},
                )
                quote = fc.get("quote")
                loc = b.add_line(sid, quote) if quote else None
                edits.append((int(a.get("start_index", 0)), int(a.get("end_index", 0)), b.marker(sid, loc)))
            elif a.get("type") == "file_path":
                edits.append((int(a.get("start_index", 0)), int(a.get("end_index", 0)), ""))
        parts.append(insert_edits(text, edits))
    return parts


def collect_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold a streaming event sequence into the final response object."""
    for e in reversed(events):
        if e.get("type") == "response.completed" and isinstance(e.get("response"), Mapping):
            return dict(e["response"])
    text: dict[tuple[int, int], list[str]] = {}
    anns: dict[tuple[int, int], list[Any]] = {}
    for e in events:
        key = (int(e.get("output_index", 0)), int(e.get("content_index", 0)))
        if e.get("type") == "response.output_text.delta":
            text.setdefault(key, []).append(str(e.get("delta", "")))
        elif e.get("type") == "response.output_text.annotation.added":
            anns.setdefault(key, []).append(e.get("annotation"))
    output: dict[int, dict[str, Any]] = {}
    for (oi, ci), pieces in sorted(text.items()):
        msg = output.setdefault(oi, {"type": "message", "role": "assistant", "content": []})
        msg["content"].append({"type": "output_text", "text": "".join(pieces), "annotations": anns.get((oi, ci), [])})
    return {"object": "response", "output": [output[k] for k in sorted(output)]}


def collect_chat_chunks(chunks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold streamed ``chat.completion.chunk`` objects: contents joined, annotations kept."""
    text: list[str] = []
    annotations: list[Any] = []
    for c in chunks:
        for choice in (c.get("choices") or [])[:1]:
            delta = choice.get("delta") or {}
            text.append(str(delta.get("content") or ""))
            annotations.extend(delta.get("annotations") or [])
    message = {"role": "assistant", "content": "".join(text), "annotations": annotations}
    return {"object": "chat.completion", "choices": [{"index": 0, "message": message}]}
