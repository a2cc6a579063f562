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
    reaches lower (then it starts under that one, from the first line with room: every note shows
    its whole passage, so where citations sit a line apart, notes stack); the page never scrolls
    sideways."""
    context, page = _open(browser, _page(tmp_path, name), width)
    notes = page.evaluate(NOTES)
    assert notes
    for k, n in enumerate(notes):
        assert n["x"] >= n["column"] and n["x"] + n["w"] <= width, (k, n)  # in the margin, on screen
        for m in notes[:k]:
            disjoint = m["y"] + m["h"] <= n["y"] or n["y"] + n["h"] <= m["y"]
            assert disjoint, (k, n, m)
        near = abs(n["y"] - n["line"]) <= 24
        under = notes[k - 1]["y"] + notes[k - 1]["h"] + n["below"] if k else 0  # right under the note above:
        pushed = k > 0 and under - 2 <= n["y"] <= under + 32  # from the first line where there is room
        assert near or pushed, (name, k, n)
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


def test_pointing_at_a_note_lifts_it_and_highlights_its_sentence(browser: Any, tmp_path: Path) -> None:
    """At rest a note already quotes its whole passage and links to its Sources entry; pointed
    at, it is lifted over the page and its sentence is highlighted, its size unchanged."""
    context, page = _open(browser, _page(tmp_path, "handbook"), 1280)
    note = page.locator(".citerender-sidenote").nth(4)  # IT Security Policy, lines 1–3
    before = note.bounding_box()
    assert note.locator(".citerender-ltext").first.is_visible() and note.locator(".citerender-card-entry").is_visible()
    note.hover()
    assert note.bounding_box() == before
    assert note.evaluate("n => getComputedStyle(n).boxShadow") != "none"
    lit = page.evaluate(
        """[...document.querySelectorAll('.citerender-claim')]
           .filter(s => getComputedStyle(s).backgroundColor !== 'rgba(0, 0, 0, 0)')
           .map(s => { const c = s.cloneNode(true); c.querySelectorAll('.citerender-cite').forEach(e => e.remove());
                       return c.textContent.trim(); })"""
    )
    assert lit == ["Connect through the company VPN whenever you reach internal systems, including on public Wi-Fi."]
    context.close()


def test_a_screen_reader_hears_each_note_after_its_number(browser: Any, tmp_path: Path) -> None:
    """The number is a checkbox named by its label (it holds the note in its pointed state); the
    note follows it, read in place."""
    context, page = _open(browser, _page(tmp_path, "handbook"), 1280)
    tree = page.locator("main p").first.aria_snapshot()
    first = tree.index("note:")
    assert "Employee Handbook" in tree[first:] and "Employees may work remotely up to three days per week." in tree
    assert 'checkbox "[1]"' in tree[:first]
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


# --- issue 45 §5: answers of our own (English, Japanese, Arabic), rendered by the command line ----

#: every margin note: its box, whether each quoted passage lies whole inside it (none cut by an
#: ellipsis or the note's edge, none under another note), and how it is drawn (its pointed state)
MARGIN_NOTES = """look => [...document.querySelectorAll('.citerender-sidenote')].filter(n => !n.closest('.citerender-table')).map(n => {
  if (look) n.scrollIntoView({block: 'nearest'});  // where a reader scrolls to read it (hit tests need it on screen)
  const r = n.getBoundingClientRect(), s = getComputedStyle(n);
  const whole = [...n.querySelectorAll('.citerender-ltext')].every(t => {
    const q = document.createRange(); q.selectNodeContents(t);
    return [...q.getClientRects()].every(b => b.left >= r.left - 0.5 && b.right <= r.right + 0.5 && b.top >= r.top - 0.5 && b.bottom <= r.bottom + 0.5
      && n.contains(document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2) || document.body));
  }) && [...n.querySelectorAll('*')].every(e => e.scrollWidth <= e.clientWidth + 1 || getComputedStyle(e).display.startsWith('inline'));
  return {box: {x: r.x + scrollX, y: r.y + scrollY, w: r.width, h: r.height}, whole, bad: !!n.closest('.citerender-badlines'),
          quotes: n.querySelectorAll('.citerender-ltext').length,
          state: [s.backgroundColor, s.boxShadow, s.zIndex].join(' | ')};
})"""


@pytest.fixture(scope="module")
def own_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from reader_geometry import LANGS, render_page

    out = tmp_path_factory.mktemp("sidenotes4")
    return {lang: render_page(out, lang, "sidenotes") for lang in LANGS}


@pytest.mark.parametrize("lang", ["en", "ja", "ar"])
def test_every_note_shows_its_whole_passage_at_rest(browser: Any, own_pages: dict[str, Path], lang: str) -> None:
    """1280 px, nothing pointed at: every note beside the text quotes its whole (short) passage,
    every line of it inside the note's box, uncut, and under no other note."""
    context, page = _open(browser, own_pages[lang], 1280)
    notes = page.evaluate(MARGIN_NOTES, True)
    context.close()
    assert len(notes) >= 6 and all(n["quotes"] >= 1 or n["bad"] for n in notes), notes  # bad: lines it lacks
    assert [k for k, n in enumerate(notes) if not n["whole"]] == []


def _tab_to(page: Any, selector: str) -> None:
    """Focus ``selector`` the way a keyboard does (Tab from the top), so :focus-visible holds."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement === document.querySelector(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_pointing_hovering_or_focusing_a_citation_puts_its_note_in_one_state_and_moves_no_other(
    browser: Any, own_pages: dict[str, Path], lang: str
) -> None:
    """1280 px, citations a line or two apart: for each note, pointing at it, hovering its number
    in the text, and focusing that number with the keyboard each give the note the same drawn
    state (and not its state at rest); none of them, nor checking the number, moves any other note."""
    context, page = _open(browser, own_pages[lang], 1280)
    rest = page.evaluate(MARGIN_NOTES, False)
    cites = page.evaluate(
        "() => [...document.querySelectorAll('.citerender-sidenotes')].filter(c => !c.closest('.citerender-table')).map(c => c.id)"
    )
    assert len(cites) == len(rest) >= 6
    bad = []
    for k, cid in enumerate(cites):
        states = {}
        for how in ("note", "number", "keyboard", "checked"):
            if how == "note":
                page.locator(f"#{cid} > .citerender-sidenote").hover()
            elif how == "number":
                page.locator(f"#{cid} .citerender-sn-num").hover()
            elif how == "keyboard":
                _tab_to(page, f"#{cid} .citerender-sn-toggle")
            else:
                page.locator(f"#{cid} .citerender-sn-num").click()
            now = page.evaluate(MARGIN_NOTES, False)
            states[how] = now[k]["state"]
            moved = [j for j, n in enumerate(now) if j != k and n["box"] != rest[j]["box"]]
            if moved or now[k]["box"] != rest[k]["box"]:
                bad.append((k, how, "moved", moved))
            if how == "checked":
                page.locator(f"#{cid} .citerender-sn-num").click()  # unchecked again
            page.mouse.move(1, 1)
            page.evaluate("document.activeElement && document.activeElement.blur()")
        if len(set(states.values())) != 1 or states["note"] == rest[k]["state"]:
            bad.append((k, "states", states, rest[k]["state"]))
    context.close()
    assert bad == []
