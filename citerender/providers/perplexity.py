"""Perplexity (Sonar chat completions, documentation of 2025-10): the OpenAI chat shape with
``citations`` (URLs) and ``search_results[{title, url, date, last_updated, snippet}]``; the text
cites with ``[1]``-style numbers, 1-based, in order of those lists. Each ``[n]`` becomes a marker
(adjacent numbers one group); a number with no result behind it is left as written and reported.
Streaming chunks carry ``choices[0].delta.content`` and the lists."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .common import Builder

__all__ = ["chat", "collect_chunks"]

# [1] or [1][2] or [1, 2]; not a Markdown link's text ([1](url)) nor a footnote ([^1])
_REFS = re.compile(r"(?:\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?!\())+")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


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
    text = str((choice.get("message") or {}).get("content") or "")
    ids = _sources(resp, b)
    code = [m.span() for m in _CODE.finditer(text)]

    def replace(m: re.Match[str]) -> str:
        if any(a <= m.start() < z for a, z in code):
            return m.group(0)
        numbers = [int(n) for n in re.findall(r"\d+", m.group(0))]
        known = [ids[n - 1] for n in numbers if 1 <= n <= len(ids)]
        if len(known) < len(numbers):
            b.note(("CR505", f"{m.group(0)} cites a result the response does not list ({len(ids)} results)"))
            return m.group(0)
        return b.fmt.marker(*dict.fromkeys(known))

    return [_REFS.sub(replace, text)]


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
