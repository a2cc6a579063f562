"""A ChatGPT message's ``metadata.content_references``: what each marker in its text stands for.

Every reference names the text it replaces (``matched_text``, at ``start_idx``/``end_idx`` in code
points). Citation types (``grouped_webpages`` and its model-predicted fallback, ``webpage``,
``file``, ``video``) become a canonical marker over sources kept in the turn's registry, with
their snippets as the sources' text (shown in hover cards, checked by the evidence checks);
entities, products and calculators become their text; ``hidden`` and ``sources_footnote``
become nothing (the bibliography lists the sources); an unknown type degrades to its ``alt`` or
``prompt_text``, with a note — a marker is never left raw.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from ..syntax.format import DEFAULT_FORMAT

__all__ = ["Edit", "SearchSources", "edits_for", "md_text", "ref_id"]

#: (start, end, replacement, note): a note is a (code, message) for the import's diagnostics
Edit = tuple[int, int, str, tuple[str, str] | None]

_CITATION_TYPES = frozenset(
    {"grouped_webpages", "grouped_webpages_model_predicted_fallback", "webpage", "file", "video"}
)
_TEXT_TYPES = frozenset({"products", "businesses_map", "nav_list", "file_navlist", "navigation", "alt_text"})
_NOTHING_TYPES = frozenset({"hidden", "sources_footnote", "attribution"})
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~$&])")
_SPACES = re.compile(r"[\s\u202f\u00a0]+")


def md_text(text: str) -> str:
    """``text`` as literal Markdown: every character Markdown could read as syntax is escaped,
    line breaks are spaces (an export's titles and names are data, not Markdown)."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


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
    """The sources of one assistant turn, by id: from ``search_result_groups`` (every page the
    model saw) and from the content references (what it cited)."""

    def __init__(self) -> None:
        self.sources: dict[str, dict[str, Any]] = {}
        self.by_url: dict[str, str] = {}
        self.synthetic = 0

    def add(self, item: Mapping[str, Any], sid: str | None = None) -> str | None:
        """Record one page (``title``, ``url``, ``snippet``, ``pub_date``, ``attribution``);
        returns its id: the model's (``ref_id``), the id of the same URL seen before, or a new one."""
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
        for key, value in (
            ("url", url),
            ("title", title or item.get("attribution")),
            ("updated", _date(item.get("pub_date"))),
        ):
            if value and not src.get(key):
                src[key] = value
        if isinstance(snippet, str) and snippet.strip() and "text" not in src:
            src["text"] = " ".join(snippet.split())
        if url is not None:
            self.by_url.setdefault(url, sid)
        return sid

    def add_groups(self, groups: Any) -> None:
        for group in groups if isinstance(groups, list) else []:
            entries = group.get("entries") if isinstance(group, Mapping) else None
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, Mapping):
                    self.add(entry)


def _ids(refs: Any) -> list[str]:
    return [sid for sid in (ref_id(r) for r in (refs if isinstance(refs, list) else [])) if sid]


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
    if typ in ("image_v2", "image_group"):
        images = [i for i in ref.get("images") or [] if isinstance(i, Mapping)]
        titles = [str(i.get("title") or i.get("alt") or "") for i in images]
        shown = ", ".join(t for t in titles if t.strip())
        return md_text(f"[images: {shown}]" if shown else f"[{len(images)} image(s)]") if images else ""
    alt = ref.get("alt") or ref.get("prompt_text") or ""
    return md_text(alt) if isinstance(alt, str) else ""


def _entity_name(matched: str) -> str:
    m = re.search(r'\[\s*"[^"]*"\s*,\s*"([^"]+)"', matched)
    return m.group(1) if m else ""


def _span(text: str, ref: Mapping[str, Any], used: list[tuple[int, int]]) -> tuple[int, int] | None:
    """Where the reference's matched text is: at its offsets (spacing compared loosely: an
    export may hold U+202F where the text has a space), else the first free occurrence."""
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


def edits_for(text: str, refs: Any, sources: SearchSources) -> list[Edit]:
    """The edits that turn every content reference of a message into what it means."""
    edits: list[Edit] = []
    used: list[tuple[int, int]] = []
    for ref in refs if isinstance(refs, list) else []:
        if not isinstance(ref, Mapping):
            continue
        typ = str(ref.get("type", ""))
        span = _span(text, ref, used)
        if span is None:
            if typ not in _NOTHING_TYPES and str(ref.get("matched_text") or "").strip():
                what = f"a reference of type {typ[:40]!r}" if typ else "a content reference"
                edits.append((0, 0, "", ("CR502", f"{what}: its text is not in the message, so it is not shown")))
            continue
        used.append(span)
        if typ in _CITATION_TYPES:
            ids = [sid for sid in (sources.add(item) for item in _items(ref)) if sid]
            ids = list(dict.fromkeys(ids + _ids(ref.get("refs"))))
            known = [sid for sid in ids if sid in sources.sources]
            replacement = DEFAULT_FORMAT.marker(*known) if known else ""
            if not _is_marker(text[span[0] : span[1]]):  # plain words the pill stood for: kept
                replacement = text[span[0] : span[1]] + replacement
            edits.append((*span, replacement, None))
        elif typ in _NOTHING_TYPES:
            edits.append((*span, "", None))
        elif typ in _TEXT_TYPES or typ in ("calculator", "entity", "product_entity", "image_v2", "image_group"):
            edits.append((*span, _text_of(ref), None))
        else:
            shown = _text_of(ref)
            edits.append((*span, shown, ("CR501", f"content reference of unknown type {typ[:40]!r} shown as its text")))
    return edits


def _is_marker(span: str) -> bool:
    return any("\ue200" <= c <= "\ue206" for c in span) or span.strip() == ""
