"""Render an answer a stretch of blocks at a time, freeing their inline tokens once written.

``MarkdownIt.render`` parses the whole answer into tokens (every block's inline children,
citations with their metadata) before writing any HTML, so its peak holds all of them at once.
Here the block structure is parsed first (link definitions are known before any inline text
is read, as markdown-it requires); then, a stretch of blocks at a time, their inline tokens are
parsed, run through the rules that follow markdown-it's ``inline`` rule, checked and numbered by
the citation pass, written, and their children dropped (the citations of the last cited block
stay: the grouped-at-end check reads them). Numbering, diagnostics and HTML are the same as
``md.render`` — tested on every fixture — and the peak is the block tokens plus the page, not
every token of the answer.

This runs when every core rule after ``inline`` works one inline token at a time (markdown-it's
own and citerender's): the ``commonmark`` preset. The ``full`` preset's footnotes and heading
anchors read the whole token stream, so it renders with ``md.render``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..plugin import plugin_options
from ..plugin.core import DocumentPass

__all__ = ["render_blockwise"]

_BEFORE_INLINE = ("normalize", "citerender_escapes", "block")
#: markdown-it's core rules that read one inline token at a time
_PER_INLINE = frozenset({"linkify", "replacements", "smartquotes", "text_join"})
_FREED = Token("freed", "", 0)  # what a written token is replaced by in the token list


_FLUSH_AT = 262_144  # characters of HTML gathered before they are added to the page
_STRETCH = 32_768  # characters of inline text parsed, checked and written together


def render_blockwise(md: MarkdownIt, text: str, env: dict[str, Any]) -> str | None:
    """The HTML of ``text`` as ``md.render`` writes it, or None when ``md`` has a core rule
    that needs the whole token stream."""
    rules = [r for r in md.core.ruler.__rules__ if r.enabled]
    names = [r.name for r in rules]
    if tuple(names[:4]) != (*_BEFORE_INLINE, "inline"):
        return None
    after = rules[4:]
    if not after or after[-1].name != "citerender" or any(r.name not in _PER_INLINE for r in after[:-1]):
        return None
    state = StateCore(text, md, env)
    for core_rule in rules[:3]:
        core_rule.fn(state)
    doc = DocumentPass(state.src, env, plugin_options(md))
    # pieces are joined 256K characters at a time and added to the page, a local string that
    # CPython extends in place: one append per piece copied the page whenever it could not grow
    # in place, and one join at the end would hold the page twice
    html = ""
    batch: list[str] = []
    size = 0
    for piece in _pieces(md, state, doc, [r.fn for r in after[:-1]]):
        batch.append(piece)
        size += len(piece)
        if size > _FLUSH_AT:
            html += "".join(batch)
            batch.clear()
            size = 0
    html += "".join(batch)
    return html


def _pieces(md: MarkdownIt, state: StateCore, doc: DocumentPass, per_inline: list[Any]) -> Iterator[str]:
    """The HTML of the tokens, a stretch of blocks at a time (about 32K characters of inline
    text): each stretch's inline children parsed, run through the per-inline rules, checked and
    written, then freed. Phase by phase over a stretch, not block by block: interleaving parse,
    check and write for every block ran each phase 20-40% slower (the interpreter's caches)."""
    env = state.env
    part = StateCore("", md, env)  # the state the per-inline rules see: one stretch of tokens
    tokens = state.tokens
    renderer = cast(RendererHTML, md.renderer)
    options = md.options
    render_rules = renderer.rules
    last_cited: Token | None = None
    start, n = 0, len(tokens)
    while start < n:
        end, size = start, 0
        while end < n and size < _STRETCH:
            size += len(tokens[end].content)
            end += 1
        stretch = tokens[start:end]
        for tok in stretch:
            if tok.type == "inline":
                tok.children = []
                md.inline.parse(tok.content, md, env, tok.children)
        part.tokens = stretch
        for fn in per_inline:
            fn(part)
        for tok in stretch:
            doc.visit(tok)
        for i in range(start, end):
            tok = tokens[i]
            if tok.type == "inline":
                children = tok.children or []
                yield renderer.renderInline(children, options, env)
                cites = [c for c in children if c.type == "citation"]
                tok.children, tok.content = cites, ""  # a citation keeps what it needs to be located
                if cites:  # only the last cited block's citations are read again (grouped at end)
                    if last_cited is not None:
                        last_cited.children = []
                    last_cited = tok
            else:
                rule = render_rules.get(tok.type)
                yield rule(tokens, i, options, env) if rule else renderer.renderToken(tokens, i, options, env)
        for i in range(max(start - 1, 0), end - 1):  # written: markdown-it reads one token either side
            tokens[i] = _FREED
        start = end
    doc.finish(tokens)
    for i in range(n, len(tokens)):  # the bibliography
        yield render_rules[tokens[i].type](tokens, i, options, env)
