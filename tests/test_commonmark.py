"""With the plugin enabled, every CommonMark spec example renders exactly as without it."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from conftest import DATA
from markdown_it import MarkdownIt

from citerender.plugin import citation_plugin
from citerender.sources.model import registry_from_data
from citerender.sources.urls import is_live_link


def html_text(html: str) -> str:
    return unescape(re.sub(r"<[^>]*>", "", html))


SPEC = json.loads((DATA / "commonmark-spec.json").read_text(encoding="utf-8"))
PLAIN = MarkdownIt("commonmark")
REGISTRY = registry_from_data([{"id": "turn0file0", "title": "T", "url": "https://a.example/"}])
PLUGGED = {
    style: MarkdownIt("commonmark").use(citation_plugin, registry=REGISTRY, style=style)
    for style in ("footnotes", "superscript", "hovercard")
}


def test_spec_has_652_examples() -> None:
    assert len(SPEC) == 652


def _hrefs(html: str) -> list[str]:
    return [unescape(u) for u in re.findall(r'(?:href|src)="([^"]*)"', html)]


#: the spec's autolinks with a scheme outside the one URL allow-list (irc:, a+b+c:, made-up-scheme:,
#: localhost:): the only examples the plugin changes, each written as text instead of a live link
REFUSED = {596, 598, 599, 601}


def test_the_examples_the_allow_list_refuses() -> None:
    assert {
        ex["example"] for ex in SPEC if any(is_live_link(u) for u in _hrefs(PLAIN.render(ex["markdown"])))
    } == REFUSED


@pytest.mark.parametrize("style", sorted(PLUGGED))
def test_every_spec_example_is_unchanged(style: str) -> None:
    md = PLUGGED[style]
    differ = [ex["example"] for ex in SPEC if md.render(ex["markdown"]) != PLAIN.render(ex["markdown"])]
    assert set(differ) == REFUSED
    for ex in SPEC:
        if ex["example"] in REFUSED:
            out = md.render(ex["markdown"])
            assert _hrefs(out) == [] and html_text(out).strip() == ex["markdown"].strip(), ex


def test_spec_examples_unchanged_with_a_citation_appended() -> None:
    """A marker after each example changes nothing but adds the citation and bibliography."""
    md = PLUGGED["footnotes"]
    marker = "\ue200cite\ue202turn0file0\ue201"
    for ex in SPEC:
        out = md.render(ex["markdown"] + "\n\nTail." + marker + "\n")
        assert "\ue200" not in out and "\ue201" not in out and "\ue202" not in out, ex["example"]


@pytest.mark.parametrize("setup", ["zero", "text disabled", "text replaced after"])
def test_markers_are_read_whatever_became_of_the_text_rule(setup: str) -> None:
    """The text rule hands markers to the citation rule; a parser whose text rule is off, or
    replaced by another plugin after ours, still reads them with the citation rule itself."""
    from markdown_it.rules_inline.text import text

    md = MarkdownIt("zero" if setup == "zero" else "commonmark")
    if setup == "text disabled":
        md.disable("text")
    md.use(citation_plugin, bibliography=False)
    if setup == "text replaced after":
        md.inline.ruler.at("text", text)
    html = md.render("A claim.\ue200cite\ue202turn0file0\ue201 More.")
    assert 'id="cite-1"' in html and "\ue200" not in html and "turn0file0" not in html.split("</sup>")[1]
