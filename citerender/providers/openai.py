"""OpenAI: Responses (``output_text`` annotations) and Chat Completions (``message.annotations``; and
what gateways add to that shape: Azure On Your Data's context in :mod:`.azure`, LiteLLM's provider
fields in :mod:`.litellm`). Files (file search citations, the code interpreter's output) are read
by :mod:`.openai_files`; the Assistants API by :mod:`.assistants`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .azure import context_of, on_your_data
from .common import Builder, as_list, as_map, consult, insert_edits, searched, unknown_annotation, url_citations
from .litellm import provider_fields
from .offsets import SpanReader
from .openai_files import file_source, loose_sandbox_links, output_file, output_file_marker
from .stops import cut_off

__all__ = [
    "CHAT_STOPS",
    "STREAM_ENDS",
    "chat",
    "collect_chat_chunks",
    "collect_events",
    "ending",
    "file_source",
    "output_file_marker",
    "responses",
    "unfinished",
]


def responses(resp: Mapping[str, Any], b: Builder) -> list[str]:
    parts = []
    for item in resp.get("output", []) or []:
        if item.get("type") != "message":
            continue
        for content in item.get("content", []) or []:
            if content.get("type") != "output_text":
                continue
            text = str(content.get("text", ""))
            anns = content.get("annotations", []) or []
            edits = url_citations(text, anns, b) + _others(text, anns, b, ("url_citation", "file_citation"))
            for a in anns:
                if a.get("type") == "file_citation":
                    at = min(max(int(a.get("index", len(text))), 0), len(text))
                    edits.append((at, at, b.marker(file_source(a, b))))
            parts.append(insert_edits(text, edits + loose_sandbox_links(text, edits, b)))
    _consulted(resp, b)
    unfinished(resp, b)
    return parts


#: a Responses ``status`` that leaves the answer unfinished (``incomplete`` names its reason apart)
_UNFINISHED = frozenset({"incomplete", "failed", "cancelled", "in_progress", "queued"})


def ending(resp: Mapping[str, Any]) -> dict[str, Any]:
    """How a response says it ended (``status``, ``incomplete_details``, ``error``), to keep beside
    a part of its output an adapter reads."""
    return {k: resp[k] for k in ("status", "incomplete_details", "error") if k in resp}


def unfinished(resp: Mapping[str, Any], b: Builder) -> None:
    """A response the API did not finish (CR514): its ``status`` (with ``incomplete_details.reason``
    or the error's message), else a message item left ``incomplete`` (an Agents SDK history)."""
    status = resp.get("status")
    reason = as_map(resp.get("incomplete_details")).get("reason")
    if status == "incomplete" and cut_off(b, "incomplete_details.reason", reason, None):
        return
    message = as_map(resp.get("error")).get("message")
    if cut_off(b, "status", status, _UNFINISHED, detail=message):
        return
    items = [(k, i) for k, i in enumerate(resp.get("output") or []) if isinstance(i, Mapping)]
    for k, item in items:
        if item.get("type") == "message" and cut_off(b, f"output[{k}].status", item.get("status"), {"incomplete"}):
            return


def _consulted(resp: Mapping[str, Any], b: Builder) -> None:
    """What the response says was searched but need not cite: a web search call's sources and
    the pages it opened (OpenAI), the response's ``citations`` URLs (xAI)."""
    urls: list[Any] = list(as_list(resp.get("citations")))
    for item in resp.get("output") or []:
        if isinstance(item, Mapping) and item.get("type") == "web_search_call":
            urls += searched(item)
            if item.get("status") == "failed":  # the answer was written without what it would have found
                call = str(item.get("id"))[:80]
                b.note(("CR511", f"a web search call failed ({call}): the answer has none of its results"))
    consult(urls, b)


def _others(text: str, anns: Sequence[Any], b: Builder, known: tuple[str, ...]) -> list[tuple[int, int, str]]:
    """Edits for the annotations ``url_citations`` does not read: output files, and unknown types."""
    edits: list[tuple[int, int, str]] = []
    reader = SpanReader(text)
    for a in anns:
        a = as_map(a)
        kind = str(a.get("type", ""))
        if kind in known:
            continue
        if kind in ("container_file_citation", "file_path"):
            edits += output_file(text, a, b, reader)
            continue
        marker = unknown_annotation(kind or "untyped", a, b)
        if marker is not None:
            at = b.place(reader, a.get("start_index"), a.get("end_index"))
            edits.append((at, at, marker))
    return edits


def chat(resp: Mapping[str, Any], b: Builder) -> list[str]:
    parts = []
    for choice in (resp.get("choices") or [])[:1]:
        text, ctx = context_of(choice)
        if ctx is not None:  # Azure On Your Data: the text's [doc1] numbers its context's citations
            on_your_data(ctx, b)
        msg = choice.get("message") or {}
        anns = msg.get("annotations") or []
        through = provider_fields(text, msg, b)  # LiteLLM: what the chat shape lacks
        edits = url_citations(text, anns, b) + _others(text, anns, b, ("url_citation",)) + through
        parts.append(insert_edits(text, edits))
        cut_off(b, "choices[0].finish_reason", choice.get("finish_reason"), CHAT_STOPS)
    return parts


#: the ``finish_reason`` values of the chat shape that leave the answer unfinished: OpenAI's
#: ``length`` and ``content_filter``, and those of the services that answer in its shape
#: (DeepSeek's ``insufficient_system_resource``, Mistral's ``model_length``, OpenRouter's ``error``)
CHAT_STOPS = frozenset({"length", "content_filter", "insufficient_system_resource", "model_length", "error"})


#: the events that end a Responses stream, each with the response as it ended
STREAM_ENDS = ("response.completed", "response.incomplete", "response.failed", "response.cancelled")


def collect_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold a streaming event sequence into the final response: the one its last event gives, else
    the text deltas and annotations joined."""
    for e in reversed(events):
        if e.get("type") in STREAM_ENDS and isinstance(e.get("response"), Mapping):
            return dict(e["response"])
    text: dict[tuple[int, int], list[str]] = {}
    anns: dict[tuple[int, int], list[Any]] = {}
    for e in events:
        key = (int(e.get("output_index", 0)), int(e.get("content_index", 0)))
        if e.get("type") == "response.output_text.delta":
            text.setdefault(key, []).append(str(e.get("delta", "")))
        elif e.get("type") == "response.output_text.annotation.added":
            anns.setdefault(key, []).append(e.get("annotation"))
    output: dict[int, dict[str, Any]] = {}
    for (oi, ci), pieces in sorted(text.items()):
        msg = output.setdefault(oi, {"type": "message", "role": "assistant", "content": []})
        msg["content"].append({"type": "output_text", "text": "".join(pieces), "annotations": anns.get((oi, ci), [])})
    return {"object": "response", "output": [output[k] for k in sorted(output)]}


def collect_chat_chunks(chunks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold streamed ``chat.completion.chunk`` objects: contents joined, annotations kept."""
    text: list[str] = []
    annotations: list[Any] = []
    context: dict[str, Any] = {}
    reason: Any = None
    for c in chunks:
        for choice in (c.get("choices") or [])[:1]:
            reason = choice.get("finish_reason") or reason  # the stream's last word on how it ended
            delta = choice.get("delta") or {}
            text.append(str(delta.get("content") or ""))
            annotations.extend(delta.get("annotations") or [])
            if isinstance(delta.get("context"), Mapping):  # Azure On Your Data sends its citations once
                context.update(delta["context"])
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text), "annotations": annotations}
    if context:
        message["context"] = context
    return {"object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": reason}]}
