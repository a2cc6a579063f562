"""Heading ids (``<h2 id="install">``) for the full preset, unique across the answer: the ids
given out live in ``env`` (a stream parses its answer block by block), a repeated title numbered as
mdit-py-plugins numbers it (``install``, ``install-1`` …).
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from mdit_py_plugins.anchors.index import unique_slug

from ..options import id_stem

__all__ = ["HEADING_IDS", "SLUGS_KEY", "add_anchors"]

#: the core rule's name
HEADING_IDS = "citerender_heading_ids"
#: ``env`` key of the ids given out so far, while a render calls the rule stretch by stretch
SLUGS_KEY = "citerender_slugs"


def add_anchors(md: MarkdownIt, id_prefix: str) -> None:
    """Heading ids, after the citation rules so that no marker is read into a slug."""
    md.core.ruler.push(HEADING_IDS, partial(heading_ids, prefix=id_stem(id_prefix)))


def heading_ids(state: StateCore, *, prefix: str) -> None:
    """Core rule: an id for every heading without one, from its text and code."""
    given: Any = state.env.get(SLUGS_KEY)
    slugs: set[str] = given if isinstance(given, set) else set()
    tokens = state.tokens
    slugs.update(str(t.attrGet("id")) for t in tokens if t.type == "heading_open" and t.attrGet("id"))
    for idx, tok in enumerate(tokens):
        if tok.type != "heading_open" or tok.attrGet("id"):
            continue
        children = tokens[idx + 1].children or []
        title = "".join(c.content for c in children if c.type in ("text", "code_inline"))
        tok.attrSet("id", unique_slug(prefix + _slug(title), slugs))


#: the ids citerender gives its own elements (``cite-3``, ``cite-3-card``, ``ref-2``, ``note-1-ref``,
#: ``consulted-1``, the source views' ``source-views``, ``source-1``, ``source-1-title``,
#: ``source-1-L8-L13``, ``citerender-…``): a heading never takes one
_OWN_IDS = re.compile(r"(?:cite|ref|note|consulted|source)-\d+(?:-|$)|source-views$|citerender-")


def _slug(title: str) -> str:
    slug = re.sub(r"[\s-]+", "-", re.sub(r"[^\w\- ]", "", title.lower()).strip())
    if _OWN_IDS.match(slug):  # a heading "Ref 1" is ``section-ref-1``: the id ``ref-1`` is Sources' first entry
        return "section-" + slug
    return slug or "section"
