"""Haystack: a ``GeneratedAnswer`` (``to_dict()``, or its fields bare). ``AnswerBuilder`` numbers
the prompt's documents from 1 (``meta.source_index``) and the answer cites ``[1]``, read by the
``numbered`` dialect; a document never referenced is consulted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import Builder, retrieved_source

__all__ = ["answer"]


def answer(data: Mapping[str, Any], b: Builder) -> list[str]:
    params: Mapping[str, Any] = data["init_parameters"] if isinstance(data.get("init_parameters"), Mapping) else data
    b.dialect = "numbered"
    for i, doc in enumerate(params.get("documents") or []):
        if isinstance(doc, Mapping) and "init_parameters" in doc:  # a serialised Document object
            doc = doc["init_parameters"]
        if not isinstance(doc, Mapping):
            continue
        meta: Mapping[str, Any] = doc["meta"] if isinstance(doc.get("meta"), Mapping) else doc  # to_dict() flattens it
        sid, locator = retrieved_source(b, meta, str(doc.get("content") or ""), doc.get("id"))
        index = meta.get("source_index")
        b.number(index if isinstance(index, int) and not isinstance(index, bool) else i + 1, sid, locator)
    return [str(params.get("data") or "")]
