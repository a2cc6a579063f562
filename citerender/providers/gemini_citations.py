"""Gemini's and Vertex AI's ``candidates[].citationMetadata``: the sources a passage of the answer
recites (Gemini's ``citationSources[]``, Vertex AI's ``citations[]`` with ``title`` and
``publicationDate``; references of 2026-05). Offsets are **UTF-8 bytes** into the answer (a 0 may
be left out, as proto3 does) and usually end inside a word: the citation goes after that word.
A source with no ``uri`` is listed under its title, or left out (CR505); a span starting past the
answer's end is listed without a place, one running past it is read to the end (CR504)."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any

from ..syntax.escapes import printable
from .common import Builder, as_list, as_map, web_url
from .offsets import after_last_word

__all__ = ["citation_sources", "entry_key", "merge_citations", "recited_places"]


def citation_sources(cand: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A candidate's (camelCase) citation entries, whichever API wrote them."""
    meta = as_map(cand.get("citationMetadata"))
    items = meta.get("citationSources") or meta.get("citations")
    return [c for c in as_list(items) if isinstance(c, Mapping)]


def merge_citations(found: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The citation entries of a stream's chunks as one metadata, each entry once."""
    seen: dict[tuple[Any, ...], Mapping[str, Any]] = {}
    for c in found:
        seen.setdefault(entry_key(c), c)
    return {"citationSources": list(seen.values())} if seen else None


def entry_key(c: Mapping[str, Any]) -> tuple[Any, ...]:
    """What tells two citation entries apart (the same entry sent twice is one)."""
    return tuple(sorted((str(k), str(v)) for k, v in c.items()))


def _offset(v: Any) -> int | None:
    """An offset (a JSON int, or the digits of one), None when absent or not a number."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    return int(v) if isinstance(v, str) and v.strip().isdigit() else None


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
    published = _date(c.get("publicationDate"))
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


def recited_places(entries: Sequence[Mapping[str, Any]], text: str, b: Builder) -> list[tuple[int, str]]:
    """``(place, marker)`` for each entry that names a source and a span in ``text`` (the answer's
    text parts joined), in code points: the live stream and the one-shot adapter place them alike."""
    if not entries:
        return []
    ends = array("q", accumulate((len(ch.encode("utf-8")) for ch in text), initial=0))  # code point -> byte
    size = ends[-1]
    out: list[tuple[int, str]] = []
    for c in entries:
        sid = _source(c, b)
        if sid is None:
            continue
        start = _offset(c.get("startIndex")) or 0
        end = _offset(c.get("endIndex"))
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
    """After the word ``end`` falls in and its closing punctuation, on the line whose words it covers."""
    word = end
    while word > 0 and not text[word - 1].isalnum():
        word -= 1
    if "\n" in text[word:end]:
        end = word
    while 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    return after_last_word(text, end)
