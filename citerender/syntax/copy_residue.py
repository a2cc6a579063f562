"""ChatGPT's copy residue, second form: where a copied answer had a citation pill, the text holds
the pill's data as a JSON object, ``{"fallbackMarkdown":"…","reference":{…},"showLoginRequiredCard":false}``,
sometimes after ``:::``. ``reference.type`` says what it was: ``grouped_webpages`` (``items[]``
with ``title``, ``url``, ``attribution``), ``url`` (one ``item``: a link), ``sources_footnote``
(``sources[]``: the answer's source list, at its end).

Copies are not strict JSON: the ``fallbackMarkdown`` and ``alt`` strings may hold a raw line break,
and a copy that went through a Markdown editor escapes ``_``, ``[`` and ``]`` (``matched\\_text``,
``\\[``). The object's end is found by its last key, so a damaged middle still ends where it does.
What cannot be read leaves its ``fallbackMarkdown`` (the pill's own text), never the JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..lazy_re import lazy_compile
from ..records import record

__all__ = ["RESIDUE_START", "Pill", "PillPage", "pill_at", "pill_spans", "read_pill"]

#: where an object starts (``:::`` before it belongs to it)
RESIDUE_START = lazy_compile(r'(?::{3})?\{\s*"fallbackMarkdown"\s*:')
#: where it ends: its last key (the keys hold no ``_``, so an escaped copy writes them the same)
_END = lazy_compile(r'"showLoginRequiredCard"\s*:\s*(?:true|false|null)\s*\}')
#: the longest object read (real ones are under 3 KB; a grouped pill with many items under 20 KB)
MAX_PILL = 65536
_MD_ESCAPE = lazy_compile(r"\\(.)", re.S)
_CITING = frozenset(
    {"grouped_webpages", "grouped_webpages_model_predicted_fallback", "webpage", "webpage_extended", "video", "news"}
)


@record(frozen=True, slots=True)
class PillPage:
    """A page a pill names, as written (the URL is judged by the reader of :class:`Pill`)."""

    title: str
    url: str
    site: str  # the pill's ``attribution`` (the site's name), or ""


@record(frozen=True, slots=True)
class Pill:
    """One residue object: ``kind`` is ``cite`` (``pages`` cited there), ``link`` (one page shown
    as a link) or ``text`` (nothing to cite: ``fallback`` stands there); ``type`` is the pill's."""

    start: int
    end: int
    kind: str
    type: str
    pages: tuple[PillPage, ...]
    fallback: str
    unlinked: int  # pages the pill names without a URL (their titles are all it holds)


def pill_spans(text: str, pos: int = 0, stop: int | None = None) -> Iterator[tuple[int, int]]:
    """Where each residue object of ``text`` that starts in ``text[pos:stop]`` starts and ends
    (its ``:::`` included), in order."""
    if "fallbackMarkdown" not in text:
        return
    stop = len(text) if stop is None else stop
    while (m := RESIDUE_START.search(text, pos, stop)) is not None:
        end = _object_end(text, m, len(text))
        if end is None:
            pos = m.end()
            continue
        yield m.start(), end.end()
        pos = end.end()


def pill_at(text: str, pos: int, limit: int | None = None) -> Pill | None:
    """The residue object starting at ``pos`` (ending before ``limit``), or None."""
    m = RESIDUE_START.match(text, pos)
    if m is None:
        return None
    end = _object_end(text, m, len(text) if limit is None else limit)
    if end is None:
        return None
    return read_pill(text[pos + (3 if text.startswith(":::", pos) else 0) : end.end()], pos, end.end())


def _object_end(text: str, start: re.Match[str], limit: int) -> re.Match[str] | None:
    """The end of the object that ``start`` opens (its last key), before ``limit``, at most
    :data:`MAX_PILL` on and before the next object's first key (an object holds no other): where
    objects start one after another unclosed, each character is read once, not 64 KiB per object."""
    window = min(limit, start.start() + MAX_PILL)
    nxt = text.find('"fallbackMarkdown"', start.end(), window)
    return _END.search(text, start.end(), nxt if nxt != -1 else window)


def read_pill(body: str, start: int, end: int) -> Pill:
    """The pill one object (``body``, from ``{`` to ``}``) stands for."""
    data = _load(body)
    if data is None:
        return _salvaged(body, start, end)
    ref = data.get("reference")
    ref = ref if isinstance(ref, Mapping) else {}
    typ = _str(ref.get("type"))
    fallback = _str(data.get("fallbackMarkdown")) or _str(ref.get("alt"))
    if typ == "url":
        item = ref.get("item") if isinstance(ref.get("item"), Mapping) else ref
        found = _pages([item], _str(ref.get("title")) or fallback)
        kind = "link" if found[0] else "text"
    else:
        found = _pages(_entries(ref, typ), "")
        kind = "cite" if found[0] else "text"
    return Pill(start, end, kind, typ, found[0], " ".join(fallback.split()), found[1])


def _entries(ref: Mapping[str, Any], typ: str) -> list[Any]:
    """The pages a citing pill names: its items and their supporting websites, a footnote's
    sources, or the reference itself when it is one page."""
    if typ == "sources_footnote":
        return list(ref.get("sources") or [])
    out: list[Any] = []
    for item in ref.get("items") or []:
        out.append(item)
        if isinstance(item, Mapping):
            out.extend(item.get("supporting_websites") or [])
    if not out and (typ in _CITING or ref.get("url")):
        out.append(ref)
    return out


def _pages(entries: list[Any], title: str) -> tuple[tuple[PillPage, ...], int]:
    """The entries with a URL as pages (``title`` when one has none of its own), and how many
    entries named a page without one."""
    pages: list[PillPage] = []
    unlinked = 0
    for e in entries:
        if not isinstance(e, Mapping):
            continue
        url = _str(e.get("url")).strip()
        if not url:
            unlinked += bool(_str(e.get("title")) or _str(e.get("attribution")))
            continue
        pages.append(PillPage(" ".join((_str(e.get("title")) or title).split()), url, _str(e.get("attribution"))))
    return tuple(pages), unlinked


def _load(body: str) -> Mapping[str, Any] | None:
    """The object as JSON: as copied (raw line breaks allowed), else with Markdown's escapes of
    ``_``, ``[``, ``]`` and ``*`` undone (a JSON escape such as ``\\"`` or ``\\\\`` is kept)."""
    for candidate in (body, _MD_ESCAPE.sub(_unescape, body)):
        try:
            data = json.loads(candidate, strict=False)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, Mapping):
            return data
    return None


def _unescape(m: re.Match[str]) -> str:
    return m.group(1) if m.group(1) in "_[]*" else m.group(0)


_URL = lazy_compile(r'"url"\s*:\s*"((?:[^"\\]|\\.){1,4000})"')
_FALLBACK = lazy_compile(r'"fallbackMarkdown"\s*:\s*"((?:[^"\\]|\\.){0,4000})"', re.S)


def _salvaged(body: str, start: int, end: int) -> Pill:
    """An object too damaged to read as JSON: its URLs are cited (untitled) when it has any,
    else its fallback text stands there."""
    plain = _MD_ESCAPE.sub(_unescape, body)
    urls = list(dict.fromkeys(_json_string(m.group(1)) for m in _URL.finditer(plain)))
    m = _FALLBACK.search(plain)
    fallback = " ".join(_json_string(m.group(1)).split()) if m else ""
    pages = tuple(PillPage("", u, "") for u in urls if u.strip())
    return Pill(start, end, "cite" if pages else "text", "", pages, fallback, 0)


def _json_string(raw: str) -> str:
    try:
        value = json.loads(f'"{raw}"', strict=False)
    except ValueError:
        return raw
    return value if isinstance(value, str) else raw


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
