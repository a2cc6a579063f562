"""A page under hostile input (issue 46): every id unique whatever the sources' order (G19)."""

from __future__ import annotations

import itertools
import re
from collections import Counter

import pytest

from citerender import render
from citerender.sources.model import registry_from_data

S, D, E = "\ue200", "\ue202", "\ue201"
STYLES = ("footnotes", "superscript", "hovercard", "pills", "sidenotes")

# ---------------------------------------------------------------------------------------------- G19

SOURCES = {
    "s1": {"id": "s1", "title": "One", "url": "https://one.example/"},
    "c1": {"id": "c1", "title": "Consulted", "url": "https://three.example/"},
    "c2": {"id": "c2", "title": "Consulted too", "url": "https://five.example/"},
    "l1": {"id": "l1", "title": "Listed", "url": "https://four.example/", "listed": "cited"},
    "l2": {"id": "l2", "title": "Listed too", "url": "https://six.example/", "listed": "cited"},
}
ANSWERS = [
    f"Claim {S}cite{D}s1{E}.\n",
    "No citation at all.\n",
    f"A {S}cite{D}s1{E} b {S}cite{D}zz{E} and c{S}cite{D}s1{E}.\n\n# Ref 1\n\n## Cite 1 card\n\nMore[^1].\n\n[^1]: a note\n",
]


def _duplicates(html: str) -> dict[str, int]:
    ids = Counter(re.findall(r"""\sid=["']([^"']*)["']""", html))
    return {k: n for k, n in ids.items() if n > 1}


def test_reproducer_consulted_before_a_placeless_cited_source() -> None:
    """G19: a consulted source before a ``"listed": "cited"`` one gave two ``id="ref-2"``."""
    reg = registry_from_data([SOURCES["s1"], SOURCES["c1"], SOURCES["l1"]])
    html = render(f"Claim {S}cite{D}s1{E}.\n", reg, consulted=True).html
    assert _duplicates(html) == {}
    assert html.count('id="ref-2"') == 1 and 'id="consulted-1"' in html


@pytest.mark.parametrize("style", STYLES)
def test_every_id_is_unique_in_any_order_of_the_sources(style: str) -> None:
    """G19 variants: every order of cited, consulted and placeless-cited sources, with and without
    ``list_all``, headings named like citerender's own ids, the model's own notes; every style."""
    for order in itertools.permutations(SOURCES):
        reg = registry_from_data([SOURCES[k] for k in order])
        for answer, list_all in itertools.product(ANSWERS, (False, True)):
            html = render(answer, reg, style=style, consulted=True, list_all=list_all).html
            assert _duplicates(html) == {}, (order, answer, list_all)


def test_ids_stay_unique_with_a_prefix_and_in_a_standalone_page() -> None:
    reg = registry_from_data([SOURCES[k] for k in ("c1", "l1", "s1", "c2", "l2")])
    for style in STYLES:
        for prefix in ("", "a1"):
            page = render(ANSWERS[2], reg, style=style, consulted=True, id_prefix=prefix, standalone=True).html
            assert _duplicates(page) == {}, (style, prefix)


def test_a_heading_never_takes_an_id_of_citerenders_own() -> None:
    """A heading "Ref 1" gets ``section-ref-1``: ``ref-1`` is the first entry of Sources."""
    reg = registry_from_data([SOURCES["s1"]])
    html = render(f"# Ref 1\n\nClaim {S}cite{D}s1{E}.\n\n## Install\n", reg).html
    assert '<h1 id="section-ref-1">' in html and 'id="install"' in html and html.count('id="ref-1"') == 1
