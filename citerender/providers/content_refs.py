"""A ChatGPT message's ``metadata.content_references``: what each marker in its text stands for.

Each reference names the text it replaces (``matched_text`` at ``start_idx``/``end_idx``). Citation
types become a canonical marker over the turn's sources (their snippets as the sources' text);
entities, products and calculators their text; ``hidden`` and ``sources_footnote`` nothing; an
unknown type its ``alt`` or ``prompt_text``, with a note: a marker is never left raw."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from ..syntax.format import DEFAULT_FORMAT
from .common import as_list, as_map

__all__ = ["Edit", "SearchSources", "edits_for", "md_text", "ref_id", "unknown_ids", "unresolved_tether"]

#: (start, end, replacement, note): a note is a (code, message) for the import's diagnostics
Edit = tuple[int, int, str, tuple[str, str] | None]

_CITATION_TYPES = frozenset(
    {"grouped_webpages", "grouped_webpages_model_predicted_fallback", "webpage", "file", "video"}
)
_TEXT_TYPES = frozenset({"products", "businesses_map", "alt_text"})
#: widgets that list links (navigation lists, image groups): shown as titled links, nothing fetched
_LINK_TYPES = frozenset({"nav_list", "file_navlist", "navigation", "image_v2", "image_group"})
_NOTHING_TYPES = frozenset({"hidden", "sources_footnote"})
_URL_UNSAFE = re.compile(r"[\x00-\x20<>\\\x7f]")
_MD_SPECIAL = re.compile(r"([\\`*_{}<>#+\-.!|~$&])")
#: brackets and parentheses as character references: ``\[…\]`` and ``\(…\)`` would read as math
_MD_BRACKETS = {"[": "&#91;", "]": "&#93;", "(": "&#40;", ")": "&#41;"}
_MD_BRACKET = re.compile(r"[\[\]()]")
_SPACES = re.compile(r"[\s\u202f\u00a0]+")


def md_text(text: str) -> str:
    """``text`` (an export's title or name) as literal Markdown on one line: syntax escaped, brackets
    and parentheses as character references (escaped, ``\\(HR\\)`` would read as a formula)."""
    escaped = _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))
    return _MD_BRACKET.sub(lambda m: _MD_BRACKETS[m.group()], escaped)


def ref_id(ref: Mapping[str, Any] | None) -> str | None:
    """``{turn_index, ref_type, ref_index}`` as the id the model writes: ``turn0search3``."""
    if not isinstance(ref, Mapping):
        return None
    turn, kind, index = ref.get("turn_index"), ref.get("ref_type"), ref.get("ref_index")
    if not isinstance(turn, int) or not isinstance(index, int) or not isinstance(kind, str):
        return None
    sid = f"turn{turn}{kind}{index}"
    return sid if DEFAULT_FORMAT.id_re.fullmatch(sid) else None


def _date(value: Any) -> str | None:
    """``pub_date`` as an ISO date: epoch seconds (int, float) or a date string."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e11:
        return datetime.fromtimestamp(value, UTC).date().isoformat()
    if isinstance(value, str) and re.match(r"\d{4}-\d{2}-\d{2}", value):
        return value[:10]
    return None


class SearchSources:
    """The sources of one assistant turn, by id: every page the model saw, and what it cited."""

    def __init__(self) -> None:
        self.sources: dict[str, dict[str, Any]] = {}
        self.by_url: dict[str, str] = {}
        self.synthetic = 0

    def add(self, item: Mapping[str, Any], sid: str | None = None) -> str | None:
        """Record one page; return its id: the model's (``ref_id``), that of its URL seen before, or
        a new one."""
        url = item.get("url") if isinstance(item.get("url"), str) else None
        title = item.get("title") if isinstance(item.get("title"), str) else None
        if sid is None:
            sid = ref_id(item.get("ref_id")) or next(iter(_ids(item.get("refs"))), None)
        if sid is None and url is not None:
            sid = self.by_url.get(url)
        if sid is None:
            if url is None and title is None:
                return None
            self.synthetic += 1
            sid = f"turn0ref{self.synthetic}"
        src = self.sources.setdefault(sid, {"id": sid})
        snippet = item.get("snippet")
        fields = {"url": url, "title": title or item.get("attribution"), "updated": _date(item.get("pub_date"))}
        for key, value in fields.items():
            if value and not src.get(key):
                src[key] = value
        if isinstance(snippet, str) and snippet.strip() and "text" not in src:
            src["text"] = " ".join(snippet.split())
        if url is not None:
            self.by_url.setdefault(url, sid)
        return sid

    def add_groups(self, groups: Any) -> None:
        for group in as_list(groups):
            for entry in as_list(as_map(group).get("entries")):
                if isinstance(entry, Mapping):
                    self.add(entry)


def _ids(refs: Any) -> list[str]:
    return [sid for sid in map(ref_id, as_list(refs)) if sid]


def _items(ref: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    """The pages a citation reference points at, supporting websites included."""
    items = ref.get("items")
    if isinstance(items, list):
        for item in items:
            if isinstance(item, Mapping):
                yield item
                for site in item.get("supporting_websites") or []:
                    if isinstance(site, Mapping):
                        yield site
    elif ref.get("url") or ref.get("title"):  # webpage, file, video: the page itself
        yield ref


def _text_of(ref: Mapping[str, Any]) -> str:
    typ = ref.get("type")
    if typ == "calculator" and ref.get("expression") is not None:
        return md_text(f"{ref.get('expression')} = {ref.get('result', '')}".strip(" ="))
    if typ in ("entity", "product_entity"):
        name = ref.get("name") or ref.get("alt") or _entity_name(str(ref.get("matched_text", "")))
        return md_text(name) if name else ""
    if typ in _LINK_TYPES:
        return _link_list(ref)
    alt = ref.get("alt") or ref.get("prompt_text") or ""
    return md_text(alt) if isinstance(alt, str) else ""


def _link(title: Any, url: Any) -> str:
    """``[title](<url>)`` as literal Markdown, the URL percent-encoded where it could end the
    destination (the renderer's link policy still decides whether it links)."""
    label = md_text(title) if isinstance(title, str) and title.strip() else ""
    if not isinstance(url, str) or not url.strip():
        return label
    dest = _URL_UNSAFE.sub(lambda m: f"%{ord(m.group()):02X}", url.strip())
    return f"[{label or md_text(url)}](<{dest}>)"


def _link_list(ref: Mapping[str, Any]) -> str:
    """A widget as links, nothing fetched: images as their pages, navigation lists as their
    titled links; else its ``alt`` text."""
    typ = ref.get("type")
    key = "images" if typ in ("image_v2", "image_group") else ("domains" if ref.get("domains") else "items")
    entries = [_image(e) if key == "images" else e for e in ref.get(key) or [] if isinstance(e, Mapping)]
    if key == "images":
        links = [x for e in entries if (x := _image_link(e))]
    else:
        links = [x for e in entries if (x := _link(e.get("title") or e.get("alt") or e.get("name"), e.get("url")))]
    if not links:
        alt = ref.get("alt") if typ not in ("image_v2", "image_group") else None
        return md_text(alt) if isinstance(alt, str) else (f"&#91;{len(entries)} image(s)&#93;" if entries else "")
    label = "Images" if key == "images" else (md_text(ref["alt"]) if isinstance(ref.get("alt"), str) else "Links")
    return f"{label}: " + ", ".join(links)


def _image(entry: Mapping[str, Any]) -> Mapping[str, Any]:
    """One image of a carousel (``image_group`` nests it under ``image_result``)."""
    inner = entry.get("image_result")
    return inner if isinstance(inner, Mapping) else entry


def _image_link(image: Mapping[str, Any]) -> str:
    """An image as its title linked to the page it comes from, then that page's domain."""
    url = image.get("url") if isinstance(image.get("url"), str) else None
    domain = _domain(url) if url else None
    title = next((v for k in ("title", "alt", "name") if isinstance(v := image.get(k), str) and v.strip()), domain)
    link = _link(title, url)
    return f"{link} ({md_text(domain)})" if link and domain and title != domain else link


def _domain(url: str) -> str | None:
    try:
        host = urlsplit(url.strip()).hostname if "//" in url else None
    except ValueError:  # ``http://[::1`` and such: no domain to show
        return None
    return host.removeprefix("www.") if host else None


def _file_item(ref: Mapping[str, Any], matched: str) -> dict[str, Any] | None:
    """An uploaded file a citation names, as a source titled by its name (and lines or page)."""
    name = next((v for k in ("name", "file_name", "filename", "title") if isinstance(v := ref.get(k), str) and v), None)
    fid = next((v for k in ("file_id", "id", "cite_key") if isinstance(v := ref.get(k), str) and v), None)
    if name is None and fid is None:
        return None
    where = ""
    lines = re.search(r"\ue202L(\d+)(?:-L(\d+))?\ue201", matched)
    page = ref.get("page") if isinstance(ref.get("page"), int) else ref.get("page_number")
    if lines:
        where = f", lines {lines[1]}–{lines[2]}" if lines[2] and lines[2] != lines[1] else f", line {lines[1]}"
    elif isinstance(page, int) and not isinstance(page, bool):
        where = f", page {page}"
    item: dict[str, Any] = {"title": f"{name or fid}{where} (uploaded file: not in the export)"}
    snippet = ref.get("snippet") or ref.get("text")
    if isinstance(snippet, str):
        item["snippet"] = snippet
    if isinstance(ref.get("url"), str):
        item["url"] = ref["url"]
    return item


def _entity_name(matched: str) -> str:
    m = re.search(r'\[\s*"[^"]*"\s*,\s*"([^"]+)"', matched)
    return m.group(1) if m else ""


def _span(text: str, ref: Mapping[str, Any], used: list[tuple[int, int]]) -> tuple[int, int] | None:
    """Where the reference's matched text is: at its offsets (spacing compared loosely), else its
    first free occurrence."""
    matched = ref.get("matched_text")
    if not isinstance(matched, str) or not matched:
        return None
    start, end = ref.get("start_idx"), ref.get("end_idx")
    loose = _SPACES.sub(" ", matched)
    if isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(text):  # noqa: SIM102
        if _SPACES.sub(" ", text[start:end]) == loose:
            return start, end
    if not matched.strip():  # a space (a footnote's anchor) is anywhere: only its offsets place it
        return None
    pos = 0
    while (found := text.find(matched, pos)) != -1:
        span = (found, found + len(matched))
        if all(span[1] <= a or span[0] >= b for a, b in used):
            return span
        pos = found + 1
    return None


def edits_for(text: str, refs: Any, sources: SearchSources, citations: Any = None) -> list[Edit]:
    """The edits that turn every content reference of a message (and the older ``citations``)
    into what it means."""
    edits: list[Edit] = []
    used: list[tuple[int, int]] = []
    trailing: list[str] = []
    for ref in [*as_list(refs), *_tether(text, citations)]:
        if not isinstance(ref, Mapping):
            continue
        typ = str(ref.get("type", ""))
        span = _span(text, ref, used)
        if span is None:
            if typ in _LINK_TYPES and (shown := _link_list(ref)):
                trailing.append(shown)  # a widget with no place in the text: after it
            elif (lost := _unplaced(ref, typ)) is not None:
                edits.append(lost)
            continue
        used.append(span)
        if typ in _CITATION_TYPES:
            edits.append(_citation_edit(text, ref, typ, span, sources))
        elif typ == "attribution":
            edits.append(_attribution_edit(text, ref, span, sources))
        elif typ in ("image_v2", "image_group"):
            edits.append(_carousel_edit(text, _shown_edit(ref, typ, span)))
        else:
            edits.append(_shown_edit(ref, typ, span))
    if trailing:
        edits.append((len(text), len(text), "".join(f"\n\n{t}" for t in trailing), None))
    return edits


def _unplaced(ref: Mapping[str, Any], typ: str) -> Edit | None:
    """A reference whose text is not in the message: reported (CR502) when it stood for words."""
    if typ in _NOTHING_TYPES or typ == "attribution" or not str(ref.get("matched_text") or "").strip():
        return None
    what = f"a reference of type {typ[:40]!r}" if typ else "a content reference"
    return (0, 0, "", ("CR502", f"{what}: its text is not in the message, so it is not shown"))


def _citation_edit(text: str, ref: Mapping[str, Any], typ: str, span: tuple[int, int], sources: SearchSources) -> Edit:
    """A citation pill (a file, a video): a marker of its sources, after the words it stood for."""
    matched = text[span[0] : span[1]]
    items = list(_items(ref))
    if typ == "file" and (item := _file_item(ref, matched)) is not None:
        items = [item]
    ids = [sid for sid in (sources.add(item) for item in items) if sid]
    ids = list(dict.fromkeys(ids + _ids(ref.get("refs"))))
    known = [sid for sid in ids if sid in sources.sources]
    replacement = DEFAULT_FORMAT.marker(*known) if known else ""
    if not _is_marker(matched):  # plain words the pill stood for: kept
        replacement = matched + replacement
    elif typ == "video" and isinstance(ref.get("title"), str) and ref["title"].strip():
        replacement = f"Video: {md_text(ref['title'])}{replacement}"  # the card showed its title
    return (*span, replacement, None)


def _attribution_edit(text: str, ref: Mapping[str, Any], span: tuple[int, int], sources: SearchSources) -> Edit:
    """The span is the attributed sentence itself: it stays, followed by the pages it names."""
    pages = [a for a in as_list(ref.get("attributions")) if isinstance(a, Mapping) and a.get("url")]
    ids = [sid for sid in map(sources.add, pages) if sid]
    end = span[1]
    if text[span[0] - 1 : span[0]] == "\ue203" and text[end : end + 1] == "\ue204":
        end += 1  # the highlight around it (its start hidden by another reference) goes with it
    return (span[0], end, text[span[0] : span[1]] + (DEFAULT_FORMAT.marker(*ids) if ids else ""), None)


def _shown_edit(ref: Mapping[str, Any], typ: str, span: tuple[int, int]) -> Edit:
    """Any other reference: nothing, its text, or (an unknown type) its text, reported (CR501)."""
    if typ in _NOTHING_TYPES:
        return (*span, "", None)
    if typ in _TEXT_TYPES or typ in _LINK_TYPES or typ in ("calculator", "entity", "product_entity"):
        return (*span, _text_of(ref), None)
    return (*span, _text_of(ref), ("CR501", f"content reference of unknown type {typ[:40]!r} shown as its text"))


def _carousel_edit(text: str, edit: Edit) -> Edit:
    """An image carousel that opens a line stands apart from the text after it, as ChatGPT shows it."""
    start, end, shown, note = edit
    if shown and (start == 0 or text[start - 1] == "\n") and end < len(text) and text[end] != "\n":
        shown += "\n\n"
    return start, end, shown, note


_TETHER = re.compile(r"【(\d+)(?::(\d+))?†([^】\n]{0,200})】")


def _tether(text: str, citations: Any) -> list[dict[str, Any]]:
    """The older ``metadata.citations`` (``start_ix``/``end_ix`` over ``【N†source】``) as references."""
    out: list[dict[str, Any]] = []
    for c in map(as_map, as_list(citations)):
        meta, start, end = c.get("metadata"), c.get("start_ix"), c.get("end_ix")
        if not isinstance(meta, Mapping) or not isinstance(start, int) or not isinstance(end, int):
            continue
        if not 0 <= start < end <= len(text):
            continue
        kind = "file" if meta.get("type") == "file" else "webpage"
        out.append({**meta, "type": kind, "matched_text": text[start:end], "start_idx": start, "end_idx": end,
                    "snippet": meta.get("text")})  # fmt: skip
    return out


_CANONICAL = re.compile("\ue200(cite|filecite)((?:\ue202[^\ue200-\ue202]*)+)\ue201")
_LOCATOR = re.compile(r"L\d+(?:-L\d+)?|p\.?\d+(?:-\d+)?")


def unknown_ids(text: str, sources: SearchSources) -> tuple[str, list[tuple[str, str]]]:
    """Citation ids the export records nowhere leave their marker (one left with none goes), each
    reported (CR509, a warning: the export lost what they stood for)."""
    notes: list[tuple[str, str]] = []

    def one(m: re.Match[str]) -> str:
        parts = m[2].split("\ue202")[1:]
        ids = [p for p in parts if not _LOCATOR.fullmatch(p)]
        lost = [p for p in ids if p not in sources.sources]
        if not lost:
            return m[0]
        for sid in lost:
            kind = "an uploaded file" if m[1] == "filecite" else "a source"
            notes.append(("CR509", f"{sid[:60]!r} names {kind} the export does not record: its citation is left out"))
        kept = [p for p in parts if p not in lost]
        return DEFAULT_FORMAT.marker(*kept, family=m[1]) if any(p in sources.sources for p in kept) else ""

    return _CANONICAL.sub(one, text), notes


def unresolved_tether(text: str, sources: SearchSources) -> tuple[str, list[tuple[str, str]]]:
    """``【N†name】`` spans no reference resolved, each reported (CR509): cited by their name as a
    source the export lacks, removed when the name is the generic ``source``."""
    notes: list[tuple[str, str]] = []

    def one(m: re.Match[str]) -> str:
        sid, name = m[1] + (f":{m[2]}" if m[2] else ""), m[3].strip()
        if not name or name.casefold() in ("source", "sources"):
            notes.append(("CR509", f"【{sid}†{name}】 names no source the export records: removed"))
            return ""
        notes.append(("CR509", f"【{sid}†{name[:60]}】 is not resolved by the export: cited by its name"))
        new = sources.add({"title": f"{name} (not in the export)"})
        return DEFAULT_FORMAT.marker(new) if new else ""

    return _TETHER.sub(one, text), notes


def _is_marker(span: str) -> bool:
    """Is the span a marker (private-use characters, a 【…】 bracket form, a space), not words?"""
    bare = span.strip()
    return any("\ue200" <= c <= "\ue206" for c in span) or bare == "" or (bare[:1] == "【" and bare[-1:] == "】")
