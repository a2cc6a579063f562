"""DeepSeek's web chat with search (chat.deepseek.com; no public API document, the shape its
exporters read): an assistant message's ``fragments`` — ``SEARCH`` ``results[{url, title, snippet,
cite_index, published_at}]``, ``THINK`` (not shown) and ``RESPONSE`` text citing ``[citation:N]``
or ``[reference:N]`` by ``cite_index``, read by the ``deepseek`` dialect — or older messages'
``search_results`` beside ``content``. A whole chat (``data.biz_data.chat_messages``) gives its
last assistant message."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from .common import Builder

__all__ = ["message"]


def _last(data: Mapping[str, Any]) -> Mapping[str, Any]:
    biz = (data.get("data") or {}).get("biz_data") if isinstance(data.get("data"), Mapping) else None
    chat = biz.get("chat_messages") if isinstance(biz, Mapping) else None
    if isinstance(chat, list):
        replies = [m for m in chat if isinstance(m, Mapping) and str(m.get("role", "")).lower() == "assistant"]
        return replies[-1] if replies else {}
    return data


def message(data: Mapping[str, Any], b: Builder) -> list[str]:
    msg = _last(data)
    b.dialect = "deepseek"
    results: list[Any] = list(msg.get("search_results") or [])
    texts: list[str] = []
    found = msg.get("fragments")
    fragments: list[Any] = found if isinstance(found, list) else []
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
