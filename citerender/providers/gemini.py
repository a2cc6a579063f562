"""Google Gemini / Vertex AI grounding (``generateContent``, documentation of 2026-05): each of
``groundingMetadata.groundingSupports`` cites ``groundingChunks`` (``web``, ``retrievedContext``,
``maps``, ``image``) over a segment in **UTF-8 bytes** of its part (``thought`` parts not counted).
A web chunk's title names its site, an image chunk cites its page; a chunk that cannot be linked is
reported (CR505, CR507). Every chunk and page URL context read is a source (one not read: CR511);
``citationMetadata`` is read by :mod:`.gemini_citations`, the widget by :mod:`.search_suggestions`."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any

from ..syntax.escapes import printable
from .common import Builder, as_list, as_map, first_text, insert_edits, web_url
from .gemini_citations import citation_sources, merge_citations, recited_places
from .offsets import SpanReader
from .search_suggestions import after_answer, suggestions
from .stops import cut_off

__all__ = ["camel_keys", "collect_chunks", "generate_content", "supports"]

#: the grounding chunk kinds read here (google-genai ``GroundingChunk``); any other is reported
_KINDS = ("web", "retrievedContext", "maps", "image")
#: the ``customMetadata`` keys that may link a file search document
_URL_KEYS = ("url", "source_url", "uri", "source_uri", "link")
_CAMEL = re.compile(r"(?<=[a-z0-9])_([a-z])")
#: the ``finishReason`` values of an answer Gemini finished (every other one stopped it early)
_FINISHED = frozenset({"stop", "finish_reason_unspecified"})
#: what a stream's last chunk that has it says for the whole answer
_KEPT = ("groundingMetadata", "urlContextMetadata", "finishReason", "finishMessage")


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
    """An image search result: the page the image is on (``sourceUri``), never the image."""
    url = web_url(c.get("sourceUri"))
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
    """A chunk of a kind not read here (CR507), or an empty one (CR505): its URL kept, if any."""
    title = f"grounding chunk {index + 1}"
    url = next((u for v in chunk.values() if isinstance(v, Mapping) for u in [web_url(v.get("uri"))] if u), None)
    if not chunk:
        what = "is empty (no web page, file, place or image)"
        b.note(("CR505", f"{title} {what}: listed as {printable(title)}, not linked"))
    else:
        kinds = ", ".join(sorted(str(k) for k in chunk)[:5])[:80]
        how = "its URL is kept" if url else f"listed as {printable(title)}, not linked"
        b.note(("CR507", f"{title} ({kinds}) is of a kind citerender does not read: {how}"))
    return b.source(f"gemini:{index}", "search", title=None if url else title, url=url, meta={"chunk_index": index})


def _retrieved_names(c: Mapping[str, Any], title: Any, uri: Any) -> tuple[Any, Any]:
    """A file search chunk's title and link: its own, its ``customMetadata``'s, or its store's."""
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
    """Each grounding support as ``(part, startIndex, endIndex, text, marker)``, its sources made."""
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
            where = (int(seg.get("partIndex", 0) or 0), seg.get("startIndex", 0), seg.get("endIndex"), seg.get("text"))
            out.append((*where, b.fmt.marker(*dict.fromkeys(ids))))
    return out


def _answer_texts(cand: Mapping[str, Any]) -> list[str]:
    """The answer's text parts: a ``thought`` part is reasoning, not counted by segment offsets."""
    return [
        str(p.get("text", ""))
        for p in (cand.get("content") or {}).get("parts") or []
        if isinstance(p, Mapping) and "text" in p and not p.get("thought")
    ]


def camel_keys(data: Any) -> Any:
    """``data`` with its keys camelCase, as the REST API writes them (SDK dumps are snake_case)."""
    if isinstance(data, Mapping):
        return {_CAMEL.sub(lambda m: m.group(1).upper(), str(k)): camel_keys(v) for k, v in data.items()}
    if isinstance(data, list):
        return [camel_keys(v) for v in data]
    return data


def generate_content(resp: Mapping[str, Any], b: Builder) -> list[str]:
    """The answer with its grounding and citation sources' markers, then the Search Suggestions."""
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
    edits.extend((at, at, marker) for at, marker in recited_places(citation_sources(cand), text, b))
    _consulted(cand, b)
    why = cand.get("finishMessage")  # an answer stopped early (anything but STOP): CR514
    cut_off(b, "candidates[0].finishReason", cand.get("finishReason"), None, finished=_FINISHED, detail=why)
    answer = insert_edits(text, edits)
    return [answer + after_answer(answer, suggestions(meta, b))]


def _consulted(cand: Mapping[str, Any], b: Builder) -> None:
    """Every grounding chunk and page URL context read as a source; a page not read: CR511."""
    meta = cand.get("groundingMetadata") or {}
    for i, chunk in enumerate(meta.get("groundingChunks") or []):
        if isinstance(chunk, Mapping):
            _source(chunk, i, b)
    for m in as_list(as_map(cand.get("urlContextMetadata")).get("urlMetadata")):
        url = m.get("retrievedUrl") if isinstance(m, Mapping) else None
        if not isinstance(url, str):
            continue
        status = str(m.get("urlRetrievalStatus") or "")
        if status.upper().endswith("SUCCESS"):
            b.source(f"url:{url}", "search", url=url)
        else:
            b.note(("CR511", f"URL context could not read {url[:200]} ({status[:60] or 'no status'})"))


def collect_chunks(chunks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold streamed responses into one: texts joined part by part, the last metadata kept."""
    texts: dict[int, list[str]] = {}  # each part's pieces, joined once: linear in the stream
    kept: dict[str, Any] = {}
    cited: list[Mapping[str, Any]] = []
    for chunk in map(camel_keys, chunks):
        for cand in (chunk.get("candidates") or [])[:1]:
            for k, text in enumerate(_answer_texts(cand)):
                texts.setdefault(k, []).append(text)
            kept.update((key, cand[key]) for key in _KEPT if cand.get(key))
            cited.extend(citation_sources(cand))
    parts = [{"text": "".join(t)} for t in texts.values()]
    cand_out: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
    cand_out.update((key, kept[key]) for key in _KEPT[:2] if key in kept)  # the response's own order
    if (merged := merge_citations(cited)) is not None:
        cand_out["citationMetadata"] = merged
    if "finishReason" in kept:  # a finish message says why it finished: only with its reason
        cand_out.update((key, kept[key]) for key in _KEPT[2:] if key in kept)
    return {"candidates": [cand_out]}
