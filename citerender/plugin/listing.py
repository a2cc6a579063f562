"""The ``citerender_bibliography`` core rule, the last of the chain: sources never cited reported
and listed as the options say, and the ``citerender_bibliography`` token appended. Disabled, a
plugin user places the bibliography (or none), and uncited sources go unreported."""

from __future__ import annotations

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from .numbering import forget_uses, report_uncited
from .options import PluginOptions
from .source_links import views_mode
from .state import BibliographyMeta, citation_state

__all__ = ["LONG_ANSWER", "bibliography_rule"]

#: an answer longer than this (about two printed pages) may print its bibliography on a new page
LONG_ANSWER = 6_000


def bibliography_rule(state: StateCore, *, opts: PluginOptions) -> None:
    """Core rule (see the module docstring); a stream's blocks wait for its end."""
    st = citation_state(state.env, opts.registry)
    if not st.whole_document:
        return
    report_uncited(st, list_all=opts.options.list_all, consulted=opts.options.consulted)
    mode = views_mode(opts.options)
    for ref in st.references:  # where their entries link the cited ranges, whatever renders them
        ref.views = mode
    forget_uses(st)  # numbering is done: its lookup table need not live through the HTML
    if opts.options.bibliography and (st.references or st.consulted):
        meta = BibliographyMeta(
            references=[r.number for r in st.references],
            consulted=[r.number for r in st.consulted],
            long=len(state.src) > LONG_ANSWER,
        )
        state.tokens.append(Token("citerender_bibliography", "", 0, block=True, meta=dict(meta)))
