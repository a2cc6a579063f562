"""Mistral (chat completions and agents conversations, documentation of 2025-09): content chunks of
``text``, ``reference`` (``reference_ids`` into the tool results the caller sent, which
``--sources`` supplies as ``ref{N}``; one without a source is kept unverified, reported) and
agents' ``tool_reference`` (``title``, ``url``, ``source``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .common import Builder, insert_edits
from .stops import cut_off

__all__ = ["chat", "collect_chunks"]


def _chunks(resp: Mapping[str, Any]) -> list[Any]:
    if isinstance(resp.get("outputs"), list):  # agents conversations: message.output entries
        chunks: list[Any] = []
        for out in resp["outputs"]:
            content = out.get("content") if isinstance(out, Mapping) else None
            chunks.extend(content if isinstance(content, list) else [{"type": "text", "text": content or ""}])
        return chunks
    message = ((resp.get("choices") or [{}])[0]).get("message") or {}
    content = message.get("content")
    return content if isinstance(content, list) else [{"type": "text", "text": content or ""}]


def _reference(rid: Any, b: Builder) -> str:
    name = str(rid)
    supplied = b.supplied(f"ref{name}") or b.supplied(name)
    if supplied is not None:
        return supplied
    sid = f"ref{name}" if name.isdigit() else f"ref{len(b.sources)}"
    if sid not in b.sources:  # kept as an unverified citation, reported once
        b.note(("CR505", f"reference id {name[:40]!r} has no source: pass --sources with id {sid}"))
        b.sources[sid] = {"id": sid, "title": f"reference {name[:40]}"}
    return sid


def chat(resp: Mapping[str, Any], b: Builder) -> list[str]:
    """The text chunks joined, each reference a marker where it came, before its spaces (``week.[1] ``)."""
    out: list[str] = []
    size = 0
    edits: list[tuple[int, int, str]] = []
    for chunk in _chunks(resp):
        if not isinstance(chunk, Mapping):
            continue
        kind = chunk.get("type")
        if kind == "text":
            out.append(str(chunk.get("text", "")))
            size += len(out[-1])
        elif kind == "reference":
            ids = [_reference(r, b) for r in chunk.get("reference_ids") or []]
            if ids:
                edits.append((size, size, b.fmt.marker(*dict.fromkeys(ids))))
        elif kind == "tool_reference":
            url, tool = chunk.get("url"), chunk.get("tool") or chunk.get("source")
            sid = b.source(f"url:{url}", "search", title=chunk.get("title"), url=url, meta={"tool": tool})
            edits.append((size, size, b.fmt.marker(sid)))
    text = "".join(out)
    choice = (resp.get("choices") or [{}])[0]
    if isinstance(choice, Mapping):  # chat completions: the token limit, the context window, an error
        cut_off(b, "choices[0].finish_reason", choice.get("finish_reason"), {"length", "model_length", "error"})
    return [insert_edits(text, [(_before_spaces(text, at), _before_spaces(text, at), m) for at, _, m in edits])]


def _before_spaces(text: str, at: int) -> int:
    while at > 0 and text[at - 1] in " \t":
        at -= 1
    return at


def collect_chunks(chunks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold streamed chunks: text pieces joined, reference chunks kept where they came."""
    content: list[dict[str, Any]] = []
    runs: dict[int, list[str]] = {}  # a text item's later pieces, joined once: linear in the stream
    reason: Any = None
    for c in chunks:
        for choice in (c.get("choices") or [])[:1]:
            reason = choice.get("finish_reason") or reason  # the stream's last word on how it ended
            delta = (choice.get("delta") or {}).get("content")
            pieces = delta if isinstance(delta, list) else [{"type": "text", "text": delta}] if delta else []
            for piece in pieces:
                if not isinstance(piece, Mapping):
                    continue
                if piece.get("type") == "text" and content and content[-1].get("type") == "text":
                    runs.setdefault(len(content) - 1, []).append(str(piece.get("text", "")))
                else:
                    content.append(dict(piece))
    for k, more in runs.items():
        content[k] = {**content[k], "type": "text", "text": str(content[k].get("text", "")) + "".join(more)}
    message = {"role": "assistant", "content": content}
    return {"object": "chat.completion", "choices": [{"message": message, "finish_reason": reason}]}
