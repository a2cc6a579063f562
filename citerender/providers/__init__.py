"""Adapters: providers' structured citations → a registry plus an answer with markers.

Not every model writes markers; APIs also return citations as data. Each adapter turns a saved
response into ``(answer_text_with_markers, Registry)`` so the same renderers, checks and exports
apply. Built from the providers' published formats:

* OpenAI Responses: ``output_text`` parts with ``url_citation`` (``start_index``, ``end_index``,
  ``url``, ``title``) and ``file_citation`` (``file_id``, ``filename``, ``index``) annotations;
* OpenAI Chat Completions (web search): ``message.annotations`` of type ``url_citation``;
* Anthropic Messages: ``citations`` on text blocks (``char_location``, ``page_location``,
  ``content_block_location``, ``web_search_result_location``, each with ``cited_text``);
* OpenAI Assistants: ``【4:0†source】`` text backed by ``file_citation`` annotations.

Streaming event sequences (OpenAI Responses events, Anthropic message events) are folded into
the final response first (:func:`collect_events`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..sources.files import read_text_file
from ..syntax.format import DEFAULT_FORMAT, CitationFormat
from . import anthropic, openai
from .common import Adapted, Builder

__all__ = ["PROVIDERS", "Adapted", "adapt", "collect_events", "detect_provider", "load_response"]

PROVIDERS = ("openai-responses", "openai-chat", "anthropic", "openai-assistants")


def detect_provider(data: Any) -> str:
    """Which provider produced ``data`` (a response, or a list of streaming events)."""
    if isinstance(data, list):
        types = {str(e.get("type", "")) for e in data if isinstance(e, Mapping)}
        if any(t.startswith("response.") for t in types):
            return "openai-responses"
        if "message_start" in types or "content_block_delta" in types:
            return "anthropic"
        raise CiterenderError("unrecognised list of events", hint="pass --from")
    if not isinstance(data, Mapping):
        raise CiterenderError("a response must be a JSON object")
    if data.get("object") == "response" or ("output" in data and isinstance(data.get("output"), list)):
        return "openai-responses"
    if data.get("object") == "chat.completion" or "choices" in data:
        return "openai-chat"
    if data.get("object") == "thread.message":
        return "openai-assistants"
    if data.get("type") == "message" and isinstance(data.get("content"), list):
        return "anthropic"
    raise CiterenderError(
        "cannot tell which provider produced this response", hint=f"pass --from with one of {', '.join(PROVIDERS)}"
    )


def collect_events(events: Sequence[Mapping[str, Any]], provider: str) -> dict[str, Any]:
    """Fold a streaming event sequence into the final response object."""
    if provider == "openai-responses":
        return openai.collect_events(events)
    if provider == "anthropic":
        return anthropic.collect_events(events)
    raise CiterenderError(f"{provider} has no streaming format here", hint="save the final response instead")


def adapt(
    data: Any,
    provider: str | None = None,
    *,
    documents: Sequence[Mapping[str, Any]] = (),
    fmt: CitationFormat = DEFAULT_FORMAT,
) -> Adapted:
    """Turn a provider response (or its streaming events) into an answer with markers and a registry.

    :param documents: for Anthropic, the documents sent with the request (titles and URLs).
    """
    provider = provider or detect_provider(data)
    if provider not in PROVIDERS:
        raise CiterenderError(f"unknown provider {provider!r}", hint=f"use one of {', '.join(PROVIDERS)}")
    b = Builder(fmt)
    try:
        if isinstance(data, list):
            data = collect_events(data, provider)
        if not isinstance(data, Mapping):
            raise CiterenderError("a response must be a JSON object")
        if provider == "openai-responses":
            parts = openai.responses(data, b)
        elif provider == "openai-chat":
            parts = openai.chat(data, b)
        elif provider == "anthropic":
            parts = anthropic.messages(data, b, documents)
        else:
            parts = openai.assistants(data, b)
        registry = b.registry()
    except (AttributeError, TypeError, ValueError, KeyError, IndexError, OverflowError, RecursionError) as e:
        detail = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
        raise CiterenderError(
            f"the {provider} response has an unexpected shape ({detail})",
            hint="pass the response exactly as the provider returned it (JSON, or JSON Lines of events)",
        ) from None
    text = "\n\n".join(p for p in parts if p)
    if not text.strip():
        try:
            looks = detect_provider(data)
        except CiterenderError:
            looks = None
        hint = f"it looks like {looks}: pass --from {looks}" if looks and looks != provider else None
        raise CiterenderError(f"the {provider} response holds no text", hint=hint)
    return Adapted(text, registry)


def load_response(path: str | Path, provider: str | None = None) -> Adapted:
    """Read a saved response (JSON, or JSON Lines of streaming events) and adapt it."""
    raw = read_text_file(path, what="response")
    try:
        data: Any = json.loads(raw)
    except RecursionError:
        raise CiterenderError("invalid JSON: nested too deeply", path=str(path)) from None
    except json.JSONDecodeError as first:
        try:
            data = [json.loads(line) for line in raw.splitlines() if line.strip()]
        except (json.JSONDecodeError, RecursionError):
            raise CiterenderError(f"invalid JSON: {first.msg}", path=str(path), line=first.lineno) from None
    try:
        return adapt(data, provider)
    except CiterenderError as e:
        raise CiterenderError(e.message, path=str(path), hint=e.hint) from None
