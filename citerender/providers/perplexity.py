"""Perplexity (documentation of 2026-05). Sonar chat completions: the OpenAI chat shape with
``search_results`` (and the deprecated ``citations`` URLs), cited by 1-based ``[1]`` numbers that
the ``numbered`` dialect reads; xAI's ``[[1]](url)`` links are cited where they stand (:mod:`.xai`).
The Agent API (perplexity-py, 2026-09) answers in the Responses shape, ``[n]`` naming the
``search_results`` result whose ``id`` is n; ``fetch_url_results`` are consulted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import zip_longest
from typing import Any

from .common import Builder, consult, insert_edits, url_source
from .openai import CHAT_STOPS, STREAM_ENDS, collect_events, ending, responses
from .stops import cut_off
from .xai import inline_links

__all__ = ["agent", "chat", "collect_agent_events", "collect_chunks"]


def _result_source(r: Mapping[str, Any], url: Any, b: Builder) -> str:
    key = f"url:{url}" if url else f"result:{r.get('id')}:{r.get('title')}"  # results without a URL stay apart
    updated = r.get("last_updated") or r.get("date")
    return b.source(key, "search", title=r.get("title"), url=url, updated=updated, text=r.get("snippet"))


def chat(resp: Mapping[str, Any], b: Builder) -> list[str]:
    choice = (resp.get("choices") or [{}])[0]
    b.dialect = "numbered"  # the text's [1] numbers: read by the plugin, where inline Markdown is
    results = [r for r in resp.get("search_results") or [] if isinstance(r, Mapping)]
    urls = [u for u in resp.get("citations") or [] if isinstance(u, str)]
    for n, (found, url) in enumerate(zip_longest(results, urls), start=1):
        r: Mapping[str, Any] = found or {}
        b.number(n, _result_source(r, r.get("url") or url, b))
    text = str((choice.get("message") or {}).get("content") or "")
    cut_off(b, "choices[0].finish_reason", choice.get("finish_reason"), CHAT_STOPS)
    return [insert_edits(text, inline_links(text, [], lambda url: b.marker(url_source({"url": url}, b))))]


def _result_number(r: Mapping[str, Any], place: int) -> int:
    """The number the text cites result ``r`` by: its ``id`` (1-based), else its place."""
    n = r.get("id")
    return n if isinstance(n, int) and not isinstance(n, bool) else place


def agent(resp: Mapping[str, Any], b: Builder) -> list[str]:
    """An Agent API response: ``[n]`` cites the search result whose ``id`` is n."""
    output = [i for i in resp.get("output") or [] if isinstance(i, Mapping)]
    b.dialect = "numbered"
    results = [r for i in output if i.get("type") == "search_results" for r in i.get("results") or []]
    for place, r in enumerate(results, start=1):
        if isinstance(r, Mapping):
            b.number(_result_number(r, place), _result_source(r, r.get("url"), b))
    fetched = [c for i in output if i.get("type") == "fetch_url_results" for c in i.get("contents") or []]
    consult([c for c in fetched if isinstance(c, Mapping)], b)
    return responses({**ending(resp), "output": [i for i in output if i.get("type") == "message"]}, b)


def collect_agent_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold an Agent API stream: its last response, else the items done and the searches' results."""
    last = next((e.get("response") for e in reversed(events) if e.get("type") in STREAM_ENDS), None)
    if isinstance(last, Mapping) and last.get("output"):
        return dict(last)
    ended = ending(last) if isinstance(last, Mapping) else {}
    done = [
        e["item"] for e in events if e.get("type") == "response.output_item.done" and isinstance(e.get("item"), Mapping)
    ]
    messages = [i for i in done if i.get("type") == "message" and i.get("content")]
    results = [
        r for e in events if e.get("type") == "response.reasoning.search_results" for r in e.get("results") or []
    ]
    output = [{"type": "search_results", "results": results}, *[i for i in done if i.get("type") != "message"]]
    return {"object": "response", **ended, "output": output + (messages or collect_events(events)["output"])}


def collect_chunks(chunks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold streamed chunks: the content deltas joined, the last lists kept."""
    text: list[str] = []
    out: dict[str, Any] = {}
    reason: Any = None
    for c in chunks:
        for choice in (c.get("choices") or [])[:1]:
            text.append(str((choice.get("delta") or {}).get("content") or ""))
            reason = choice.get("finish_reason") or reason  # the stream's last word on how it ended
        for key in ("citations", "search_results", "model"):
            if c.get(key):
                out[key] = c[key]
    message = {"role": "assistant", "content": "".join(text)}
    return {**out, "choices": [{"message": message, "finish_reason": reason}], "object": "chat.completion"}
