"""Residue inside URLs: a URL that needed marker removal is never a link (hardening, finding 1).

markdown-it validates a link before our residue pass runs; removing ``%EE%88%80`` from
``java%EE%88%80script:`` afterwards would make the link the validator refused. Every output path
is checked with the exact input of the report and its variants: fragments in every style,
``render_answer``, the Jinja filter, streamed HTML (any split), the Markdown and JSON exports read
back by pandoc and markdown-it, and source URLs in the bibliography.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import assert_no_marker, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from citerender import render
from citerender.publish.web import citations, render_answer
from citerender.rendering.exports.json import to_json
from citerender.rendering.exports.markdown import to_markdown
from citerender.rendering.exports.parsed import parse_answer
from citerender.rendering.exports.text import to_text
from citerender.sources.model import registry_from_data
from citerender.sources.urls import is_live_link
from citerender.stream import StreamRenderer
from citerender.syntax.residue import RESIDUE, has_residue

RESIDUES = [
    "\ue200",
    "%EE%88%80",
    "%ee%88%86",
    "\\ue200",
    "\\\\ue200",
    "\\u{E200}",
    "&#xE200;",
    "&#x0E200;",
    "&#X0e200;",
    "&#xE200",
    "&#57856;",
    "&#057856;",
    "\ue202",
    "\ue201",
]
SPLICES = [
    "java{R}script:alert(document.domain)",
    "{R}javascript:alert(1)",
    "javascript{R}:alert(1)",
    "vb{R}script:msgbox(1)",
    "da{R}ta:text/html,<script>alert(1)</script>",
]
FORMS = [
    "[click]({U})",
    "[click][x]\n\n[x]: {U}",
    "<{U}>",
    "![i]({U})",
    '[click]({U} "t")',
    "- item [click]({U})",
    "> quoted [click]({U})",
    "| a |\n|---|\n| [click]({U}) |",
]
EXACT = "[click](java%EE%88%80script:alert(document.domain))"
DANGEROUS = re.compile(r"^\s*(javascript|vbscript|data|livescript|java:)", re.I)


def _cases() -> list[str]:
    out = [EXACT]
    for r in RESIDUES:
        for splice in SPLICES:
            url = splice.replace("{R}", r)
            out.extend(form.replace("{U}", url) for form in FORMS)
    return out


CASES = _cases()


def _assert_html_has_no_live_url(html: str, what: str) -> None:
    assert_no_marker(html, what)
    soup = BeautifulSoup(html, "html.parser")
    for el in soup.find_all(True):
        for attr in ("href", "src", "srcset", "action", "formaction", "xlink:href"):
            value = el.get(attr)
            if value is None:
                continue
            assert not DANGEROUS.match(re.sub(r"[\s\x00-\x1f]", "", str(value))), f"{what}: live {attr}={value!r}"
            assert not is_live_link(str(value)), f"{what}: {attr}={value!r}"


def test_the_reported_input_is_text_not_a_link() -> None:
    html = render_answer(EXACT)
    assert "<a " not in html
    assert "javascript:alert(document.domain)" in BeautifulSoup(html, "html.parser").get_text()


@pytest.mark.parametrize("style", ["footnotes", "superscript", "hovercard"])
def test_fragments_never_link_a_cleaned_url(style: str) -> None:
    for case in CASES:
        _assert_html_has_no_live_url(render(case, style=style).html, f"{style}: {case!r}")


def test_render_answer_and_jinja_filter() -> None:
    for case in CASES:
        _assert_html_has_no_live_url(render_answer(case), f"render_answer {case!r}")
        _assert_html_has_no_live_url(str(citations(case)), f"filter {case!r}")


@pytest.mark.parametrize("size", [1, 3, 7, 20])
def test_streamed_html_any_split(size: int) -> None:
    for case in CASES:
        sr = StreamRenderer(None, output="html")
        out = "".join(sr.feed(case[i : i + size]) for i in range(0, len(case), size)) + sr.close()
        _assert_html_has_no_live_url(out, f"stream/{size} {case!r}")


def test_source_urls_with_residue_are_not_links() -> None:
    data = [
        {"id": f"s{i}", "title": f"Source {i}", "url": splice.replace("{R}", r)}
        for i, (r, splice) in enumerate((r, s) for r in RESIDUES for s in SPLICES)
    ]
    reg = registry_from_data(data)
    answer = " ".join(f"Claim {i}.\ue200cite\ue202s{i}\ue201" for i in range(len(data)))
    for style in ("footnotes", "superscript", "hovercard"):
        _assert_html_has_no_live_url(render(answer, reg, style=style, standalone=True).html, style)
    sr = StreamRenderer(reg, output="html", style="hovercard")
    _assert_html_has_no_live_url(sr.feed(answer) + sr.close() + sr.bibliography_html(), "stream bibliography")
    p = parse_answer(answer, reg)
    for ref in json.loads(to_json(p))["bibliography"]:
        assert ref["url"] is None
    assert "javascript" not in to_text(p).lower()


def _permissive_links(markdown: str) -> list[str]:
    md = MarkdownIt("commonmark", {"html": True}).enable(["table"])
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    urls = []
    for tok in md.parse(markdown):
        for child in tok.children or []:
            if child.type in ("link_open", "image"):
                urls.append(str(child.attrs.get("href") or child.attrs.get("src")))
    return urls


def test_markdown_export_never_carries_an_unsafe_link() -> None:
    for case in [*CASES, "[click](javascript:alert(1))", "[a](javascript&#58;alert(1))", "<javascript:alert(1)>"]:
        out = to_markdown(parse_answer(case))
        assert_no_marker(out, f"markdown export of {case!r}")
        for url in _permissive_links(out):
            assert not is_live_link(url), f"{case!r} -> {out!r}"


def test_markdown_export_keeps_safe_links_and_notes() -> None:
    answer = "See [the docs](https://example.com/a) and `[x](javascript:y)`.\ue200cite\ue202s1\ue201\n"
    reg = registry_from_data([{"id": "s1", "title": "Docs", "url": "https://example.com/a"}])
    out = to_markdown(parse_answer(answer, reg))
    assert "[the docs](https://example.com/a)" in out
    assert "`[x](javascript:y)`" in out  # no unsafe link outside code: the text is not touched
    assert "[^1]" in out


def test_json_export_text_has_no_unsafe_link() -> None:
    for case in CASES:
        data = json.loads(to_json(parse_answer(case)))
        for url in _permissive_links(data["text"]):
            assert not is_live_link(url), f"{case!r} -> {data['text']!r}"


def test_pandoc_reads_the_markdown_export_without_a_script_link() -> None:
    doc = "\n\n".join([*CASES[:: max(1, len(CASES) // 120)], "[click](javascript:alert(1))"])
    out = to_markdown(parse_answer(doc))
    html = subprocess.run(
        ["pandoc", "-f", "markdown", "-t", "html"], input=out, capture_output=True, text=True, check=True
    ).stdout
    _assert_html_has_no_live_url(html, "pandoc")


@pytest.mark.parametrize("size", [1, 5, 23])
def test_streamed_markdown_never_carries_an_unsafe_link(size: int) -> None:
    for case in [
        *CASES,
        "[click](java\ue201script:alert(1))",
        "[c](\ue201javascript:alert(1))",
        "[c](javascript\ue201:alert(1))",
        "<java\ue204script:alert(1)>",
    ]:
        sr = StreamRenderer(None, output="markdown")
        out = "".join(sr.feed(case[i : i + size]) for i in range(0, len(case), size)) + sr.close()
        assert_no_marker(out, f"streamed markdown of {case!r}")
        for url in _permissive_links(out):
            assert not is_live_link(url), f"{case!r} -> {out!r}"


def test_strip_command_never_carries_an_unsafe_link(tmp_path: Path) -> None:
    f = tmp_path / "a.md"
    f.write_text("\n\n".join(CASES[::7]) + "\n\n[click](java\ue201script:alert(1))\n", encoding="utf-8")
    r = run_cli("strip", str(f))
    assert r.returncode == 0, r.stderr
    assert_no_marker(r.stdout, "strip")
    for url in _permissive_links(r.stdout):
        assert not is_live_link(url), url


_PIECES = [
    *RESIDUES,
    "&#8288;",
    "&#x2060;",
    "&amp;",
    "\\",
    "\\\\",
    "%",
    "%EE%88",
    "&#",
    "&#x",
    "u",
    "E200",
    "e206",
    ";",
    "a",
    "\ue207",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=12))
@settings(max_examples=400, deadline=None)
def test_the_fast_residue_check_agrees_with_the_pattern(pieces: list[str]) -> None:
    """``has_residue`` skips to each form's first character; it must find exactly what RESIDUE
    finds anywhere (adjacent pieces make new forms, such as ``\\\\`` + ``ue200``)."""
    text = "".join(pieces)
    assert has_residue(text) == (RESIDUE.search(text) is not None)
