"""DeepSeek's web chat with search (no public API document; the shape its exporters read): a
message's ``SEARCH`` fragment results and ``RESPONSE`` text citing ``[citation:N]`` or
``[reference:N]`` by ``cite_index`` (the ``deepseek`` dialect), or older ``search_results`` beside
``content``; a whole chat (``data.biz_data.chat_messages``) gives its last assistant message."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from .common import Builder, as_list, as_map

__all__ = ["message"]


def _last(data: Mapping[str, Any]) -> Mapping[str, Any]:
    chat = as_map(as_map(data.get("data")).get("biz_data")).get("chat_messages")
    if isinstance(chat, list):
        replies = [m for m in chat if isinstance(m, Mapping) and str(m.get("role", "")).lower() == "assistant"]
        return replies[-1] if replies else {}
    return data


def message(data: Mapping[str, Any], b: Builder) -> list[str]:
    msg = _last(data)
    b.dialect = "deepseek"
    results: list[Any] = list(msg.get("search_results") or [])
    texts: list[str] = []
    fragments = as_list(msg.get("fragments"))
    for f in fragments:
        if not isinstance(f, Mapping):
            continue
        if f.get("type") == "SEARCH":
            results.extend(f.get("results") or [])
        elif f.get("type") == "RESPONSE":
            texts.append(str(f.get("content") or ""))
    for k, r in enumerate(results, start=1):
        url = r.get("url") if isinstance(r, Mapping) else None
        if not isinstance(url, str):
            continue
        sid = b.source(f"url:{url}", "search", title=r.get("title"), url=url, text=r.get("snippet"), updated=_date(r))
        index = r.get("cite_index")
        b.number(index if isinstance(index, int) and not isinstance(index, bool) else k, sid)
    return texts if fragments else [str(msg.get("content") or "")]


def _date(result: Mapping[str, Any]) -> str | None:
    """``published_at`` in seconds since the epoch, as a date."""
    when = result.get("published_at")
    if isinstance(when, (int, float)) and not isinstance(when, bool) and 0 < when < 4e9:
        return datetime.fromtimestamp(when, UTC).date().isoformat()
    return None
