"""One label per citation group in every output that shows labels: the HTML page, the HTML stream
and the text export show the same string for each group, in the same order (a range ``1–3`` for a
run of three or more, neighbours ``1, 2``), whatever the grouping (several ids in one marker,
adjacent markers, markers a space apart, one source twice with different locators)."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup
from conftest import expand

from citerender import Source, StreamRenderer, render
from citerender.rendering.exports.parsed import parse_answer
from citerender.rendering.exports.text import to_text
from citerender.sources.model import Registry

REG = Registry(
    [
        Source(id=f"s{i}", title=f"Source {i}", url=f"https://s{i}.example/", lines=[f"line {n}" for n in range(1, 9)])
        for i in range(1, 7)
    ]
)
ANSWER = expand(
    "Several in one marker.{S}cite{D}s1{D}s2{D}s3{E}\n\n"
    "Adjacent.{S}cite{D}s4{E}{S}cite{D}s5{E}\n\n"
    "A space apart.{S}cite{D}s1{E} {S}cite{D}s6{E}\n\n"
    "Twice, two locators.{S}cite{D}s2{D}L2{E}{S}cite{D}s2{D}L4-L5{E}\n\n"
    "A reversed range.{S}cite{D}s3{D}L5-L2{E} And a single line.{S}cite{D}s5{D}L7{E}\n\n"
    "Four in a run.{S}cite{D}s1{D}s2{D}s3{D}s4{E} Two and one.{S}cite{D}s1{D}s2{D}s5{E}\n"
)
LABEL = re.compile(r"\[\d[\d,\s\u2013]*\]")


def _html_labels(html: str) -> list[str]:
    soup = BeautifulSoup(html, "html.parser")
    return [el.get_text() for el in soup.select(".citerender-cite")]


@pytest.mark.parametrize("style", ["footnotes", "superscript", "hovercard", "sidenotes"])
def test_page_stream_and_text_show_one_label(style: str) -> None:
    page = _html_labels(render(ANSWER, REG, style=style).body)
    labels = [LABEL.search(x).group(0) for x in page]  # a card's or note's own text follows the label
    s = StreamRenderer(REG, style=style, output="html")
    streamed = "".join(s.feed(ANSWER[i : i + 7]) for i in range(0, len(ANSWER), 7)) + s.close()
    assert [LABEL.search(x).group(0) for x in _html_labels(streamed)] == labels
    text = to_text(parse_answer(ANSWER, REG)).split("References")[0]
    assert LABEL.findall(text) == labels
    assert labels[0] == "[1\u20133]" and labels[1] == "[4, 5]"
