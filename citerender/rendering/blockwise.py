"""Render an answer block by block, freeing each block's inline tokens once it is written.

``MarkdownIt.render`` parses the whole answer into tokens (every block's inline children,
citations with their metadata) before writing any HTML, so its peak holds all of them at once.
Here the block structure is parsed first (link definitions are known before any inline text
is read, as markdown-it requires), then each inline token is parsed, run through the rules that
follow markdown-it's ``inline`` rule, checked and numbered by the citation pass, written, and
its children dropped (the citations of the last cited block stay: the grouped-at-end check
reads them). Numbering, diagnostics and HTML are the same as ``md.render`` — tested on
every fixture — and the peak is the block tokens plus the page, not every token of the answer.

This runs when every core rule after ``inline`` works one inline token at a time (markdown-it's
own and citerender's): the ``commonmark`` preset. The ``full`` preset's footnotes and heading
anchors read the whole token stream, so it renders with ``md.render``.
"""

from __future__ import annotations

from typing import Any, cast

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..plugin.core import DocumentPass, citation_core

__all__ = ["render_blockwise"]

_BEFORE_INLINE = ("normalize", "citerender_escapes", "block")
#: markdown-it's core rules that read one inline token at a time
_PER_INLINE = frozenset({"linkify", "replacements", "smartquotes", "text_join"})
_FREED = Token("freed", "", 0)  # what a written token is replaced by in the token list


def render_blockwise(md: MarkdownIt, text: str, env: dict[str, Any]) -> str | None:
    """The HTML of ``text`` as ``md.render`` writes it, or None when ``md`` has a core rule
    that needs the whole token stream."""
    rules = [r for r in md.core.ruler.__rules__ if r.enabled]
    names = [r.name for r in rules]
    if tuple(names[:4]) != (*_BEFORE_INLINE, "inline"):
        return None
    after = rules[4:]
    ours = [r for r in after if getattr(r.fn, "func", None) is citation_core]
    if len(ours) != 1 or after[-1] is not ours[0] or any(r.name not in _PER_INLINE for r in after[:-1]):
        return None
    state = StateCore(text, md, env)
    for core_rule in rules[:3]:
        core_rule.fn(state)
    doc = DocumentPass(state.src, env, ours[0].fn.keywords["opts"])  # type: ignore[attr-defined]
    one = StateCore("", md, env)  # the state the per-inline rules see: one block's inline token
    per_inline = [r.fn for r in after[:-1]]
    tokens = state.tokens
    renderer = cast(RendererHTML, md.renderer)
    options = md.options
    render_rules = renderer.rules
    html = ""
    last_cited: Token | None = None
    for i, tok in enumerate(tokens):
        if tok.type == "inline":
            tok.children = []
            md.inline.parse(tok.content, md, env, tok.children)
            one.tokens = [tok]
            for fn in per_inline:
                fn(one)
            doc.visit(tok)
            html += renderer.renderInline(tok.children, options, env)
            cites = [c for c in tok.children if c.type == "citation"]
            tok.children, tok.content = cites, ""  # a citation keeps what it needs to be located
            if cites:  # only the last cited block's citations are read again (grouped at end)
                if last_cited is not None:
                    last_cited.children = []
                last_cited = tok
        else:
            doc.visit(tok)
            write = render_rules.get(tok.type)
            html += write(tokens, i, options, env) if write else renderer.renderToken(tokens, i, options, env)
        if i:  # written: the token before is read by no later one (markdown-it looks one either side)
            tokens[i - 1] = _FREED
    end = len(tokens)
    doc.finish(tokens)
    for i in range(end, len(tokens)):  # the bibliography
        html += render_rules[tokens[i].type](tokens, i, options, env)
    return html
