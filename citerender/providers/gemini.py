"""Google Gemini / Vertex AI grounding (``generateContent``; documentation of 2025-10):
``candidates[0].groundingMetadata`` holds ``groundingChunks`` (``web``, ``retrievedContext``,
``maps``: ``uri``, ``title``) and ``groundingSupports[]`` (``segment{partIndex, startIndex,
endIndex, text}`` with ``groundingChunkIndices`` and ``confidenceScores``).

Segment offsets are **UTF-8 bytes** into the part's text, ``startIndex`` (and ``partIndex``)
omitted when 0; parts the model marks ``thought`` are its reasoning, neither shown nor counted;
each segment is checked against its ``text``. Web chunk URIs are redirect links
(``vertexaisearch.cloud.google.com/grounding-api-redirect/…``): the link is kept, and the chunk's
title, which names the site, is shown as the source's domain. Every chunk and every page
``urlContextMetadata`` says was retrieved is a source (the consulted option lists those nothing
cites); a page URL context failed to retrieve is reported (CR511). A streamed answer is a list of
responses whose text parts add up, the grounding metadata coming with the last ones."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .common import Builder, insert_edits
from .offsets import SpanReader

__all__ = ["collect_chunks", "generate_content", "supports"]


def _source(chunk: Mapping[str, Any], index: int, b: Builder) -> str:
    for kind in ("web", "retrievedContext", "maps"):
        c = chunk.get(kind)
        if isinstance(c, Mapping):
            uri, title = c.get("uri"), c.get("title")
            meta: dict[str, Any] = {"chunk_index": index, "kind": kind}
            if kind == "web" and isinstance(title, str) and "." in title and " " not in title.strip():
                meta["domain"] = title.strip()  # the site behind the redirect link
            text = None
            if kind == "retrievedContext":
                text = c.get("text")
                title, uri = _retrieved_names(c, title, uri)
            return b.source(
                f"gemini:{index}", "search" if kind == "web" else "file", title=title, url=uri, text=text, meta=meta
            )
    return b.source(f"gemini:{index}", "search", title=f"grounding chunk {index + 1}")


_URL_KEYS = ("url", "source_url", "uri", "source_uri", "link")


def _retrieved_names(c: Mapping[str, Any], title: Any, uri: Any) -> tuple[Any, Any]:
    """A file search chunk's title and link: its own, else what the caller put in the document's
    ``customMetadata`` (a ``title``, a ``url``-like key), else the store it came from — never
    the bare chunk id."""
    custom = {
        str(m.get("key", "")).lower(): m.get("stringValue")
        for m in c.get("customMetadata") or []
        if isinstance(m, Mapping) and isinstance(m.get("stringValue"), str)
    }
    if not uri:
        uri = next((custom[k] for k in _URL_KEYS if custom.get(k)), None)
    if not title:
        store = c.get("fileSearchStore") or c.get("ragCorpus")
        title = custom.get("title") or (f"{str(store).rsplit('/', 1)[-1]} (file search)" if store else None)
    return title, uri


def supports(meta: Mapping[str, Any], b: Builder) -> list[tuple[int, Any, Any, Any, str]]:
    """Each grounding support as ``(part, startIndex, endIndex, text, marker)`` (UTF-8 offsets
    into the part), its sources made; supports naming no chunk the response holds are reported."""
    chunks = meta.get("groundingChunks") or []
    out = []
    for support in meta.get("groundingSupports") or []:
        seg = support.get("segment") or {}
        ids = []
        for i in support.get("groundingChunkIndices") or []:
            if isinstance(i, int) and 0 <= i < len(chunks) and isinstance(chunks[i], Mapping):
                ids.append(_source(chunks[i], i, b))
            else:
                b.note(("CR505", f"a grounding support names chunk {i}, which the response does not hold"))
        if ids:
            part = int(seg.get("partIndex", 0) or 0)
            out.append(
                (
                    part,
                    seg.get("startIndex", 0),
                    seg.get("endIndex"),
                    seg.get("text"),
                    b.fmt.marker(*dict.fromkeys(ids)),
                )
            )
    return out


def _answer_texts(cand: Mapping[str, Any]) -> list[str]:
    """The answer's text parts, in order: a part the model marks ``thought`` is its reasoning
    (``includeThoughts``), not the answer, and segment offsets do not count it — Gemini 3 with a
    tool gives ``[thought, toolCall, toolResponse, thought, answer]`` and offsets into the answer."""
    return [
        str(p.get("text", ""))
        for p in (cand.get("content") or {}).get("parts") or []
        if isinstance(p, Mapping) and "text" in p and not p.get("thought")
    ]


def generate_content(resp: Mapping[str, Any], b: Builder) -> list[str]:
    candidates = resp.get("candidates") or []
    if not candidates:
        return []
    cand = candidates[0]
    parts = _answer_texts(cand)
    edits: dict[int, list[tuple[int, int, str]]] = {}
    readers = [SpanReader(t, "utf8") for t in parts]
    for part, start, end, text, marker in supports(cand.get("groundingMetadata") or {}, b):
        if not 0 <= part < len(parts):
            b.note(("CR504", f"a grounding support names part {part}; the answer has {len(parts)}: left out"))
            continue
        at = b.place(readers[part], start, end, text)
        edits.setdefault(part, []).append((at, at, marker))
    _consulted(cand, b)
    return ["".join(insert_edits(t, edits.get(k, [])) for k, t in enumerate(parts))]


def _consulted(cand: Mapping[str, Any], b: Builder) -> None:
    """Every grounding chunk (the pages searched, cited or not) and every page URL context read,
    as sources the consulted option lists when nothing cites them; a page it could not read is
    reported (CR511). URL context's metadata comes camelCase or snake_case (SDK dumps)."""
    meta = cand.get("groundingMetadata") or {}
    for i, chunk in enumerate(meta.get("groundingChunks") or []):
        if isinstance(chunk, Mapping):
            _source(chunk, i, b)
    url_meta = cand.get("urlContextMetadata") or cand.get("url_context_metadata") or {}
    entries = (
        (url_meta.get("urlMetadata") or url_meta.get("url_metadata") or []) if isinstance(url_meta, Mapping) else []
    )
    for m in entries:
        if not isinstance(m, Mapping):
            continue
        url = m.get("retrievedUrl") or m.get("retrieved_url")
        status = str(m.get("urlRetrievalStatus") or m.get("url_retrieval_status") or "")
        if not isinstance(url, str):
            continue
        if status.upper().endswith("SUCCESS"):
            b.source(f"url:{url}", "search", url=url)
        else:
            b.note(("CR511", f"URL context could not read {url[:200]} ({status[:60] or 'no status'})"))


def collect_chunks(chunks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold streamed responses into one: texts added part by part, the last grounding metadata kept."""
    texts: list[list[str]] = []  # each part's pieces, joined once: linear in the stream
    meta: Any = None
    url_meta: Any = None
    for chunk in chunks:
        for cand in (chunk.get("candidates") or [])[:1]:
            for k, text in enumerate(_answer_texts(cand)):
                while len(texts) <= k:
                    texts.append([])
                texts[k].append(text)
            if cand.get("groundingMetadata"):
                meta = cand["groundingMetadata"]
            if cand.get("urlContextMetadata"):
                url_meta = cand["urlContextMetadata"]
    cand_out: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": "".join(t)} for t in texts]}}
    if meta is not None:
        cand_out["groundingMetadata"] = meta
    if url_meta is not None:
        cand_out["urlContextMetadata"] = url_meta
    return {"candidates": [cand_out]}
