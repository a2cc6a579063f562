"""The bibliography as CSL-JSON, for reference managers and ``pandoc --citeproc``."""

from __future__ import annotations

import json
from typing import Any

from ...sources.urls import safe_url
from .parsed import Parsed, date_parts, finish, lines_label

__all__ = ["to_csl_json"]


def to_csl_json(p: Parsed) -> str:
    """The bibliography as CSL-JSON (for reference managers and ``pandoc --citeproc``), the
    consulted sources after it (``keyword: consulted``)."""
    items = []
    for ref in [*p.references, *p.state.consulted]:
        s = ref.source
        item: dict[str, Any] = {"id": s.id, "type": "webpage" if s.url else "document", "title": s.label}
        url, issued, note = safe_url(s.url), date_parts(s.updated), lines_label(ref)
        if url:
            item["URL"] = url
        if s.domain:
            item["container-title"] = s.domain
        if issued:
            item["issued"] = {"date-parts": [[int(x) for x in issued]]}
        if note:
            item["note"] = note
        if ref in p.state.consulted:
            item["keyword"] = "consulted"
        items.append(item)
    return finish(p, "", json.dumps(items, ensure_ascii=False, indent=2) + "\n")
