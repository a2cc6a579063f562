"""Haystack: a ``GeneratedAnswer`` (``to_dict()``: ``{"type": "haystack.dataclasses.answer.
GeneratedAnswer", "init_parameters": {data, query, documents, meta}}``, or those fields bare).
Its ``AnswerBuilder`` numbers the prompt's documents from 1 and, with a ``reference_pattern``,
keeps the ones the answer cites with their number in ``meta.source_index`` (and ``referenced``);
the answer writes ``[1]``, read by the ``numbered`` dialect. A document's number is its
``source_index`` (else its place in the list); a document never referenced is consulted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import Builder, retrieved_source

__all__ = ["answer"]


def answer(data: Mapping[str, Any], b: Builder) -> list[str]:
    inner = data.get("init_parameters")
    params: Mapping[str, Any] = inner if isinstance(inner, Mapping) else data
    b.dialect = "numbered"
    for i, doc in enumerate(params.get("documents") or []):
        if isinstance(doc, Mapping) and "init_parameters" in doc:  # a serialised Document object
            doc = doc["init_parameters"]
        if not isinstance(doc, Mapping):
            continue
        nested = doc.get("meta")
        meta: Mapping[str, Any] = nested if isinstance(nested, Mapping) else doc  # to_dict() flattens meta
        sid, locator = retrieved_source(b, meta, str(doc.get("content") or ""), doc.get("id"))
        index = meta.get("source_index")
        b.number(index if isinstance(index, int) and not isinstance(index, bool) else i + 1, sid, locator)
    return [str(params.get("data") or "")]
