"""What every adapter shares: the result type, a builder numbering sources, text edits."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..sources.model import Registry, registry_from_data
from ..syntax.format import CitationFormat

__all__ = ["Adapted", "Builder", "insert_edits", "url_citations"]


@dataclass
class Adapted:
    """An answer with markers, its registry, and notes on anything that could not be placed."""

    text: str
    registry: Registry
    notes: list[str] = field(default_factory=list)


class Builder:
    """Numbers sources as they are first cited and records where markers go."""

    def __init__(self, fmt: CitationFormat) -> None:
        self.fmt = fmt
        self.sources: dict[str, dict[str, Any]] = {}
        self.by_key: dict[str, str] = {}
        self.counts: dict[str, int] = {}

    def source(self, key: str, kind: str, **fields: Any) -> str:
        sid = self.by_key.get(key)
        if sid is None:
            n = self.counts.get(kind, 0)
            self.counts[kind] = n + 1
            sid = f"turn0{kind}{n}"
            self.by_key[key] = sid
            self.sources[sid] = {"id": sid, **{k: v for k, v in fields.items() if v}}
        else:
            for k, v in fields.items():
                if v and not self.sources[sid].get(k):
                    self.sources[sid][k] = v
        return sid

    def add_line(self, sid: str, line: str) -> str:
        """Add a cited passage to a source as a numbered line; return its locator."""
        lines = self.sources[sid].setdefault("lines", [])
        line = re.sub(r"\s+", " ", line).strip()
        if line not in lines:
            lines.append(line)
        return f"L{lines.index(line) + 1}"

    def marker(self, sid: str, locator: str | None = None) -> str:
        return self.fmt.marker(sid, locator=locator)

    def registry(self) -> Registry:
        return registry_from_data(list(self.sources.values()))


def insert_edits(text: str, inserts: list[tuple[int, int, str]]) -> str:
    """Apply (start, end, replacement) edits, end-to-start; overlapping edits keep the first."""
    out = []
    pos = 0
    for start, end, rep in sorted(inserts, key=lambda x: (x[0], x[1])):
        start = max(start, pos)
        end = max(end, start)
        out.append(text[pos:start])
        out.append(rep)
        pos = end
    out.append(text[pos:])
    return "".join(out)


_LINK_SPAN = re.compile(r"\s*\(?\[([^\]]*)\]\(([^)\s]+)\)\)?\s*\Z")


def url_citations(text: str, annotations: Iterable[Mapping[str, Any]], b: Builder) -> list[tuple[int, int, str]]:
    """Edits placing url_citation markers: a span that is just ``([domain](url))`` is replaced by
    the marker; any other span gets the marker after it (after trailing punctuation)."""
    edits: list[tuple[int, int, str]] = []
    for a in annotations:
        cit = a.get("url_citation", a) if isinstance(a, Mapping) else {}
        if a.get("type") != "url_citation":
            continue
        url, title = cit.get("url"), cit.get("title")
        start, end = int(cit.get("start_index", 0)), int(cit.get("end_index", 0))
        if not url or not 0 <= start <= end <= len(text):
            continue
        clean_url = re.sub(r"([?&])utm_source=openai(&|$)", lambda m: m.group(1) if m.group(2) else "", url).rstrip(
            "?&"
        )
        sid = b.source(f"url:{clean_url}", "search", title=title, url=clean_url)
        span = text[start:end]
        if _LINK_SPAN.match(span):
            lead = len(span) - len(span.lstrip())
            edits.append((start + lead, end, b.marker(sid)))
        else:
            at = end
            while at < len(text) and text[at] in ".,;:!?)":
                at += 1
            edits.append((at, at, b.marker(sid)))
    return edits
