"""Citable units: documents cut into sources with stable ids, at the granularity the user picks.

* ``document`` — one source per document, cited as a whole;
* ``block`` — paragraph-aware chunks of about ``block_chars`` characters that never split a
  sentence when they can avoid it (the guide's recommended default);
* ``line`` — one source per document with numbered lines (long lines wrapped at ``width``
  without breaking words), cited with ``L8-L13`` locators.

Ids are stable: the same documents in the same order give the same ids on every run and machine.
"""

from __future__ import annotations

import hashlib
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import CiterenderError
from ..syntax.headings import first_heading
from .files import read_text_file
from .model import Registry, Source

__all__ = ["UNITS", "Document", "load_document", "make_units"]

Unit = Literal["document", "block", "line"]
IdStyle = Literal["turn", "block", "content"]
UNITS: tuple[str, ...] = ("document", "block", "line")
ID_STYLES: tuple[str, ...] = ("turn", "block", "content")

_SENTENCE = re.compile(r"(?<=[.!?。！？])[\"')\]]*\s+(?=\S)")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Document:
    """A document to cut into units, with metadata that carries through to its sources."""

    text: str
    title: str | None = None
    url: str | None = None
    updated: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- reading files

_DROP_TAGS = (
    "script",
    "style",
    "nav",
    "header",
    "footer",
    "aside",
    "noscript",
    "template",
    "form",
    "svg",
    "iframe",
    "button",
    "select",
)
_KEEP_TAGS = (
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "li",
    "pre",
    "blockquote",
    "td",
    "th",
    "dt",
    "dd",
    "figcaption",
    "caption",
)


def html_to_lines(html: str) -> tuple[str | None, list[str]]:
    """Readable lines of an HTML page (headings, paragraphs, list items…) and its title.

    Scripts, styles and navigation are dropped; nested kept elements are not repeated.
    """
    try:
        from bs4 import BeautifulSoup, Tag  # lazy: only HTML input pays for it
    except ModuleNotFoundError:
        raise CiterenderError(
            "reading an HTML page needs the html extra (citerender[html]): BeautifulSoup is not installed",
            hint="install it from the citerender clone: pip install -e '.[html]' (or give the page as text or Markdown)",
        ) from None

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    for tag in soup(_DROP_TAGS):
        tag.decompose()
    lines: list[str] = []
    # one walk in document order; a kept element's text is its line and its children are not
    # visited (no repeats), so the cost stays linear however deep the nesting
    stack: list[Any] = [soup]
    while stack:
        node = stack.pop()
        if getattr(node, "name", None) in _KEEP_TAGS:
            _add_line(node, lines)
            continue
        children = getattr(node, "contents", None)
        if children:
            stack.extend(c for c in reversed(children) if isinstance(c, Tag))
    if not title:
        h1 = soup.find("h1")
        title = h1.get_text(" ", strip=True) if h1 else None
    return title, lines


def _add_line(el: Any, lines: list[str]) -> None:
    if el.name == "pre":
        lines.extend(x.rstrip() for x in el.get_text().splitlines() if x.strip())
        return
    text = _SPACES.sub(" ", el.get_text(" ", strip=True)).strip()
    if text:
        lines.append(text)


def load_document(path: str | Path, **metadata: Any) -> Document:
    """Read a ``.md``, ``.txt`` or ``.html`` file as a :class:`Document` (title from its heading)."""
    p = Path(path)
    text = read_text_file(p, what="document")
    if not text.strip():
        raise CiterenderError("document is empty", path=str(p), hint="pass a document with text")
    suffix = p.suffix.lower()
    if suffix in (".html", ".htm"):
        title, lines = html_to_lines(text)
        text = "\n\n".join(lines)
    elif suffix in (".md", ".markdown", ".txt", ""):
        title = first_heading(text)
        if title is None and suffix == ".txt":  # a short first line followed by a blank line
            m = re.match(r"\s*([^\n]{1,80})\n[ \t]*\n", text)
            title = m.group(1).strip() if m and not m.group(1).rstrip().endswith(".") else None
    else:
        raise CiterenderError(f"unsupported document type {suffix!r}", path=str(p), hint="use .md, .txt or .html files")
    meta = dict(metadata.pop("meta", {}) or {})
    meta.setdefault("file", p.name)
    return Document(text=text, title=metadata.pop("title", None) or title or p.stem, meta=meta, **metadata)


# --------------------------------------------------------------------------- cutting


def _clean(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")).strip("\n")


def _paragraphs(text: str) -> list[str]:
    return [p.strip("\n") for p in re.split(r"\n[ \t]*\n", _clean(text)) if p.strip()]


def _split_long(paragraph: str, limit: int) -> list[str]:
    """Split one paragraph into pieces of at most ``limit`` characters at sentence ends
    (at word boundaries only when a single sentence is longer than ``limit``)."""
    sentences = [s for s in _SENTENCE.split(paragraph) if s]
    pieces: list[str] = []
    cur = ""
    for s in sentences:
        if len(s) > limit:
            if cur:
                pieces.append(cur)
                cur = ""
            pieces.extend(textwrap.wrap(s, limit, break_long_words=True, break_on_hyphens=False))
            continue
        cand = f"{cur} {s}" if cur else s
        if len(cand) > limit and cur:
            pieces.append(cur)
            cur = s
        else:
            cur = cand
    if cur:
        pieces.append(cur)
    return pieces


def blocks_of(text: str, target: int) -> list[str]:
    """Paragraph-aware chunks of about ``target`` characters (pieces of one long paragraph that
    land in the same chunk are joined by a space, paragraphs by a blank line)."""
    chunks: list[str] = []
    cur = ""
    cur_para = -1
    for k, para in enumerate(_paragraphs(text)):
        parts = [para] if len(para) <= target else _split_long(para, target)
        for part in parts:
            sep = " " if k == cur_para else "\n\n"
            if cur and len(cur) + len(sep) + len(part) > target:
                chunks.append(cur)
                cur = ""
            cur = f"{cur}{sep}{part}" if cur else part
            cur_para = k
    if cur:
        chunks.append(cur)
    return chunks


def lines_of(text: str, width: int) -> list[str]:
    """Numbered-line view of a text: blank lines dropped, long lines wrapped between words."""
    out: list[str] = []
    for line in _clean(text).split("\n"):
        line = line.strip()
        if not line:
            continue
        if len(line) <= width:
            out.append(line)
        else:
            out.extend(textwrap.wrap(line, width, break_long_words=True, break_on_hyphens=False))
    return out


def _content_id(text: str, used: set[str]) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    n = 10
    sid = f"c{digest[:n]}"
    while sid in used:  # identical texts: extend, then count
        n += 2
        sid = f"c{digest[:n]}" if n <= 64 else f"c{digest[:10]}-{len(used)}"
    return sid


def make_units(
    documents: Iterable[Document | str],
    *,
    unit: Unit = "block",
    ids: IdStyle = "turn",
    turn: int = 0,
    block_chars: int = 800,
    width: int = 100,
    start: int = 0,
) -> Registry:
    """Cut documents into a registry of citable units.

    :param unit: ``document``, ``block`` or ``line`` (see the module docstring).
    :param ids: ``turn`` (``turn{T}file{N}``), ``block`` (``block{N}``, 1-based as in the guide's
        injected example) or ``content`` (derived from the text: survives reordering).
    :param turn: the tool turn for ``turn`` ids.
    :param block_chars: target size of a block unit.
    :param width: wrap width for line units.
    """
    if unit not in UNITS:
        raise CiterenderError(f"unit must be one of {', '.join(UNITS)}, not {unit!r}")
    if ids not in ID_STYLES:
        raise CiterenderError(f"ids must be one of {', '.join(ID_STYLES)}, not {ids!r}")
    if block_chars < 40 or width < 20:
        raise CiterenderError("block_chars must be at least 40 and width at least 20")
    sources: list[Source] = []
    used: set[str] = set()
    n = start
    for doc in documents:
        if isinstance(doc, str):
            doc = Document(doc)
        title = _SPACES.sub(" ", doc.title).strip() if doc.title else None
        if unit == "block":
            bodies: Sequence[tuple[str | None, tuple[str, ...] | None]] = [
                (b, None) for b in blocks_of(doc.text, block_chars)
            ]
        elif unit == "line":
            bodies = [(None, tuple(lines_of(doc.text, width)))]
        else:
            bodies = [(_clean(doc.text), None)]
        for k, (text, lines) in enumerate(bodies):
            if ids == "content":
                sid = _content_id(text if text is not None else "\n".join(lines or ()), used)
            elif ids == "block":
                sid = f"block{n + 1}"
            else:
                sid = f"turn{turn}file{n}"
            n += 1
            used.add(sid)
            meta = dict(doc.meta)
            if len(bodies) > 1:
                meta["part"] = k + 1
            sources.append(
                Source(id=sid, title=title, url=doc.url, updated=doc.updated, lines=lines, text=text, meta=meta)
            )
    return Registry(sources)
