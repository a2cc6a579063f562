"""Print and PDF as a reader gets them: the PDF is opened (pdfplumber) and its text laid out is
measured — no gap at a citation, locators and quoted lines in the notes, page numbers, a tagged
PDF — for every style, through WeasyPrint and through Chromium's print."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES

from citerender import load_sources, render
from citerender.options import STYLES as ALL_STYLES
from citerender.plugin.bibliography import NOTE_STYLES
from citerender.rendering.exports.pdf import to_pdf

pdfplumber = pytest.importorskip("pdfplumber")

STYLES = ALL_STYLES  # every style the library has
REG = load_sources(EXAMPLES / "handbook" / "answer.sources.json")
TEXT = (EXAMPLES / "handbook" / "answer.md").read_text(encoding="utf-8")


def _pages(pdf: bytes) -> list[Any]:
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        return [(p.chars, p.extract_text() or "", p.height) for p in doc.pages]


def _tagged(pdf: bytes) -> bool:
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        return "StructTreeRoot" in doc.doc.catalog


def _gaps_at_citations(pages: list[Any]) -> list[tuple[float, float]]:
    """(gap, font size) before each ``[`` that follows text on the same line; zero-width spaces
    some PDF writers add between runs are looked through."""
    gaps = []
    for chars, _, _ in pages:
        for i, c in enumerate(chars):
            if c["text"] != "[":
                continue
            k = i - 1
            while (
                k >= 0
                and chars[k]["text"] == " "
                and (chars[k]["x1"] - chars[k]["x0"] < 0.5 or chars[k]["x0"] >= c["x0"] - 0.5)
            ):
                k -= 1
            if k < 0 or abs(chars[k]["bottom"] - c["bottom"]) >= c["size"] or chars[k]["x1"] > c["x0"] + 1:
                continue  # the first thing on its line, or on another line
            gaps.append((c["x0"] - chars[k]["x1"], chars[k]["size"]))
    return gaps


def _check(pdf: bytes, style: str) -> list[Any]:
    pages = _pages(pdf)
    gaps = _gaps_at_citations(pages)
    assert len(gaps) >= 8, gaps  # every citation printed as its numbers, even pills
    assert all(gap <= 0.3 * size for gap, size in gaps), gaps  # never wider than a word space
    text = "\n".join(t for _, t, _ in pages)
    assert re.search("sources", text, re.I) and "Employee Handbook" in text
    assert re.search(r"lines? 1", text), "the locators are printed"
    if style in NOTE_STYLES:
        notes = re.split("sources", text, maxsplit=1, flags=re.I)[1]
        assert "Employees may work remotely up to three days per week" in notes  # the quoted lines
    for n, (_, page_text, _) in enumerate(pages, 1):
        assert f"{n} / {len(pages)}" in page_text, page_text[-80:]  # page numbers
    for noise in ("company.example +", "opens in a new tab", "Back to"):
        assert noise not in text
    return pages


@pytest.mark.parametrize("theme", ["default", "report"])
@pytest.mark.parametrize("style", STYLES)
def test_weasyprint_pdf_reads_like_a_finished_page(style: str, theme: str) -> None:
    pdf = to_pdf(render(TEXT, REG, style=style, theme=theme, standalone=True).html)
    pages = _check(pdf, style)
    assert _tagged(pdf)
    if theme == "report":
        assert len(pages) == 1  # a short answer keeps its sources on its page


def test_a_long_report_starts_its_sources_on_a_new_page() -> None:
    long_text = TEXT + "\n\n" + "\n\n".join(TEXT.split("\n", 2)[2] for _ in range(12))
    pages = _pages(to_pdf(render(long_text, REG, theme="report", standalone=True).html))
    first = next(i for i, (_, t, _) in enumerate(pages) if re.match(r"\s*sources", t, re.I))
    assert first > 0 and not any(re.search("sources", t, re.I) for _, t, _ in pages[:first])


@pytest.mark.browser
@pytest.mark.parametrize("style", STYLES)
def test_chromium_print_reads_like_a_finished_page(browser: Any, tmp_path: Path, style: str) -> None:
    path = tmp_path / f"{style}.html"
    path.write_text(render(TEXT, REG, style=style, standalone=True).html, encoding="utf-8")
    page = browser.new_page()
    page.goto(path.as_uri())
    page.emulate_media(media="print")
    pdf = page.pdf(format="A4", prefer_css_page_size=True)
    page.close()
    _check(pdf, style)


@pytest.mark.browser
def test_a_conversation_prints_every_version_of_every_turn(browser: Any, tmp_path: Path) -> None:
    """Closed versions are for the screen: the printed conversation holds each of them, open."""
    from conftest import FIXTURES

    from citerender.providers.exports import find_conversation
    from citerender.publish.conversations import conversation_page

    path = tmp_path / "branches.html"
    path.write_text(
        conversation_page(find_conversation(FIXTURES / "chatgpt" / "conversations.json", "conv-branches"))[0]
    )
    page = browser.new_page()
    page.goto(path.as_uri())
    assert not page.get_by_text("The 2023 report counts 110 sites.").is_visible()  # closed on screen
    pdf = page.pdf(format="A4")
    page.close()
    printed = " ".join(" ".join(text for _, text, _ in _pages(pdf)).split())
    for words in ("The 2024 report counts 120 sites.", "And in 2023?", "The 2023 report counts 110 sites.",
                  "Version 1 of 2", "What about 2021?"):  # fmt: skip
        assert words in printed, words
