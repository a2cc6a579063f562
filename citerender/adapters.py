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
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import CiterenderError
from .format import DEFAULT_FORMAT, CitationFormat
from .sources import Registry

__all__ = ["PROVIDERS", "Adapted", "adapt", "collect_events", "detect_provider", "load_response"]

PROVIDERS = ("openai-responses", "openai-chat", "anthropic", "openai-assistants")


@dataclass
class Adapted:
    """An answer with markers, its registry, and notes on anything that could not be placed."""

    text: str
    registry: Registry
    notes: list[str] = field(default_factory=list)


class _Builder:
    """Numbers sources as they are first cited and records where markers go."""

    def __init__(self, fmt: CitationFormat) -> None:
        self.fmt = fmt
        self.sources: dict[str, dict[str, Any]] = {}
        self.by_key: dict[str, str] = {}
        self.counts: dict[str, int] = {}

    def source(self, key: str, kind: str, **fields: Any) -> str:
        sid = self.by_key.get(key)
        if sid is None:
            n = self.counts.get(kind, 0)
            self.counts[kind] = n + 1
            sid = f"turn0{kind}{n}"
            self.by_key[key] = sid
            self.sources[sid] = {"id": sid, **{k: v for k, v in fields.items() if v}}
        else:
            for k, v in fields.items():
                if v and not self.sources[sid].get(k):
                    self.sources[sid][k] = v
        return sid

    def add_line(self, sid: str, line: str) -> str:
        """Add a cited passage to a source as a numbered line; return its locator."""
        lines = self.sources[sid].setdefault("lines", [])
        line = re.sub(r"\s+", " ", line).strip()
        if line not in lines:
            lines.append(line)
        return f"L{lines.index(line) + 1}"

    def marker(self, sid: str, locator: str | None = None) -> str:
        return self.fmt.marker(sid, locator=locator)

    def registry(self) -> Registry:
        from .sources import registry_from_data

        return registry_from_data(list(self.sources.values()))


def _insert(text: str, inserts: list[tuple[int, int, str]]) -> str:
    """Apply (start, end, replacement) edits, end-to-start; overlapping edits keep the first."""
    out = []
    pos = 0
    for start, end, rep in sorted(inserts, key=lambda x: (x[0], x[1])):
        start = max(start, pos)
        end = max(end, start)
        out.append(text[pos:start])
        out.append(rep)
        pos = end
    out.append(text[pos:])
    return "".join(out)


_LINK_SPAN = re.compile(r"\s*\(?\[([^\]]*)\]\(([^)\s]+)\)\)?\s*\Z")


def _url_citations(text: str, annotations: Iterable[Mapping[str, Any]], b: _Builder) -> list[tuple[int, int, str]]:
    """Edits placing url_citation markers: a span that is just ``([domain](url))`` is replaced by
    the marker; any other span gets the marker after it (after trailing punctuation)."""
    edits: list[tuple[int, int, str]] = []
    for a in annotations:
        cit = a.get("url_citation", a) if isinstance(a, Mapping) else {}
        if a.get("type") != "url_citation":
            continue
        url, title = cit.get("url"), cit.get("title")
        start, end = int(cit.get("start_index", 0)), int(cit.get("end_index", 0))
        if not url or not 0 <= start <= end <= len(text):
            continue
        clean_url = re.sub(r"([?&])utm_source=openai(&|$)", lambda m: m.group(1) if m.group(2) else "", url).rstrip("?&")
        sid = b.source(f"url:{clean_url}", "search", title=title, url=clean_url)
        span = text[start:end]
        if _LINK_SPAN.match(span):
            lead = len(span) - len(span.lstrip())
            edits.append((start + lead, end, b.marker(sid)))
        else:
            at = end
            while at < len(text) and text[at] in ".,;:!?)":
                at += 1
            edits.append((at, at, b.marker(sid)))
    return edits


def _openai_responses(resp: Mapping[str, Any], b: _Builder) -> list[str]:
    parts = []
    for item in resp.get("output", []) or []:
        if item.get("type") != "message":
            continue
        for content in item.get("content", []) or []:
            if content.get("type") != "output_text":
                continue
            text = str(content.get("text", ""))
            anns = content.get("annotations", []) or []
            edits = _url_citations(text, anns, b)
            for a in anns:
                if a.get("type") == "file_citation":
                    sid = b.source(f"file:{a.get('file_id')}", "file", title=a.get("filename"),
                                   meta={"file_id": a.get("file_id")})
                    at = min(max(int(a.get("index", len(text))), 0), len(text))
                    edits.append((at, at, b.marker(sid)))
            parts.append(_insert(text, edits))
    return parts


def _openai_chat(resp: Mapping[str, Any], b: _Builder) -> list[str]:
    parts = []
    for choice in (resp.get("choices") or [])[:1]:
        msg = choice.get("message") or {}
        text = str(msg.get("content") or "")
        parts.append(_insert(text, _url_citations(text, msg.get("annotations") or [], b)))
    return parts


def _anthropic(resp: Mapping[str, Any], b: _Builder, documents: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    out: list[tuple[str, list[str]]] = []
    for block in resp.get("content", []) or []:
        if block.get("type") != "text":
            continue
        text = str(block.get("text", ""))
        markers: list[str] = []
        for c in block.get("citations") or []:
            kind = c.get("type")
            cited = str(c.get("cited_text", "") or "")
            if kind == "web_search_result_location":
                sid = b.source(f"url:{c.get('url')}", "search", title=c.get("title"), url=c.get("url"))
            elif kind in ("char_location", "page_location", "content_block_location"):
                idx = c.get("document_index", 0)
                doc = documents[idx] if isinstance(idx, int) and idx < len(documents) else {}
                sid = b.source(f"doc:{idx}", "file", title=c.get("document_title") or doc.get("title"),
                               url=doc.get("url"), meta={"document_index": idx})
                where = {"page_location": f"pages {c.get('start_page_number')}–{c.get('end_page_number')}",
                         "content_block_location": f"blocks {c.get('start_block_index')}–{c.get('end_block_index')}",
                         "char_location": f"characters {c.get('start_char_index')}–{c.get('end_char_index')}"}[kind]
                b.sources[sid].setdefault("meta", {}).setdefault("locations", []).append(where)
            else:
                continue
            loc = b.add_line(sid, cited) if cited else None
            m = b.marker(sid, loc)
            if m not in markers:
                markers.append(m)
        out.append((text, markers))
    # a block's markers go after the punctuation that opens the next block ("…week[1]." → "…week.[1]")
    pieces: list[str] = []
    pending = ""
    for text, markers in out:
        if pending:
            lead = re.match(r"[.,;:!?)\]]*", text).group(0)  # type: ignore[union-attr]
            pieces.append(lead + pending)
            text = text[len(lead):]
            pending = ""
        stripped = text.rstrip()
        pieces.append(stripped)
        pending = "".join(markers)
        if not pending:
            pieces.append(text[len(stripped):])
        else:
            pending += text[len(stripped):]
    pieces.append(pending)
    return ["".join(pieces)]


def _assistants(resp: Mapping[str, Any], b: _Builder) -> list[str]:
    parts = []
    for content in resp.get("content", []) or []:
        if content.get("type") != "text":
            continue
        t = content.get("text") or {}
        text = str(t.get("value", ""))
        edits = []
        for a in t.get("annotations", []) or []:
            if a.get("type") == "file_citation":
                fc = a.get("file_citation") or {}
                sid = b.source(f"file:{fc.get('file_id')}", "file", title=fc.get("file_name") or fc.get("filename"),
                               meta={"file_id": fc.get("file_id")})
                quote = fc.get("quote")
                loc = b.add_line(sid, quote) if quote else None
                edits.append((int(a.get("start_index", 0)), int(a.get("end_index", 0)), b.marker(sid, loc)))
            elif a.get("type") == "file_path":
                edits.append((int(a.get("start_index", 0)), int(a.get("end_index", 0)), ""))
        parts.append(_insert(text, edits))
    return parts


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
    raise CiterenderError("cannot tell which provider produced this response",
                          hint=f"pass --from with one of {', '.join(PROVIDERS)}")


def collect_events(events: Sequence[Mapping[str, Any]], provider: str) -> dict[str, Any]:
    """Fold a streaming event sequence into the final response object."""
    if provider == "openai-responses":
        for e in reversed(events):
            if e.get("type") == "response.completed" and isinstance(e.get("response"), Mapping):
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
    if provider == "anthropic":
        message: dict[str, Any] = {"type": "message", "role": "assistant", "content": []}
        blocks: dict[int, dict[str, Any]] = {}
        for e in events:
            t = e.get("type")
            if t == "message_start":
                message.update({k: v for k, v in (e.get("message") or {}).items() if k != "content"})
            elif t == "content_block_start":
                block = dict(e.get("content_block") or {})
                if block.get("type") == "text":
                    block.setdefault("text", "")
                    block["citations"] = list(block.get("citations") or [])
                blocks[int(e.get("index", 0))] = block
            elif t == "content_block_delta":
                block = blocks.setdefault(int(e.get("index", 0)), {"type": "text", "text": "", "citations": []})
                d = e.get("delta") or {}
                if d.get("type") == "text_delta":
                    block["text"] = block.get("text", "") + str(d.get("text", ""))
                elif d.get("type") == "citations_delta":
                    block.setdefault("citations", []).append(d.get("citation"))
        message["content"] = [blocks[k] for k in sorted(blocks)]
        return message
    raise CiterenderError(f"{provider} has no streaming format here", hint="save the final response instead")


def adapt(data: Any, provider: str | None = None, *, documents: Sequence[Mapping[str, Any]] = (),
          fmt: CitationFormat = DEFAULT_FORMAT) -> Adapted:
    """Turn a provider response (or its streaming events) into an answer with markers and a registry.

    :param documents: for Anthropic, the documents sent with the request (titles and URLs).
    """
    provider = provider or detect_provider(data)
    if provider not in PROVIDERS:
        raise CiterenderError(f"unknown provider {provider!r}", hint=f"use one of {', '.join(PROVIDERS)}")
    if isinstance(data, list):
        data = collect_events(data, provider)
    if not isinstance(data, Mapping):
        raise CiterenderError("a response must be a JSON object")
    b = _Builder(fmt)
    if provider == "openai-responses":
        parts = _openai_responses(data, b)
    elif provider == "openai-chat":
        parts = _openai_chat(data, b)
    elif provider == "anthropic":
        parts = _anthropic(data, b, documents)
    else:
        parts = _assistants(data, b)
    text = "\n\n".join(p for p in parts if p)
    if not text.strip():
        raise CiterenderError(f"the {provider} response holds no text")
    return Adapted(text, b.registry())


def load_response(path: str | Path, provider: str | None = None) -> Adapted:
    """Read a saved response (JSON, or JSON Lines of streaming events) and adapt it."""
    from .sources import read_text_file

    raw = read_text_file(path, what="response")
    try:
        data: Any = json.loads(raw)
    except json.JSONDecodeError as first:
        try:
            data = [json.loads(line) for line in raw.splitlines() if line.strip()]
        except json.JSONDecodeError:
            raise CiterenderError(f"invalid JSON: {first.msg}", path=str(path), line=first.lineno) from None
    try:
        return adapt(data, provider)
    except CiterenderError as e:
        raise CiterenderError(e.message, path=str(path), hint=e.hint) from None
