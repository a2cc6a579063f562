"""Pydantic AI: a ``ModelResponse`` as its message history serialises it. Its ``text`` parts are the
answer; the pages its provider's own tools returned (``builtin-tool-return``) are consulted, no
citation position being kept; a whole history is a transcript (:mod:`.transcripts`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .common import Builder, web_url
from .stops import cut_off

__all__ = ["is_message", "response", "user_prompt"]


def is_message(data: Mapping[str, Any]) -> bool:
    return data.get("kind") in ("request", "response") and isinstance(data.get("parts"), list)


def user_prompt(message: Mapping[str, Any]) -> str | None:
    """The user's words in a request (None for a request of tool results only, or a response)."""
    if message.get("kind") != "request":
        return None
    texts: list[str] = []
    for part in message.get("parts") or []:
        if isinstance(part, Mapping) and part.get("part_kind") == "user-prompt":
            content = part.get("content")
            items = content if isinstance(content, list) else [content]
            texts.extend(c for c in items if isinstance(c, str) and c.strip())
    return "\n\n".join(texts) or None


def response(message: Mapping[str, Any], b: Builder) -> list[str]:
    parts = [p for p in message.get("parts") or [] if isinstance(p, Mapping)]
    for part in parts:
        if part.get("part_kind") == "builtin-tool-return":
            for url, title in _pages(part.get("content")):
                b.source(f"url:{url}", "search", title=title, url=url)
    cut_off(b, "finish_reason", message.get("finish_reason"), {"length", "content_filter", "error"})
    return [str(p.get("content") or "") for p in parts if p.get("part_kind") == "text"]


def _pages(value: Any, depth: int = 0) -> Iterator[tuple[str, str | None]]:
    """Every (URL, title) a tool's result holds, however its provider nested them."""
    if depth > 6:
        return
    if isinstance(value, Mapping):
        url = web_url(value.get("url")) or web_url(value.get("uri"))
        if url is not None:
            title = value.get("title")
            yield url, title if isinstance(title, str) else None
        value = list(value.values())
    for v in value if isinstance(value, list) else []:
        yield from _pages(v, depth + 1)
