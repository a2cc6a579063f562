"""LiteLLM: every provider behind the OpenAI chat shape, what that shape lacks in
``message.provider_specific_fields``. Anthropic's citations come one list per text block, each
with its block's ``supported_text``: the marker goes after those words (a citation whose words are
not found is listed without a place, CR510). URL lists and ``search_results`` are sources
consulted; a citation of any other shape is reported (CR507), its URL kept."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .anthropic import CITATION_KINDS, citation_source
from .common import Builder, unknown_annotation, web_url
from .offsets import after_last_word

__all__ = ["provider_fields"]


def provider_fields(text: str, msg: Mapping[str, Any], b: Builder) -> list[tuple[int, int, str]]:
    """Edits placing the citations of ``message.provider_specific_fields``; URL lists consulted."""
    fields = msg.get("provider_specific_fields")
    if not isinstance(fields, Mapping):
        return []
    edits: list[tuple[int, int, str]] = []
    cursor = 0
    for c in _flat(fields.get("citations")):
        if isinstance(c, str):
            if web_url(c):
                b.source(f"url:{c}", "search", url=c)
            continue
        if not isinstance(c, Mapping):
            continue
        sid: str | None = None
        if c.get("type") in CITATION_KINDS:
            sid, locator = citation_source(c, b, ())
            marker: str | None = b.marker(sid, locator)
        else:
            marker = unknown_annotation(str(c.get("type") or "untyped"), c, b)  # reported, never dropped
        words = str(c.get("supported_text") or "").strip()
        found = text.find(words, cursor) if words else -1
        if found == -1 and words:
            found = text.find(words)
        if found != -1 and marker is not None:
            at = after_last_word(text, found + len(words))
            cursor = max(cursor, found)
            edits.append((at, at, marker))
        elif sid is not None:
            b.unplaced(sid)
    for r in fields.get("search_results") or []:
        if isinstance(r, Mapping) and r.get("url"):
            b.source(f"url:{r['url']}", "search", title=r.get("title"), url=r["url"])
    return edits


def _flat(items: Any) -> Iterator[Any]:
    for item in items if isinstance(items, list) else []:
        if isinstance(item, list):
            yield from item
        else:
            yield item
