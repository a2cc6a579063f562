"""The bibliography as CSL-JSON, for reference managers and ``pandoc --citeproc``."""

from __future__ import annotations

import json
import re
from typing import Any

from ...sources.urls import safe_url
from .parsed import Parsed, finish, lines_label, source_label

__all__ = ["to_csl_json"]


def _date_parts(value: str | None) -> dict[str, Any] | None:
    if not value:
        return None
    m = re.match(r"(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", value)
    if not m:
        return None
    return {"date-parts": [[int(x) for x in m.groups() if x]]}


def to_csl_json(p: Parsed) -> str:
    """The bibliography as CSL-JSON (for reference managers and ``pandoc --citeproc``), the
    consulted sources after it (``keyword: consulted``)."""
    items = []
    for ref in [*p.references, *p.state.consulted]:
        s = ref.source
        item: dict[str, Any] = {"id": s.id, "type": "webpage" if s.url else "document", "title": source_label(s)}
        url = safe_url(s.url)
        if url:
            item["URL"] = url
        if s.domain:
            item["container-title"] = s.domain
        issued = _date_parts(s.updated)
        if issued:
            item["issued"] = issued
        if ref.places and any(pl.lines for pl in ref.places):
            item["note"] = lines_label(ref)
        if ref in p.state.consulted:
            item["keyword"] = "consulted"
        items.append(item)
    return finish(p, "", json.dumps(items, ensure_ascii=False, indent=2) + "\n")
