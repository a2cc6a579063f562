"""A saved provider response as an answer: which provider produced it, its streaming events
folded into one response, and the adapter that turns it into text with markers and a registry.
(The package's docstring lists the formats.)"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..formats import FORMATS, Format, detect, find
from ..options import PROVIDERS
from ..sources.clean import clean_data
from ..sources.files import MAX_INPUT_BYTES, decode_text, read_bytes
from ..sources.model import Registry
from ..syntax.format import DEFAULT_FORMAT, CitationFormat
from .common import Adapted, Builder
from .eventstream import looks_like_eventstream, parse_eventstream
from .sse import looks_like_sse, parse_sse
from .stops import why_empty

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


def detect_provider(data: Any) -> str:
    """Which provider produced ``data`` (a response, or a list of streaming events or chunks): the
    first format of :data:`citerender.formats.FORMATS` whose test holds."""
    if not isinstance(data, list | Mapping):
        raise CiterenderError("a response must be a JSON object")
    found = detect(data)
    if found is not None:
        return found
    like = resembles(data)
    raise CiterenderError(
        "unrecognised list of events"
        if isinstance(data, list)
        else "cannot tell which provider produced this response",
        hint=f"it resembles {' or '.join(like)}: pass --from with one of them"
        if like
        else f"pass --from with one of {', '.join(PROVIDERS)}",
    )


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
    scored = sorted(((len(keys & f.keys) / len(f.keys), f.name) for f in FORMATS if f.keys), reverse=True)
    return [name for score, name in scored if score >= 0.3][:3]


def _load(ref: str) -> Callable[..., Any]:
    """The function a ``"module:function"`` reference names, imported now (only the format met)."""
    module, _, name = ref.partition(":")
    found: Callable[..., Any] = getattr(import_module(module), name)
    return found


def collect_events(events: Sequence[Mapping[str, Any]], provider: str) -> dict[str, Any]:
    """Fold a streaming event (or chunk) sequence into the final response object."""
    entry = find(provider)
    if entry is None or entry.collect is None:
        raise CiterenderError(f"{provider} has no streaming format here", hint="save the final response instead")
    folded: dict[str, Any] = _load(entry.collect)(events)
    return folded


def _read(entry: Format, data: Mapping[str, Any], b: Builder, documents: Sequence[Mapping[str, Any]]) -> list[str]:
    """The text parts of a response, by its format's adapter (``documents`` to those that take them)."""
    if entry.adapter is None:
        raise CiterenderError(f"{entry.name} is not a provider response")
    read = _load(entry.adapter)
    parts: list[str] = read(data, b, documents=documents) if entry.documents else read(data, b)
    return parts


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
    entry = find(provider)
    if entry is None or entry.kind != "response":
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
        parts = _read(entry, data, b, documents)
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
        cut = why_empty(b.notes)  # a refusal, a limit spent before the first word: said with the error
        what = f"the {provider} response holds no text" + (f": {cut}" if cut else "")
        raise CiterenderError(what, hint=None if cut else _looks_like(given, provider))
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
    """Read a saved response (JSON, or its events: JSON Lines, server-sent events, AWS's binary
    event stream) and adapt it."""
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
