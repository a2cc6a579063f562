"""RAGFlow (HTTP API, documentation of 2025-10): an answer citing the 0-based ``[ID:0]`` chunks of
``data.reference.chunks`` (a list, or the agent API's mapping), read by the ``ragflow`` dialect,
every version's field names read; chunks of one document are one source, ``doc_aggs`` consulted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import Builder, as_map, first_text, web_url

__all__ = ["completion"]


def completion(data: Mapping[str, Any], b: Builder) -> list[str]:
    body: Mapping[str, Any] = data["data"] if isinstance(data.get("data"), Mapping) else data
    reference = as_map(body.get("reference"))
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
