"""Sources and the registry: what an answer may cite (one frozen value per citable unit)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import field, replace
from functools import cached_property
from pathlib import PurePath
from types import MappingProxyType
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from ..errors import CiterenderError
from ..records import record
from ..syntax.format import DEFAULT_FORMAT, CitationFormat
from ..syntax.residue import remove_residue
from ..syntax.types import LineRange
from .clean import clean_data, display_text
from .fields import KNOWN_KEYS, check_date, check_strings, lines_or_text, source_id
from .pages import shown_pages

__all__ = [
    "MAX_SOURCES",
    "MAX_SOURCES_FILE_BYTES",
    "Registry",
    "Source",
    "registry_from_data",
    "require_registry",
    "source_from_mapping",
]

#: Caps on what one registry may hold (see SECURITY.md).
MAX_SOURCES = 10_000
MAX_SOURCES_FILE_BYTES = 64 * 1024 * 1024

_EMPTY_META: Mapping[str, Any] = MappingProxyType({})
T = TypeVar("T")
#: what breaks a line (a title is one line) and the bidirectional controls a host name loses: found
#: and removed with str methods (a character class beyond Latin-1 costs ``re`` ~0.3 ms to compile)
_LINE_BREAKS = "\r\n\f\v\x85\u2028\u2029"
_NO_BIDI = dict.fromkeys(map(ord, "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))


@record(frozen=True)
class Source:
    """One citable unit: a stable id, metadata, and numbered lines or a text block."""

    id: str
    title: str | None = None
    url: str | None = None
    updated: str | None = None
    lines: tuple[str, ...] | None = None
    text: str | None = None
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY_META, compare=False)
    #: the URL takes line anchors (``#L10-L20``, a repository file) instead of text fragments
    line_anchors: bool = False
    #: what was cleaned as the source was read (marker forms in its title or lines, lone
    #: surrogates): reported (CR114) when the source is cited
    cleaned: tuple[str, ...] = field(default=(), compare=False)

    def shown(self) -> Source:
        """This source as readers see it: every marker form removed from its title, lines and text
        (they are displayed text), what went recorded in ``cleaned``. The registry keeps the text
        as given: it is also what the model is shown, and read back."""
        cleaned = list(self.cleaned)
        title = _displayed([self.title], cleaned, "its title")[0] if self.title else None
        if title and any(c in title for c in _LINE_BREAKS):  # one line: a raw CR in an attribute reads two ways
            title = " ".join(title.split())
        lines = _displayed(self.lines, cleaned, "its lines") if self.lines is not None else None
        text = _displayed([self.text], cleaned, "its text")[0] if self.text is not None else None
        domain = self.meta.get("domain")
        if isinstance(domain, str) and display_text(domain)[1]:  # :attr:`domain` shows it without them
            cleaned.append("marker forms removed from its domain")
        if title == self.title and len(cleaned) == len(self.cleaned):
            return self
        return replace(self, title=title or None, lines=lines, text=text, cleaned=tuple(cleaned))

    @property
    def line_unit(self) -> str:
        """What its numbered rows are to a reader: ``line`` (a document's own lines), or
        ``passage`` (``meta.line_unit``: the passages a provider quoted from a page or file,
        which are no lines of it)."""
        return "passage" if self.meta.get("line_unit") == "passage" else "line"

    @property
    def line_count(self) -> int | None:
        return None if self.lines is None else len(self.lines)

    def has_lines(self, rng: LineRange) -> bool:
        """Does this source have every line of ``rng``?"""
        return self.lines is not None and rng.low >= 1 and rng.high <= len(self.lines)

    def cited_lines(self, rng: LineRange | None) -> list[tuple[int, str]]:
        """The (number, text) pairs a locator covers; empty when it covers nothing."""
        if rng is None or not self.has_lines(rng):
            return []
        assert self.lines is not None
        return [(n, self.lines[n - 1]) for n in range(rng.low, rng.high + 1)]

    @property
    def label(self) -> str:
        """What a reader sees for the source: its title, else its domain, URL or id."""
        return self.title or self.domain or self.url or self.id

    @cached_property
    def domain(self) -> str | None:
        """Host of the URL without ``www.``, for display: marker residue and bidirectional
        controls removed (a right-to-left override would show the host reversed)."""
        shown = self.meta.get("domain")  # a provider's own name for a redirect link's site (Gemini)
        if isinstance(shown, str) and shown.strip():  # marker forms out before lowercasing hides them
            return display_text(shown.strip())[0].lower().translate(_NO_BIDI).strip()[:253] or None
        if not self.url:
            return None
        try:
            host = urlsplit(self.url).hostname
        except ValueError:
            return None
        host = remove_residue(host).translate(_NO_BIDI) if host else None
        if not host:
            return None
        return host[4:] if host.startswith("www.") else host

    @cached_property
    def pages(self) -> str | None:
        """The pages its passages came from, as the provider reported them (``meta.locations``)."""
        return shown_pages(self.meta.get("locations"))

    @cached_property
    def memo(self) -> dict[str, Any]:
        """What a renderer works out from this source alone (its bibliography head, say), kept with
        it: every answer citing it over one registry shares it."""
        return {}

    @property
    def body(self) -> str:
        """The source text as one string."""
        if self.lines is not None:
            return "\n".join(self.lines)
        return self.text or ""


class Registry(Mapping[str, Source]):
    """The ordered id → :class:`Source` mapping for one answer.

    ``dialect`` and ``numbered`` come from a provider whose text numbers its citations
    (``[doc1]``, ``[ID:0]``): the form it writes, and the (source id, line locator) each number
    names, in order — several numbers may name one source (chunks of one document)."""

    dialect: str | None = None
    numbered: tuple[tuple[str, str | None] | None, ...] = ()  # None: a number naming nothing

    def __init__(self, sources: Iterable[Source] = (), *, path: str | None = None) -> None:
        self._by_id: dict[str, Source] = {}
        for s in sources:
            if s.id in self._by_id:
                raise CiterenderError(f"duplicate source id {s.id!r}", path=path, hint="give every source a unique id")
            self._by_id[s.id] = s
        self._shown: dict[str, Source] = {}
        self._derived: dict[str, Any] = {}
        if len(self._by_id) > MAX_SOURCES:
            raise CiterenderError(f"{len(self._by_id)} sources exceed the limit of {MAX_SOURCES}", path=path)
        self.path = path

    def __getitem__(self, key: str) -> Source:
        return self._by_id[key]

    def put(self, source: Source) -> None:
        """Add ``source``, or replace the one with its id (a live answer's sources arrive with it)."""
        if source.id not in self._by_id and len(self._by_id) >= MAX_SOURCES:
            raise CiterenderError(f"more than {MAX_SOURCES} sources", path=self.path)
        self._by_id[source.id] = source
        self._shown.pop(source.id, None)
        self._derived.clear()

    def derived(self, key: str, make: Callable[[], T]) -> T:
        """What ``make`` works out from these sources (the support checks' index of their lines),
        made once and kept until a source is put: every answer checked against them shares it."""
        if key not in self._derived:
            self._derived[key] = make()
        return self._derived[key]  # type: ignore[no-any-return]

    def get(self, key: str, default: Source | None = None) -> Source | None:  # type: ignore[override]
        return self._by_id.get(key, default)

    def shown(self, key: str) -> Source | None:
        """The source ``key`` as readers see it (:meth:`Source.shown`), worked out once."""
        found = self._shown.get(key)
        if found is None:
            source = self._by_id.get(key)
            if source is None:
                return None
            found = self._shown[key] = source.shown()
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._by_id

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def __repr__(self) -> str:
        return f"Registry({list(self._by_id)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Registry):
            return NotImplemented
        return list(self._by_id.values()) == list(other._by_id.values())

    __hash__ = None  # type: ignore[assignment]

    def has_locator(self, source_id: str, rng: LineRange) -> bool:
        """Does ``source_id`` exist and have the lines ``rng`` names?"""
        s = self._by_id.get(source_id)
        return s is not None and s.has_lines(rng)

    def text_for(self, source_id: str, rng: LineRange | None = None) -> str | None:
        """The text a citation covers: the cited lines, or the whole source without a locator."""
        s = self._by_id.get(source_id)
        if s is None:
            return None
        if rng is None:
            return s.body
        return "\n".join(t for _, t in s.cited_lines(rng)) or None


# --------------------------------------------------------------------------- building sources


def source_from_mapping(
    item: object, index: int, *, path: str | None = None, line: int | None = None, fmt: CitationFormat = DEFAULT_FORMAT
) -> Source:
    """Validate one source entry from a data file."""
    where = f"source #{index + 1}"
    if not isinstance(item, Mapping):
        raise CiterenderError(
            f"{where} must be an object with an 'id', not {type(item).__name__}", path=path, line=line
        )
    surrogates: list[str] = []
    item = cast("Mapping[str, Any]", clean_data(item, surrogates, path=path, line=line))
    cleaned = [f"a lone surrogate replaced in {w}" for w in dict.fromkeys(surrogates)]
    sid = source_id(item, where, path, line, fmt)
    where = f"source {sid!r}"
    check_strings(item, where, path, line)
    lines, text = lines_or_text(item, where, path, line)
    meta = item.get("meta") or {}
    if not isinstance(meta, Mapping):
        raise CiterenderError(f"{where}: 'meta' must be an object", path=path, line=line)
    extra = {k: v for k, v in item.items() if k not in KNOWN_KEYS}
    return Source(
        id=sid,
        title=(item.get("title") or None),
        url=(item.get("url") or "").strip() or None,
        updated=check_date(item.get("updated"), where, path, line),
        lines=tuple(lines) if lines is not None else None,
        text=text,
        meta=MappingProxyType({**extra, **meta}),
        cleaned=tuple(cleaned),
    )


def _displayed(texts: Iterable[str], cleaned: list[str], what: str) -> tuple[str, ...]:
    out, changed = [], False
    for t in texts:
        shown, hit = display_text(t)
        out.append(shown)
        changed = changed or hit
    if changed:
        cleaned.append(f"marker forms removed from {what}")
    return tuple(out)


def _numbered(item: object, sid: str) -> object:
    """A dialect's list entry with the id its number spells, and its ``content`` as its text."""
    if not isinstance(item, Mapping) or "id" in item:
        return item
    out = {"id": sid, **item}
    if "text" not in item and "lines" not in item and isinstance(item.get("content"), str):
        out["text"] = out.pop("content")
    return out


class _Lines:
    """Line numbers of the sources' ids in the file's text, for error messages. An id is found as
    the value of an ``id`` key (JSON, YAML or TOML) after the previous one (a file lists them in
    order), and newlines are counted from there: one pass over the file, not one per source."""

    def __init__(self, raw: str) -> None:
        self.raw, self.at, self.line = raw, 0, 1

    def of(self, sid: str) -> int | None:
        i = self.raw.find(sid, self.at)
        while i >= 0 and not (
            _ID_KEY.search(self.raw, max(0, i - 24), i) and self.raw[i + len(sid) : i + len(sid) + 1] not in _ID_MORE
        ):
            i = self.raw.find(sid, i + 1)
        if i < 0:  # out of order, or written otherwise: the first mention, counted from the start
            i = self.raw.find(sid)
            return None if i < 0 else self.raw.count("\n", 0, i) + 1
        self.line += self.raw.count("\n", self.at, i)
        self.at = i
        return self.line


_ID_KEY = re.compile(r"""\bid["']?\s*[:=]\s*["']?\Z""")  # what precedes an id's value
_ID_MORE = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")  # an id going on


def require_registry(value: object) -> Registry | None:
    """``value`` when it is a :class:`Registry` or None; a path or raw data passed where a
    registry belongs is a TypeError that says how to make one (not a failure at the first citation)."""
    if value is None or isinstance(value, Registry):
        return value
    if isinstance(value, str | PurePath):
        how = f"load it first: load_sources({str(value)!r})"
    elif isinstance(value, list | dict):
        how = "build it first: registry_from_data(data)"
    else:
        how = "load_sources(path) or registry_from_data(data) makes one"
    raise TypeError(f"sources must be a citerender Registry, not {type(value).__name__}: {how}")


def registry_from_data(
    data: object,
    *,
    path: str | None = None,
    raw: str = "",
    fmt: CitationFormat = DEFAULT_FORMAT,
    numbered: str | None = None,
    first: int = 1,
) -> Registry:
    """Build a registry from parsed JSON/YAML/TOML data: a list or ``{"sources": [...]}``.

    ``numbered`` is a numbering dialect's id (``doc{}``, from ``first``): a list written as that
    dialect's tool gives it (Azure On Your Data's ``citations``, or its whole ``context``) needs no
    ids: each entry without one gets the id its number spells, in order, and its ``content`` is its text."""
    items = data.get("sources") if isinstance(data, Mapping) else data
    if numbered and isinstance(data, Mapping) and items is None:
        items = data.get("citations")
    if numbered and isinstance(items, list):
        items = [_numbered(item, numbered.format(first + i)) for i, item in enumerate(items)]
    if not isinstance(items, list):
        raise CiterenderError(
            "expected a list of sources or an object with a 'sources' list",
            path=path,
            line=1,
            hint='write {"sources": [{"id": "turn0file0", …}]}',
        )
    out: list[Source] = []
    seen: dict[str, int] = {}
    lines = _Lines(raw)
    for i, item in enumerate(items):
        sid = item.get("id") if isinstance(item, Mapping) else None
        line = lines.of(sid) if isinstance(sid, str) and raw else None
        src = source_from_mapping(item, i, path=path, line=line, fmt=fmt)
        if src.id in seen:
            raise CiterenderError(
                f"duplicate source id {src.id!r} (sources #{seen[src.id] + 1} and #{i + 1})",
                path=path,
                line=line,
                hint="give every source a unique id",
            )
        seen[src.id] = i
        out.append(src)
    return Registry(out, path=path)
