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


# -- the parts the pipeline swaps for ones that hold less (rendering/frugal.py) --------------------


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="a\n\r\x00é😀 ", max_size=40))
def test_normalize_is_markdown_its_own_and_copies_nothing_it_need_not(src: str) -> None:
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_core.normalize import normalize as theirs

    from citerender.rendering.frugal import normalize

    a, b = StateCore(src, MarkdownIt(), {}), StateCore(src, MarkdownIt(), {})
    normalize(a)
    theirs(b)
    assert a.src == b.src
    if "\r" not in src and "\x00" not in src:
        assert a.src is src


def test_the_parse_keeps_the_answer_it_was_given_not_a_copy() -> None:
    from citerender.rendering.pipeline import pipeline

    text = "A claim.\ue200cite\ue202turn0search0\ue201\n\nMore, é.\n"
    assert pipeline(RenderOptions()).parse(text, REGISTRY).state.original is text
    crlf = text.replace("\n", "\r\n")
    assert pipeline(RenderOptions()).parse(crlf, REGISTRY).state.original == text


def _many_groups() -> tuple[str, Registry]:
    """An answer of 400 sentences, each citing its own pair of 30 sources: more distinct groups
    than the labels kept per document (``styles.MAX_LABELS``), some of them repeated."""
    from citerender.sources.model import registry_from_data

    reg = registry_from_data(
        [{"id": f"s{i}", "title": f"Source {i}", "url": f"https://e{i}.example/"} for i in range(30)]
    )
    pairs = [(i, j) for i in range(30) for j in range(i + 1, 30)][:300]
    pairs += pairs[:100]  # repeated groups, after the cap is reached
    mark = "\ue200cite\ue202{}\ue202{}\ue201"
    text = "\n".join(f"- Claim {k}.{mark.format(f's{i}', f's{j}')}" for k, (i, j) in enumerate(pairs))
    return text, reg


@pytest.mark.parametrize("style", ["footnotes", "hovercard", "superscript"])
def test_labels_past_the_kept_ones_and_the_page_grown_either_way_are_the_same_html(
    style: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``MAX_LABELS`` a label is made anew; where ``+=`` would copy (PyPy, free-threaded
    CPython) the fragments are joined: neither changes a byte of the page."""
    from citerender.plugin import styles
    from citerender.rendering import frugal

    text, reg = _many_groups()
    opts = RenderOptions(style=style)  # type: ignore[arg-type]
    expected = render(text, reg, opts).html
    assert expected.count('class="citerender-cite') == 400
    monkeypatch.setattr(styles, "MAX_LABELS", 10**9)
    assert render(text, reg, opts).html == expected
    monkeypatch.setattr(frugal, "IN_PLACE", False)
    assert render(text, reg, opts).html == expected
    monkeypatch.undo()
    _same(text, reg, style)  # and markdown-it's own renderer, as a plugin user runs it


def test_under_a_profiler_on_3_11_the_page_is_joined_not_grown() -> None:
    """CPython 3.11 copies a string on ``+=`` under a tracer or profiler (quadratic in the page);
    the renderer joins its fragments then, and the page is the same."""
    import sys

    from citerender.rendering import frugal

    text, reg = _many_groups()
    expected = render(text, reg).html
    previous = sys.getprofile()
    sys.setprofile(lambda *args: None)
    try:
        inside = frugal.grows_in_place()
        html = render(text, reg).html
    finally:
        sys.setprofile(previous)
    assert html == expected
    assert inside is (frugal.IN_PLACE and sys.version_info >= (3, 12))
