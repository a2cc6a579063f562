"""Amazon Bedrock Agents (``InvokeAgent``, documentation of 2025-10): the ``chunk`` events (answer
``bytes``, base64 once saved as JSON, and Knowledge Bases ``attribution.citations``) fold into a
RetrieveAndGenerate response; the passages ``trace`` lookups retrieved are consulted."""

from __future__ import annotations

import base64
import binascii
import codecs
from collections.abc import Mapping, Sequence
from typing import Any

from .bedrock import kb_source, knowledge_base
from .common import Builder, as_list, as_map

__all__ = ["agent", "answer_text", "collect_agent_events"]


def collect_agent_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold ``InvokeAgent`` events (or ``{"completion": [events]}``) into one response."""
    chunks: list[Any] = []
    citations: list[Any] = []
    retrieved: list[Any] = []
    for e in events:
        chunk = e.get("chunk")
        if isinstance(chunk, Mapping):
            chunks.append(chunk.get("bytes"))
            citations.extend((chunk.get("attribution") or {}).get("citations") or [])
        retrieved.extend(_lookups(e.get("trace")))
    return {"output": {"text": answer_text(chunks)}, "citations": citations, "retrieved": retrieved}


def agent(resp: Mapping[str, Any], b: Builder) -> list[str]:
    if isinstance(resp.get("completion"), list):  # the boto3 response, its event stream saved
        resp = collect_agent_events(resp["completion"])
    for ref in resp.get("retrieved") or []:
        if isinstance(ref, Mapping):
            kb_source(ref, b, quote=False)
    return knowledge_base(resp, b)


def answer_text(chunks: Sequence[Any]) -> str:
    """The answer the chunks' ``bytes`` spell, decoded as one UTF-8 stream (a character may be split
    across chunks). Text chunks are base64 (as botocore saves a blob) when every one is and the
    whole then decodes as UTF-8, else the text they are; a list of byte values is read too."""
    decoded = _stream(chunks, base64_text=True, errors="strict")
    return decoded if decoded is not None else _stream(chunks, base64_text=False, errors="replace") or ""


def _stream(chunks: Sequence[Any], *, base64_text: bool, errors: str) -> str | None:
    """The chunks decoded in order by one incremental UTF-8 decoder; None when strict decoding fails."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors)
    out: list[str] = []
    try:
        for c in chunks:
            if isinstance(c, str) and not base64_text:
                out.append(decoder.decode(b"", final=True) + c)
                decoder.reset()
            elif isinstance(c, str):
                out.append(decoder.decode(base64.b64decode(c, validate=True)))
            elif (data := _bytes(c)) is not None:
                out.append(decoder.decode(data))
        out.append(decoder.decode(b"", final=True))
    except (binascii.Error, ValueError):  # not base64, or base64 of bytes that are no UTF-8 text
        return None
    return "".join(out)


def _bytes(chunk: Any) -> bytes | None:
    """A chunk's bytes as boto3 gives them, or as a list of byte values."""
    if isinstance(chunk, (bytes, bytearray)):
        return bytes(chunk)
    if isinstance(chunk, list) and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 256 for x in chunk):
        return bytes(chunk)
    return None


def _lookups(trace: Any) -> list[Any]:
    """The retrieved references of a trace event's knowledge-base lookup."""
    found = trace.get("trace", trace) if isinstance(trace, Mapping) else None
    for key in ("orchestrationTrace", "observation", "knowledgeBaseLookupOutput", "retrievedReferences"):
        found = as_map(found).get(key)
    return as_list(found)
