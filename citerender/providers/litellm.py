"""LiteLLM: what the OpenAI chat shape lacks, in ``message.provider_specific_fields``. Anthropic's
citations (one list per text block, with the block's ``supported_text``) go after those words, or
are listed without a place (CR510); URL lists and ``search_results`` are consulted, any other
citation reported (CR507)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .anthropic import CITATION_KINDS, citation_source
from .common import Builder, as_list, unknown_annotation, web_url
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


def _flat(items: Any) -> list[Any]:
    """The citations, one list per text block (Anthropic's) or one list of URLs, as one list."""
    return [c for item in as_list(items) for c in (item if isinstance(item, list) else [item])]
