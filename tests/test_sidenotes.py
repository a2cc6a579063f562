"""The sidenotes style as a reader meets it in Debian's Chromium: notes beside their lines that never
overlap, toggles on a phone, a note opened whole when pointed at, and print as footnotes. Select
with ``-m browser``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import example_pairs

from citerender import load_sources, render

pytestmark = pytest.mark.browser

#: every note's box (but a table's: those fold), its citation number's box, the text column's right edge
NOTES = """() => {
  const column = document.querySelector('.citerender-page').getBoundingClientRect();
  const inner = column.right - parseFloat(getComputedStyle(document.querySelector('.citerender-page')).paddingRight);
  return [...document.querySelectorAll('.citerender-sidenote')].filter(n => !n.closest('.citerender-table')).map(n => {
    const r = n.getBoundingClientRect(), num = n.parentElement.querySelector('.citerender-sn-num').getBoundingClientRect();
    const cs = getComputedStyle(n);
    return {x: r.x, y: r.y, w: r.width, h: r.height, line: num.y, column: inner,
            below: parseFloat(cs.marginBottom) + parseFloat(cs.marginTop)};
  });
}"""
#: the answers whose citations are no denser than their lines: every note keeps to its line
KEEP_TO_LINE = ("handbook", "worked", "evidence", "service-agreement")


def _page(tmp_path: Path, name: str) -> Path:
    answer, sources = next((a, s) for a, s in example_pairs() if a.parent.name == name)
    path = tmp_path / f"{name}.html"
    html = render(answer.read_text(encoding="utf-8"), load_sources(sources), style="sidenotes", standalone=True).html
    path.write_text(html, encoding="utf-8")
    return path


def _open(browser: Any, path: Path, width: int, **ctx: Any) -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": width, "height": 900}, **ctx)
    page = context.new_page()
    page.goto(path.as_uri())
    return context, page


@pytest.mark.parametrize("width", [1280, 1920])
@pytest.mark.parametrize("name", [p[0].parent.name for p in example_pairs()])
def test_notes_sit_beside_their_lines_and_never_overlap(browser: Any, tmp_path: Path, name: str, width: int) -> None:
    """Every example at 1280 and 1920 px: no two notes overlap, none covers the text column or
    leaves the screen; each note's top is within 24 px of its line, unless the note above it
    reaches lower (then it starts right under that one); the page never scrolls sideways."""
    context, page = _open(browser, _page(tmp_path, name), width)
    notes = page.evaluate(NOTES)
    assert notes
    for k, n in enumerate(notes):
        assert n["x"] >= n["column"] and n["x"] + n["w"] <= width, (k, n)  # in the margin, on screen
        for m in notes[:k]:
            disjoint = m["y"] + m["h"] <= n["y"] or n["y"] + n["h"] <= m["y"]
            assert disjoint, (k, n, m)
        near = abs(n["y"] - n["line"]) <= 24
        pushed = k > 0 and abs(n["y"] - (notes[k - 1]["y"] + notes[k - 1]["h"] + n["below"])) <= 2
        assert near or (pushed and name not in KEEP_TO_LINE), (name, k, n)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()


def test_in_a_table_a_number_folds_its_note_open_in_the_cell(browser: Any, tmp_path: Path) -> None:
    """A table scrolls in its own box, which would cut a note off: there the number is a toggle."""
    context, page = _open(browser, _page(tmp_path, "service-agreement"), 1280)
    cell = page.locator(".citerender-table .citerender-sidenotes").first
    note = cell.locator(".citerender-sidenote")
    assert not note.is_visible()
    cell.locator(".citerender-sn-num").click()
    note.wait_for(state="visible")
    table = page.locator(".citerender-table").first.bounding_box()
    n = note.bounding_box()
    assert table["x"] <= n["x"] and n["x"] + n["width"] <= table["x"] + table["width"] + 1, (n, table)
    context.close()


def test_pointing_at_a_note_opens_it_whole_and_highlights_its_sentence(browser: Any, tmp_path: Path) -> None:
    context, page = _open(browser, _page(tmp_path, "handbook"), 1280)
    note = page.locator(".citerender-sidenote").nth(4)  # IT Security Policy, lines 1–3
    before = note.bounding_box()
    assert not note.locator(".citerender-card-loc").is_visible()  # one line: number, title, the quote's start
    note.hover()
    assert note.locator(".citerender-card-loc").is_visible()
    assert note.bounding_box()["height"] > 2 * before["height"]  # the whole quote
    assert note.locator(".citerender-card-entry").is_visible()  # and its way to the Sources entry
    lit = page.evaluate(
        """[...document.querySelectorAll('.citerender-claim')]
           .filter(s => getComputedStyle(s).backgroundColor !== 'rgba(0, 0, 0, 0)')
           .map(s => { const c = s.cloneNode(true); c.querySelectorAll('.citerender-cite').forEach(e => e.remove());
                       return c.textContent.trim(); })"""
    )
    assert lit == ["Connect through the company VPN whenever you reach internal systems, including on public Wi-Fi."]
    context.close()


def test_a_screen_reader_hears_each_note_after_its_number(browser: Any, tmp_path: Path) -> None:
    context, page = _open(browser, _page(tmp_path, "handbook"), 1280)
    tree = page.locator("main p").first.aria_snapshot()
    first = tree.index("note:")
    assert "Employee Handbook" in tree[first:] and "Employees may work remotely up to three days per week." in tree
    assert "checkbox" not in tree  # beside the line there is nothing to toggle
    context.close()


@pytest.mark.parametrize("width", [320, 375, 430])
def test_on_a_phone_a_number_folds_its_note_open_under_the_line(browser: Any, tmp_path: Path, width: int) -> None:
    context, page = _open(browser, _page(tmp_path, "handbook"), width, has_touch=True, is_mobile=True)
    notes = page.locator(".citerender-sidenote")
    assert all(not notes.nth(k).is_visible() for k in range(notes.count()))  # folded
    num = page.locator(".citerender-sn-num").nth(1)
    num.tap()
    note = notes.nth(1)
    note.wait_for(state="visible")
    n, t = note.bounding_box(), num.bounding_box()
    assert n["x"] >= 0 and n["x"] + n["width"] <= width and n["y"] >= t["y"] + t["height"] - 1, (n, t)
    assert note.locator(".citerender-card-loc").is_visible()  # the whole note: where it cites, the quote
    num.tap()
    note.wait_for(state="hidden")
    # by keyboard: the number's checkbox is focusable, named by the number, toggled with Space
    box = page.get_by_role("checkbox", name="[1]").first
    box.focus()
    page.keyboard.press("Space")
    notes.first.wait_for(state="visible")
    outline = page.evaluate("getComputedStyle(document.querySelector('.citerender-sn-num')).outlineStyle")
    assert outline == "solid"  # the focus shows on the number
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()


def test_printed_notes_are_footnotes(browser: Any, tmp_path: Path) -> None:
    """In print the notes go; the numbers stay, and the Sources list quotes the lines."""
    context, page = _open(browser, _page(tmp_path, "handbook"), 1280)
    page.emulate_media(media="print")
    assert all(not n.is_visible() for n in page.locator(".citerender-sidenote").all())
    assert page.locator(".citerender-sn-num").first.is_visible()
    quotes = page.locator(".citerender-ref-quotes").first
    assert quotes.is_visible() and "Employees may work remotely" in quotes.inner_text()
    assert page.evaluate("document.querySelector('.citerender-page').getBoundingClientRect().left") < 60
    context.close()
