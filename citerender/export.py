"""Exports: the answer as Markdown footnotes, plain text, JSON for front ends, CSL-JSON, PDF.

All of them start from the same parse as ``render`` (same numbering, grouping, unknown-id
policy and diagnostics); Markdown and JSON rewrite the answer's own text, so everything that is
not a marker stays byte for byte as the model wrote it.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.token import Token

from .diagnostics import Diagnostic, sort_key
from .errors import CiterenderError
from .format import CitationFormat
from .markers import apply_marks, contains_reserved, scan
from .residue import has_residue, remove_residue
from .sources import Registry, Source
from .state import CitationState, Reference
from .urls import safe_url

__all__ = ["FORMATS", "Parsed", "parse_answer", "to_csl_json", "to_json", "to_markdown", "to_pdf", "to_text"]

FORMATS = ("html", "markdown", "text", "json", "csl-json", "pdf")
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "answer.schema.json"
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")
_RESERVED_CHARS = re.compile("[\ue200-\ue206]")


@dataclass
class Parsed:
    """An answer parsed once, for every export."""

    input: str
    tokens: list[Token]
    groups: list[Token]
    state: CitationState

    @property
    def references(self) -> list[Reference]:
        return self.state.references

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return sorted(self.state.diagnostics, key=sort_key)


def _walk(tokens: Sequence[Token]) -> Iterator[Token]:
    for tok in tokens:
        yield tok
        if tok.children:
            yield from _walk(tok.children)


def parse_answer(
    text: str,
    registry: Registry | None = None,
    *,
    unknown: str = "drop",
    families: Sequence[str] = ("cite", "filecite"),
    list_all: bool = False,
    fmt: CitationFormat | None = None,
) -> Parsed:
    """Parse ``text`` and record where every mark sits in it."""
    from .rendering import MAX_ANSWER_CHARS, make_markdown

    if len(text) > MAX_ANSWER_CHARS:
        raise CiterenderError(f"answer has {len(text):,} characters, over the limit of {MAX_ANSWER_CHARS:,}")
    md = make_markdown("footnotes", None, unknown, tuple(families), False, list_all, False, fmt)
    st = CitationState(registry=registry, spans=[])
    tokens = md.parse(text, {"citerender": st})
    groups = [t for t in _walk(tokens) if t.type == "citation"]
    return Parsed(text, tokens, groups, st)


def _final(p: Parsed, out: str) -> str:
    """Remove marker characters or escapes that came from source metadata (titles, URLs, lines)."""
    if not has_residue(out):
        return out
    p.state.report("CR109", "marker characters in source metadata removed from the output", None)
    return remove_residue(out)


def _numbers(group: Token) -> list[int]:
    return sorted({u.reference.number for u in group.meta["uses"]})


def rewrite(p: Parsed, replace: Callable[[Token], str], *, tight: bool = False,
            positions: dict[int, int] | None = None) -> str:
    """The answer's text with every mark replaced: groups by ``replace(group)``, other marks by
    what they mean. ``positions`` maps ``id(group)`` to the group's offset in the result."""
    edits: list[tuple[int, int, str, Token | None]] = [(a, b, t, None) for a, b, t in p.state.spans or []]
    for g in p.groups:
        for i, (a, b) in enumerate(g.meta["spans"]):
            edits.append((a, b, replace(g) if i == 0 else "", g if i == 0 else None))
    edits.sort(key=lambda e: (e[0], e[1]))
    src = p.state.original
    out: list[str] = []
    size = 0
    pos = 0
    for a, b, text, group in edits:
        if a < pos:
            continue
        chunk = src[pos:a]
        if tight and group is not None:
            chunk = chunk.rstrip(" \t")
        out.append(chunk)
        size += len(chunk)
        if group is not None and positions is not None:
            positions[id(group)] = size
        out.append(text)
        size += len(text)
        pos = b
    out.append(src[pos:])
    result = "".join(out)
    if contains_reserved(result):  # marks no rule placed (link attributes, image alt): remove them
        result = _RESERVED_CHARS.sub("", apply_marks(result, scan(result)))
    return result


def _source_label(s: Source) -> str:
    return s.title or s.domain or s.url or s.id


def _lines_label(ref: Reference) -> str | None:
    labels = list(dict.fromkeys(p.lines.label() for p in ref.places if p.lines is not None))
    return "; ".join(labels) if labels else None


def _md_escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", re.sub(r"\s+", " ", text).strip())


def _md_url(url: str | None) -> str | None:
    safe = safe_url(url)
    if safe is None:
        return None
    if re.match(r"https?://", safe, re.I):
        return "<" + quote(safe, safe=":/?#[]@!$&'()*+,;=%~") + ">"
    return _md_escape(safe)


# --------------------------------------------------------------------------- Markdown

_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_LINK_OPENER = re.compile(r"(?<!\\)(?:\[(?!\^\d+\])|<)")


@lru_cache(maxsize=1)
def _permissive() -> MarkdownIt:
    """A parser that accepts every link, as pandoc and most Markdown readers do."""
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    return md


def _unsafe_link_lines(markdown: str) -> list[tuple[int, int]]:
    """Line ranges of the blocks holding a link or image whose URL is not safe."""
    ranges: list[tuple[int, int]] = []
    block_map: list[int] | None = None
    for tok in _permissive().parse(markdown):
        if tok.map is not None:
            block_map = tok.map
        if tok.type != "inline" or not tok.children:
            continue
        for child in tok.children:
            url = child.attrs.get("href") if child.type == "link_open" else \
                child.attrs.get("src") if child.type == "image" else None
            if isinstance(url, str) and safe_url(url) is None:
                where = tok.map or block_map
                if where is not None:
                    ranges.append((where[0], where[1]))
                break
    return ranges


def guard_links(markdown: str) -> str:
    """Keep every unsafe link in ``markdown`` as text.

    A Markdown reader such as pandoc links whatever destination it finds, with no scheme policy,
    so the export must not carry ``[x](javascript:…)`` — whether the model wrote it or residue
    removal made it. In each block holding such a link, link openers (``[`` and ``<``, outside code
    spans and our ``[^n]`` notes) are escaped; the text reads the same.
    """
    for _ in range(3):
        ranges = _unsafe_link_lines(markdown)
        if not ranges:
            return markdown
        lines = markdown.split("\n")
        for first, last in ranges:
            for i in range(first, min(last, len(lines))):
                lines[i] = _escape_openers(lines[i])
        markdown = "\n".join(lines)
    if _unsafe_link_lines(markdown):  # pragma: no cover - escaping every opener leaves no link
        raise CiterenderError("could not neutralise an unsafe link in the Markdown export")
    return markdown


def _escape_openers(line: str) -> str:
    out: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(line):
        out.append(_LINK_OPENER.sub(lambda o: "\\" + o.group(0), line[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_LINK_OPENER.sub(lambda o: "\\" + o.group(0), line[pos:]))
    return "".join(out)


def to_markdown(p: Parsed) -> str:
    """Standard Markdown footnotes: ``text.[^1]`` and ``[^1]: Title, <URL>, updated …, lines 8–13``."""
    body = rewrite(p, lambda g: "".join(f"[^{n}]" for n in _numbers(g)), tight=True).rstrip("\n")
    if not p.references:
        return guard_links(_final(p, body + "\n"))
    defs = []
    for ref in p.references:
        parts = [_md_escape(_source_label(ref.source))]
        url = _md_url(ref.source.url)
        if url:
            parts.append(url)
        if ref.source.updated:
            parts.append(f"updated {_md_escape(ref.source.updated)}")
        lines = _lines_label(ref)
        if lines:
            parts.append(lines)
        if not ref.known:
            parts.append("unverified source")
        defs.append(f"[^{ref.number}]: " + ", ".join(parts))
    return guard_links(_final(p, body + "\n\n" + "\n".join(defs) + "\n"))


# --------------------------------------------------------------------------- plain text


class _TextWriter:
    """Markdown tokens to plain text: what a person pastes into an e-mail."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.prefixes: list[str] = []
        self.list_stack: list[list[int | None]] = []  # [next number or None for bullets]
        self.tight_next = False

    def inline(self, tokens: Sequence[Token]) -> str:
        out: list[str] = []
        link_href: list[str | None] = []
        for t in tokens:
            if t.type in ("text", "code_inline"):
                out.append(t.content)
            elif t.type in ("softbreak", "hardbreak"):
                out.append("\n")
            elif t.type == "citation":
                out.append("[" + ", ".join(str(n) for n in _numbers(t)) + "]")
            elif t.type == "image":
                out.append(self.inline(t.children or []))
            elif t.type == "link_open":
                href = t.attrs.get("href")
                link_href.append(str(href) if href is not None else None)
                out.append("")
            elif t.type == "link_close":
                href = link_href.pop() if link_href else None
                safe = safe_url(href)
                if safe and safe.startswith(("http://", "https://")):
                    out.append(f" <{safe}>")
        return "".join(out)

    def add(self, text: str, *, tight: bool = False) -> None:
        prefix = "".join(self.prefixes)
        lines = text.split("\n")
        block = "\n".join(prefix + line if line else prefix.rstrip() for line in lines)
        if tight and self.blocks:  # items of a tight list stay on consecutive lines
            self.blocks[-1] += "\n" + block
        else:
            self.blocks.append(block)
        if self.prefixes and self.list_stack:  # after a list item's first block, indent the rest
            self.prefixes[-1] = " " * len(self.prefixes[-1])

    def run(self, tokens: Sequence[Token]) -> str:
        i = 0
        while i < len(tokens):
            t = tokens[i]
            if t.type == "heading_open":
                text = self.inline(tokens[i + 1].children or [])
                rule = "=" if t.tag == "h1" else "-" if t.tag == "h2" else ""
                self.add(text + (("\n" + rule * len(text)) if rule else ""))
                i += 3
                continue
            if t.type == "paragraph_open":
                self.add(self.inline(tokens[i + 1].children or []), tight=t.hidden and self.tight_next)
                self.tight_next = True
                i += 3
                continue
            if t.type in ("fence", "code_block"):
                self.add("\n".join("    " + line for line in t.content.rstrip("\n").split("\n")))
            elif t.type == "hr":
                self.add("-" * 20)
            elif t.type == "blockquote_open":
                self.prefixes.append("> ")
            elif t.type == "blockquote_close":
                self.prefixes.pop()
            elif t.type in ("bullet_list_open", "ordered_list_open"):
                start = int(t.attrs.get("start", 1) or 1) if t.type == "ordered_list_open" else None
                self.list_stack.append([start])
                self.tight_next = False  # the list's first item starts a new block
            elif t.type in ("bullet_list_close", "ordered_list_close"):
                self.list_stack.pop()
            elif t.type == "list_item_open":
                counter = self.list_stack[-1]
                if counter[0] is None:
                    marker = "- "
                else:
                    marker = f"{counter[0]}. "
                    counter[0] += 1
                self.prefixes.append(marker)
            elif t.type == "list_item_close":
                self.prefixes.pop()
            elif t.type == "table_open":
                rows = []
                j = i
                while tokens[j].type != "table_close":
                    if tokens[j].type == "tr_open":
                        cells = []
                        j += 1
                        while tokens[j].type != "tr_close":
                            if tokens[j].type == "inline":
                                cells.append(self.inline(tokens[j].children or []))
                            j += 1
                        rows.append(" | ".join(cells))
                    j += 1
                self.add("\n".join(rows))
                i = j
            elif t.type == "html_block":
                self.add(t.content.rstrip("\n"))
            i += 1
        return "\n\n".join(b for b in self.blocks if b.strip()) + "\n"


def to_text(p: Parsed) -> str:
    """Plain text with ``[1]`` numbers and a References list."""
    body = _TextWriter().run(p.tokens)
    if not p.references:
        return _final(p, body)
    refs = ["References"]
    for ref in p.references:
        s = ref.source
        bits = [_source_label(s)]
        url = safe_url(s.url)
        if url and s.title:
            bits.append(url)
        if s.updated:
            bits.append(f"Updated {s.updated}")
        lines = _lines_label(ref)
        if lines:
            bits.append(lines[0].upper() + lines[1:])
        if not ref.known:
            bits.append("Unverified source")
        refs.append(f"[{ref.number}] " + ". ".join(b.rstrip(".") for b in bits) + ".")
    return _final(p, body + "\n" + "\n".join(refs) + "\n")


# --------------------------------------------------------------------------- JSON


class _Utf16:
    """Code-point offsets to UTF-16 offsets (astral characters count twice)."""

    def __init__(self, text: str) -> None:
        self.astral = [i for i, c in enumerate(text) if ord(c) > 0xFFFF] if not text.isascii() else []

    def __call__(self, cp: int) -> int:
        return cp + bisect_right(self.astral, cp - 1)


def _input_offsets(raw: str) -> Callable[[int], int]:
    """Offsets in markdown-it's normalised text (CRLF as LF) back to the input as given."""
    if "\r\n" not in raw:
        return lambda x: x
    crlf = []
    removed = 0
    for m in re.finditer("\r\n", raw):
        crlf.append(m.start() - removed)
        removed += 1
    return lambda x: x + bisect_right(crlf, x - 1)


def _bibliography_json(refs: Sequence[Reference]) -> list[dict[str, Any]]:
    return [{
        "number": r.number,
        "id": r.source.id,
        "title": r.source.title,
        "url": safe_url(r.source.url),
        "domain": r.source.domain,
        "updated": r.source.updated,
        "verified": r.known,
        "also": [m.id for m in r.merged],
        "lines": [p.lines.label() for p in r.places if p.lines is not None],
    } for r in refs]


def to_json_data(p: Parsed) -> dict[str, Any]:
    """The parsed answer for front ends (see ``schemas/answer.schema.json``)."""
    positions: dict[int, int] = {}
    clean = rewrite(p, lambda g: "", positions=positions)
    if has_residue(clean) or _unsafe_link_lines(clean):  # front ends render this text as Markdown
        clean = guard_links(_final(p, clean))
    to_input = _input_offsets(p.input)
    u_in, u_clean = _Utf16(p.input), _Utf16(clean)
    citations = []
    for g in sorted(p.groups, key=lambda g: g.meta["spans"][0][0]):
        at = positions.get(id(g))
        if at is None:  # overlapped another mark: not placed, so not reported
            continue
        start = to_input(g.meta["spans"][0][0])
        end = to_input(g.meta["spans"][-1][1])
        sources = [{
            "id": u.source.id,
            "number": u.reference.number,
            "locator": str(u.lines) if u.lines is not None else None,
            "lines": [u.lines.low, u.lines.high] if u.lines is not None and u.lines_valid else None,
            "verified": u.reference.known,
        } for u in g.meta["uses"]]
        citations.append({
            "anchor": g.meta["anchor"],
            "sources": sources,
            "input": {"start": start, "end": end, "start_utf16": u_in(start), "end_utf16": u_in(end)},
            "clean": {"offset": at, "offset_utf16": u_clean(at)},
            "markers": [{"start": to_input(a), "end": to_input(b)} for a, b in g.meta["spans"]],
            "dialects": sorted({m.citation.dialect for m in g.meta["marks"] if m.citation is not None}),
        })
    return {
        "version": 1,
        "text": clean,
        "citations": citations,
        "bibliography": _bibliography_json(p.references),
        "diagnostics": [d.to_dict() for d in p.diagnostics],
    }


def to_json(p: Parsed) -> str:
    return _final(p, json.dumps(to_json_data(p), ensure_ascii=False, indent=2) + "\n")


# --------------------------------------------------------------------------- CSL-JSON


def _date_parts(value: str | None) -> dict[str, Any] | None:
    if not value:
        return None
    m = re.match(r"(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", value)
    if not m:
        return None
    return {"date-parts": [[int(x) for x in m.groups() if x]]}


def to_csl_json(p: Parsed) -> str:
    """The bibliography as CSL-JSON (for reference managers and ``pandoc --citeproc``)."""
    items = []
    for ref in p.references:
        s = ref.source
        item: dict[str, Any] = {"id": s.id, "type": "webpage" if s.url else "document",
                                "title": _source_label(s)}
        url = safe_url(s.url)
        if url:
            item["URL"] = url
        if s.domain:
            item["container-title"] = s.domain
        issued = _date_parts(s.updated)
        if issued:
            item["issued"] = issued
        if ref.places and any(pl.lines for pl in ref.places):
            item["note"] = _lines_label(ref)
        items.append(item)
    return _final(p, json.dumps(items, ensure_ascii=False, indent=2) + "\n")


# --------------------------------------------------------------------------- PDF


def to_pdf(html: str) -> bytes:
    """A PDF of a standalone page, through WeasyPrint (``pip install 'citerender[pdf]'``).

    Nothing is fetched: only ``data:`` resources are allowed, like the page's own CSP.
    """
    try:
        import weasyprint
    except ImportError:
        raise CiterenderError("PDF export needs WeasyPrint, which is not installed",
                              hint="pip install 'citerender[pdf]'") from None
    except OSError as e:  # WeasyPrint installed without its system libraries (Pango)
        raise CiterenderError(f"WeasyPrint cannot start: {e}",
                              hint="install Pango (Debian: apt-get install libpango-1.0-0 libpangoft2-1.0-0)") from None

    fetcher_class = getattr(weasyprint, "URLFetcher", None)
    if fetcher_class is not None:  # WeasyPrint ≥ 70: a fetcher object limited to data: URLs
        fetcher: Any = fetcher_class(allowed_protocols=("data",))
    else:
        def fetcher(url: str, *args: Any, **kwargs: Any) -> Any:
            if url.startswith("data:"):
                return weasyprint.default_url_fetcher(url, *args, **kwargs)
            raise ValueError(f"external resource not fetched: {url[:80]}")

    return bytes(weasyprint.HTML(string=html, url_fetcher=fetcher).write_pdf())
