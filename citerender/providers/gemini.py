"""Google Gemini / Vertex AI grounding (``generateContent``; documentation of 2026-05):
``candidates[0].groundingMetadata`` holds ``groundingChunks`` (``web``, ``retrievedContext``,
``maps``: ``uri``, ``title``; ``image``: ``sourceUri``, ``imageUri``, ``title``, ``domain``) and
``groundingSupports[]`` (``segment{partIndex, startIndex, endIndex, text}`` with
``groundingChunkIndices`` and ``confidenceScores``).

Segment offsets are **UTF-8 bytes** into the part's text, ``startIndex`` (and ``partIndex``)
omitted when 0; parts the model marks ``thought`` are its reasoning, neither shown nor counted;
each segment is checked against its ``text``. Web chunk URIs are redirect links
(``vertexaisearch.cloud.google.com/grounding-api-redirect/…``): the link is kept, and the chunk's
title, which names the site, is shown as the source's domain. An image chunk cites the page the
image is on (``sourceUri``), never the image. A chunk that cannot be linked (no URL, a kind not
read here, an empty one) is listed and reported (CR505, CR507), never a silent "grounding chunk
N". Every chunk and every page ``urlContextMetadata`` says was retrieved is a source (the
consulted option lists those nothing cites); a page URL context failed to retrieve is reported
(CR511). ``citationMetadata`` (recitation sources) is read alongside (:mod:`.gemini_citations`),
and the Search Suggestions widget (``searchEntryPoint``) is shown after the answer
(:mod:`.search_suggestions`). A streamed answer is a list of responses whose text parts add up,
the grounding metadata coming with the last ones, each chunk's citation sources with it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any

from ..syntax.escapes import printable
from .common import Builder, first_text, insert_edits, web_url
from .gemini_citations import citation_sources, merge_citations, recitations
from .offsets import SpanReader
from .search_suggestions import after_answer, suggestions
from .stops import cut_off

__all__ = ["camel_keys", "collect_chunks", "generate_content", "supports"]


#: the grounding chunk kinds read here (google-genai ``GroundingChunk``); any other is reported
_KINDS = ("web", "retrievedContext", "maps", "image")


def _source(chunk: Mapping[str, Any], index: int, b: Builder) -> str:
    """The source of grounding chunk ``index`` (made once: what it lacks is reported then)."""
    key = f"gemini:{index}"
    if key in b.by_key:
        return b.by_key[key]
    kind = next((k for k in _KINDS if isinstance(chunk.get(k), Mapping)), None)
    if kind == "image":
        return _image(chunk["image"], index, b)
    if kind is None:
        return _unread(chunk, index, b)
    c = chunk[kind]
    uri, title = c.get("uri"), c.get("title")
    meta: dict[str, Any] = {"chunk_index": index, "kind": kind}
    if kind == "web" and isinstance(title, str) and "." in title and " " not in title.strip():
        meta["domain"] = title.strip()  # the site behind the redirect link
    text = None
    if kind == "retrievedContext":
        text = c.get("text")
        title, uri = _retrieved_names(c, title, uri)
    elif not web_url(uri):  # a web page or place with no link: named, and said
        what = f"is listed as {printable(title, 80)}" if isinstance(title, str) and title.strip() else "names nothing"
        b.note(("CR505", f"grounding chunk {index + 1} ({kind}) has no URL: it {what}, not linked"))
    if not title and not uri:
        title = f"grounding chunk {index + 1}"
        if kind == "retrievedContext":
            b.note(("CR505", f"grounding chunk {index + 1} (retrievedContext) has no URL, title or store: listed as {printable(title)}"))  # fmt: skip
    return b.source(key, "search" if kind != "retrievedContext" else "file", title=title, url=uri, text=text, meta=meta)


def _image(c: Mapping[str, Any], index: int, b: Builder) -> str:
    """An image search result (``GroundingChunkImage``): a citation of the page the image is on
    (``sourceUri``), titled, its site shown; the image itself (``imageUri``) is never fetched."""
    url = web_url(c.get("sourceUri") or c.get("source_uri"))
    title, domain = first_text(c, "title"), first_text(c, "domain")
    meta: dict[str, Any] = {"chunk_index": index, "kind": "image"}
    if domain:
        meta["domain"] = domain
    name = title or domain or (None if url else f"image search result {index + 1}")
    if url is None and name is not None:
        what = f"grounding chunk {index + 1} (an image search result) has no page URL"
        b.note(("CR505", f"{what}: it is listed as {printable(name, 80)}, not linked"))
    return b.source(f"gemini:{index}", "search", title=name, url=url, meta=meta)


def _unread(chunk: Mapping[str, Any], index: int, b: Builder) -> str:
    """A chunk of a kind not read here (CR507), or an empty one (CR505): listed under its number,
    its URL kept when it has one — never a silent "grounding chunk N"."""
    title = f"grounding chunk {index + 1}"
    url = next((u for v in chunk.values() if isinstance(v, Mapping) for u in [web_url(v.get("uri"))] if u), None)
    if not chunk:
        b.note(
            ("CR505", f"{title} is empty (no web page, file, place or image): listed as {printable(title)}, not linked")
        )
    else:
        kinds = ", ".join(sorted(str(k) for k in chunk)[:5])[:80]
        how = "its URL is kept" if url else f"listed as {printable(title)}, not linked"
        b.note(("CR507", f"{title} ({kinds}) is of a kind citerender does not read: {how}"))
    return b.source(f"gemini:{index}", "search", title=None if url else title, url=url, meta={"chunk_index": index})


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


def camel_keys(data: Any) -> Any:
    """``data`` with its keys as the REST API writes them: the SDKs' ``model_dump()`` writes them
    snake_case (``grounding_metadata``, ``grounding_chunk_indices``), the proto field names the
    API's JSON names camelCase; values are left as they are."""
    if isinstance(data, Mapping):
        return {_CAMEL.sub(lambda m: m.group(1).upper(), str(k)): camel_keys(v) for k, v in data.items()}
    if isinstance(data, list):
        return [camel_keys(v) for v in data]
    return data


_CAMEL = re.compile(r"(?<=[a-z0-9])_([a-z])")


def generate_content(resp: Mapping[str, Any], b: Builder) -> list[str]:
    """The answer (its text parts joined) with each grounding support's and citation source's
    marker in place, then the Search Suggestions the response asks to be shown. A response the
    SDKs dumped (snake_case keys) is read as the API writes it."""
    resp = camel_keys(resp)
    candidates = resp.get("candidates") or []
    if not candidates:
        return []
    cand = candidates[0]
    parts = _answer_texts(cand)
    bases = [0, *accumulate(len(t) for t in parts)]  # where each part starts in the answer
    text = "".join(parts)
    edits: list[tuple[int, int, str]] = []
    readers = [SpanReader(t, "utf8") for t in parts]
    meta = cand.get("groundingMetadata") or {}
    for part, start, end, cited, marker in supports(meta, b):
        if not 0 <= part < len(parts):
            b.note(("CR504", f"a grounding support names part {part}; the answer has {len(parts)}: left out"))
            continue
        at = bases[part] + b.place(readers[part], start, end, cited)
        edits.append((at, at, marker))
    edits.extend(recitations(cand, text, b))
    _consulted(cand, b)
    _stopped(cand, b)
    answer = insert_edits(text, edits)
    return [answer + after_answer(answer, suggestions(meta, b))]


def _stopped(cand: Mapping[str, Any], b: Builder) -> None:
    """An answer Gemini stopped before its end (``finishReason`` MAX_TOKENS, SAFETY, RECITATION…,
    anything but STOP) is shown as far as it came, and said to be cut off (CR514)."""
    why = cand.get("finishMessage")  # what Gemini says of it, where it says something
    cut_off(b, "candidates[0].finishReason", cand.get("finishReason"), None, finished=_FINISHED, detail=why)


#: the ``finishReason`` values of an answer Gemini finished (every other one stopped it early)
_FINISHED = frozenset({"stop", "finish_reason_unspecified"})


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
    cited: list[Mapping[str, Any]] = []  # each chunk's citation sources (offsets from the answer's start)
    reason: Any = None
    said: Any = None
    for chunk in map(camel_keys, chunks):
        for cand in (chunk.get("candidates") or [])[:1]:
            reason = cand.get("finishReason") or reason  # the stream's last word on how it ended
            said = cand.get("finishMessage") or said
            for k, text in enumerate(_answer_texts(cand)):
                while len(texts) <= k:
                    texts.append([])
                texts[k].append(text)
            if cand.get("groundingMetadata"):
                meta = cand["groundingMetadata"]
            if cand.get("urlContextMetadata"):
                url_meta = cand["urlContextMetadata"]
            cited.extend(citation_sources(cand))
    cand_out: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": "".join(t)} for t in texts]}}
    if meta is not None:
        cand_out["groundingMetadata"] = meta
    if url_meta is not None:
        cand_out["urlContextMetadata"] = url_meta
    if (merged := merge_citations(cited)) is not None:
        cand_out["citationMetadata"] = merged
    if reason is not None:
        cand_out.update({"finishReason": reason, **({"finishMessage": said} if said else {})})
    return {"candidates": [cand_out]}
