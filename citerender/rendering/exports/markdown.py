"""Standard Markdown footnotes (``text.[^1]``, ``[^1]: Title, <URL>, …``), read back by pandoc."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from markdown_it.token import Token

from ...errors import CiterenderError
from ...plugin.bibliography import CONSULTED_HEADING
from ...plugin.bidi_guard import guarded
from ...plugin.links import url_before
from ...plugin.state import RefUse
from ...sources.pages import passage_pages, range_label
from ...sources.urls import is_live_link, safe_url
from ...syntax.marks import URL_CUT
from ...syntax.residue import remove_residue
from ...syntax.types import line_locator
from ..pipeline import permissive_reader
from .bare_links import map_outside, unlink_bare
from .nesting import bound_nesting
from .parsed import Parsed, finish, rewrite

__all__ = ["guard_markdown", "to_markdown", "to_stripped", "unsafe_lines"]

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")


def _unsafe(url: str) -> bool:
    """Must a link to ``url`` stay text: the allow-list refuses it, or a marker cut it (``URL_CUT``)?"""
    return URL_CUT in url or is_live_link(url)


def _md_escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", re.sub(r"\s+", " ", text).strip())


def _md_label(text: str) -> str:
    """A note's first words. A CommonMark reader without footnotes reads ``[^1]: WORD`` as a
    link definition with WORD as its URL: a scheme-like start gets a zero-width space before its
    colon, so the note reads the same and WORD is never a ``javascript:`` link."""
    out = _md_escape(remove_residue(text))  # judged after every change: residue goes first
    m = _SCHEME_START.match(out)
    if m is not None and m.group(1).lower() not in ("http", "https", "mailto"):
        out = out[: m.end(1)] + "\u200b" + out[m.end(1) :]
    return out


def _md_url(url: str | None) -> str | None:
    safe = safe_url(url)
    if safe is None:
        return None
    if re.match(r"https?://", safe, re.I):
        return "<" + quote(safe, safe=":/?#[]@!$&'()*+,;=%~") + ">"
    return _md_escape(safe)


# a code span as CommonMark reads it: a backtick run closed by a run of exactly the same length
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")
_LINK_OPENER = re.compile(r"(?<!\\)(?:\[(?!\^\d+\])|<)")
_SCHEME_START = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_TAG_OPENER = re.compile(r"(?<!\\)<(?=[A-Za-z/!?])")


def unsafe_lines(markdown: str, *, allow_html: bool = True) -> list[tuple[int, int, re.Pattern[str]]]:
    """Line ranges of the blocks holding a link or image whose URL is not safe (and, unless
    ``allow_html``, raw HTML), each with the openers to escape there."""
    env: dict[str, Any] = {}
    tokens = permissive_reader().parse(markdown, env)
    ranges = _unsafe_definitions(env)
    ranges.extend((i, i + 2, _LINK_OPENER) for i in _loose_definitions(markdown))
    block_map: list[int] | None = None
    for tok in tokens:
        block_map = tok.map or block_map
        if tok.type == "html_block" and not allow_html and tok.map is not None:
            ranges.append((tok.map[0], tok.map[1], _TAG_OPENER))
        if tok.type == "inline" and tok.children and block_map is not None:
            ranges.extend((block_map[0], block_map[1], opener) for opener in _unsafe_inline(tok.children, allow_html))
    return ranges


def _unsafe_definitions(env: dict[str, Any]) -> list[tuple[int, int, re.Pattern[str]]]:
    """The lines of each reference definition whose URL is not safe: a reader would link
    ``[x][r]`` with it."""
    ranges = []
    for ref in env.get("references", {}).values():
        url, where = ref.get("href"), ref.get("map")
        if isinstance(url, str) and _unsafe(url) and where is not None:
            ranges.append((where[0], where[1], _LINK_OPENER))
    return ranges


#: the attribute holding a link's or an image's URL
_URL_ATTRS = {"link_open": "href", "image": "src"}


def _unsafe_inline(children: list[Token], allow_html: bool) -> Iterator[re.Pattern[str]]:
    """The openers to escape for each unsafe piece of a block's inline content, in order: a tag
    of raw HTML (unless ``allow_html``), a link or image whose URL is not safe."""
    for child in children:
        if child.type == "html_inline" and not allow_html:
            yield _TAG_OPENER
        url = child.attrs.get(_URL_ATTRS.get(child.type, ""))
        if isinstance(url, str) and _unsafe(url):
            yield _LINK_OPENER


#: ``[label]:`` opening a line, as pandoc reads a reference definition: more loosely than CommonMark
#: (text may follow the destination on its line), so its destination is judged on its own
_DEFINITION = re.compile(r"^ {0,3}\[(?:[^\]\\]|\\.)+\]:[ \t]*(\S*)", re.M)


def _loose_definitions(markdown: str) -> Iterator[int]:
    """Lines opening a definition whose destination (here or on the next line) is not allowed."""
    line, counted = 0, 0
    for m in _DEFINITION.finditer(markdown):
        dest = m.group(1)
        if not dest:  # the destination on the next line
            rest = markdown[m.end() : m.end() + 2048].lstrip("\r\n")
            dest = rest.split(None, 1)[0] if rest.strip() else ""
        if dest and _unsafe(dest.strip("<>")):
            line += markdown.count("\n", counted, m.start())
            counted = m.start()
            yield line


def guard_markdown(markdown: str, *, allow_html: bool = True, keep_cuts: bool = False) -> str:
    """Keep every unsafe link in ``markdown`` as text, and raw HTML too unless ``allow_html``: a
    reader such as pandoc links any destination, so in each block holding one the openers (``[``,
    ``<``; outside code spans and our ``[^n]`` notes) are escaped, and a refused bare URL's colon
    (:func:`.bare_links.unlink_bare`). The marks of cut URLs go unless ``keep_cuts``."""
    markdown = bound_nesting(markdown)  # pandoc is exponential in nested brackets
    for attempt in range(4):
        ranges = unsafe_lines(markdown, allow_html=allow_html)
        if not ranges:
            break
        lines = markdown.split("\n")
        for first, last, opener in ranges:
            for i in range(first, min(last, len(lines))):
                # last attempt: code spans are not trusted either (an unbalanced run of backticks)
                lines[i] = _escape_openers(lines[i], opener, skip_code=attempt < 3)
        markdown = "\n".join(lines)
    else:
        if unsafe_lines(markdown, allow_html=allow_html):  # pragma: no cover - nothing is left to open
            raise CiterenderError("could not neutralise an unsafe link in the Markdown export")
    guarded = unlink_bare(markdown, permissive_reader().parse)  # an escaped link's URL is left bare
    return guarded if keep_cuts else guarded.replace(URL_CUT, "")


def _escape_openers(line: str, opener: re.Pattern[str], *, skip_code: bool) -> str:
    def escaped(text: str) -> str:
        return opener.sub(r"\\\g<0>", text)

    return map_outside(_CODE_SPAN, line, escaped) if skip_code else escaped(line)


#: the most lines, and characters of a snippet, a note quotes (``…`` past them)
QUOTED_LINES = 8  # as the printed bibliography quotes them
QUOTED_CHARS = 320


def _note_key(use: RefUse) -> tuple[int, int, int]:
    """A note per source and locator: (number, first line, last line), 0s without lines."""
    rng = use.lines if use.lines_valid else None
    return (use.reference.number, rng.low, rng.high) if rng is not None else (use.reference.number, 0, 0)


def _note_label(key: tuple[int, int, int]) -> str:
    n, low, high = key
    return f"{n}-{line_locator(low, high)}" if low else f"{n}"


def _note_where(use: RefUse, quotes: bool) -> str | None:
    """What a note says of its place: ``lines 2–3`` (``quotes``: ``lines 2–3: “…”``, or the
    source's snippet when it has no lines), nothing for a whole source without text."""
    rng = use.lines if use.lines_valid else None
    if rng is not None:
        cited = use.source.cited_lines(rng)
        if quotes and cited:
            text = " ".join(t.strip() for _, t in cited[:QUOTED_LINES]) + (" …" if len(cited) > QUOTED_LINES else "")
            return f"{range_label(use.source, rng)}: \u201c{_md_escape(remove_residue(text))}\u201d"
        return range_label(use.source, rng)
    snippet = use.source.text
    if quotes and snippet and snippet.strip() and use.source.lines is None:
        return f"\u201c{_md_escape(remove_residue(' '.join(snippet.split())[:QUOTED_CHARS]))}\u201d"
    return None


def _note(use: RefUse, quotes: bool) -> str:
    """A note's text: the source's title, URL, pages (unless its passage names its own), date,
    the place cited, and whether the source is unverified."""
    s, rng = use.reference.source, use.lines if use.lines_valid else None
    parts = [
        _md_label(s.label),
        _md_url(s.url),
        None if rng is not None and passage_pages(s, rng.low, rng.high) else s.pages,
        s.updated and f"updated {_md_escape(s.updated)}",
        _note_where(use, quotes),
        None if use.reference.known else "unverified source",
    ]
    return ", ".join(x for x in parts if x)


def to_stripped(p: Parsed) -> str:
    """The answer's Markdown with every mark removed (tidily; an entity keeps its name) and code
    kept as written but for invisible characters; a link that removal made unsafe stays text."""
    return guard_markdown(finish(p, rewrite(p, lambda g: "")), allow_html=p.allow_html)


def _after_bare_url(src: str, at: int) -> bool:
    """Does a bare URL end right before ``at`` (:func:`~citerender.plugin.links.url_before`)? A
    link's or an autolink's end (``)``, ``>``, ``]``) closes it already."""
    return at > 0 and src[at - 1] not in ">)]" and url_before(src, at)


def to_markdown(p: Parsed, *, quotes: bool = False) -> str:
    """Standard Markdown footnotes, one per source and locator: ``text.[^1-L2-L3]`` and
    ``[^1-L2-L3]: Title, <URL>, updated …, lines 2–3`` — each claim's note names the lines it
    cites (``quotes``: and quotes them, or the source's snippet, as Word footnotes carry them);
    adjacent notes are kept apart by a comma (``[^1],[^2]``, never ``¹²``)."""
    series = "s" if "[^" in p.input else ""  # the answer has footnotes of its own: [^s1] never meets [^1]
    notes: dict[tuple[int, int, int], RefUse] = {}

    def marks(group: Token) -> str:
        uses = p.state.uses(group)
        keys = sorted(dict.fromkeys(_note_key(u) for u in uses))
        for u in uses:
            notes.setdefault(_note_key(u), u)
        before, after = guarded(p.state, group)  # no bidi control the model left open moves it
        if _after_bare_url(p.state.original, group.meta["spans"][0][0]):
            before = " " + before  # a reader that links bare URLs (GFM) would take [^1] into the address
        return before + ",".join(f"[^{series}{_note_label(k)}]" for k in keys) + after

    body = rewrite(p, marks, tight=True).rstrip("\n")
    listed = _listed(p)
    if not notes:
        return guard_markdown(finish(p, body + "\n", listed and "\n" + listed), allow_html=p.allow_html)
    defs = [f"[^{series}{_note_label(key)}]: {_note(notes[key], quotes)}" for key in sorted(notes)]
    notes_md = "\n".join(defs) + "\n" + (listed and "\n" + listed)
    return guard_markdown(finish(p, body + "\n\n", notes_md), allow_html=p.allow_html)


#: what the Markdown export says before the sources no note stands for
UNPLACED_HEADING = "Also in the sources, with no place in the text:"


def _listed(p: Parsed) -> str:
    """The sources no note stands for, as lists after the notes: those in the bibliography without
    a citing place (cited by a provider without a span, or listed with ``list_all``), then the
    consulted ones (``consulted``); empty when there are none."""
    out = []
    for heading, refs in (
        (UNPLACED_HEADING, [r for r in p.references if not r.places]),
        (CONSULTED_HEADING + ":", p.state.consulted),
    ):
        if refs:
            items = [", ".join(x for x in (_md_label(r.source.label), _md_url(r.source.url)) if x) for r in refs]
            out.append(heading + "\n\n" + "".join(f"- {item}\n" for item in items))
    return "\n".join(out)
