"""Vertex AI Search answers (Discovery Engine ``servingConfigs.answer``, documentation of 2025-10):
``answerText`` with ``citations`` (offsets in **UTF-8 bytes**, int64 as strings, a 0 left out)
naming ``references`` by index; references never cited are consulted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import Builder, insert_edits, web_url
from .offsets import SpanReader

__all__ = ["answer"]


def answer(resp: Mapping[str, Any], b: Builder) -> list[str]:
    ans: Mapping[str, Any] = resp["answer"] if isinstance(resp.get("answer"), Mapping) else resp
    text = str(ans.get("answerText") or "")
    refs = [_reference(r, b) if isinstance(r, Mapping) else None for r in ans.get("references") or []]
    reader = SpanReader(text, "utf8")
    edits = []
    for cit in ans.get("citations") or []:
        if not isinstance(cit, Mapping):
            continue
        markers = []
        for src in cit.get("sources") or []:
            rid = str(src.get("referenceId", "")) if isinstance(src, Mapping) else ""
            ref = refs[int(rid)] if rid.isdigit() and int(rid) < len(refs) else None
            if ref is None:
                b.note(("CR505", f"a citation names reference {rid[:40]!r}, which the answer does not hold"))
                continue
            markers.append(b.marker(*ref))
        if markers:
            at = b.place(reader, _offset(cit.get("startIndex")), _offset(cit.get("endIndex")))
            edits.append((at, at, "".join(dict.fromkeys(markers))))
    return [insert_edits(text, edits)]


def _reference(ref: Mapping[str, Any], b: Builder) -> tuple[str, str | None]:
    """The source of one reference and the line quoting its chunk."""
    chunk = ref.get("chunkInfo")
    doc = ref.get("unstructuredDocumentInfo") or ref.get("structuredDocumentInfo") or {}
    meta = chunk.get("documentMetadata") or {} if isinstance(chunk, Mapping) else doc
    passage = chunk.get("content") if isinstance(chunk, Mapping) else None
    if passage is None:
        contents = doc.get("chunkContents") or []
        passage = contents[0].get("content") if contents and isinstance(contents[0], Mapping) else None
    uri, title = meta.get("uri"), meta.get("title")
    key = f"url:{uri}" if uri else f"doc:{meta.get('document') or title or passage}"
    sid = b.source(key, "file", title=title or uri, url=web_url(uri), meta={"location": uri or meta.get("document")})
    return sid, b.add_line(sid, passage) if isinstance(passage, str) and passage.strip() else None


def _offset(value: Any) -> int:
    """An int64 offset as JSON writes it (a string), or 0 where proto3 left the default out."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return int(value) if isinstance(value, str) and value.isdigit() else 0
