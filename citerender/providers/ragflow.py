"""RAGFlow (HTTP API, documentation of 2025-10): a completion whose answer cites 0-based ``[ID:0]``
chunks of ``data.reference.chunks`` (a list, or the agent API's mapping by number), read by the
``ragflow`` dialect. Chunk fields changed names across versions: all are read. Chunks of one
document are one source, each a numbered line of it; documents only ``doc_aggs`` list are consulted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import Builder, first_text, web_url

__all__ = ["completion"]


def _body(data: Mapping[str, Any]) -> Mapping[str, Any]:
    inner = data.get("data")
    return inner if isinstance(inner, Mapping) else data


def completion(data: Mapping[str, Any], b: Builder) -> list[str]:
    body = _body(data)
    found = body.get("reference")
    reference: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    chunks = reference.get("chunks") or []
    # a mapping (the agent API) is keyed by the number the answer writes; a list is in that order
    items = (
        [(int(k), c) for k, c in chunks.items() if str(k).isdigit()]
        if isinstance(chunks, Mapping)
        else list(enumerate(chunks))
    )
    b.dialect = "ragflow"
    for i, chunk in items:
        if not isinstance(chunk, Mapping):
            continue
        doc = first_text(chunk, "document_id", "doc_id")
        name = first_text(chunk, "document_name", "docnm_kwd", "doc_name", "document_keyword")
        url = web_url(first_text(chunk, "url"))
        sid = b.source(f"doc:{doc or name or i}", "file", title=name, url=url, meta={"document_id": doc})
        text = first_text(chunk, "content", "content_with_weight", "text")
        b.number(i + 1, sid, b.add_line(sid, text) if text else None)  # [ID:i] names the i-th chunk
    for agg in reference.get("doc_aggs") or []:
        if isinstance(agg, Mapping):
            doc, name = first_text(agg, "doc_id", "document_id"), first_text(agg, "doc_name", "document_name")
            b.source(f"doc:{doc or name}", "file", title=name, meta={"document_id": doc})
    return [str(body.get("answer") or "")]
