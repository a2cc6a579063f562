"""Model-facing text read back into a registry: the guide's tool output (``Citation Marker:``
headers, ``[L1]`` lines) and injected ``<BLOCK id="…">`` context."""

from __future__ import annotations

import html
import re
from typing import Any

from ..errors import CiterenderError
from ..lazy_re import lazy_compile
from ..syntax.format import DEFAULT_FORMAT, CitationFormat
from ..syntax.scanner import scan
from .model import Registry, Source, source_from_mapping
from .neutralise import unescape_line, unescape_text

__all__ = ["parse_blocks", "parse_tool_output"]

_PLACEHOLDERS = {"{CITATION_START}": "\ue200", "{CITATION_DELIMITER}": "\ue202", "{CITATION_STOP}": "\ue201"}
_LINE_RE = lazy_compile(r"\[L(\d+)\] ?(.*)\Z", re.S)
_BLOCK_HEADER_RE = lazy_compile(r"\[Block(\d+)\]\s*\Z")
_BLOCK_RE = lazy_compile(r"<BLOCK((?:\s+[A-Za-z_]+\s*=\s*\"[^\"]*\")*)\s*>\n?(.*?)\n?</BLOCK>", re.S)
_ATTR_RE = lazy_compile(r'([A-Za-z_]+)\s*=\s*"([^"]*)"')
_HEADER_KEYS = ("title", "url", "updated")


def _marker_id(marker_text: str, fmt: CitationFormat) -> str | None:
    for k, v in _PLACEHOLDERS.items():
        marker_text = marker_text.replace(k, v)
    for mk in scan(marker_text, fmt=fmt):
        if mk.citation is not None and len(mk.citation.source_ids) == 1:
            return mk.citation.source_ids[0]
    return None


def _numbered(lines: list[str]) -> list[str] | None:
    """The texts of ``[L1] …``, ``[L2] …`` lines in order, or None if they are not all such."""
    out: list[str] = []
    for line in lines:
        m = _LINE_RE.match(line)
        if m is None or int(m.group(1)) != len(out) + 1:
            return None
        out.append(m.group(2))
    return out


def parse_tool_output(text: str, *, path: str | None = None, fmt: CitationFormat = DEFAULT_FORMAT) -> Registry:
    """Read the guide's tool-output format back into a registry.

    Each source starts with ``Citation Marker: <marker>``, then optional ``Title:``, ``URL:`` and
    ``Updated:`` lines, a blank line, then ``[L1] …`` lines or a ``[BlockN]`` body. Text that
    :mod:`citerender.sources.present` neutralised is restored.
    """
    sources: list[Source] = []
    cur: dict[str, Any] | None = None
    cur_line = 0
    mode = "header"

    def finish() -> None:
        if cur is None:
            return
        body = cur.pop("_body")
        if cur.pop("_kind") == "lines":
            if body:
                cur["lines"] = [unescape_line(x) for x in body]
        else:
            cur["text"] = unescape_text("\n".join(body).rstrip("\n"))
        sources.append(source_from_mapping(cur, len(sources), path=path, line=cur_line, fmt=fmt))

    for n, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        if line.startswith("Citation Marker:"):
            finish()
            sid = _marker_id(line[len("Citation Marker:") :].strip(), fmt)
            if sid is None:
                raise CiterenderError(
                    "a 'Citation Marker:' line holds no readable marker",
                    path=path,
                    line=n,
                    hint="write Citation Marker: \\ue200cite\\ue202turn0file0\\ue201",
                )
            cur, cur_line, mode = {"id": sid, "_body": [], "_kind": "lines"}, n, "header"
            continue
        if cur is None:
            if line.strip():
                raise CiterenderError("text before the first 'Citation Marker:' line", path=path, line=n)
            continue
        if mode == "header":
            key, sep, value = line.partition(":")
            if sep and key.strip().lower() in _HEADER_KEYS and not line.startswith(("[", "\\")):
                cur[key.strip().lower()] = unescape_line(value.strip())
                continue
            mode = "body"
            if not line.strip():
                continue
        if cur["_kind"] == "block":
            cur["_body"].append(line)
            continue
        m = _LINE_RE.match(line)
        if m and int(m.group(1)) == len(cur["_body"]) + 1:
            cur["_body"].append(m.group(2))
        elif (bm := _BLOCK_HEADER_RE.match(line)) and not cur["_body"]:
            cur["_kind"] = "block"
            cur.setdefault("meta", {})["block"] = int(bm.group(1))
        elif not line.strip():
            continue
        else:
            raise CiterenderError(
                f"expected an [L{len(cur['_body']) + 1}] line",
                path=path,
                line=n,
                hint="number lines [L1], [L2], … in order",
            )
    finish()
    return Registry(sources, path=path)


def parse_blocks(text: str, *, path: str | None = None, fmt: CitationFormat = DEFAULT_FORMAT) -> Registry:
    """Read injected ``<BLOCK id="…">…</BLOCK>`` context back into a registry.

    Attributes ``title``, ``url`` and ``updated`` become metadata; a body made only of
    ``[L1] …`` lines becomes numbered lines, any other body a text block.
    """
    sources: list[Source] = []
    for m in _BLOCK_RE.finditer(text.replace("\r\n", "\n")):
        line = text.count("\n", 0, m.start()) + 1
        attrs = {k.lower(): html.unescape(v) for k, v in _ATTR_RE.findall(m.group(1))}
        if "id" not in attrs:
            raise CiterenderError("a <BLOCK> element has no id attribute", path=path, line=line)
        entry: dict[str, Any] = {"id": attrs.pop("id")}
        for key in _HEADER_KEYS:
            if key in attrs:
                entry[key] = unescape_line(attrs.pop(key))
        if attrs:
            entry["meta"] = attrs
        body = m.group(2)
        numbered = _numbered(body.split("\n")) if body else None
        if numbered is not None:
            entry["lines"] = [unescape_line(x) for x in numbered]
        elif body:
            entry["text"] = unescape_text(body)
        sources.append(source_from_mapping(entry, len(sources), path=path, line=line, fmt=fmt))
    if not sources:
        raise CiterenderError('no <BLOCK id="…"> … </BLOCK> element found', path=path, line=1)
    return Registry(sources, path=path)
