"""The ``citerender`` core rule: copy-paste forms become citations, adjacent citations one group,
sources resolved and numbered by first citation, each citation's own placement checked.

The chain of core rules (after ``text_join``): ``citerender_scrub`` → ``citerender`` (this) →
``citerender_placement`` → ``citerender_bibliography``; each can be disabled by name.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from functools import cached_property
from typing import Any

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..options import id_stem
from ..syntax.scanner import scan
from ..syntax.types import MarkKind
from .dialects import active_dialect, may_hold
from .locate import Locator, image_end, locator, place, where
from .numbering import drop_empty_groups, resolve
from .options import PluginOptions
from .placement import (
    check_before_punctuation,
    check_citation_only_lines,
    report_verbatim_ids,
    verbatim_ids,
)
from .split import split_text
from .state import CitationState, citation_meta, citation_state

__all__ = ["DocumentPass", "citation_core"]

_DEPTH_KINDS = {f"{k}_{e}": k for k in ("em", "strong", "link") for e in ("open", "close")}
_NAV_FAMILIES = ("navlist", "filenavlist")
_MATH_INLINE = ("math_inline", "math_inline_double")


def citation_core(state: StateCore, *, opts: PluginOptions) -> None:
    """Core rule (see the module docstring)."""
    doc = DocumentPass(state.src, state.env, opts)
    for i, tok in enumerate(state.tokens):
        doc.visit(i, tok)
    doc.st.blocks = doc.blocks


class DocumentPass:
    """The core rule's work, one inline token at a time; ``blocks`` is left for the placement checks."""

    def __init__(self, src: str, env: MutableMapping[str, Any], opts: PluginOptions) -> None:
        st = self.st = citation_state(env, opts.registry)
        if opts.options.id_prefix and not st.id_prefix:
            st.id_prefix = id_stem(opts.options.id_prefix)
        if not st.original:
            st.original = src
        self.src = src
        self.opts = opts
        self.blocks: list[tuple[int, bool, bool]] = []  # (token index or -1, has text, has citation)
        # nothing of ours anywhere: every block is looked at for its text only (one search, not one a block)
        self.dialect = active_dialect(opts, st)  # [doc1], [ID:0], … read as citations
        self.quiet = (
            not opts.needs_attention(src) and not verbatim_ids(src, st.registry) and not may_hold(self.dialect, src)
        )

    @cached_property
    def copy_paste(self) -> bool:
        """Could the answer hold ChatGPT's copy-paste forms (read as text by the inline rules)?"""
        src = self.src
        return ("turn" in src and "cite" in src) or "entity[" in src or "contentReference[" in src

    @cached_property
    def loc(self) -> Locator:
        """The parse's locator (``where(tok, st)`` finds the same one); a quiet answer needs none."""
        return locator(self.st, self.src)

    def visit(self, index: int, tok: Token) -> None:
        if tok.type != "inline" or tok.children is None:
            return
        st, opts, content = self.st, self.opts, tok.content
        if self.quiet or not (
            opts.needs_attention(content) or verbatim_ids(content, st.registry) or may_hold(self.dialect, content)
        ):
            self.blocks.append((-1, bool(content.strip()), False))  # nothing of ours in here
            return
        has_text, cited = InlinePass(tok, st, self.loc, opts, self.copy_paste).run()
        self.blocks.append((index if cited else -1, has_text, cited))  # only a cited one is read


class InlinePass:
    """One walk over an inline token's children: marks located and reported, citations grouped,
    resolved and checked."""

    def __init__(self, block: Token, st: CitationState, loc: Locator, opts: PluginOptions, copy_paste: bool) -> None:
        self.block = block
        self.place = place(block)  # one tuple for every mark of the block
        self.content = block.content
        self.st = st
        self.loc = loc
        self.opts = opts
        self.copy_paste = copy_paste
        self.out: list[Token] = []
        self.depth = {"em": 0, "strong": 0, "link": 0}
        self.has_text = False
        self.highlights: list[tuple[int, int]] = []  # (index in out, nesting level) of open highlights
        self.level = 0
        self.cursor = 0
        self.line_has_text = False
        self.line_cites: list[Token] = []
        self.cite_only_lines: list[Token] = []
        # source ids written outside markers: looked for per text token only when the block holds one
        outside = opts.canonical.sub("", self.content) if opts.fmt.start in self.content else self.content
        self.ids_possible = bool(verbatim_ids(outside, st.registry))

    def run(self) -> tuple[bool, bool]:
        """Walk the children; returns (has text, has a citation)."""
        queue = list(self.block.children or [])
        i = 0
        while i < len(queue):
            tok = queue[i]
            i += 1
            t = tok.type
            if t == "text":
                split = self._split_marks(tok)
                if split is not None:
                    queue[i:i] = split
                    continue
                self.text(tok)
            elif t in ("softbreak", "hardbreak"):
                self.end_line()
                self.out.append(tok)
            elif t == "citation_dropped":
                self.position(tok)
                k = tok.meta.get("mark")
                if k is None or self.st.mark_table[k].kind is not MarkKind.TEXT:  # a removal: its seam is tidied
                    self.out.append(tok)
            elif t in ("citation_highlight_open", "citation_highlight_close"):
                self.highlight(tok)
            elif t == "citation":
                self.citation(tok)
            else:
                self.structure(tok)
        self.end_line()
        for idx, _lvl in self.highlights:  # unbalanced opens render as nothing
            self.out[idx] = Token("citation_dropped", "", 0)
        out = drop_empty_groups(self.out, self.st)
        self.block.children = out
        cites = [tok for tok in out if tok.type == "citation"]
        check_citation_only_lines(self.st, cites, self.cite_only_lines, has_text=self.has_text)
        return self.has_text, bool(cites)

    # ------------------------------------------------------------------ per token type

    def _split_marks(self, tok: Token) -> list[Token] | None:
        """Copy-paste forms, and marker characters markdown-it kept as text (after a backslash)."""
        content = tok.content
        if "mark" in tok.meta or not (
            (self.copy_paste and ("cite" in content or "entity[" in content)) or self.opts.trigger_set.found_in(content)
        ):
            return None
        marks = scan(content, fmt=self.opts.fmt)
        return split_text(tok, marks, self.st) if marks else None

    def text(self, tok: Token) -> None:
        if self.ids_possible and "mark" not in tok.meta:
            report_verbatim_ids(self.st, self.loc, self.block, tok.content, self.cursor)
        if tok.content.strip():
            self.has_text = True
            self.line_has_text = True
            k = _last_kept(self.out, len(self.out))
            if k >= 0 and self.out[k].type == "citation":
                check_before_punctuation(self.st, self.out[k], tok.content)
        self.out.append(tok)

    def highlight(self, tok: Token) -> None:
        self.position(tok)
        if tok.type == "citation_highlight_open":
            self.highlights.append((len(self.out), self.level))
            self.out.append(tok)
        elif self.highlights and self.highlights[-1][1] == self.level:
            self.highlights.pop()
            self.out.append(tok)

    def citation(self, tok: Token) -> None:
        self.position(tok)
        st = self.st
        mk = st.mark(tok)
        depth = self.depth
        if depth["em"] or depth["strong"]:
            st.report("CR301", "citation inside bold or italics", where(tok, st))
        in_link = depth["link"] > 0
        if in_link:
            st.report("CR309", "citation inside link text", where(tok, st))
        prev = self._group_with(in_link)
        if prev is not None:  # adjacent to the previous citation: one group
            prev.meta["marks"].append(tok.meta["mark"])
            if st.spans is not None:
                prev.meta["spans"].append(tok.meta["span"])
            resolve(prev, mk, st, self.opts)
            self.line_cites.append(prev)
            return
        meta = citation_meta(tok)
        meta["marks"] = [meta["mark"]]
        if st.spans is not None:  # the exports' parse only: a list per group is 56 bytes a citation
            meta["spans"] = [meta["span"]]
        meta["uses"] = []
        meta["in_link"] = in_link
        meta["title"] = mk.citation.title if mk.citation and mk.citation.family in _NAV_FAMILIES else None
        st.places += 1
        meta["anchor"] = f"{st.id_prefix}cite-{st.places}"
        resolve(tok, mk, st, self.opts)
        self.out.append(tok)
        self.line_cites.append(tok)

    def _group_with(self, in_link: bool) -> Token | None:
        """The previous citation when only inline whitespace (dropped) separates it from this one."""
        out = self.out
        k = _last_kept(out, len(out))
        prev = out[k] if k >= 0 else None
        gap = False
        if prev is not None and prev.type == "text" and not prev.content.strip() and "\n" not in prev.content:
            k2 = _last_kept(out, k)
            if k2 >= 0 and out[k2].type == "citation":
                gap, prev = True, out[k2]
        if prev is None or prev.type != "citation" or prev.meta.get("in_link") != in_link:
            return None
        if gap:
            del out[k]
        return prev

    def structure(self, tok: Token) -> None:
        t = tok.type
        if tok.nesting:
            self.level += tok.nesting
            kind = _DEPTH_KINDS.get(t)
            if kind is not None:
                self.depth[kind] += tok.nesting
        if t == "code_inline":
            if self.copy_paste and tok.content:  # a copy-paste form after it is not looked for inside it
                at = self.content.find(tok.content, self.cursor)
                if at != -1:
                    self.cursor = at + len(tok.content)
            visible = bool(tok.content.strip())
            self.line_has_text = self.line_has_text or visible
            self.has_text = self.has_text or visible
        elif t == "image" and tok.children:
            self.out.append(tok)
            self.out.extend(self._alt_text(tok))
            return
        elif t in _MATH_INLINE or t == "html_inline" or t == "link_open":
            pass  # scrubbed by ``citerender_scrub``
        else:
            self.line_has_text = self.line_has_text or t not in ("em_open", "em_close", "strong_open", "strong_close")
        self.out.append(tok)

    def _alt_text(self, tok: Token) -> list[Token]:
        """The citations of an image's alt text (plain text, where they would vanish), moved after it."""
        sub = Token("inline", "", 0, map=self.block.map, children=tok.children, content=tok.content)
        InlinePass(sub, self.st, self.loc, self.opts, self.copy_paste).run()
        kids = sub.children or []
        tok.children = [c for c in kids if c.type == "text" or c.type == "image"]
        texts = [c for c in tok.children if c.type == "text"]
        if texts and len(texts) < len(kids):  # the space that stood before a citation taken out goes too
            texts[-1].content = texts[-1].content.rstrip()
        self.line_has_text = True
        self.has_text = True
        moved = [c for c in kids if c.type == "citation"]
        if self.st.spans is not None:  # the exports write each one after the image too, not inside its alt
            for c in moved:
                end = image_end(self.st.original, c.meta["spans"][-1][1])
                if end is not None:
                    c.meta["spans"] = [(end, end), *c.meta["spans"]]
        return moved

    # ------------------------------------------------------------------ lines and positions

    def end_line(self) -> None:
        if self.line_cites and not self.line_has_text:
            self.cite_only_lines.append(self.line_cites[0])
        self.line_has_text = False
        self.line_cites.clear()

    def position(self, tok: Token) -> None:
        """Note where the mark sits; the source offset is computed only if a report needs it."""
        st = self.st
        meta = tok.meta
        mk = st.mark(tok)
        pos = meta.get("offset")
        if pos is None:  # a copy-paste mark: at least ``after`` characters past the last one
            found = self.content.find(mk.raw, self.cursor + meta.get("after", 0))
            if found == -1:
                found = self.content.find(mk.raw, self.cursor)
            pos = meta["offset"] = found if found != -1 else self.cursor
        if pos + len(mk.raw) > self.cursor:
            self.cursor = pos + len(mk.raw)
        meta["place"], meta["content"] = self.place, self.content
        if st.spans is not None:
            meta["span"] = self.loc.span(self.block, self.content, pos, mk.raw)
            if tok.type != "citation":
                st.spans.append((*meta["span"], mk.text))
        for code, detail in mk.notes:
            st.report(code, detail, where(tok, st))
        if st.offsets:
            off = where(tok, st)
            if st.original[off : off + len(mk.raw)] != mk.raw:
                st.report("CR201", "marker written with literal escapes", off)


def _last_kept(out: list[Token], before: int) -> int:
    """Index of the last token before ``before`` that is not a removed mark (-1 if none)."""
    k = before - 1
    while k >= 0 and out[k].type == "citation_dropped":
        k -= 1
    return k
