"""The pass over comrak's HTML for ``engine="fast"``: each placeholder becomes what its mark
stands for, read in context (code, emphasis, link text, attribute, block and line), with the
plugin's own checks, numbering and tidying (see :mod:`citerender.rendering.fast`)."""

from __future__ import annotations

import html
import re
from typing import Any

from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from ..plugin.code import report_removed
from ..plugin.core import NO_CITES
from ..plugin.numbering import resolve
from ..plugin.options import PluginOptions
from ..plugin.placement import (
    check_before_punctuation,
    check_citation_only_lines,
    check_in_emphasis,
    check_in_link,
    verbatim_ids,
)
from ..plugin.state import CitationState
from ..syntax.format import RESERVED_RE
from ..syntax.marks import tidy_seam
from ..syntax.types import Mark, MarkKind
from .quiet import Quiet

__all__ = ["Splice", "placeholder", "report_notes"]

_DIGITS = str.maketrans("0123456789", "".join(chr(0xE0E0 + d) for d in range(10)))
_UNDIGITS = {chr(0xE0E0 + d): str(d) for d in range(10)}
# one pass over comrak's HTML: a tag, or a placeholder
_ITEM = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>|\ue0f0([\ue0e0-\ue0e9]+)\ue0f1")
_PLACEHOLDER = re.compile("\ue0f0([\ue0e0-\ue0e9]+)\ue0f1")
# a placeholder inside a URL, percent-encoded as UTF-8 (U+E0F0 … U+E0F1)
_PCT_PLACEHOLDER = re.compile(r"%EE%83%B0(?:%EE%83%A[0-9])+%EE%83%B1", re.I)
_PCT_DIGIT = re.compile(r"%EE%83%A([0-9])", re.I)
_URL_WITH_PLACEHOLDER = re.compile(r'\s(?:href|src)="[^"]*%EE%83%B0[^"]*"', re.I)
_BLOCKS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "li"})
_RESTING = _BLOCKS | {"pre"}  # closing tags after which a stretch may be copied
_IMG_ATTR = re.compile(r'\s(src|alt|title)="([^"]*)"')


def placeholder(index: int) -> str:
    """The inert stand-in for mark ``index``: private-use characters, read by Markdown like letters."""
    return "\ue0f0" + str(index).translate(_DIGITS) + "\ue0f1"


def _index(digits: str) -> int:
    return int("".join(_UNDIGITS[c] for c in digits))


class _Block:
    """What the placement checks need of one paragraph, heading, cell or list item."""

    __slots__ = ("cites", "has_text", "line_cites", "line_has_text", "only_lines", "texts")

    def __init__(self) -> None:
        self.texts: list[tuple[str, int]] = []  # (text, cursor): searched once for ids outside markers
        self.cites: list[Token] = []
        self.has_text = False
        self.line_has_text = False
        self.line_cites: list[Token] = []
        self.only_lines: list[Token] = []

    def end_line(self) -> None:
        if self.line_cites and not self.line_has_text:
            self.only_lines.append(self.line_cites[0])
        self.line_has_text = False
        self.line_cites = []


class Splice:
    """The pass over comrak's HTML (see the module docstring)."""

    def __init__(
        self, st: CitationState, marks: list[Mark], original: str, plugin: PluginOptions, skipped: set[int]
    ) -> None:
        self.st, self.marks, self.original, self.plugin = st, marks, original, plugin
        self.skipped = skipped  # marks removed before parsing (in link destinations)
        self.out: list[Any] = []  # strings and citation tokens
        self.text_at: list[bool] = []  # out[k] is text (not a tag or a citation)
        self.code = 0
        self.code_removed: list[tuple[int, int]] = []
        self.code_kind = "CR302"
        self.emphasis = 0
        self.links = 0  # open <a> elements (a URL comrak refuses is rendered by markdown-it)
        self.block: _Block | None = None
        self.blocks: list[tuple[Token, bool, bool] | str] = []  # a str: a stretch copied whole
        self.seam = False
        self.last_cite: Token | None = None  # the group a following citation may join
        self.gap: int | None = None  # index in out of whitespace between two citations
        self.highlights: list[int] = []
        self.cursor = 0  # in the original text: where the next verbatim id is looked for
        self.seen: set[int] = set()  # marks whose placeholder reached the HTML
        self.ids_possible = True  # False: no source id is written outside a marker anywhere

    # ---------------------------------------------------------------- output

    def text(self, chunk: str) -> None:
        if not chunk:
            return
        if self.seam:
            self.seam = False
            if self.text_at and self.text_at[-1]:
                left, chunk = tidy_seam(self.out[-1], chunk)
                self.out[-1] = left
            elif not self.out or self._at_block_start():
                chunk = tidy_seam("", chunk)[1]
            if not chunk:
                return
        if self.code:
            self._code_text(chunk)
            return
        blk = self.block
        if "\n" in chunk and blk is not None:
            for k, line in enumerate(chunk.split("\n")):
                if k:
                    blk.end_line()
                self._visible(line, blk)
        elif blk is not None:
            self._visible(chunk, blk)
        if self.last_cite is not None and chunk.strip():
            check_before_punctuation(self.st, self.last_cite, html.unescape(chunk))
            self.last_cite = None
        elif self.last_cite is not None and "\n" not in chunk:
            self.gap = len(self.out)
        else:
            self.last_cite = None
        self.out.append(chunk)
        self.text_at.append(True)
        if self.ids_possible and blk is not None:
            blk.texts.append((chunk, self.cursor))
        elif self.ids_possible:
            self._verbatim(chunk, self.cursor)

    def _code_text(self, chunk: str) -> None:
        """Code as written (never tidied); visible code is text of its block, as a code span is."""
        if self.block is not None and chunk.strip():
            self.block.has_text = self.block.line_has_text = True
        self.out.append(chunk)
        self.text_at.append(True)

    def _at_block_start(self) -> bool:
        last = self.out[-1] if self.out else ""
        return isinstance(last, str) and last.startswith("<") and not last.startswith("</")

    def _visible(self, line: str, blk: _Block) -> None:
        if line.strip():
            blk.has_text = True
            blk.line_has_text = True

    def _verbatim(self, chunk: str, cursor: int) -> None:
        for m in verbatim_ids(html.unescape(chunk), self.st.registry):
            word = m.group(0)
            off = self.original.find(word, cursor)
            self.st.report("CR307", f"source id {word!r} written outside a marker", off if off != -1 else None)

    def tag(self, raw: str, closing: bool, name: str, attrs: str) -> None:
        name = name.lower()
        if self.seam and closing:  # a removal at the end of an element leaves no space
            self.seam = False
            if self.text_at and self.text_at[-1]:
                self.out[-1] = tidy_seam(self.out[-1], "")[0]
        if "\ue0f0" in attrs or "%" in attrs:
            raw = self._attributes(raw, name)
        if name == "code":
            if closing:
                self.code -= 1
                if not self.code:
                    report_removed(self.st, self.code_removed, self.code_kind)
                    self.code_removed = []
            else:
                self.code += 1
        elif name in ("em", "strong"):
            self.emphasis += -1 if closing else 1
        elif name == "a":
            self.links += -1 if closing else 1
        elif name == "del":  # with attributes (raw HTML): written as strikethrough is, <s>
            raw = "</s>" if closing else "<s>"
        elif name == "img" and self.plugin.options.images == "text":
            raw = _image_as_text(attrs)
        elif name == "br" and self.block is not None:
            self.block.end_line()
        elif name in _BLOCKS:
            if closing:
                self._end_block()
            else:
                self._end_block()
                self.block = _Block()
        elif name in ("ul", "ol") and not closing and self.block is not None:
            self._end_block()  # a nested list ends its item's own text
        self.last_cite = None
        self.out.append(raw)
        self.text_at.append(False)

    def _attributes(self, raw: str, name: str) -> str:
        """Placeholders in an attribute: an info string keeps its visible text (CR304); anywhere
        else the marker is removed (CR311) and a URL holding one is dropped whole."""
        out = raw
        for m in _PLACEHOLDER.finditer(raw):
            self.seen.add(_index(m.group(1)))
            mk = self.marks[_index(m.group(1))]
            a = self.st.offsets(mk.start)
            if name == "code":
                self._code_mark(mk)
                self.code_kind = "CR304"
                out = out.replace(m.group(0), escapeHtml(RESERVED_RE.sub("", self._raw(mk))), 1)
            else:
                self.st.report("CR311", "marker removed from a link title", a)
                out = out.replace(m.group(0), "", 1)
        if _PCT_PLACEHOLDER.search(out):  # a URL that needed a marker removed is never a link
            for m in _PCT_PLACEHOLDER.finditer(out):
                index = int("".join(_PCT_DIGIT.findall(m.group(0))))
                self.seen.add(index)
                self.st.report("CR311", "marker removed from a link URL", self.st.offsets(self.marks[index].start))
            out = _URL_WITH_PLACEHOLDER.sub("", out)
        return out

    def _raw(self, mk: Mark) -> str:
        offsets = self.st.offsets
        return self.original[offsets(mk.start) : offsets(mk.end)]

    def _code_mark(self, mk: Mark) -> None:
        offsets = self.st.offsets
        a = offsets(mk.start)
        self.code_removed.extend((a + m.start(), a + m.end()) for m in RESERVED_RE.finditer(self._raw(mk)))

    def _end_block(self) -> None:
        for idx in self.highlights:  # an unbalanced highlight renders as nothing
            self.out[idx] = ""
        self.highlights = []
        blk = self.block
        if blk is None:
            return
        blk.end_line()
        self.block = None
        if blk.texts and verbatim_ids(html.unescape("".join(t for t, _ in blk.texts)), self.st.registry):
            for chunk, cursor in blk.texts:  # rare: located chunk by chunk, as written
                self._verbatim(chunk, cursor)
        holder = NO_CITES
        if blk.cites:
            holder = Token("inline", "", 0)
            holder.children = blk.cites
            check_citation_only_lines(self.st, blk.cites, blk.only_lines, has_text=blk.has_text)
        self.blocks.append((holder, blk.has_text, bool(blk.cites)))

    # ---------------------------------------------------------------- marks

    def mark(self, index: int) -> None:
        mk = self.marks[index]
        st = self.st
        self.seen.add(index)
        offset = st.offsets(mk.start)
        self.cursor = st.offsets(mk.end)
        if self.code:  # code is the author's text: only the invisible characters go
            self._code_mark(mk)
            self._code_text(escapeHtml(RESERVED_RE.sub("", self._raw(mk))))
            return
        report_notes(st, mk, offset, self.original)
        kind = mk.kind
        if kind is MarkKind.TEXT:
            self.text(escapeHtml(mk.text))
            return
        if kind is MarkKind.HIGHLIGHT_OPEN:
            self.highlights.append(len(self.out))
            self.out.append('<span class="citerender-highlight">')
            self.text_at.append(False)
            return
        if kind is MarkKind.HIGHLIGHT_CLOSE:
            if self.highlights:
                self.highlights.pop()
                self.out.append("</span>")
                self.text_at.append(False)
            return
        if kind is not MarkKind.CITATION or mk.citation is None:
            self.seam = True
            return
        if mk.text:
            self.text(escapeHtml(mk.text))
        self._citation(mk, offset)

    def _citation(self, mk: Mark, offset: int) -> None:
        st = self.st
        in_link = bool(self.links)
        prev = self.last_cite
        if prev is not None and prev.meta["in_link"] == in_link:  # adjacent: one group
            if self.gap is not None:
                self.out[self.gap] = ""
            prev.meta["marks"].append(mk)
            resolve(prev, mk, st, self.plugin)
            if self.block is not None:
                self.block.line_cites.append(prev)
            self.gap = None
            return
        tok = Token("citation", "", 0)
        st.places += 1
        cit = mk.citation
        tok.meta = {
            "mark": mk,
            "marks": [mk],
            "offset_abs": offset,
            "uses": [],
            "spans": [],
            "in_link": in_link,
            "title": cit.title if cit is not None and cit.family in ("navlist", "filenavlist") else None,
            "anchor": f"{st.id_prefix}cite-{st.places}",
        }
        if self.emphasis:
            check_in_emphasis(st, tok, self.emphasis)
        if in_link:
            check_in_link(st, tok, in_link)
        resolve(tok, mk, st, self.plugin)
        self.out.append(tok)
        self.text_at.append(False)
        self.last_cite = tok
        self.gap = None
        if self.block is not None:
            self.block.cites.append(tok)
            self.block.line_cites.append(tok)

    # ---------------------------------------------------------------- the pass

    def run(self, markup: str, *, skip: bool = True) -> list[Any]:
        """The output items of ``markup``; with ``skip``, stretches at rest are copied whole."""
        quiet = self._quiet(markup) if skip else None
        if quiet is not None:
            self.ids_possible = quiet.ids_possible
        pos = quiet.reach(0) if quiet is not None else 0
        if pos:
            self._copy(markup[:pos])
        while True:
            jumped = False
            for m in _ITEM.finditer(markup, pos):
                if m.start() > pos:
                    self.text(markup[pos : m.start()])
                digits = m.group(4)
                pos = m.end()
                if digits is not None:
                    self.mark(_index(digits))
                    continue
                closing = m.group(1) == "/"
                self.tag(m.group(0), closing, m.group(2), m.group(3))
                if closing and quiet is not None and m.group(2).lower() in _RESTING and self._at_rest():
                    end = quiet.reach(pos)
                    if end > pos:
                        self._copy(markup[pos:end])
                        pos, jumped = end, True
                        break
            if not jumped:
                break
        if pos < len(markup):
            self.text(markup[pos:])
        self._end_block()
        self._vanished()
        return self.out

    def _at_rest(self) -> bool:
        busy = self.code or self.emphasis or self.links or self.highlights or self.seam
        return not busy and self.block is None and self.last_cite is None

    def _quiet(self, markup: str) -> Quiet | None:
        if self.plugin.options.html or _PCT_PLACEHOLDER.search(markup):
            return None  # raw HTML may leave elements open; a placeholder in a URL is rewritten
        return Quiet(markup, self.st.registry, images_as_text=self.plugin.options.images == "text")

    def _copy(self, stretch: str) -> None:
        self.out.append(stretch)
        self.text_at.append(False)
        self.blocks.append(stretch)

    def text_blocks(self) -> list[tuple[Token, bool, bool]]:
        """The blocks for the grouped-at-end check, copied stretches read only when it needs them
        (one block holds every citation)."""
        if sum(1 for b in self.blocks if not isinstance(b, str) and b[2]) != 1:
            return [b for b in self.blocks if not isinstance(b, str)]
        out: list[tuple[Token, bool, bool]] = []
        for b in self.blocks:
            if isinstance(b, str):
                part = Splice(self.st, [], b, self.plugin, set())
                part.run(b, skip=False)
                out.extend(inner for inner in part.blocks if not isinstance(inner, str))
            else:
                out.append(b)
        return out

    def _vanished(self) -> None:
        """Marks the parser did not put in the HTML (after an info string's first word): their
        characters were removed with that text, reported once per line like code (CR304)."""
        by_line: dict[int, list[tuple[int, int]]] = {}
        for i, mk in enumerate(self.marks):
            if i not in self.seen and i not in self.skipped:
                a = self.st.offsets(mk.start)
                spans = [(a + m.start(), a + m.end()) for m in RESERVED_RE.finditer(self._raw(mk))]
                by_line.setdefault(self.st.line_col(a)[0], []).extend(spans)
        for spans in by_line.values():
            report_removed(self.st, spans, "CR302")


def report_notes(st: CitationState, mk: Mark, offset: int, original: str) -> None:
    """What a mark says of itself (its dialect, why it was dropped) and whether it was escaped."""
    for code, detail in mk.notes:
        st.report(code, detail, offset)
    if st.offsets and original[offset : offset + len(mk.raw)] != mk.raw:
        st.report("CR201", "marker written with literal escapes", offset)


def _image_as_text(attrs: str) -> str:
    found = dict(_IMG_ATTR.findall(attrs))
    src = found.get("src", "")
    if html.unescape(src).startswith("data:image/"):
        return f"<img{attrs}>"
    alt = found.get("alt", "") or "untitled"
    return f'<span class="citerender-image" title="{src}">[image: {alt}]</span>'
