"""Azure OpenAI "On Your Data": the answer writes ``[doc1]`` and ``message.context.citations`` lists
what each number names, in order (or, in the older API, a ``tool`` message's JSON). The text is left
for the ``azure`` dialect; chunks of one document are one source, each a numbered line of it;
``all_retrieved_documents`` not cited are consulted."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .common import Builder, first_text, web_url

__all__ = ["context_of", "on_your_data"]


def context_of(choice: Mapping[str, Any]) -> tuple[str, Mapping[str, Any] | None]:
    """The assistant text of a chat choice and its On Your Data context (None without one)."""
    msg = choice.get("message")
    if isinstance(msg, Mapping):
        ctx = msg.get("context")
        if isinstance(ctx, Mapping) and not isinstance(ctx.get("citations"), list):
            ctx = _tool_context(ctx.get("messages"))  # 2023-08: the tool message is in the context
        return str(msg.get("content") or ""), ctx if isinstance(ctx, Mapping) else None
    messages = [m for m in choice.get("messages") or [] if isinstance(m, Mapping)]  # 2023-06: beside it
    text = next((str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "assistant"), "")
    return text, _tool_context(messages)


def _tool_context(messages: Any) -> Mapping[str, Any] | None:
    """The citations a ``tool`` message of the 2023 extensions API carries as JSON text."""
    for m in messages if isinstance(messages, list) else []:
        if isinstance(m, Mapping) and m.get("role") == "tool" and isinstance(m.get("content"), str):
            try:
                found = json.loads(m["content"])
            except ValueError:
                continue  # not JSON ("extension specific payload here"): no citations
            if isinstance(found, Mapping) and isinstance(found.get("citations"), list):
                return found
    return None


def on_your_data(ctx: Mapping[str, Any], b: Builder) -> None:
    """Number the context's citations for the ``azure`` dialect; its other documents are consulted."""
    b.dialect = "azure"
    for n, c in enumerate(ctx.get("citations") or [], start=1):
        if isinstance(c, Mapping):  # anything else: its number names nothing
            b.number(n, *_document(c, b))
    for d in ctx.get("all_retrieved_documents") or []:
        if isinstance(d, Mapping):
            _document(d, b, quote=False)


def _document(c: Mapping[str, Any], b: Builder, *, quote: bool = True) -> tuple[str, str | None]:
    url, path = first_text(c, "url"), first_text(c, "filepath")
    title = first_text(c, "title") or path
    key = f"url:{url}" if url else f"file:{path}" if path else f"title:{title}"
    sid = b.source(key, "file", title=title, url=web_url(url))
    content = first_text(c, "content")
    return sid, b.add_line(sid, content) if content and quote else None
