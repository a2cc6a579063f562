"""The plugin's core work is a chain of core rules, one module each, in the order the work happens;
each can be seen and disabled by name, and each does real work (disabling it changes the page, the
tokens or the document state)."""

from __future__ import annotations

import pytest
from conftest import expand
from markdown_it import MarkdownIt

from citerender import Source, citation_plugin
from citerender.sources.model import Registry

CHAIN = ["citerender_scrub", "citerender", "citerender_placement", "citerender_bibliography"]
REG = Registry(
    [
        Source(id="a", title="Alpha", url="https://a.example/", lines=["one", "two"]),
        Source(id="b", title="Beta", url="https://b.example/"),
        Source(id="c", title="Gamma", url="https://c.example/"),
    ]
)
#: an answer each rule has work in: a marker in code, citations, all grouped in the last paragraph
ANSWER = expand(
    "First paragraph with `code{S}cite{D}a{E}`.\n\nSecond paragraph.\n\nThird.{S}cite{D}a{D}L1{E}{S}cite{D}b{E}\n"
)


def _md() -> MarkdownIt:
    return MarkdownIt("commonmark").use(citation_plugin, registry=REG)


def _outcome(md: MarkdownIt) -> tuple[str, list[tuple[str, str]], list[str]]:
    env: dict = {}
    tokens = md.parse(ANSWER, env)
    html = md.renderer.render(tokens, md.options, env)
    table = env["citerender"]  # the document table: plain data
    return html, [(t.type, t.content) for t in tokens], sorted(d["code"] for d in table.get("diagnostics", []))


def test_the_chain_runs_in_order_from_four_modules() -> None:
    md = _md()
    names = [r.name for r in md.core.ruler.__rules__]
    at = [names.index(n) for n in CHAIN]
    assert at == sorted(at) and names.index("text_join") < at[0]
    modules = {
        r.fn.func.__module__  # type: ignore[attr-defined]
        for r in md.core.ruler.__rules__
        if r.name in CHAIN
    }
    assert len(modules) == 4, modules


@pytest.mark.parametrize("name", CHAIN)
def test_each_rule_does_real_work(name: str) -> None:
    whole = _outcome(_md())
    md = _md()
    md.core.ruler.disable(name)
    try:
        without = _outcome(md)
    except Exception:  # a rule the next ones need: rendering fails without it
        return
    assert without != whole


def test_what_each_rule_contributes() -> None:
    whole_html, _, codes = _outcome(_md())
    assert "CR302" in codes and "CR305" in codes  # scrub reported the code marker; placement the grouping
    assert 'class="citerender-bibliography"' in whole_html
    md = _md()
    md.core.ruler.disable("citerender_bibliography")
    assert "citerender-bibliography" not in _outcome(md)[0]
    md = _md()
    md.core.ruler.disable("citerender_placement")
    assert "CR305" not in _outcome(md)[2]
    md = _md()
    md.core.ruler.disable("citerender_scrub")
    assert "CR302" not in _outcome(md)[2]
