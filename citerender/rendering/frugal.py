"""Two parts of markdown-it-py the pipeline swaps for ones that hold less: the page is grown in
place instead of kept as its pieces and their join, and the source is not copied when there is
nothing to normalize. Same output, byte for byte (``python -m bench --only scale``)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

__all__ = ["IN_PLACE", "PageRenderer", "grows_in_place", "normalize"]


#: CPython (with its GIL) extends a string in place when nothing else holds it; elsewhere ``+=``
#: copies the whole page at each block (quadratic), and the fragments are joined instead
IN_PLACE = sys.implementation.name == "cpython" and bool(getattr(sys, "_is_gil_enabled", lambda: True)())


def grows_in_place() -> bool:
    """Whether ``+=`` extends the page in place now: CPython 3.11 under a tracer or profiler
    (coverage, a debugger) runs the unspecialised instruction, which copies."""
    return IN_PLACE and (sys.version_info >= (3, 12) or (sys.gettrace() is None and sys.getprofile() is None))


class PageRenderer(RendererHTML):
    """markdown-it's HTML renderer, the page grown in place block by block: markdown-it-py joins a
    fragment per block at the end, holding the page twice at the peak."""

    def render(self, tokens: Sequence[Token], options: Any, env: Any) -> str:
        if not grows_in_place():
            return str(super().render(tokens, options, env))
        page, rules = "", self.rules
        for i, token in enumerate(tokens):
            if token.type == "inline":
                if token.children:
                    page += self.renderInline(token.children, options, env)
            elif token.type in rules:
                page += rules[token.type](tokens, i, options, env)
            else:
                page += self.renderToken(tokens, i, options, env)
        return page


def normalize(state: StateCore) -> None:
    """markdown-it's ``normalize`` core rule (line ends to ``\\n``, NUL to U+FFFD) without its copy
    of a source that has neither (the citation state keeps the source it was given)."""
    src = state.src
    if "\r" in src or "\0" in src:
        state.src = src.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
