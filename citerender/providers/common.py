"""What every adapter shares: the result type, a builder numbering sources, text edits."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..sources.model import Registry, registry_from_data
from ..syntax.format import CitationFormat
from ..syntax.types import line_locator
from .offsets import SpanReader
from .xai import cite_in_place, inline_links
from .zones import Zones

__all__ = [
    "LINK_SPAN",
    "Adapted",
    "Builder",
    "Note",
    "as_list",
    "as_map",
    "consult",
    "first_text",
    "index_range",
    "insert_edits",
    "link_span_at",
    "no_span",
    "retrieved_source",
    "searched",
    "url_citations",
    "url_source",
    "web_url",
    "whole",
]


#: (code, message): a span snapped or clamped (CR503, CR504) or a citation without its source (CR505)
Note = tuple[str, str]


@dataclass
class Adapted:
    """An answer with markers, its registry, and notes on anything that had to be repaired
    (reported with the render's diagnostics: nothing is dropped silently)."""

    text: str
    registry: Registry
    notes: list[Note] = field(default_factory=list)


class Builder:
    """Numbers sources as they are first cited, records where markers go, and collects notes."""

    def __init__(self, fmt: CitationFormat, supplied: Registry | None = None) -> None:
        self.fmt = fmt
        self.given = supplied  # sources the caller supplies (--sources), found by id
        self.sources: dict[str, dict[str, Any]] = {}
        self.by_key: dict[str, str] = {}
        self.counts: dict[str, int] = {}
        self.notes: list[Note] = []
        self.dialect: str | None = None  # the text numbers its citations ([doc1]): what each names
        self.numbered: list[tuple[str, str | None] | None] = []
        self.line_index: dict[str, dict[str, int]] = {}  # a source's quoted lines → their index
        #: sources made or changed since a live stream last looked (it shows each once per change)
        self.touched: dict[str, None] = {}

    def supplied(self, sid: str) -> str | None:
        """The id of a source the caller supplied under ``sid`` (copied into the registry), or None."""
        src = self.given.get(sid) if self.given is not None and sid else None
        if src is None:
            return None
        self.touched[sid] = None
        if sid not in self.sources:
            lines = list(src.lines) if src.lines else None
            data = {"title": src.title, "url": src.url, "updated": src.updated, "lines": lines, "text": src.text}
            self.sources[sid] = {"id": sid, **{k: v for k, v in data.items() if v}}
        return sid

    def note(self, note: Note | None) -> None:
        if note is not None:
            self.notes.append(note)

    def place(self, reader: SpanReader, start: Any, end: Any, cited: Any = None) -> int:
        """Where a citation of ``[start, end)`` goes in the reader's text (see :mod:`.offsets`)."""
        placed = reader.place(_int(start), _int(end), cited if isinstance(cited, str) else None)
        self.note(placed.note)
        return placed.at

    def source(self, key: str, kind: str, **fields: Any) -> str:
        sid = self.by_key.get(key)
        if sid is None:
            n = self.counts.get(kind, 0)
            self.counts[kind] = n + 1
            sid = self.by_key[key] = f"turn0{kind}{n}"
            self.sources[sid] = {"id": sid}
        src = self.sources[sid]
        for k, v in fields.items():
            if v and not src.get(k):
                src[k] = v
        self.touched[sid] = None
        return sid

    def unplaced(self, sid: str) -> None:
        """``sid`` is cited without a place in the text: listed in the bibliography, reported
        there (CR510), unless a citation elsewhere places it."""
        self.sources[sid]["listed"] = "cited"
        self.touched[sid] = None

    def number(self, n: int, sid: str, locator: str | None = None) -> None:
        """The text's number ``n`` (1-based) names ``sid`` (at ``locator``): for a dialect."""
        if 1 <= n <= 10_000:
            self.numbered.extend([None] * (n - len(self.numbered)))
            self.numbered[n - 1] = (sid, locator)

    def add_line(self, sid: str, line: str, page: str | None = None) -> str:
        """Add a cited passage to a source as a numbered line; return its locator. ``page`` (``page
        7``) is kept beside it in ``meta.line_pages``."""
        self.touched[sid] = None
        meta = self.sources[sid].setdefault("meta", {})
        meta["line_unit"] = "passage"  # quoted, not the page's lines
        lines = self.sources[sid].setdefault("lines", [])
        line = re.sub(r"\s+", " ", line).strip()
        index = self.line_index.setdefault(sid, {})  # line → its place: k passages cost linear time
        if len(index) != len(lines):  # lines set another way (a supplied source): indexed again
            index.clear()
            index.update((text, k) for k, text in reversed(list(enumerate(lines))))
        n = index.get(line, -1)
        if n == -1:
            n = index[line] = len(lines)
            lines.append(line)
        if page is not None:
            pages = meta.setdefault("line_pages", [])
            pages.extend([None] * (len(lines) - len(pages)))
            pages[n] = pages[n] or page
        return line_locator(n + 1, n + 1)

    def marker(self, sid: str, locator: str | None = None) -> str:
        return self.fmt.marker(sid, locator=locator)

    def registry(self) -> Registry:
        registry = registry_from_data(list(self.sources.values()))
        if self.dialect is not None:
            registry.dialect, registry.numbered = self.dialect, tuple(self.numbered)
        return registry


def index_range(one: str, many: str, start: Any, end: Any) -> str:
    """A provider's end-exclusive range as a reader counts it (``3``–``4`` is ``page 3``, ``1``–``3``
    ``pages 1–2``); values that are not whole numbers in order are shown as given."""
    if isinstance(start, int) and isinstance(end, int) and not isinstance(start, bool) and end > start:
        return f"{one} {start}" if end == start + 1 else f"{many} {start}–{end - 1}"
    return f"{many} {start}–{end} (end exclusive)"


def insert_edits(text: str, inserts: list[tuple[int, int, str]]) -> str:
    """Apply (start, end, replacement) edits; overlapping edits keep the first. An insertion
    (``start == end``) goes where :class:`.zones.Zones` lets it, and is made once per place."""
    zones: Zones | None = None
    edits: list[tuple[int, int, str]] = []
    made: dict[tuple[int, str], None] = {}
    broken: set[int] = set()  # places after a closing block that already got their line break
    for start, end, rep in inserts:
        if start == end:
            zones = zones or Zones(text)
            start, before = zones.settle(start)
            end = start
            if (start, rep) in made:
                continue
            made[(start, rep)] = None
            if before and start not in broken:
                broken.add(start)
                rep = before + rep
        edits.append((start, end, rep))
    out = []
    pos = 0
    for start, end, rep in sorted(edits, key=lambda x: (x[0], x[1])):
        start = max(start, pos)
        end = max(end, start)
        out.append(text[pos:start])
        out.append(rep)
        pos = end
    out.append(text[pos:])
    return "".join(out)


#: a span that is only a link to the cited site, ``([site](url))``: the marker replaces it
LINK_SPAN = re.compile(r"\s*\(?\[([^\]]*)\]\(([^)\s]+)\)\)?\s*\Z")
#: a span that is only a citation number the model wrote, bare or linked (xAI's ``[[1]](url)``,
#: ``[1](url)``, Perplexity's ``[1]``): the marker replaces it, so the source is cited once
NUMBER_SPAN = re.compile(r"\s*\[\[?\d{1,4}\]?\](?:\(\s*<?[^()\s<>]*>?\s*\))?\s*\Z")


def _numbered_link(text: str, url: str) -> tuple[int, int] | None:
    """Where ``text`` links ``url`` under a number (``[[1]](url)``, ``[1](url)``), space before it included."""
    m = re.search(r"[ \t]*\[\[?\d{1,3}\]?\]\(" + re.escape(url) + r"\)", text) if "](" in text else None
    return m.span() if m else None


def no_span(start: int | None, end: int | None) -> bool:
    """A citation that names no words: no offsets (xAI), or an empty span at the start (OpenRouter)."""
    return (start is None and end is None) or start == end == 0


def web_url(value: Any) -> str | None:
    """``value`` when it is an http(s) URL (a link a reader can follow), else None: a ``gs://``,
    ``s3://`` or file path names a source but is not linked."""
    return value if isinstance(value, str) and value.lower().startswith(("http://", "https://")) else None


def first_text(m: Mapping[str, Any], *keys: str) -> str | None:
    """The first of ``keys`` holding non-blank text, stripped (a field known by several names)."""
    for k in keys:
        v = m.get(k)
        if isinstance(v, str) and v.strip():
            return v.strip()
    return None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def as_map(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a mapping, else an empty one (a field of an unexpected shape)."""
    return value if isinstance(value, Mapping) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def whole(value: Any) -> int | None:
    """``value`` if it is an int (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def url_source(cit: Mapping[str, Any], b: Builder) -> str:
    """The source of a ``url_citation``, OpenAI's ``utm_source=openai`` taken off its URL (a title
    that is only a number is xAI's ``[[1]]``, not the page's)."""
    url = str(cit.get("url"))
    clean = re.sub(r"([?&])utm_source=openai(&|$)", lambda m: m.group(1) if m.group(2) else "", url).rstrip("?&")
    title = cit.get("title")
    if isinstance(title, str) and title.strip().isdigit():
        title = None
    return b.source(f"url:{clean}", "search", title=title, url=clean)


def consult(found: Iterable[Any], b: Builder) -> None:
    """Pages (URLs or ``{"url": …}``) a response says were searched or opened, not necessarily
    cited: sources the consulted option lists when nothing cites them."""
    for u in found:
        page = {"url": u} if isinstance(u, str) else as_map(u)
        if web_url(page.get("url")):
            url_source(page, b)


def searched(result: Any) -> list[Any]:
    """What a web search call or tool result names: its ``sources`` and its ``action``'s (the page
    it opened or searched in)."""
    result = as_map(result)
    action = as_map(result.get("action"))
    pages = [*as_list(result.get("sources")), *as_list(action.get("sources"))]
    if isinstance(action.get("url"), str):
        pages.append(action["url"])
    return pages


def link_span_at(text: str, start: int, end: int) -> int | None:
    """Where a citation replacing ``text[start:end]`` begins when that span is only a
    ``([site](url))`` link or a citation number, else None: the spaces before it go with it
    (``worlds.[1]``, not ``worlds. [1]``)."""
    if not 0 <= start < end <= len(text):
        return None
    span = text[start:end]
    if LINK_SPAN.match(span) is None and NUMBER_SPAN.match(span) is None:
        return None
    at = start + len(span) - len(span.lstrip())
    while at > 0 and text[at - 1] in " \t":
        at -= 1
    return at


def url_citations(text: str, annotations: Iterable[Mapping[str, Any]], b: Builder) -> list[tuple[int, int, str]]:
    """Edits placing url_citation markers: one replaces a span that is only a link or a number,
    else goes after the span's last word (:mod:`.offsets`)."""
    edits: list[tuple[int, int, str]] = []
    reader = SpanReader(text)
    for a in annotations:
        cit = a.get("url_citation", a) if isinstance(a, Mapping) else {}
        if a.get("type") != "url_citation":
            continue
        if not cit.get("url"):
            b.note(("CR505", "a url_citation without a URL was left out"))
            continue
        limit = len(text)
        sid = url_source(cit, b)
        start, end = _int(cit.get("start_index")), _int(cit.get("end_index"))
        if no_span(start, end):
            link = _numbered_link(text, str(cit.get("url")))
            if link is not None:  # xAI writes [[1]](url) for the same source: the marker takes its place
                edits.extend(cite_in_place(text, *link, b.marker(sid)))
            else:  # no span (xAI), or an empty one at the start (OpenRouter): no place to put it
                b.unplaced(sid)
            continue
        start, end = start or 0, end or 0
        if 0 <= start <= end and end == limit + 1:
            b.note(("CR504", f"url_citation ends one past the text ({end} > {limit}): read as the text's end"))
            end = limit  # an inclusive end: the last character
        at = link_span_at(text, start, end)
        if at is not None and NUMBER_SPAN.match(text, start, end):  # xAI's span over its [[1]](url)
            edits.extend(cite_in_place(text, at, end, b.marker(sid)))
        elif at is not None:
            edits.append((at, end, b.marker(sid)))
        else:
            at = b.place(reader, start, end, cit.get("text"))
            edits.append((at, at, b.marker(sid)))
    return edits + inline_links(text, edits, lambda url: b.marker(url_source({"url": url}, b)))


def unknown_annotation(kind: str, a: Mapping[str, Any], b: Builder) -> str | None:
    """A citation of a type no adapter reads, reported (CR507): its text stays, and the marker of
    a URL it carries is returned (to place after its span's words)."""
    url = _find_url(a)
    kept = "its URL is kept as a source" if url else "its text is kept"
    b.note(("CR507", f"a citation of type {kind[:60]!r} is not read by citerender: {kept}"))
    if url is None:
        return None
    title = a.get("title") if isinstance(a.get("title"), str) else None
    return b.marker(b.source(f"url:{url}", "search", title=title, url=url))


def _find_url(a: Any, depth: int = 0) -> str | None:
    """The first http(s) URL an annotation holds (its own or one level down)."""
    if not isinstance(a, Mapping) or depth > 2:
        return None
    for key in ("url", "uri", "source", "link"):
        if (found := web_url(a.get(key))) is not None:
            return found
    for v in a.values():
        found = _find_url(v, depth + 1) if isinstance(v, Mapping) else None
        if found:
            return found
    return None


def retrieved_source(b: Builder, meta: Mapping[str, Any], passage: str, fallback: Any) -> tuple[str, str | None]:
    """The source of one retrieved chunk (LlamaIndex's nodes, Haystack's documents: by URL, file or
    title in its metadata) and the line quoting it."""
    url = next((u for k in ("url", "source", "link") if (u := web_url(meta.get(k)))), None)
    path = first_text(meta, "file_path", "file_name", "filename", "path")
    title = first_text(meta, "title", "file_name", "filename", "name")
    key = f"url:{url}" if url else f"file:{path}" if path else f"title:{title}" if title else f"node:{fallback}"
    sid = b.source(key, "file", title=title or path or url, url=url, updated=meta.get("last_modified_date"))
    return sid, b.add_line(sid, passage) if passage.strip() else None
