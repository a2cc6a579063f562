"""Block-by-block rendering (``render``'s path for both presets) against ``md.render``: the same
HTML, diagnostics and references on every fixture, the fuzz corpus and the CommonMark spec's
examples; footnotes, task lists and heading ids across stretches; and a parser with a core rule
that reads the whole token stream keeps ``md.render``."""

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
    for name in ("diagnostics.md", "render.md", "dialects.md", "features.md")
    for line, title, text, _ in read_fixture_file(FIXTURES / name)
]
PRESETS = ("commonmark", "full")


def _both(
    text: str, registry: Registry | None, markdown: str = "commonmark", **kw: Any
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    md = make_markdown(RenderOptions.build(None, markdown=markdown, **kw))
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


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize(("name", "line", "title", "text"), CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_every_fixture_renders_the_same(name: str, line: int, title: str, text: str, preset: str) -> None:
    registry = None if "[no sources]" in title else (test_render.REG if name == "render.md" else REG)
    style = title.split(":", 1)[0] if name == "render.md" else "footnotes"
    whole, blockwise = _both(expand(text), registry, preset, style=style, unknown="keep")
    assert blockwise == whole


@pytest.mark.parametrize("preset", PRESETS)
def test_commonmark_spec_examples_render_the_same(preset: str) -> None:
    examples = json.loads((ROOT / "tests" / "data" / "commonmark-spec.json").read_text(encoding="utf-8"))
    page = "\n\n".join(e["markdown"] for e in examples)  # link definitions and all, on one page
    whole, blockwise = _both(page, None, preset)
    assert blockwise == whole
    for example in examples[:300]:  # and one by one: tight and loose lists, hidden paragraphs
        whole, blockwise = _both(example["markdown"], None, preset)
        assert blockwise == whole, example["example"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(answers, registries())
def test_fuzz_corpus_renders_the_same(text: str, reg: Registry) -> None:
    for preset in PRESETS:
        try:
            whole, blockwise = _both(text, reg, preset, unknown="keep", style="hovercard")
        except CiterenderError:
            return
        assert blockwise == whole


_CITE = "\ue200cite\ue202turn0file0\ue201"
_FILLER = "A sentence that runs on for a while, long enough to fill a stretch. " * 30


@pytest.mark.parametrize(
    "text",
    [
        # footnote definitions far apart: parsed in place (note numbers), written at the end
        f"Body.[^b]{_CITE}\n\n[^a]: Unused, with a citation.{_CITE}\n\n"
        + f"{_FILLER}\n\n" * 20
        + f"[^b]: See [^c].{_CITE}\n\n"
        + f"{_FILLER}\n\n" * 20
        + f"More.[^c]\n\n[^c]: Last.\n\n# End{_CITE}\n",
        # nested and list-bound definitions, as footnote_tail reads them
        "Text.[^1] and[^2]\n\n[^1]: One\n    [^2]: Two\n\n    After.\n\n- item\n\n  [^3]: In a list.[^1]\n",
        # the same heading in many stretches: ids stay unique across the answer
        "".join(f"## Results{_CITE}\n\n{_FILLER}\n\n" for _ in range(40)),
        # a task list longer than a stretch, its <ul> written before its last item is parsed
        "".join(f"- [{'x' if i % 2 else ' '}] {_FILLER}{_CITE}\n" for i in range(60)),
        # a quote and a table, each longer than a stretch
        "".join(f"> {_FILLER}{_CITE}\n>\n" for _ in range(60))
        + "\n| a | b |\n|---|---|\n"
        + "".join(f"| {_FILLER} | x{_CITE} |\n" for _ in range(60)),
    ],
    ids=["footnotes", "nested-definitions", "heading-ids", "task-list", "quote-and-table"],
)
def test_the_full_presets_rules_across_stretches(text: str) -> None:
    whole, blockwise = _both(text, REG, "full", unknown="keep")
    assert blockwise == whole
    assert len(whole[0]) > 0


def test_a_parser_with_a_rule_reading_the_whole_stream_keeps_markdown_it_render() -> None:
    evidence = make_markdown(RenderOptions(markdown="commonmark", evidence=True))
    assert render_blockwise(evidence, "Text.", {"citerender": CitationState()}) is None
    md = make_markdown(RenderOptions())
    md.core.ruler.push("a_callers_rule", lambda state: None)
    assert render_blockwise(md, "Text.", {"citerender": CitationState()}) is None


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
