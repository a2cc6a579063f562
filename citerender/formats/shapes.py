"""The shape tests of :data:`citerender.formats.FORMATS` longer than a line: each says whether a
parsed response (or a list of events) is its format's, from the keys only that format uses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .entry import Events

__all__ = [
    "agent_response",
    "ai_sdk_events",
    "assistants_events",
    "assistants_page",
    "at",
    "deepseek_message",
    "kb_events",
    "langchain_message",
    "ragflow_completion",
    "vertex_answer",
]


def at(data: Any, *path: str | int) -> Any:
    for key in path:
        if isinstance(key, int):
            data = data[key] if isinstance(data, list) and len(data) > key else None
        else:
            data = data.get(key) if isinstance(data, Mapping) else None
    return data


def deepseek_message(data: Mapping[str, Any]) -> bool:
    """A DeepSeek web chat message (or a whole chat: its last assistant message) with search."""
    chat = at(data, "data", "biz_data", "chat_messages")
    if isinstance(chat, list):
        replies = [m for m in chat if isinstance(m, Mapping) and str(m.get("role", "")).lower() == "assistant"]
        data = replies[-1] if replies else {}
    fragments = data.get("fragments")
    if isinstance(fragments, list):
        return any(isinstance(f, Mapping) and f.get("type") in ("SEARCH", "RESPONSE") for f in fragments)
    return isinstance(data.get("search_results"), list) and isinstance(data.get("content"), str)


def ragflow_completion(data: Mapping[str, Any]) -> bool:
    body = data["data"] if isinstance(data.get("data"), Mapping) else data
    return isinstance(body.get("answer"), str) and isinstance(body.get("reference"), Mapping)


def vertex_answer(data: Mapping[str, Any]) -> bool:
    return "answerText" in data or (isinstance(data.get("answer"), Mapping) and "answerText" in data["answer"])


def agent_response(data: Mapping[str, Any]) -> bool:
    """boto3's InvokeAgent response, its event stream saved as a list."""
    completion = data.get("completion")
    return isinstance(completion, list) and any(isinstance(e, Mapping) and "chunk" in e for e in completion)


def langchain_message(data: Mapping[str, Any]) -> bool:
    return bool(data.get("lc")) or "content_blocks" in data or data.get("type") in ("ai", "AIMessage", "AIMessageChunk")


def ai_sdk_events(ev: Events) -> bool:
    """A UI message stream, or generateText's content (text and source parts)."""
    return (
        bool(ev.types & {"text-delta", "text-start", "source-url", "source-document"}) or {"text", "source"} <= ev.types
    )


def kb_events(ev: Events) -> bool:
    """RetrieveAndGenerateStream's events, keyed by their kind."""
    return "citation" in ev.kinds or bool(ev.kinds and ev.kinds <= {"output", "citation", "sessionId"})


def assistants_page(data: Mapping[str, Any]) -> bool:
    """A page of an OpenAI Assistants thread's messages (``{"object": "list", "data": [thread.message…]}``,
    or an SDK's page object saved whole: ``data`` without ``object``)."""
    items = data.get("data")
    return (
        data.get("object") in ("list", None)
        and isinstance(items, list)
        and any(isinstance(m, Mapping) and m.get("object") == "thread.message" for m in items[:100])
    )


def assistants_events(ev: Events) -> bool:
    """An Assistants run's stream: events whose data are ``thread.*`` objects (server-sent events'
    data), or the SDKs' ``{"event": "thread.…", "data": …}``."""
    return any(
        str(e.get("object", "")).startswith("thread.") or str(e.get("event", "")).startswith("thread.")
        for e in ev.items
    )
