"""Tidy removal: wherever a marker or residue is removed or dropped, no space is left before
punctuation, none at a line's end, never two in a row; ``strip_citations`` keeps the guide's exact
result unless asked to tidy."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from conftest import run_cli

from citerender import parse_answer, render, strip_citations
from citerender.rendering.exports.json import to_json_data
from citerender.rendering.exports.markdown import to_markdown
from citerender.rendering.exports.text import to_text
from citerender.sources.model import registry_from_data

S, D, E = "\ue200", "\ue202", "\ue201"
REG = registry_from_data([{"id": "a", "title": "A"}])

CASES = [
    # (answer, the text a reader sees once citations are gone)
    (f"Valid{S}cite{D}a{E} and invalid {S}cite{D}zz{E}.", "Valid and invalid."),
    (f"First {S}cite{D}zz{E} second", "First second"),
    ("Remote work is allowed. citeturn0file0", "Remote work is allowed."),
    (
        "Allowed :contentReference[oaicite:8]{index=8}. Next ::contentReference[oaicite:1]{index=1} line",
        "Allowed. Next line",
    ),
    (f"A stray {E} character.", "A stray character."),
]


def _words(html: str) -> str:
    soup = BeautifulSoup(html, "html.parser")
    for sup in soup.select(".citerender-cite"):
        sup.decompose()
    return soup.get_text().replace("\u2060", "")  # the word joiner that keeps a citation on its word's line


@pytest.mark.parametrize(("text", "clean"), CASES)
def test_html_leaves_no_stray_space(text: str, clean: str) -> None:
    for style in ("footnotes", "superscript", "hovercard"):
        assert _words(render(text, REG, style=style, bibliography=False).html).strip("\n") == clean


@pytest.mark.parametrize(("text", "clean"), CASES)
def test_exports_leave_no_stray_space(text: str, clean: str) -> None:
    p = parse_answer(text, REG)
    assert to_json_data(p)["text"] == clean
    body = to_text(p).split("\n\nReferences")[0].strip("\n")
    assert body.replace("[1]", "") == clean
    md = to_markdown(p).split("\n\n[^")[0].strip("\n")
    assert md.replace("[^1]", "") == clean


@pytest.mark.parametrize(("text", "clean"), CASES)
def test_strip_tidies_and_the_guide_api_keeps_its_result(text: str, clean: str) -> None:
    assert strip_citations(text, tidy=True) == clean
    r = run_cli("strip", "-", stdin=text)
    assert r.returncode == 0, r.stderr
    assert r.stdout == clean
    # the compatibility API: exactly the guide helper's spans removed, spaces as they were
    assert strip_citations(f"Valid {S}cite{D}zz{E}.") == "Valid ."
