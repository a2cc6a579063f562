"""A saved provider response as an answer: which provider produced it, its streaming events
folded into one response, and the adapter that turns it into text with markers and a registry.
(The package's docstring lists the formats.)"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..options import PROVIDERS
from ..sources.clean import clean_data
from ..sources.files import MAX_INPUT_BYTES, decode_text, read_bytes
from ..sources.model import Registry
from ..syntax.format import DEFAULT_FORMAT, CitationFormat
from . import (
    aisdk,
    anthropic,
    bedrock,
    bedrock_agents,
    cohere,
    deepseek,
    gemini,
    haystack,
    interactions,
    langchain,
    llamaindex,
    mistral,
    openai,
    perplexity,
    pydantic_ai,
    ragflow,
    vertex_search,
)
from .common import Adapted, Builder
from .eventstream import looks_like_eventstream, parse_eventstream
from .sse import looks_like_sse, parse_sse

__all__ = [
    "PROVIDERS",
    "Adapted",
    "adapt",
    "collect_events",
    "detect_provider",
    "load_response",
    "parse_json",
    "read_json",
    "resembles",
]


def _get(data: Any, *path: Any) -> Any:
    for key in path:
        if isinstance(key, int):
            data = data[key] if isinstance(data, list) and len(data) > key else None
        else:
            data = data.get(key) if isinstance(data, Mapping) else None
    return data


def _event_provider(types: set[str]) -> str | None:
    if any(t.startswith("response.") for t in types):
        return "openai-responses"
    if "message_start" in types or "content_block_delta" in types:
        return "anthropic"
    if types & {"message-start", "content-delta", "citation-start"}:
        return "cohere"
    if types & {"text-delta", "text-start", "source-url", "source-document"} or {"text", "source"} <= types:
        return "ai-sdk"  # a UI message stream, or generateText's content (text and source parts)
    return None


def _keyed_events(items: list[Mapping[str, Any]]) -> str | None:
    """Event streams whose events are keyed by their kind (Bedrock's ConverseStream)."""
    kinds = {k for e in items for k in e}
    if kinds & {"contentBlockDelta", "messageStart", "messageStop"}:
        return "bedrock-converse"
    if "chunk" in kinds and kinds <= {"chunk", "trace", "returnControl", "files"}:
        return "bedrock-agent"  # InvokeAgent
    if "citation" in kinds or (kinds and kinds <= {"output", "citation", "sessionId"}):
        return "bedrock-kb"  # RetrieveAndGenerateStream
    return None


def _shape(data: Mapping[str, Any]) -> str | None:
    """The provider whose response ``data`` is, from the keys only that provider uses."""
    if data.get("object") == "interaction" or isinstance(data.get("steps"), list):
        return "gemini-interactions"
    if data.get("object") == "response" or isinstance(data.get("output"), list):
        return "openai-responses"
    if deepseek.is_message(data):
        return "deepseek-web"
    if ragflow.is_completion(data):
        return "ragflow-api"
    if data.get("kind") == "response" and isinstance(data.get("parts"), list):
        return "pydantic-ai"
    if "answerText" in data or (isinstance(data.get("answer"), Mapping) and "answerText" in data["answer"]):
        return "vertex-ai-search"
    completion = data.get("completion")
    if isinstance(completion, list) and any(isinstance(e, Mapping) and "chunk" in e for e in completion):
        return "bedrock-agent"  # boto3's InvokeAgent response, its event stream saved as a list
    if isinstance(data.get("source_nodes"), list) and "response" in data:
        return "llamaindex"
    if str(data.get("type", "")).startswith("haystack.") or {"data", "query", "documents"} <= data.keys():
        return "haystack"
    if isinstance(data.get("output"), Mapping):
        return "bedrock-converse" if "message" in data["output"] else "bedrock-kb"
    if isinstance(data.get("candidates"), list):
        return "gemini"
    if "search_results" in data or (isinstance(data.get("citations"), list) and "choices" in data):
        return "perplexity"
    if isinstance(_get(data, "choices", 0, "message", "content"), list) or isinstance(data.get("outputs"), list):
        return "mistral"
    if data.get("object") == "chat.completion" or "choices" in data:
        return "openai-chat"
    if data.get("object") == "thread.message":
        return "openai-assistants"
    if data.get("type") == "message" and isinstance(data.get("content"), list):
        return "anthropic"
    if isinstance(data.get("message"), Mapping) and ("finish_reason" in data or "citations" in data["message"]):
        return "cohere"
    if data.get("lc") or "content_blocks" in data or data.get("type") in ("ai", "AIMessage", "AIMessageChunk"):
        return "langchain"
    if isinstance(data.get("parts"), list) and data.get("role") == "assistant":
        return "ai-sdk"
    return None


def detect_provider(data: Any) -> str:
    """Which provider produced ``data`` (a response, or a list of streaming events or chunks)."""
    if isinstance(data, list):
        items = [e for e in data if isinstance(e, Mapping)]
        found = _event_provider({str(e.get("type", "")) for e in items}) or _keyed_events(items)
        if found is None and any(str(e.get("event_type", "")).startswith(("step.", "interaction.")) for e in items):
            found = "gemini-interactions"
        if found is None and any(isinstance(_get(e, "choices", 0, "delta", "content"), list) for e in items):
            found = "mistral"  # chat chunks whose deltas carry reference chunks
        if found is None and items:  # streamed chunks shaped as responses (Gemini, Perplexity, LangChain)
            shapes = {_shape(e) for e in items} - {None}
            found = shapes.pop() if len(shapes) == 1 else None
        if found is None:
            raise CiterenderError("unrecognised list of events", hint=_resemble_hint(data))
        return found
    if not isinstance(data, Mapping):
        raise CiterenderError("a response must be a JSON object")
    found = _shape(data)
    if found is None:
        raise CiterenderError("cannot tell which provider produced this response", hint=_resemble_hint(data))
    return found


#: keys characteristic of each format, to say what a file resembles when it matches none
_KEYS = {
    "openai-responses": {"output", "object", "output_text", "annotations", "url_citation"},
    "openai-chat": {"choices", "message", "annotations"},
    "anthropic": {"content", "citations", "cited_text", "stop_reason"},
    "gemini": {"candidates", "groundingMetadata", "groundingSupports", "groundingChunks"},
    "gemini-interactions": {"steps", "model_output", "event_type", "annotations", "url_citation"},
    "cohere": {"message", "citations", "finish_reason", "sources"},
    "perplexity": {"citations", "search_results", "choices"},
    "mistral": {"choices", "reference_ids", "outputs"},
    "bedrock-converse": {"output", "citationsContent", "stopReason"},
    "bedrock-kb": {"output", "citations", "retrievedReferences"},
    "bedrock-agent": {"chunk", "attribution", "citations", "trace", "completion"},
    "langchain": {"content_blocks", "lc", "kwargs", "annotations"},
    "ai-sdk": {"parts", "role", "sourceId"},
    "llamaindex": {"response", "source_nodes", "node", "metadata"},
    "vertex-ai-search": {"answer", "answerText", "citations", "references", "referenceId", "chunkInfo"},
    "haystack": {"data", "query", "documents", "init_parameters"},
    "pydantic-ai": {"kind", "parts", "part_kind", "tool_name", "provider_name"},
    "deepseek-web": {"fragments", "results", "cite_index", "search_results", "biz_data"},
    "ragflow-api": {"data", "answer", "reference", "chunks", "doc_aggs", "docnm_kwd"},
}


def _keys(data: Any, depth: int = 0) -> set[str]:
    if depth > 4:
        return set()
    if isinstance(data, Mapping):
        out = {str(k) for k in data}
        for v in list(data.values())[:50]:
            out |= _keys(v, depth + 1)
        return out
    if isinstance(data, list):
        return set().union(*(_keys(v, depth + 1) for v in data[:20])) if data else set()
    return set()


def resembles(data: Any) -> list[str]:
    """The formats ``data`` looks most like, best first (by the characteristic keys it holds)."""
    keys = _keys(data)
    scored = sorted(((len(keys & k) / len(k), name) for name, k in _KEYS.items()), reverse=True)
    return [name for score, name in scored if score >= 0.3][:3]


def _resemble_hint(data: Any) -> str:
    like = resembles(data)
    names = ", ".join(PROVIDERS)
    return (
        f"it resembles {' or '.join(like)}: pass --from with one of them"
        if like
        else f"pass --from with one of {names}"
    )


_COLLECT: dict[str, Callable[[Sequence[Mapping[str, Any]]], dict[str, Any]]] = {
    "openai-responses": openai.collect_events,
    "anthropic": anthropic.collect_events,
    "gemini": gemini.collect_chunks,
    "gemini-interactions": interactions.collect_events,
    "cohere": cohere.collect_events,
    "perplexity": perplexity.collect_chunks,
    "bedrock-converse": bedrock.collect_events,
    "bedrock-kb": bedrock.collect_kb_events,
    "bedrock-agent": bedrock_agents.collect_agent_events,
    "mistral": mistral.collect_chunks,
    "openai-chat": openai.collect_chat_chunks,
    "langchain": langchain.collect_chunks,
    "ai-sdk": aisdk.collect_stream,
}


def collect_events(events: Sequence[Mapping[str, Any]], provider: str) -> dict[str, Any]:
    """Fold a streaming event (or chunk) sequence into the final response object."""
    fold = _COLLECT.get(provider)
    if fold is None:
        raise CiterenderError(f"{provider} has no streaming format here", hint="save the final response instead")
    return fold(events)


def _adapter(
    provider: str, documents: Sequence[Mapping[str, Any]]
) -> Callable[[Mapping[str, Any], Builder], list[str]]:
    return {
        "openai-responses": openai.responses,
        "openai-chat": openai.chat,
        "openai-assistants": openai.assistants,
        "anthropic": lambda data, b: anthropic.messages(data, b, documents),
        "gemini": gemini.generate_content,
        "gemini-interactions": interactions.interaction,
        "cohere": cohere.chat,
        "perplexity": perplexity.chat,
        "mistral": mistral.chat,
        "bedrock-converse": bedrock.converse,
        "bedrock-kb": bedrock.knowledge_base,
        "bedrock-agent": bedrock_agents.agent,
        "langchain": langchain.message,
        "ai-sdk": aisdk.ui_message,
        "llamaindex": llamaindex.response,
        "vertex-ai-search": vertex_search.answer,
        "haystack": haystack.answer,
        "pydantic-ai": pydantic_ai.response,
        "ragflow-api": ragflow.completion,
        "deepseek-web": deepseek.message,
    }[provider]


def adapt(
    data: Any,
    provider: str | None = None,
    *,
    documents: Sequence[Mapping[str, Any]] = (),
    sources: Registry | None = None,
    fmt: CitationFormat = DEFAULT_FORMAT,
) -> Adapted:
    """Turn a provider response (or its streaming events) into an answer with markers and a registry.

    :param documents: for Anthropic, the documents sent with the request (titles and URLs).
    :param sources: sources the citations name by id when the response does not carry them
        (Mistral's reference ids, Cohere's document ids).
    """
    surrogates: list[str] = []
    data = clean_data(data, surrogates)  # once, where the response enters (its depth bounded there)
    provider = provider or detect_provider(data)
    if provider not in PROVIDERS:
        raise CiterenderError(f"unknown provider {provider!r}", hint=f"use one of {', '.join(PROVIDERS)}")
    b = Builder(fmt, sources)
    if surrogates:
        b.note(("CR114", f"lone surrogates replaced by U+FFFD in {', '.join(dict.fromkeys(surrogates))[:200]}"))
    given = data  # what the file looks like is told from it, not from its events folded the wrong way
    try:
        if isinstance(data, list):
            data = collect_events(data, provider)
        if not isinstance(data, Mapping):
            raise CiterenderError("a response must be a JSON object")
        parts = _adapter(provider, documents)(data, b)
        registry = b.registry()
    except (AttributeError, TypeError, ValueError, KeyError, IndexError, OverflowError, RecursionError) as e:
        detail = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
        raise CiterenderError(
            f"the {provider} response has an unexpected shape ({detail})",
            hint=_looks_like(given, provider)
            or "pass the response exactly as the provider returned it (JSON, or JSON Lines of events)",
        ) from None
    text = "\n\n".join(p for p in parts if p)
    if not text.strip():
        raise CiterenderError(f"the {provider} response holds no text", hint=_looks_like(given, provider))
    return Adapted(text, registry, b.notes)


def _looks_like(data: Any, provider: str) -> str | None:
    """``it looks like X: pass --from X`` when the data is another provider's."""
    try:
        looks: str | None = detect_provider(data)
    except CiterenderError:
        like = [n for n in resembles(data) if n != provider]
        looks = like[0] if like else None
    return f"it looks like {looks}: pass --from {looks}" if looks and looks != provider else None


def load_response(path: str | Path, provider: str | None = None, *, sources: Registry | None = None) -> Adapted:
    """Read a saved response (JSON, or its streaming events: JSON Lines, server-sent events, AWS's
    binary event stream) and adapt it."""
    raw = read_bytes(path, limit=MAX_INPUT_BYTES, what="response")
    data = (
        parse_eventstream(raw, str(path))
        if looks_like_eventstream(raw)
        else parse_json(decode_text(raw, str(path), "response"), str(path))
    )
    try:
        return adapt(data, provider, sources=sources)
    except CiterenderError as e:
        raise CiterenderError(e.message, path=str(path), hint=e.hint) from None


def parse_json(raw: str, name: str) -> Any:
    """JSON, or a stream of events (JSON Lines, or server-sent events); invalid JSON names its line."""
    return read_json(raw, name)[0]


def read_json(raw: str, name: str) -> tuple[Any, bool]:
    """The value, and whether it was read as a stream of events (JSON Lines or server-sent events)."""
    try:
        return json.loads(raw), False
    except RecursionError:
        raise CiterenderError("invalid JSON: nested too deeply", path=name) from None
    except json.JSONDecodeError as first:
        if looks_like_sse(raw):
            return parse_sse(raw, name), True
        try:
            return [json.loads(line) for line in raw.splitlines() if line.strip()], True
        except (json.JSONDecodeError, RecursionError):
            raise CiterenderError(f"invalid JSON: {first.msg}", path=name, line=first.lineno) from None
