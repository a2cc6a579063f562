"""Presenting sources to the model, in exactly the two formats the guide shows: tool output (a
``Citation Marker:`` line holding the real marker, ``Title:``/``URL:``/``Updated:`` where known, a
blank line, then ``[L1] …`` lines or a ``[BlockN]`` body) and injected context
(``<BLOCK id="…">…</BLOCK>``). Source text is neutralised (:mod:`.neutralise`), so
:func:`citerender.sources.load_sources` reads the output back into an equal registry."""

from __future__ import annotations

import html
import re
from typing import Literal

from ..errors import CiterenderError
from ..syntax.format import DEFAULT_FORMAT, CitationFormat
from .model import Registry, Source
from .neutralise import escape_reserved, escape_text

__all__ = ["present", "present_blocks", "present_tool"]

#: the metadata shown, and its tool-output header
_HEADERS = {"title": "Title", "url": "URL", "updated": "Updated"}


def _metadata(s: Source) -> dict[str, str]:
    """The source's title, URL and date where known, each on one line; its lines checked first."""
    for n, line in enumerate(s.lines or (), 1):
        if "\n" in line or "\r" in line:
            raise CiterenderError(
                f"source {s.id!r}: line {n} contains a line break", hint="split it into several lines"
            )
    shown = {}
    for key in _HEADERS:
        value = getattr(s, key)
        if value:
            shown[key] = escape_reserved(re.sub(r"\s+", " ", value).strip())
    return shown


def _numbered(lines: tuple[str, ...]) -> list[str]:
    return [f"[L{n}] {escape_text(line)}" for n, line in enumerate(lines, 1)]


def present_tool(registry: Registry, *, fmt: CitationFormat = DEFAULT_FORMAT, family: str | None = None) -> str:
    """The guide's tool-output format, one section per source."""
    out: list[str] = []
    block_no = 0
    for s in registry.values():
        section = [f"Citation Marker: {fmt.marker(s.id, family=family)}"]
        section += [f"{_HEADERS[key]}: {value}" for key, value in _metadata(s).items()]
        section.append("")
        if s.lines is not None:
            section.extend(_numbered(s.lines))
        elif s.text is not None:
            block_no += 1
            section += [f"[Block{block_no}]", escape_text(s.text)]
        out.append("\n".join(section))
    return "\n\n".join(out) + "\n"


def present_blocks(registry: Registry) -> str:
    """Injected context: ``<BLOCK id="…">`` elements (metadata as attributes, lines numbered)."""
    out = []
    for s in registry.values():
        attrs = [f'id="{html.escape(s.id, quote=True)}"']
        attrs += [f'{key}="{html.escape(value, quote=True)}"' for key, value in _metadata(s).items()]
        body = "\n".join(_numbered(s.lines)) if s.lines is not None else escape_text(s.text or "")
        out.append(f"<BLOCK {' '.join(attrs)}>\n{body}\n</BLOCK>")
    return "\n\n".join(out) + "\n"


def present(
    registry: Registry, form: Literal["tool", "blocks"] = "tool", *, fmt: CitationFormat = DEFAULT_FORMAT
) -> str:
    """Model-facing text for ``registry`` in the chosen form."""
    if form == "tool":
        return present_tool(registry, fmt=fmt)
    if form == "blocks":
        return present_blocks(registry)
    raise CiterenderError(f"format must be 'tool' or 'blocks', not {form!r}")
