"""Token meta is plain data (issue 47): the plugin's tokens address marks, references and claims by
index into the document state, never by live object, so ``json.dumps(token.meta)`` works for every
token — after ``md.parse`` and a render in every style, with and without the evidence check, and on
``parse_answer``'s tokens (the exports' parse)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from conftest import expand
from markdown_it import MarkdownIt
from markdown_it.token import Token

from citerender import RenderOptions, Source, citation_plugin
from citerender.rendering.exports.parsed import parse_answer
from citerender.sources.model import Registry

REG = Registry(
    [
        Source(id="a", title="Alpha", url="https://a.example/x", lines=["one", "two", "three"]),
        Source(id="b", title="Beta", url="https://a.example/x"),  # shares a URL: merged into a
        Source(id="c", title="Gamma", lines=["Water boils at 100 degrees."]),
    ]
)
ANSWER = expand(
    "Claim one.{S}cite{D}a{D}L1-L2{E}{S}cite{D}b{E} Claim two{S}cite{D}c{D}L9{E}.\n\n"
    "Copy form citeturn0search0 and {S}cite{D}zz{E} unknown. A note[^n].\n\n"
    "![alt {S}cite{D}a{E}](img.png) and {S}i{D}highlighted{E} text.\n\n"
    "[^n]: Note text {S}cite{D}c{D}L1{E}.\n"
)


def _walk(tokens: list[Token]) -> Iterator[Token]:
    for tok in tokens:
        yield tok
        if tok.children:
            yield from _walk(tok.children)


def _assert_plain(tokens: list[Token]) -> int:
    seen = 0
    for tok in _walk(tokens):
        if tok.meta:
            json.loads(json.dumps(tok.meta))  # no live object, no cycle
            seen += tok.type.startswith("citation") or tok.type == "citerender_bibliography"
    return seen


@pytest.mark.parametrize("style", ["footnotes", "superscript", "hovercard", "pills", "sidenotes"])
@pytest.mark.parametrize("evidence", [False, True])
def test_every_token_meta_dumps_to_json_after_a_render(style: str, evidence: bool) -> None:
    md = MarkdownIt("commonmark").enable("table").use(
        citation_plugin, registry=REG, options=RenderOptions(style=style, evidence=evidence)
    )
    env: dict = {}
    tokens = md.parse(ANSWER, env)
    md.renderer.render(tokens, md.options, env)
    assert _assert_plain(tokens) >= 4  # the citations, a dropped mark and the bibliography were all read


def test_parse_answer_tokens_are_plain_and_resolve_through_the_state() -> None:
    parsed = parse_answer(ANSWER, REG)
    assert _assert_plain(parsed.tokens) >= 4
    first = parsed.groups[0]
    uses = parsed.state.uses(first)  # the renderers' view: reference and source looked up
    assert [(u.reference.number, u.source.id) for u in uses] == [(1, "a"), (1, "b")]
    assert [m.raw for m in parsed.state.group_marks(first)][0].startswith("\ue200cite")
    assert tuple(first.meta["uses"][0]) == (1, "a", (1, 2), True)  # plain: reference number, source id, lines
