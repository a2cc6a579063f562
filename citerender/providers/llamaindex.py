"""LlamaIndex: a query engine's ``Response`` saved as ``{"response", "source_nodes"}``. The
``CitationQueryEngine`` labels its chunks ``Source N:`` and the answer cites ``[N]``, read by the
``numbered`` dialect; chunks of one file are one source, each chunk a numbered line of it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .common import Builder, as_map, retrieved_source

__all__ = ["response"]

_LABEL = re.compile(r"\s*Source (\d{1,4}):\s*\n?")


def response(resp: Mapping[str, Any], b: Builder) -> list[str]:
    b.dialect = "numbered"
    for i, item in enumerate(resp.get("source_nodes") or []):
        node = item.get("node", item) if isinstance(item, Mapping) else None
        if not isinstance(node, Mapping):
            continue
        text = str(node.get("text") or "")
        label = _LABEL.match(text)
        meta = as_map(node.get("metadata"))
        sid, locator = retrieved_source(b, meta, text[label.end() :] if label else text, node.get("id_"))
        b.number(int(label.group(1)) if label else i + 1, sid, locator)
    return [str(resp.get("response") or "")]
