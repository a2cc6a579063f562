"""Hover cards as a reader meets them, measured in Debian's Chromium: where each card opens,
whether the pointer can reach it, Escape, keyboard focus, taps on a phone, and what a screen
reader is told. Select with ``-m browser``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES
from reader_geometry import painted_fonts, settled

from citerender import load_sources, render

pytestmark = pytest.mark.browser

TABLE = (
    "\n\n| Term | Detail | Source |\n|---|---|---|\n"
    "| Notice | thirty days, in writing | stated\ue200cite\ue202{a}\ue202L1\ue201 |\n"
    "| Fees | monthly, in advance | stated\ue200cite\ue202{b}\ue201 |\n"
)


TRIGGER = ".citerender-has-card > button"


@pytest.fixture(scope="module", params=["hovercard", "pills"])
def page_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The service-agreement answer with a table whose last column cites, as a card page."""
    reg = load_sources(EXAMPLES / "service-agreement" / "answer.sources.yaml")
    ids = list(reg)
    text = (EXAMPLES / "service-agreement" / "answer.md").read_text(encoding="utf-8")
    text += TABLE.format(a=ids[0], b=ids[1])
    path = tmp_path_factory.mktemp("cards") / f"{request.param}.html"
    path.write_text(render(text, reg, style=request.param, standalone=True).html, encoding="utf-8")
    return path


def _open(browser: Any, path: Path, width: int, *, instant: bool = False, **ctx: Any) -> tuple[Any, Any]:
    """The page at ``width``; ``instant``: cards open and close without their delays, for a test of
    where they open (the delays themselves are tested with the pointer's travel into a card)."""
    context = browser.new_context(viewport={"width": width, "height": 800}, **ctx)
    page = context.new_page()
    page.goto(path.as_uri())
    if instant:
        page.add_style_tag(content="* { interest-delay: 0s 0s !important; }")
    return context, page


def _is_open(page: Any, card_id: str) -> bool:
    return bool(page.evaluate("id => document.getElementById(id).matches(':popover-open')", card_id))


def _gap(a: dict[str, float], b: dict[str, float]) -> float:
    """Distance between two boxes (0 when they touch or overlap)."""
    dx = max(b["x"] - (a["x"] + a["width"]), a["x"] - (b["x"] + b["width"]), 0)
    dy = max(b["y"] - (a["y"] + a["height"]), a["y"] - (b["y"] + b["height"]), 0)
    return float(max(dx, dy))


@pytest.mark.parametrize("width", [375, 650, 768, 1280])
def test_each_card_opens_next_to_its_citation_inside_the_viewport(browser: Any, page_path: Path, width: int) -> None:
    """Every card, hovered in turn: inside the window, never on its citation; from 600 px within
    40 px of it, on a phone the screen's width. Each box is read once the
    layout has settled (fonts loaded, the same box two frames running), never after a pause."""
    _cards_open_beside_their_citations(browser, page_path, width)


#: a second font set: the answer drawn in Noto Sans CJK (wider Latin letters, other metrics), as on
#: a machine with more fonts (``make system-deps`` installs fonts-noto-cjk)
CJK_STACK = '"Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK KR"'


@pytest.mark.parametrize("width", [375, 768, 1280])
def test_each_card_opens_next_to_its_citation_in_a_cjk_font(browser: Any, page_path: Path, width: int) -> None:
    """The same with the page in a CJK font: where a card opens is clamped to the window whatever
    the font's metrics (a 252 px card once opened at x = 562 in a 768 px window)."""
    _cards_open_beside_their_citations(browser, page_path, width, CJK_STACK)


def _cards_open_beside_their_citations(browser: Any, path: Path, width: int, font: str = "") -> None:
    context, page = _open(browser, path, width, instant=True)
    if font:
        page.add_style_tag(content=f"html, body, .citerender-page {{ font-family: {font} !important; }}")
        used = painted_fonts(page, "main p")
        assert any("CJK" in f for f in used), (
            f"{font} is not installed (make system-deps installs fonts-noto-cjk): {used}"
        )
    triggers = page.locator(TRIGGER)
    count = triggers.count()
    assert count >= 10
    for i in range(count):
        trigger = triggers.nth(i)
        trigger.scroll_into_view_if_needed()
        card_id = trigger.get_attribute("interestfor")
        trigger.hover()
        card = page.locator(f"#{card_id}")
        card.wait_for(state="visible")
        c = settled(page, f"#{card_id}")
        t = trigger.bounding_box()
        # each citation in turn shows its own card, and only that one
        assert page.evaluate(
            "[...document.querySelectorAll('.citerender-card')].filter(c => c.matches(':popover-open')).map(c => c.id)"
        ) == [card_id]
        assert c["x"] >= 0 and c["x"] + c["width"] <= width and c["y"] >= 0 and c["y"] + c["height"] <= 800, (i, c)
        assert _gap(t, c) > 0, (i, t, c)  # never on its citation
        if width >= 600:  # beside it
            assert _gap(t, c) <= 40, (i, t, c)
        else:  # the width of the screen (test_reader_round4: clear of the claim, wherever the citation is)
            assert c["x"] <= 16 and c["x"] + c["width"] >= width - 16, c
        page.mouse.move(0, 0)
        card.wait_for(state="hidden")
    context.close()


def test_the_pointer_can_travel_into_the_card_and_reach_its_link(browser: Any, page_path: Path) -> None:
    context, page = _open(browser, page_path, 1280)
    trigger = page.locator(TRIGGER).nth(1)
    card_id = trigger.get_attribute("interestfor")
    trigger.hover()
    card = page.locator(f"#{card_id}")
    card.wait_for(state="visible")
    link = card.locator("a.citerender-card-title").first
    box = link.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=12)
    page.wait_for_timeout(700)  # longer than the hide delay: still open
    assert _is_open(page, card_id)
    hit = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('a')?.className",
        [box["x"] + 4, box["y"] + box["height"] / 2],
    )
    assert hit == "citerender-card-title"
    context.close()


def test_escape_closes_a_card_opened_by_hover_or_by_focus(browser: Any, page_path: Path) -> None:
    context, page = _open(browser, page_path, 1280)
    trigger = page.locator(TRIGGER).nth(2)
    card_id = trigger.get_attribute("interestfor")
    trigger.hover()
    page.locator(f"#{card_id}").wait_for(state="visible")
    page.keyboard.press("Escape")
    page.locator(f"#{card_id}").wait_for(state="hidden")
    page.mouse.move(0, 0)
    # keyboard: Tab to the citation shows its card; Escape hides it, focus stays
    page.keyboard.press("Tab")
    for _ in range(60):
        if page.evaluate("document.activeElement.getAttribute('interestfor')") == card_id:
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('interestfor')") == card_id
    page.locator(f"#{card_id}").wait_for(state="visible")
    page.keyboard.press("Escape")
    page.locator(f"#{card_id}").wait_for(state="hidden")
    assert page.evaluate("document.activeElement.getAttribute('interestfor')") == card_id
    context.close()


def test_a_tap_opens_a_bottom_sheet_and_a_tap_elsewhere_closes_it(browser: Any, page_path: Path) -> None:
    context, page = _open(browser, page_path, 375, has_touch=True, is_mobile=True)
    trigger = page.locator(TRIGGER).nth(3)
    card_id = trigger.get_attribute("interestfor")
    trigger.tap()
    card = page.locator(f"#{card_id}")
    card.wait_for(state="visible")
    c = card.bounding_box()
    assert c["width"] >= 375 - 24 and c["x"] >= 0  # never squeezed to a column
    page.touchscreen.tap(180, 20)
    card.wait_for(state="hidden")
    context.close()


def test_a_screen_reader_hears_the_label_then_the_cited_lines(browser: Any, page_path: Path) -> None:
    """The computed name and description, read from Chromium's accessibility tree."""
    context, page = _open(browser, page_path, 1280)
    cdp = context.new_cdp_session(page)
    cdp.send("Accessibility.enable")
    doc = cdp.send("DOM.getDocument", {"depth": 0})
    node = cdp.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"], "selector": "#cite-2 > button"})
    ax = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node["nodeId"], "fetchRelatives": False})["nodes"][0]
    name = ax["name"]["value"]
    description = ax.get("description", {}).get("value", "")
    visible = page.locator("#cite-2 > button").inner_text()
    assert name.startswith(visible)  # label in name
    assert "thirty (30) days" in description  # the cited line itself, not only its number
    assert ax["role"]["value"] == "button"
    context.close()


@pytest.mark.parametrize("style", ["footnotes", "superscript", "hovercard", "pills"])
def test_a_citation_never_starts_a_line_away_from_its_word(browser: Any, tmp_path: Path, style: str) -> None:
    reg = load_sources(EXAMPLES / "handbook" / "answer.sources.json")
    text = (EXAMPLES / "handbook" / "answer.md").read_text(encoding="utf-8")
    path = tmp_path / f"{style}.html"
    path.write_text(render(text, reg, style=style, standalone=True).html, encoding="utf-8")
    context, page = _open(browser, path, 320)
    for width in range(320, 420, 7):  # one page, narrowed a step at a time: it lays out again each time
        page.set_viewport_size({"width": width, "height": 800})
        apart = page.evaluate(
            """() => [...document.querySelectorAll('.citerender-cite')].filter(c => {
                 let n = c.previousSibling;
                 while (n && n.nodeType === 3 && !n.textContent.replace('\\u2060', '').trim()) n = n.previousSibling;
                 if (!n || n.nodeType !== 3) return false;
                 const r = document.createRange(); const end = n.textContent.replace(/[\\s\\u2060]+$/, '').length;
                 if (!end) return false;
                 r.setStart(n, end - 1); r.setEnd(n, end);
                 const a = r.getBoundingClientRect(), b = c.getClientRects()[0];
                 return !(b.top < a.bottom && b.bottom > a.top);
               }).map(c => c.id)"""
        )
        assert apart == [], (width, apart)
    context.close()


def test_every_card_links_to_the_passage_and_to_its_sources_entry(browser: Any, page_path: Path) -> None:
    """A card's title goes to the cited passage, not only the page (a text fragment of the cited
    lines); its "in Sources" link takes the reader to the source's entry on this page."""
    from urllib.parse import unquote

    context, page = _open(browser, page_path, 1280)
    items = page.locator(".citerender-card-item")
    assert items.count() > 3
    for k in range(items.count()):
        item = items.nth(k)
        href = item.locator("a.citerender-card-title").get_attribute("href") or ""
        quoted = item.locator(".citerender-ltext").all_text_contents()
        if item.locator(".citerender-card-loc").count():  # cited lines: the fragment names them
            assert "#:~:text=" in href, href
            first_words = " ".join(quoted[0].split()[:2])
            assert first_words in unquote(href.split("#:~:text=", 1)[1]).replace("-,", " "), (href, quoted)
        entry = item.locator("a.citerender-card-entry").get_attribute("href") or ""
        assert entry.startswith("#ref-") and page.locator(entry).count() == 1
    trigger = page.locator(TRIGGER).nth(1)
    trigger.hover()
    card = page.locator(f"#{trigger.get_attribute('interestfor')}")
    card.wait_for(state="visible")
    link = card.locator("a.citerender-card-entry").first
    target = link.get_attribute("href")
    link.click()
    assert page.evaluate("location.hash") == target
    box = page.locator(str(target)).bounding_box()
    assert box is not None and 0 <= box["y"] < 800  # the entry is in view
    context.close()


@pytest.mark.parametrize("width", [320, 375, 430])
def test_on_a_phone_every_card_opens_in_view_beside_its_citation(browser: Any, page_path: Path, width: int) -> None:
    """At phone widths (a 740 px tall screen), with a table of citations in the answer: the page
    never scrolls sideways (the table scrolls in its own box), and a tap on each citation, in turn,
    opens its card inside the visual viewport without covering the citation; a tap elsewhere closes it."""
    context, page = _open(browser, page_path, width, has_touch=True, is_mobile=True)
    page.set_viewport_size({"width": width, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    triggers = page.locator(TRIGGER)
    assert triggers.count() >= 6
    for k in range(triggers.count()):
        trigger = triggers.nth(k)
        trigger.scroll_into_view_if_needed()
        card_id = trigger.get_attribute("interestfor")
        trigger.tap()
        card = page.locator(f"#{card_id}")
        card.wait_for(state="visible")
        c, t = card.bounding_box(), trigger.bounding_box()
        view = page.evaluate("({w: visualViewport.width, h: visualViewport.height})")
        assert c is not None and t is not None
        assert c["x"] >= 0 and c["x"] + c["width"] <= view["w"] + 0.5, (k, c, view)
        assert c["y"] >= 0 and c["y"] + c["height"] <= view["h"] + 0.5, (k, c, view)
        assert t["y"] >= 0 and t["y"] + t["height"] <= view["h"] + 1, (k, t)  # the citation stays in sight
        assert _gap(c, t) > 0, (k, c, t)  # and uncovered
        page.touchscreen.tap(2, 2)
        card.wait_for(state="hidden")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()


#: the text of every claim span painted with a background (the highlighted sentences)
HIGHLIGHTED = """[...document.querySelectorAll('.citerender-claim')]
  .filter(s => getComputedStyle(s).backgroundColor !== 'rgba(0, 0, 0, 0)')
  .map(s => { const c = s.cloneNode(true); c.querySelectorAll('.citerender-cite').forEach(e => e.remove());
              return c.textContent.trim(); })"""


def _dense(tmp_path: Path, style: str) -> Path:
    """Every sentence cited, two or three citations a line: the page where cards meet neighbours."""
    from citerender import Registry, Source

    sources = [Source(id=f"s{k}", title=f"Source {k}", url=f"https://s{k}.example/",
                      lines=tuple(f"Line {n} of source {k}, quoted in the card." for n in range(1, 9))) for k in range(4)]  # fmt: skip
    sentences = [
        f"Claim {n} holds for the case at hand.\ue200cite\ue202s{n % 4}\ue202L{n % 8 + 1}\ue201" for n in range(36)
    ]
    text = "# Dense\n\n" + "\n\n".join(" ".join(sentences[i : i + 6]) for i in range(0, 36, 6)) + "\n"
    path = tmp_path / f"dense-{style}.html"
    path.write_text(render(text, Registry(sources), style=style, standalone=True).html, encoding="utf-8")
    return path


@pytest.mark.parametrize("width", [768, 1280])
@pytest.mark.parametrize("style", ["hovercard", "pills"])
def test_an_open_card_covers_no_other_citation(browser: Any, tmp_path: Path, style: str, width: int) -> None:
    """A dense page (every sentence cited, six a paragraph), where every place within 40 px of a
    citation lies over some other: no open card lies over a citation after its own (with room
    above, the place chosen covers, at most, citations already read), and pointing at each citation in turn,
    straight from the previous one, shows its own card — every one — while the sentence it
    supports is highlighted, and nothing else. The first six are met with the page's own delays
    (the handover a reader sees); the rest open at once, which changes where no card opens, only
    how long the walk takes."""
    path = _dense(tmp_path, style)
    context, page = _open(browser, path, width)
    page.add_style_tag(content="main { padding-block: 100vh !important; }")  # as in the middle of a long answer
    triggers = page.locator(TRIGGER)
    count = triggers.count()
    assert count == 36
    covered, wrong = [], []
    for k in range(count):
        if k == 6:
            page.add_style_tag(content="* { interest-delay: 0s 0s !important; }")
        box = triggers.nth(k).evaluate(_IN_VIEW, k == 0)  # scrolled into view as a reader scrolls
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=8 if k < 6 else 3)
        page.locator(f"#{box['card']}").wait_for(state="visible")
        seen = page.evaluate(_SEEN, box["card"])
        if seen["shown"] != [box["card"]]:
            wrong.append((k, seen["shown"]))
        c = seen["box"]
        assert c["x"] >= 0 and c["x"] + c["width"] <= width and c["y"] >= 0 and c["y"] + c["height"] <= 800, (k, c)
        assert seen["lit"] == [f"Claim {k} holds for the case at hand."], (k, seen["lit"])
        if any(n > k for n in seen["under"]):
            covered.append((k, seen["under"]))
    context.close()
    assert wrong == [] and covered == [], (wrong, covered)


_IN_VIEW = """(e, first) => {
  let r = e.getBoundingClientRect();
  if (first || r.y < 0 || r.y > 760) { e.scrollIntoView({block: 'center'}); r = e.getBoundingClientRect(); }
  return {x: r.x, y: r.y, width: r.width, height: r.height, card: e.getAttribute('interestfor')};
}"""
# what the reader sees with one card pointed at: the cards open, that card's box, the sentences
# highlighted, and which other citations (by their place in the text) lie under it (one round trip)
_SEEN = (
    """card => {
  const shown = [...document.querySelectorAll('.citerender-card')].filter(c => c.matches(':popover-open')).map(c => c.id);
  const r = document.getElementById(card).getBoundingClientRect();
  const under = [...document.querySelectorAll('.citerender-has-card > button')].map((b, n) => {
    const q = b.getBoundingClientRect(), x = q.x + q.width / 2, y = q.y + q.height / 2;
    if (y < 0 || y > innerHeight) return -1;
    const hit = document.elementFromPoint(x, y);
    return hit && hit.closest('.citerender-card')?.id === card ? n : -1; }).filter(n => n >= 0);
  return {shown, under, box: {x: r.x, y: r.y, width: r.width, height: r.height}, lit: """
    + HIGHLIGHTED
    + """};
}"""
)


RTL = Path(__file__).parent / "fixtures" / "rtl"

_END_OF = """([sel, words]) => {  // the box of the last occurrence of ``words`` in the element ``sel``
  const el = document.querySelector(sel), walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let node, found = null;
  while ((node = walker.nextNode())) {
    if (node.parentElement.closest('.citerender-card')) continue;  // the card's quote is not the line
    const i = node.data.lastIndexOf(words); if (i !== -1) found = [node, i];
  }
  const r = document.createRange(); r.setStart(found[0], found[1]); r.setEnd(found[0], found[1] + words.length);
  const b = r.getBoundingClientRect(); return {x: b.x, y: b.y, width: b.width, height: b.height};
}"""


@pytest.mark.parametrize("style", ["footnotes", "hovercard"])
def test_right_to_left_answers_read_their_own_way(browser: Any, tmp_path: Path, style: str) -> None:
    """Hebrew and Arabic paragraphs read right to left, each citation after its sentence's end
    (to its left), a line ending in digits too; the English paragraph stays left to right; a card
    of a right-to-left line reads right to left and opens towards the left, beside its citation,
    on a standalone page and inside a host's page (placed by the stylesheet alone in both)."""
    text = (RTL / "answer.md").read_text(encoding="utf-8")
    result = render(text, load_sources(RTL / "answer.sources.json"), style=style, standalone=True)
    path = tmp_path / f"rtl-{style}.html"
    path.write_text(result.html, encoding="utf-8")
    context, page = _open(browser, path, 900)
    paragraphs = page.locator("main p")
    dirs = paragraphs.evaluate_all("ps => ps.map(p => getComputedStyle(p).direction)")
    assert dirs[:4] == ["rtl", "rtl", "rtl", "ltr"], dirs
    ends = ["בשבוע.", "100.", "الأسبوع.", "right."]
    for k, words in enumerate(ends):
        end = page.evaluate(_END_OF, [f"main p:nth-of-type({k + 1})", words])
        cite = paragraphs.nth(k).locator(".citerender-cite").bounding_box()
        assert cite is not None and abs(cite["y"] - end["y"]) < end["height"], (k, cite, end)  # on the same line
        if dirs[k] == "rtl":
            assert cite["x"] + cite["width"] <= end["x"] + 1, (words, cite, end)  # to the left of the sentence's end
        else:
            assert cite["x"] >= end["x"] + end["width"] - 1, (words, cite, end)
    if style == "hovercard":
        c, t = _hover_first(page)  # within 40 px of its citation, towards the left
        assert c["x"] + c["width"] <= t["x"] + t["width"] + 1 and c["x"] < t["x"] and _gap(c, t) <= 40, (c, t)
        host = tmp_path / "rtl-host.html"
        host.write_text(
            f'<!doctype html><html lang="he"><head><meta charset="utf-8"><title>host</title><style>{result.css}</style>'
            f'</head><body style="margin: 2rem 8rem 2rem 2rem"><main>{result.body}</main></body></html>',
            encoding="utf-8",
        )
        page.goto(host.as_uri())
        c, t = _hover_first(page)
        assert c["x"] + c["width"] <= t["x"] + t["width"] + 1 and c["x"] < t["x"], (c, t)  # mirrored: towards the left
    context.close()


def _hover_first(page: Any) -> tuple[dict[str, float], dict[str, float]]:
    """Open the first paragraph's card; its box and its trigger's, once it reads right to left."""
    trigger = page.locator("main p").nth(0).locator("button")
    trigger.hover()
    card = page.locator(f"#{trigger.get_attribute('interestfor')}")
    card.wait_for(state="visible")
    assert card.evaluate("e => getComputedStyle(e).direction") == "rtl"
    return card.bounding_box(), trigger.bounding_box()


@pytest.mark.parametrize("width", [375, 1280])
def test_a_wrapped_passage_starts_where_its_next_lines_do_and_keeps_its_indent(
    browser: Any, tmp_path: Path, width: int
) -> None:
    """In a card's rows the number sits in a margin of its own: a passage's first line of text
    starts exactly where its wrapped lines do (the space after the number used to push it right),
    and an indented code line keeps its indentation."""
    from citerender.sources.model import registry_from_data

    long = "run()  # a comment long enough to wrap inside the card at any width it opens at, " * 2
    reg = registry_from_data([{"id": "turn0file0", "title": "app.py", "lines": ["def main():", "    " + long]}])
    path = tmp_path / "rows.html"
    text = "The entry point runs when ready.\ue200cite\ue202turn0file0\ue202L1-L2\ue201\n"
    path.write_text(render(text, reg, style="hovercard", standalone=True).html, encoding="utf-8")
    context, page = _open(browser, path, width, instant=True)
    page.locator(TRIGGER).first.focus()
    rows = page.evaluate(
        """() => [...document.querySelectorAll('.citerender-card:popover-open .citerender-ltext')].map(t => {
            const r = document.createRange(); r.selectNodeContents(t);
            const first = t.firstChild; const start = document.createRange();
            start.setStart(first, 0); start.setEnd(first, 1);
            return {rects: [...r.getClientRects()].map(x => x.left), first: start.getBoundingClientRect().left};
        })"""
    )
    assert len(rows) == 2
    plain, code = rows
    assert len(code["rects"]) > 1  # the long line wraps
    assert abs(code["first"] - min(code["rects"])) < 1  # its first line starts where the wrapped ones do
    assert abs(plain["first"] - code["first"]) < 1  # every row's text starts at one edge
    indent = page.evaluate(
        """() => { const t = document.querySelectorAll('.citerender-card:popover-open .citerender-ltext')[1];
            const r = document.createRange(); r.setStart(t.firstChild, 4); r.setEnd(t.firstChild, 5);
            return r.getBoundingClientRect().left; }"""
    )
    assert indent - code["first"] > 10  # four spaces of indent, kept
    context.close()
