"""``render()`` is ``md.render`` with the plugin, the path a plugin user runs: same HTML, same
diagnostics and references, over the render fixtures, the CommonMark examples and the fuzz corpus."""

from __future__ import annotations

import json

import pytest
from conftest import DATA, FIXTURES, expand
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.utils import read_fixture_file
from test_fuzz import answers, registries

from citerender import RenderOptions, load_sources, render
from citerender.diagnostics import sort_key
from citerender.options import STYLES as ALL_STYLES
from citerender.plugin import citation_plugin
from citerender.plugin.state import citation_state
from citerender.rendering.themes import load_theme
from citerender.sources.model import Registry
from citerender.syntax.residue import clean_html

SPEC = json.loads((DATA / "commonmark-spec.json").read_text(encoding="utf-8"))
RENDER_CASES = read_fixture_file(FIXTURES / "render.md")
REGISTRY = load_sources(FIXTURES / "diagnostics.sources.json")


def plugin_user(text: str, registry: Registry | None, opts: RenderOptions) -> tuple[str, list[object], list[object]]:
    """What a reader of the README writes: markdown-it-py's CommonMark parser with tables and
    strikethrough, and the plugin (images kept: hiding them is ``render``'s page policy)."""
    md = MarkdownIt("commonmark", {"html": opts.html}).enable(["table", "strikethrough"])
    md.use(
        citation_plugin,
        registry=registry,
        options=opts,
        bibliography_renderer=load_theme(opts.theme).render_bibliography,
    )
    env: dict[str, object] = {}
    html = clean_html(md.render(text, env))[0]
    st = citation_state(env)
    return html, sorted(st.diagnostics, key=sort_key), [(r.number, r.source.id) for r in st.references]


def ours(text: str, registry: Registry | None, opts: RenderOptions) -> tuple[str, list[object], list[object]]:
    r = render(text, registry, opts)
    return (
        r.body,
        [d for d in r.diagnostics if d.code != "CR109"],
        [(ref.number, ref.source.id) for ref in r.bibliography],
    )


def _same(text: str, registry: Registry | None, style: str = "footnotes") -> None:
    opts = RenderOptions(markdown="commonmark", images="keep", style=style)  # type: ignore[arg-type]
    mine, theirs = ours(text, registry, opts), plugin_user(text, registry, opts)
    assert mine[0] == theirs[0]
    assert mine[1] == [d for d in theirs[1] if getattr(d, "code", "") != "CR109"]
    assert mine[2] == theirs[2]


@pytest.mark.parametrize("style", ALL_STYLES)
def test_render_is_the_plugin_on_every_render_fixture(style: str) -> None:
    for line, title, text, _ in RENDER_CASES:
        try:
            _same(expand(text), REGISTRY, style)
        except AssertionError as e:
            raise AssertionError(f"{title} (render.md line {line})") from e


def test_render_is_the_plugin_on_every_commonmark_example() -> None:
    for ex in SPEC:
        _same(ex["markdown"], REGISTRY)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers, registries(), st.sampled_from(ALL_STYLES))
def test_render_is_the_plugin_on_the_fuzz_corpus(text: str, reg: Registry, style: str) -> None:
    _same(text, reg, style)


def test_token_meta_holds_plain_data_not_parser_objects() -> None:
    """Offsets as ints, places as (line, fence): no token, locator or callable parked in meta."""
    from markdown_it.token import Token

    from citerender.plugin.locate import Locator
    from citerender.rendering.exports.parsed import parse_answer

    def walk(value: object, where: str) -> None:
        assert not isinstance(value, Token | Locator) and not callable(value), where
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{where}.{k}")
        elif isinstance(value, list | tuple):
            for k, v in enumerate(value):
                walk(v, f"{where}[{k}]")

    for _, title, text, _ in RENDER_CASES:
        parsed = parse_answer(expand(text), REGISTRY, evidence=True)
        for tok in parsed.groups:
            walk(tok.meta, title)
            assert isinstance(tok.meta["offset"], int) and isinstance(tok.meta["place"][0], int)
