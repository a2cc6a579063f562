"""Plain data (issue 47). Token meta addresses marks, references and claims by index into the
document, never by live object: ``json.dumps(token.meta)`` works for every token, after
``md.parse`` and a render in every style, with and without the evidence check, and on
``parse_answer``'s tokens. ``env["citerender"]`` is the document table, plain data too, and the
truth: a document renders from it when its working state is not at hand."""

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
    md = (
        MarkdownIt("commonmark")
        .enable("table")
        .use(citation_plugin, registry=REG, options=RenderOptions(style=style, evidence=evidence))
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
    assert parsed.state.group_marks(first)[0].raw.startswith("\ue200cite")
    assert tuple(first.meta["uses"][0]) == (1, "a", (1, 2), True)  # plain: reference number, source id, lines


def _plugin_keys(env: dict, md: MarkdownIt) -> list[str]:
    """The keys of ``env`` a plain markdown-it parser (with the same presets, without us) does not
    add, and any key naming ``cite``."""
    plain_env: dict = {}
    MarkdownIt("commonmark").enable("table").parse(ANSWER, plain_env)
    return [k for k in env if k not in plain_env or "cite" in k]


@pytest.mark.parametrize("style", ["footnotes", "hovercard", "sidenotes", "pills"])
@pytest.mark.parametrize("evidence", [False, True])
def test_the_env_values_the_plugin_adds_dump_to_json(style: str, evidence: bool) -> None:
    md = (
        MarkdownIt("commonmark")
        .enable("table")
        .use(citation_plugin, registry=REG, options=RenderOptions(style=style, evidence=evidence))
    )
    env: dict = {}
    md.renderer.render(md.parse(ANSWER, env), md.options, env)
    keys = _plugin_keys(env, md)
    assert "citerender" in keys
    for key in keys:
        json.loads(json.dumps(env[key]))
    table = env["citerender"]
    assert [(r["number"], r["source"], r["merged"]) for r in table["references"]] == [(1, "a", ["b"]), (2, "c", [])]
    assert {d["code"] for d in table["diagnostics"]} >= {"CR101", "CR102"}  # unknown id; L9 of a one-line source
    assert table["marks"][0][4][2] == ("a",)  # the first mark's citation's source ids
    if evidence:
        assert table["claims"] and all(isinstance(c["verdict"], str) for c in table["claims"])


def test_a_document_renders_from_its_table_after_another_was_parsed() -> None:
    """The table is the truth: the working state of a document is built back from it when it is
    not at hand (one answer parsed, then another, then the first rendered)."""
    md = MarkdownIt("commonmark").use(citation_plugin, registry=REG, style="hovercard")
    env_a: dict = {}
    expected = md.render(ANSWER, env_a)
    env_a, env_b = {}, {}
    tokens_a = md.parse(ANSWER, env_a)
    for k in range(12):  # more documents than a thread keeps at hand
        md.parse(expand(f"Other {k}.{{S}}cite{{D}}c{{E}}\n"), {} if k else env_b)
    assert md.renderer.render(tokens_a, md.options, env_a) == expected
    assert json.loads(json.dumps(env_b["citerender"]))["references"][0]["source"] == "c"


def test_threads_rendering_with_one_parser_keep_their_documents_apart() -> None:
    from concurrent.futures import ThreadPoolExecutor

    md = MarkdownIt("commonmark").use(citation_plugin, registry=REG)
    answers = [expand(f"Claim {k}.{{S}}cite{{D}}{'ac'[k % 2]}{{D}}L1{{E}}\n") for k in range(40)]
    alone = [md.render(a) for a in answers]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(md.render, answers)) == alone


def test_a_stream_leaves_its_document_as_plain_data() -> None:
    from citerender import StreamRenderer

    sr = StreamRenderer(REG, output="html")
    for ch in ANSWER:
        sr.feed(ch)
    sr.close()
    table = sr._sink.env["citerender"]
    json.loads(json.dumps(table))
    assert [r["source"] for r in table["references"]] == ["a", "c"]
    assert table["whole_document"] is False and table["diagnostics"]


@pytest.mark.parametrize("style", ["footnotes", "hovercard", "superscript", "pills", "sidenotes"])
def test_a_render_leaves_no_reference_cycle(style: str) -> None:
    """A render frees everything it made as it returns (reference counting alone): no cycle
    between the working state and the caches of its rules. A cycle per render made the garbage
    collector run twice as often on a service rendering answer after answer (see bench/README.md)."""
    import gc

    from citerender import render
    from citerender.records import BOUND_CALLS

    for _ in range(BOUND_CALLS + 1):  # the classes a render builds have compiled their __init__ (once)
        render(ANSWER, REG, style=style, evidence=True)
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            render(ANSWER, REG, style=style, evidence=True)
            render(ANSWER, REG, style=style)
        assert gc.collect() == 0
    finally:
        gc.enable()
