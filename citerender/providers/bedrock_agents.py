"""Amazon Bedrock Agents (``InvokeAgent``, documentation of 2025-10): a stream of ``chunk`` events
(``bytes`` of the answer — base64 once saved as JSON — and ``attribution.citations`` in the
Knowledge Bases shape) and ``trace`` events, whose knowledge-base lookups list every passage the
agent retrieved. The chunks fold into a RetrieveAndGenerate response (spans checked against
their cited text); retrieved passages never cited are sources consulted."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .bedrock import kb_source, knowledge_base
from .common import Builder

__all__ = ["agent", "collect_agent_events"]


def collect_agent_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold ``InvokeAgent`` events (or ``{"completion": [events]}``) into one response."""
    text: list[str] = []
    citations: list[Any] = []
    retrieved: list[Any] = []
    for e in events:
        chunk = e.get("chunk")
        if isinstance(chunk, Mapping):
            text.append(_text(chunk.get("bytes")))
            citations.extend((chunk.get("attribution") or {}).get("citations") or [])
        retrieved.extend(_lookups(e.get("trace")))
    return {"output": {"text": "".join(text)}, "citations": citations, "retrieved": retrieved}


def agent(resp: Mapping[str, Any], b: Builder) -> list[str]:
    if isinstance(resp.get("completion"), list):  # the boto3 response, its event stream saved
        resp = collect_agent_events(resp["completion"])
    for ref in resp.get("retrieved") or []:
        if isinstance(ref, Mapping):
            kb_source(ref, b, quote=False)
    return knowledge_base(resp, b)


def _text(data: Any) -> str:
    """A chunk's ``bytes``: base64 in saved JSON (botocore's encoding of a blob), else the text."""
    if not isinstance(data, str):
        return bytes(data).decode("utf-8", "replace") if isinstance(data, (bytes, bytearray)) else ""
    try:
        decoded = base64.b64decode(data, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return data
    return decoded if all(ch.isprintable() or ch in "\n\t\r" for ch in decoded) else data


def _lookups(trace: Any) -> Iterator[Any]:
    """The retrieved references of a trace event's knowledge-base lookups."""
    if not isinstance(trace, Mapping):
        return
    inner = trace.get("trace", trace)
    orchestration = inner.get("orchestrationTrace") if isinstance(inner, Mapping) else None
    observation = orchestration.get("observation") if isinstance(orchestration, Mapping) else None
    lookup = observation.get("knowledgeBaseLookupOutput") if isinstance(observation, Mapping) else None
    if isinstance(lookup, Mapping):
        yield from lookup.get("retrievedReferences") or []
