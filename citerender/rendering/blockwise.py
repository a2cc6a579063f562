"""Render an answer a stretch of blocks at a time, freeing their inline tokens once written.

``MarkdownIt.render`` parses the whole answer into tokens (every block's inline children,
citations with their metadata) before writing any HTML, so its peak holds all of them at once.
Here the block structure is parsed first (link and footnote definitions are known before any
inline text is read, as markdown-it requires); then, a stretch of top-level blocks at a time,
their inline tokens are parsed, run through the core rules that follow markdown-it's ``inline``
rule, checked and numbered by the citation pass, written, and dropped (the citations of the last
cited block stay: the grouped-at-end check reads them). Numbering, diagnostics and HTML are the
same as ``md.render`` — tested on every fixture with both presets — and the peak is the block
tokens plus the page, not every token of the answer.

The ``full`` preset's rules that read more than one block are kept whole: a stretch ends only
between top-level blocks (a task list's ``<ul>`` is in the stretch of its items); footnote
definitions are parsed in place but written at the end, as ``footnote_tail`` moves them; heading
ids stay unique across stretches (:mod:`citerender.rendering.anchors`). Any other rule after
``inline`` (the evidence checks, a caller's plugin) gets ``md.render``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, cast

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..plugin import plugin_options
from ..plugin.core import DocumentPass
from .anchors import HEADING_IDS, SLUGS_KEY

__all__ = ["render_blockwise"]

_BEFORE_INLINE = ("normalize", "citerender_escapes", "block", "inline")
#: core rules between ``inline`` and the citation pass that read one stretch of top-level blocks
_PER_STRETCH = frozenset({"github-tasklists", "linkify", "replacements", "smartquotes", "text_join"})
_TAIL = "footnote_tail"
_DEFINITION_ENDS = ("footnote_reference_open", "footnote_reference_close")
_FREED = Token("freed", "", 0)  # what a parsed token is replaced by in the block token list

_FLUSH_AT = 262_144  # characters of HTML gathered before they are added to the page
_STRETCH = 32_768  # characters of inline text parsed, checked and written together

CoreRule = Callable[[StateCore], None]


def render_blockwise(md: MarkdownIt, text: str, env: dict[str, Any]) -> str | None:
    """The HTML of ``text`` as ``md.render`` writes it, or None when ``md`` has a core rule
    this render cannot run a stretch at a time."""
    plan = _plan(md)
    if plan is None:
        return None
    first, tail, before, after = plan
    state = StateCore(text, md, env)
    for core_rule in first:
        core_rule(state)
    doc = DocumentPass(state.src, env, plugin_options(md))
    env[SLUGS_KEY] = set()
    # pieces are joined 256K characters at a time and added to the page, a local string that
    # CPython extends in place: one append per piece copied the page whenever it could not grow
    # in place, and one join at the end would hold the page twice
    html = ""
    batch: list[str] = []
    size = 0
    try:
        for piece in _Writer(md, env, doc, before, after).pieces(state.tokens, tail):
            batch.append(piece)
            size += len(piece)
            if size > _FLUSH_AT:
                html += "".join(batch)
                batch.clear()
                size = 0
    finally:
        del env[SLUGS_KEY]
    html += "".join(batch)
    return html


def _plan(md: MarkdownIt) -> tuple[list[CoreRule], CoreRule | None, list[CoreRule], list[CoreRule]] | None:
    """``md``'s core rules as (before the inline parse, footnote_tail, per stretch before the
    citation pass, per stretch after it), or None if one of them needs the whole stream."""
    rules = [r for r in md.core.ruler.__rules__ if r.enabled]
    names = [r.name for r in rules]
    if tuple(names[:4]) != _BEFORE_INLINE or "citerender" not in names:
        return None
    at = names.index("citerender")
    middle, after = rules[4:at], rules[at + 1 :]
    tail = None
    if middle and middle[0].name == _TAIL:
        tail, middle = middle[0].fn, middle[1:]
    if any(r.name not in _PER_STRETCH for r in middle) or any(r.name != HEADING_IDS for r in after):
        return None
    return [r.fn for r in rules[:3]], tail, [r.fn for r in middle], [r.fn for r in after]


class _Writer:
    """Parses, checks and writes stretches of top-level blocks (see the module docstring)."""

    def __init__(
        self, md: MarkdownIt, env: dict[str, Any], doc: DocumentPass, before: list[CoreRule], after: list[CoreRule]
    ) -> None:
        self.md, self.env, self.doc = md, env, doc
        self.before, self.after = before, after
        self.part = StateCore("", md, env)  # the state the per-stretch rules see
        self.renderer = cast(RendererHTML, md.renderer)
        self.last_cited: Token | None = None

    def pieces(self, tokens: list[Token], tail: CoreRule | None) -> Iterator[str]:
        """The HTML of the answer: its stretches, then the footnotes, then the bibliography.
        Phase by phase over a stretch, not block by block: interleaving parse, check and write
        for every block ran each phase 20-40% slower (the interpreter's caches)."""
        md, env = self.md, self.env
        deferred: list[Token] = []  # footnote definitions' tokens, written at the end
        in_definition = False
        start, n = 0, len(tokens)
        while start < n:
            end, size = start, 0
            while end < n and (size < _STRETCH or not _between_top_level_blocks(tokens[end - 1])):
                size += len(tokens[end].content)
                end += 1
            stretch: list[Token] = []
            for i in range(start, end):
                tok = tokens[i]
                tokens[i] = _FREED
                if tok.type == "inline":  # parsed in document order, definitions too (note ids)
                    tok.children = []
                    md.inline.parse(tok.content, md, env, tok.children)
                if tail is not None and (in_definition or tok.type in _DEFINITION_ENDS):
                    # what footnote_tail takes out of the stream (its flag, nested definitions too)
                    in_definition = tok.type == "footnote_reference_open" or (
                        in_definition and tok.type != "footnote_reference_close"
                    )
                    deferred.append(tok)
                else:
                    stretch.append(tok)
            yield from self._write(stretch)
            start = end
        if tail is not None and "footnotes" in env:
            notes = StateCore("", md, env)
            notes.tokens = deferred
            tail(notes)  # drops the definitions and appends the footnote list made of them
            yield from self._write(notes.tokens)
        bibliography: list[Token] = []
        self.doc.finish(bibliography)
        for i, tok in enumerate(bibliography):
            yield self.renderer.rules[tok.type](bibliography, i, md.options, env)

    def _write(self, stretch: list[Token]) -> Iterator[str]:
        part, env, options = self.part, self.env, self.md.options
        part.tokens = stretch
        for fn in self.before:
            fn(part)
        for tok in stretch:
            self.doc.visit(tok)
        for fn in self.after:
            fn(part)
        renderer = self.renderer
        rules = renderer.rules
        for i, tok in enumerate(stretch):
            if tok.type == "inline":
                children = tok.children or []
                yield renderer.renderInline(children, options, env)
                cites = [c for c in children if c.type == "citation"]
                tok.children, tok.content = cites, ""  # a citation keeps what it needs to be located
                if cites:  # only the last cited block's citations are read again (grouped at end)
                    if self.last_cited is not None:
                        self.last_cited.children = []
                    self.last_cited = tok
            else:
                rule = rules.get(tok.type)
                yield rule(stretch, i, options, env) if rule else renderer.renderToken(stretch, i, options, env)


def _between_top_level_blocks(tok: Token) -> bool:
    """May a stretch end after ``tok``: a top-level block closed or self-contained (the
    renderer then reads no neighbour across the cut, and no rule a block of another stretch)."""
    return tok.level == 0 and tok.nesting != 1
