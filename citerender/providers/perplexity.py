"""Perplexity (Sonar chat completions, documentation of 2025-10): the OpenAI chat shape with
``citations`` (URLs) and ``search_results[{title, url, date, last_updated, snippet}]``; the text
cites with ``[1]``-style numbers, 1-based, in order of those lists: the ``numbered`` dialect
(:mod:`citerender.plugin.dialects`) reads them as the plugin parses the answer, so a ``[1]`` in code
stays code, adjacent numbers are one group and a number with no result behind it is an unknown
source (CR101). Streaming chunks carry ``choices[0].delta.content`` and the lists."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .common import Builder

__all__ = ["chat", "collect_chunks"]


def _sources(resp: Mapping[str, Any], b: Builder) -> list[str]:
    results = [r for r in resp.get("search_results") or [] if isinstance(r, Mapping)]
    urls = [u for u in resp.get("citations") or [] if isinstance(u, str)]
    ids = []
    for k in range(max(len(results), len(urls))):
        r = results[k] if k < len(results) else {}
        url = r.get("url") or (urls[k] if k < len(urls) else None)
        ids.append(
            b.source(
                f"url:{url}",
                "search",
                title=r.get("title"),
                url=url,
                updated=r.get("last_updated") or r.get("date"),
                text=r.get("snippet"),
            )
        )
    return ids


def chat(resp: Mapping[str, Any], b: Builder) -> list[str]:
    choice = (resp.get("choices") or [{}])[0]
    b.dialect = "numbered"  # the text's [1] numbers: read by the plugin, where inline Markdown is
    for n, sid in enumerate(_sources(resp, b), start=1):
        b.number(n, sid)
    return [str((choice.get("message") or {}).get("content") or "")]


def collect_chunks(chunks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold streamed chunks: the content deltas joined, the last lists kept."""
    text: list[str] = []
    out: dict[str, Any] = {}
    for c in chunks:
        text.extend(str((choice.get("delta") or {}).get("content") or "") for choice in (c.get("choices") or [])[:1])
        for key in ("citations", "search_results", "model"):
            if c.get(key):
                out[key] = c[key]
    out["choices"] = [{"message": {"role": "assistant", "content": "".join(text)}}]
    out["object"] = "chat.completion"
    return out
