"""Gemini's and Vertex AI's ``candidates[].citationMetadata``: the sources a passage of the
answer recites (Gemini API reference, ``CitationMetadata``; Vertex AI REST reference,
``Citation``; of 2026-05).

The Gemini API lists them as ``citationSources[]`` (``startIndex``, ``endIndex``, ``uri``,
``license``), Vertex AI as ``citations[]`` (the same, plus ``title`` and ``publicationDate``
``{year, month, day}``); SDK dumps write the keys snake_case. A 0 offset may be left out, as
proto3 does. Offsets are **UTF-8 bytes** into the candidate's answer text (its text parts
joined; a stream's chunks count from the start of the whole answer), and a span usually ends
inside a word (recitation spans are token-based): the citation goes after that word and the
punctuation closing it, as every provider's does.

Every ``uri`` is linked; a source with no ``uri`` but a title is listed under its title, one
with neither names nothing (both reported, CR505). A span that starts past the answer's end
names no words of it: its source is listed without a place (CR504, then CR510), never pinned to
a guessed one; a span running past the end is read up to the end (CR504)."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any

from ..syntax.escapes import printable
from .common import Builder, web_url
from .offsets import after_last_word

__all__ = ["citation_sources", "entry_key", "merge_citations", "recitations", "recited_places"]


def citation_sources(cand: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A candidate's citation entries, whichever API (or SDK dump) wrote them."""
    meta = cand.get("citationMetadata") or cand.get("citation_metadata")
    if not isinstance(meta, Mapping):
        return []
    items = meta.get("citationSources") or meta.get("citation_sources") or meta.get("citations") or []
    return [c for c in items if isinstance(c, Mapping)] if isinstance(items, list) else []


def merge_citations(found: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The citation metadata of a stream's chunks as one (each chunk lists the sources of its own
    text, with offsets from the answer's start; one listed twice is kept once)."""
    seen: dict[tuple[Any, ...], Mapping[str, Any]] = {}
    for c in found:
        seen.setdefault(entry_key(c), c)
    return {"citationSources": list(seen.values())} if seen else None


def entry_key(c: Mapping[str, Any]) -> tuple[Any, ...]:
    """What tells two citation entries apart (the same entry sent twice is one)."""
    return tuple(sorted((str(k), str(v)) for k, v in c.items()))


def _offset(c: Mapping[str, Any], *keys: str) -> int | None:
    """An offset (a JSON int, or the digits of one), None when absent or not a number."""
    for k in keys:
        v = c.get(k)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        if isinstance(v, str) and v.strip().isdigit():
            return int(v)
    return None


def _date(value: Any) -> str | None:
    """A ``google.type.Date`` (``{year, month, day}``, parts may be 0) as ISO text, else None."""
    if not isinstance(value, Mapping) or not isinstance(value.get("year"), int) or not value["year"]:
        return None
    parts = [f"{value['year']:04d}"]
    for k in ("month", "day"):
        v = value.get(k)
        if not isinstance(v, int) or not 1 <= v <= 31:
            break
        parts.append(f"{v:02d}")
    return "-".join(parts)


def _source(c: Mapping[str, Any], b: Builder) -> str | None:
    """The source one entry names (None: it names none, reported)."""
    raw = c.get("uri")
    uri = web_url(raw.strip()) if isinstance(raw, str) else None
    title = c.get("title") if isinstance(c.get("title"), str) and c["title"].strip() else None
    published = _date(c.get("publicationDate") or c.get("publication_date"))
    meta = {k: v for k, v in (("license", c.get("license")), ("published", published)) if isinstance(v, str) and v}
    if uri is None and isinstance(raw, str) and raw.strip():
        meta["location"] = raw.strip()[:500]  # a URI that is no web page (gs://…): named, not linked
        title = title or raw.strip()[:500]
    if uri is None:
        what = f"is listed as {printable(title, 80)}, not linked" if title else "names nothing: left out"
        b.note(("CR505", f"a citation source (citationMetadata) has no URI: it {what}"))
        if title is None:
            return None
    key = f"url:{uri}" if uri else f"title:{title}"
    return b.source(key, "search", title=title, url=uri, meta=meta)


def recitations(cand: Mapping[str, Any], text: str, b: Builder) -> list[tuple[int, int, str]]:
    """Insertions placing each citation source of ``cand`` after the words its span ends in
    (``text``: the answer's text parts joined, as the offsets count them)."""
    return [(at, at, marker) for at, marker in recited_places(citation_sources(cand), text, b)]


def recited_places(entries: Sequence[Mapping[str, Any]], text: str, b: Builder) -> list[tuple[int, str]]:
    """``(place, marker)`` for each entry that names a source and a span in ``text`` (code point
    places; the live stream and the one-shot adapter place them alike)."""
    if not entries:
        return []
    ends = array("q", accumulate((len(ch.encode("utf-8")) for ch in text), initial=0))  # code point -> byte
    size = ends[-1]
    out: list[tuple[int, str]] = []
    for c in entries:
        sid = _source(c, b)
        if sid is None:
            continue
        start = _offset(c, "startIndex", "start_index") or 0
        end = _offset(c, "endIndex", "end_index")
        end = start if end is None or end < start else end
        if start >= size:  # (an answer with no text at all, a recitation stop, included)
            b.note(("CR504", f"a citation source's span {start}–{end} starts past the answer's end ({size} bytes): listed without a place"))  # fmt: skip
            b.unplaced(sid)
            continue
        if end > size:
            b.note(("CR504", f"a citation source's span {start}–{end} runs past the answer's end ({size} bytes): read to the end"))  # fmt: skip
        out.append((_after_word(text, bisect_right(ends, min(end, size)) - 1), b.marker(sid)))
    return out


def _after_word(text: str, end: int) -> int:
    """After the word ``end`` falls in (recitation spans end mid-word) and its closing punctuation;
    a span that runs past a line's end into the next line's markup (``versa. ⏎ - **``) ends on
    the line it covers the words of."""
    word = end
    while word > 0 and not text[word - 1].isalnum():
        word -= 1
    if "\n" in text[word:end]:
        end = word
    while 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    return after_last_word(text, end)
