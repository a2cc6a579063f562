"""Block-by-block rendering (the commonmark preset's path in ``render``) against ``md.render``:
the same HTML, diagnostics and references on every fixture, the fuzz corpus and the CommonMark
spec's examples; and the presets whose rules read the whole token stream keep ``md.render``."""

from __future__ import annotations

import json
from typing import Any

import pytest
import test_render
from conftest import FIXTURES, ROOT, expand
from hypothesis import HealthCheck, given, settings
from markdown_it.utils import read_fixture_file
from test_fuzz import answers, registries

from citerender import RenderOptions, load_sources
from citerender.errors import CiterenderError
from citerender.plugin.state import CitationState
from citerender.rendering.blockwise import render_blockwise
from citerender.rendering.html import make_markdown
from citerender.sources.model import Registry

REG = load_sources(FIXTURES / "diagnostics.sources.json")
CASES = [
    (name, line, title, text)
    for name in ("diagnostics.md", "render.md", "dialects.md")
    for line, title, text, _ in read_fixture_file(FIXTURES / name)
]


def _both(text: str, registry: Registry | None, **kw: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    md = make_markdown(RenderOptions.build(None, markdown="commonmark", **kw))
    out = []
    for blockwise in (False, True):
        st = CitationState(registry=registry)
        env = {"citerender": st}
        html = render_blockwise(md, text, env) if blockwise else md.render(text, env)
        assert html is not None
        diags = sorted((d.code, d.line, d.column, d.message) for d in st.diagnostics)
        refs = [(r.number, r.source.id, [p.anchor for p in r.places]) for r in st.references]
        out.append((html, diags, refs))
    return out[0], out[1]


@pytest.mark.parametrize(("name", "line", "title", "text"), CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_every_fixture_renders_the_same(name: str, line: int, title: str, text: str) -> None:
    registry = None if "[no sources]" in title else (test_render.REG if name == "render.md" else REG)
    style = title.split(":", 1)[0] if name == "render.md" else "footnotes"
    whole, blockwise = _both(expand(text), registry, style=style, unknown="keep")
    assert blockwise == whole


def test_commonmark_spec_examples_render_the_same() -> None:
    examples = json.loads((ROOT / "tests" / "data" / "commonmark-spec.json").read_text(encoding="utf-8"))
    page = "\n\n".join(e["markdown"] for e in examples)  # link definitions and all, on one page
    whole, blockwise = _both(page, None)
    assert blockwise == whole
    for example in examples[:300]:  # and one by one: tight and loose lists, hidden paragraphs
        whole, blockwise = _both(example["markdown"], None)
        assert blockwise == whole, example["example"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(answers, registries())
def test_fuzz_corpus_renders_the_same(text: str, reg: Registry) -> None:
    try:
        whole, blockwise = _both(text, reg, unknown="keep", style="hovercard")
    except CiterenderError:
        return
    assert blockwise == whole


def test_presets_reading_the_whole_stream_keep_markdown_it_render() -> None:
    md = make_markdown(RenderOptions())  # full: footnotes move to the end, headings get anchors
    assert render_blockwise(md, "Text.[^1]\n\n[^1]: A note.\n", {"citerender": CitationState()}) is None
    evidence = make_markdown(RenderOptions(markdown="commonmark", evidence=True))
    assert render_blockwise(evidence, "Text.", {"citerender": CitationState()}) is None


def test_a_long_answer_marks_its_bibliography_once() -> None:
    text = ("A sentence that runs on for a while. " * 40 + "\ue200cite\ue202turn0file0\ue201\n\n") * 5
    whole, blockwise = _both(text, REG)
    assert blockwise == whole
    assert blockwise[0].count("citerender-after-long") == 1


def test_a_bibliography_renderer_without_the_class_gets_it_added() -> None:
    from markdown_it import MarkdownIt

    from citerender.plugin import citation_plugin

    def mine(references: Any, style: str) -> str:
        return f'<section class="citerender-bibliography">{len(references)} sources</section>'

    md = MarkdownIt("commonmark").use(citation_plugin, registry=REG, bibliography_renderer=mine)
    text = "A sentence that runs on for a while. " * 200 + "\ue200cite\ue202turn0file0\ue201\n"
    html = md.render(text)
    assert '<section class="citerender-bibliography citerender-after-long">1 sources</section>' in html
