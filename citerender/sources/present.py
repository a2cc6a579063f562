"""Presenting sources to the model, in exactly the two formats the guide shows.

* tool output: a ``Citation Marker:`` line holding the real marker, ``Title:``/``URL:``/
  ``Updated:`` where known, a blank line, then ``[L1] …`` lines or a ``[BlockN]`` body;
* injected context: ``<BLOCK id="…">…</BLOCK>``.

Source text that could be mistaken for this structure is neutralised with a reversible
backslash escape, so the model sees unambiguous units and :func:`citerender.sources.load_sources`
reads the output back into an equal registry:

* a line starting with ``[L<n>]``, ``[Block<n>]``, ``Citation Marker:`` or a header key gets a
  leading ``\\`` (one more if it already starts with backslashes);
* ``<BLOCK`` / ``</BLOCK`` inside text becomes ``<\\BLOCK`` / ``<\\/BLOCK`` likewise;
* the reserved characters U+E200–U+E206 become ``\\uE20x`` escapes (and existing escapes gain a
  backslash), so no marker can hide inside a source.
"""

from __future__ import annotations

import html
import re
from typing import Literal

from ..errors import CiterenderError
from ..syntax.format import DEFAULT_FORMAT, CitationFormat
from .model import Registry, Source
from .neutralise import escape_reserved, escape_text

__all__ = ["present", "present_blocks", "present_tool"]


def _one_line(value: str) -> str:
    value = re.sub(r"\s+", " ", value).strip()
    return escape_reserved(value)


def _check_lines(s: Source) -> None:
    for n, line in enumerate(s.lines or (), 1):
        if "\n" in line or "\r" in line:
            raise CiterenderError(
                f"source {s.id!r}: line {n} contains a line break", hint="split it into several lines"
            )


def present_tool(registry: Registry, *, fmt: CitationFormat = DEFAULT_FORMAT, family: str | None = None) -> str:
    """The guide's tool-output format, one section per source."""
    out: list[str] = []
    block_no = 0
    for s in registry.values():
        _check_lines(s)
        section = [f"Citation Marker: {fmt.marker(s.id, family=family)}"]
        if s.title:
            section.append(f"Title: {_one_line(s.title)}")
        if s.url:
            section.append(f"URL: {_one_line(s.url)}")
        if s.updated:
            section.append(f"Updated: {_one_line(s.updated)}")
        section.append("")
        if s.lines is not None:
            section.extend(f"[L{n}] {escape_text(line)}" for n, line in enumerate(s.lines, 1))
        elif s.text is not None:
            block_no += 1
            section.append(f"[Block{block_no}]")
            section.append(escape_text(s.text))
        out.append("\n".join(section))
    return "\n\n".join(out) + "\n"


def present_blocks(registry: Registry) -> str:
    """Injected context: ``<BLOCK id="…">`` elements (metadata as attributes, lines numbered)."""
    out = []
    for s in registry.values():
        _check_lines(s)
        attrs = [f'id="{html.escape(s.id, quote=True)}"']
        for key in ("title", "url", "updated"):
            value = getattr(s, key)
            if value:
                attrs.append(f'{key}="{html.escape(_one_line(value), quote=True)}"')
        if s.lines is not None:
            body = "\n".join(f"[L{n}] {escape_text(line)}" for n, line in enumerate(s.lines, 1))
        else:
            body = escape_text(s.text or "")
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
