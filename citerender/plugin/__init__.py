"""The markdown-it-py plugin: markers become ``citation`` tokens, numbered and grouped.

Wiring only: parsing rules (``rules``, ``links``), the chain of core rules (``scrub`` → ``core`` →
``placement`` → ``listing``), render rules (``styles``, ``bibliography``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from markdown_it import MarkdownIt

from ..options import RenderOptions
from ..sources.model import Registry
from .bibliography import NOTE_STYLES
from .copied import copied_rule, residue_block
from .core import citation_core
from .dialects import dialect_rule
from .direction import add_direction_rule
from .flanking import add_flanking_rule
from .links import LinkPolicy
from .listing import bibliography_rule
from .options import BibliographyRenderer, PluginOptions
from .placement import placement_rule
from .rules import add_terminators, backslash_rule, citation_inline, escapes_rule, text_or_citation
from .scrub import scrub_rule
from .state import document_rule
from .styles import add_render_rules
from .tables import add_table_rules

__all__ = ["PluginOptions", "citation_plugin"]


def citation_plugin(
    md: MarkdownIt,
    *,
    options: RenderOptions | None = None,
    registry: Registry | None = None,
    bibliography_renderer: BibliographyRenderer | None = None,
    **kwargs: Any,
) -> None:
    """Turn citation markers into numbered citations with a bibliography.

    :param options: every rendering setting (:class:`citerender.RenderOptions`); keyword
        arguments (``style="hovercard"``, ``unknown="keep"`` …) build or change one.
    :param registry: the sources an answer may cite. After a parse, ``env["citerender"]``
        holds what the plugin decided as plain data (:mod:`citerender.plugin.document`);
        :func:`citerender.plugin.state.citation_state` gives its working state.
    :param bibliography_renderer: ``(references, style) -> HTML`` for the bibliography token;
        the built-in markup otherwise.

    .. code-block:: python

        md = MarkdownIt("commonmark").use(citation_plugin, registry=load_sources("s.json"), style="hovercard")
        html = md.render(answer)
    """
    opts = PluginOptions(RenderOptions.build(options, **kwargs), registry, bibliography_renderer)
    add_terminators(md, opts.triggers)
    LinkPolicy(opts.fmt.marker_chars).install(md)
    md.core.ruler.after("normalize", "citerender_escapes", partial(escapes_rule, opts=opts))
    # the text rule reads the markers it stops at; the rule of its own is for a parser without it
    text = next((r.fn for r in md.inline.ruler.__rules__ if r.name == "text"), None)
    if text is not None:
        md.inline.ruler.at("text", text_or_citation(text, opts))
    md.inline.ruler.push("citation", partial(citation_inline, opts=opts))
    md.inline.ruler.before("escape", "citation_backslash", backslash_rule(opts))
    md.inline.ruler.before("link", "citation_dialect", dialect_rule(opts))  # [doc1], [ID:0], … when named
    md.inline.ruler.before("link", "citation_copied", copied_rule(opts))  # [oai_citation:…], <Cite …/>, residue
    md.block.ruler.before("lheading", "citation_residue", residue_block)  # a residue object's paragraph
    add_flanking_rule(md, opts.fmt.marker_set)  # ``**Bold.**`` right before a marker closes
    # the chain of core rules, in the order the work happens (each can be disabled by name)
    md.core.ruler.push("citerender_scrub", partial(scrub_rule, opts=opts))
    md.core.ruler.push("citerender", partial(citation_core, opts=opts))
    md.core.ruler.push("citerender_placement", partial(placement_rule, opts=opts))
    md.core.ruler.push("citerender_bibliography", partial(bibliography_rule, opts=opts))
    if opts.options.evidence:  # the claim checks (and their stemmer) load only when asked for
        from .claims import claims_rule, support_rule

        md.core.ruler.push("citerender_claims", partial(claims_rule, opts=opts))
        md.core.ruler.push("citerender_support", partial(support_rule, opts=opts))
    if opts.options.style in NOTE_STYLES:  # after the checks: the claim each card or note supports, for highlighting
        from .claim_spans import add_claim_spans

        add_claim_spans(md)
    add_render_rules(md, opts)
    add_table_rules(md)
    add_direction_rule(md)
    # last: what the chain decided, as plain data in ``env["citerender"]``
    md.core.ruler.push("citerender_document", partial(document_rule, opts=opts))
