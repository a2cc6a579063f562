"""Source views as a reader meets them in Debian's Chromium, JavaScript off: the keyboard path from
a citation to its range and back, exactly the pointed-at range emphasised, what is in the viewport
and uncovered, contrast of highlighted lines as blended, axe with a range targeted, right-to-left
lines, a phone with no sideways scroll, and the pages of a build and of MkDocs Material. One
browser for the module; select with ``-m browser``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, expand

from citerender import load_sources, render
from citerender.publish.site import build_site
from citerender.sources.model import Source

pytestmark = pytest.mark.browser

HERE = FIXTURES / "source_views"
#: a source whose one line is a long unbroken string (a hash, a URL, minified code)
UNBROKEN = "\n\nIts checksum is recorded.{S}cite{D}turn0file5{D}L1{E}\n"
TRIGGER = ".citerender-has-card > button"

#: every shown line of a view as its box, its background as painted (translucent layers blended
#: over what is under them) and the colours of its text and number
PAINTED = """(sel) => {
  const parse = c => { const m = c.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const under = el => { const layers = [];
    for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c[3] > 0) layers.push(c); if (c[3] >= 1) break; }
    let out = [255, 255, 255];
    for (const [r, g, b, a] of layers.reverse()) out = [r * a + out[0] * (1 - a), g * a + out[1] * (1 - a), b * a + out[2] * (1 - a)];
    return out; };
  return [...document.querySelectorAll(sel)].map(li => { const r = li.getBoundingClientRect();
    return {n: li.value, top: r.top, bottom: r.bottom, left: r.left, right: r.right, bg: under(li),
            text: parse(getComputedStyle(li.querySelector('.citerender-vt')).color).slice(0, 3),
            num: parse(getComputedStyle(li.querySelector('.citerender-vno')).color).slice(0, 3)}; });
}"""
UNCOVERED = """(el) => { const r = el.getBoundingClientRect(); const x = r.left + Math.min(r.width / 2, 40), y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y); return r.top >= 0 && r.bottom <= innerHeight && !!hit && el.contains(hit); }"""


def _lum(rgb: list[float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: list[float], b: list[float]) -> float:
    hi, lo = sorted((_lum(a), _lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.fixture(scope="module")
def page_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The fixture answer, plus a source of one unbroken 3,000-character line, as a hover-card page."""
    reg = load_sources(HERE / "answer.sources.json")
    reg.put(Source("turn0file5", title="Checksums", lines=("sha256:" + "0123456789abcdef" * 190, "end")))
    text = (HERE / "answer.md").read_text(encoding="utf-8") + expand(UNBROKEN)
    path = tmp_path_factory.mktemp("views") / "answer.html"
    path.write_text(render(text, reg, style="hovercard", standalone=True).html, encoding="utf-8")
    return path.as_uri()


def _open(browser: Any, url: str, width: int = 1280, scheme: str = "light", **ctx: Any) -> tuple[Any, Any]:
    context = browser.new_context(
        viewport={"width": width, "height": 800}, color_scheme=scheme, java_script_enabled=False, **ctx
    )
    page = context.new_page()
    page.goto(url)
    return context, page


def _focused(page: Any) -> dict[str, str]:
    return dict(
        page.evaluate(
            "() => { const e = document.activeElement;"
            " return {tag: e.tagName, cls: e.className, href: e.getAttribute('href') || '', id: e.id}; }"
        )
    )


def _range_rows(page: Any, rid: str) -> list[Any]:
    """The opening row of range ``rid`` and the lines it covers, as element handles."""
    target = page.locator(f"[id='{rid}']")
    lines = target.evaluate(
        "(t) => { const out = [t]; const [, a, b] = t.id.match(/L(\\d+)(?:-L(\\d+))?$/);"
        " for (let e = t.nextElementSibling; e; e = e.nextElementSibling)"
        "   if (e.value >= +a && e.value <= +(b || a) && e.classList.contains('citerender-vl')) out.push(e.value);"
        " return out.slice(1); }"
    )
    return [target, *[page.locator(f"[id='{rid}'] ~ li.citerender-vl[value='{n}']").first for n in lines]]


def test_keyboard_reaches_the_range_and_returns_to_the_claim(browser: Any, page_url: str) -> None:
    context, page = _open(browser, page_url)
    page.keyboard.press("Tab")
    assert _focused(page)["tag"] == "BUTTON"  # the first citation (lines 9–13 of the uploaded file)
    page.keyboard.press("Enter")
    assert page.evaluate("document.getElementById('cite-1-card').matches(':popover-open')")
    page.keyboard.press("Tab")
    assert _focused(page)["href"] == "#source-1-L9-L13"
    page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    assert page.url.endswith("#source-1-L9-L13")
    assert _focused(page)["id"] == "source-1-L9-L13"  # the range's target holds the keyboard
    for row in _range_rows(page, "source-1-L9-L13"):  # in view, nothing (no card) on top of it
        assert row.evaluate(UNCOVERED), row.evaluate("e => e.outerHTML.slice(0, 120)")
    page.keyboard.press("Tab")
    assert _focused(page) | {"cls": ""} == {"tag": "A", "cls": "", "href": "#cite-1", "id": ""}
    page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    assert page.url.endswith("#cite-1")
    assert page.locator("#cite-1 > button").evaluate(UNCOVERED)
    page.keyboard.press("Tab")
    assert _focused(page)["cls"] == "citerender-hc-trigger"  # on from the claim
    context.close()


@pytest.mark.parametrize("width", [1280, 375])
def test_a_tap_on_the_passage_link_shows_the_range(browser: Any, page_url: str, width: int) -> None:
    context, page = _open(browser, page_url, width, has_touch=True, is_mobile=width < 600)
    page.locator(TRIGGER).nth(2).tap()  # the third claim: lines 11–14
    page.locator("#cite-3-card .citerender-card-passage").tap()
    page.wait_for_timeout(200)
    assert page.url.endswith("#source-1-L11-L14")
    for row in _range_rows(page, "source-1-L11-L14"):
        assert row.evaluate(UNCOVERED)
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # never sideways
    page.goto(page_url + "#source-5-L1")  # the long unbroken line wraps inside the view
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = page.locator("#source-5-L1 ~ li.citerender-vl").first.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width and box["height"] > 60
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_exactly_the_range_pointed_at_is_emphasised(browser: Any, page_url: str, scheme: str) -> None:
    context, page = _open(browser, page_url + "#source-1-L11-L14", scheme=scheme)
    rows = {r["n"]: r for r in page.evaluate(PAINTED, "#source-1 li.citerender-vl")}
    target, cited, plain = rows[11]["bg"], rows[9]["bg"], rows[1]["bg"]
    assert len({tuple(target), tuple(cited), tuple(plain)}) == 3
    looks = {n: ("target" if r["bg"] == target else "cited" if r["bg"] == cited else "plain") for n, r in rows.items()}
    assert [n for n, k in looks.items() if k == "target"] == [11, 12, 13, 14]
    assert [n for n, k in looks.items() if k == "cited"] == [9, 10, 18, 20]  # the overlapping 9–13 keeps its look
    page.goto(page_url + "#source-1-L9-L13")
    rows = {r["n"]: r for r in page.evaluate(PAINTED, "#source-1 li.citerender-vl")}
    assert [n for n, r in rows.items() if r["bg"] == target] == [9, 10, 11, 12, 13]
    assert rows[14]["bg"] == cited
    for r in rows.values():  # every line, highlighted or not, as blended: 4.5:1 for its text and number
        assert _contrast(r["text"], r["bg"]) >= 4.5 and _contrast(r["num"], r["bg"]) >= 4.5, r
    view_bg = page.evaluate(PAINTED, "#source-2 li.citerender-vl")[0]["bg"]
    assert (_lum(view_bg) < 0.05) == (scheme == "dark")  # the view is dark in the dark
    context.close()


def test_lines_read_in_their_own_direction(browser: Any, page_url: str) -> None:
    context, page = _open(browser, page_url + "#source-3-L2")
    dirs = page.evaluate(
        "() => ['#source-3', '#source-1'].map(v => [...document.querySelectorAll(v + ' .citerender-vt')]"
        ".map(t => [getComputedStyle(t).direction, t.getBoundingClientRect().right, t.closest('ol').getBoundingClientRect().right]))"
    )
    hebrew, english = dirs
    assert all(d == "rtl" for d, _, _ in hebrew) and all(d == "ltr" for d, _, _ in english)
    assert all(abs(right - edge) < 16 for _, right, edge in hebrew)  # set from the right edge
    context.close()


@pytest.fixture(scope="module")
def axe_script() -> str:
    from axe_playwright_python.sync_playwright import Axe

    return str(Axe().axe_script)


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (1280, "dark"), (375, "light"), (375, "dark")])
def test_axe_finds_nothing_with_a_range_targeted(
    browser: Any, axe_script: str, page_url: str, width: int, scheme: str
) -> None:
    from test_accessibility import RUN_AXE

    context = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme)
    page = context.new_page()  # axe runs as a script of its own; the page has none
    page.goto(page_url + "#source-1-L11-L14")
    page.evaluate(axe_script)
    assert page.evaluate(RUN_AXE) == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_on_a_sites_source_page(browser: Any, axe_script: str, tmp_path: Path, scheme: str) -> None:
    from test_accessibility import RUN_AXE

    src = tmp_path / "src"
    src.mkdir()
    for name in ("answer.md", "answer.sources.json"):
        (src / name).write_bytes((HERE / name).read_bytes())
    build_site(src, tmp_path / "out", style="hovercard")
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    page.goto((tmp_path / "out" / "sources" / "answer" / "turn0file0.html").as_uri() + "#L11-L14")
    page.evaluate(axe_script)
    assert page.evaluate(RUN_AXE) == []
    context.close()


def test_a_build_page_leads_to_its_sources_page_and_back(browser: Any, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("answer.md", "answer.sources.json"):
        (src / name).write_bytes((HERE / name).read_bytes())
    build_site(src, tmp_path / "out", style="pills")
    context, page = _open(browser, (tmp_path / "out" / "answer.html").as_uri(), 375, has_touch=True, is_mobile=True)
    page.locator(".citerender-has-card > button").nth(1).tap()
    page.locator("#cite-2-card .citerender-card-passage").tap()
    page.wait_for_url("**/sources/answer/turn0file0.html#L9-L13")
    for row in _range_rows(page, "L9-L13"):
        assert row.evaluate(UNCOVERED)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.locator("[id='L9-L13'] a.citerender-vback").nth(1).tap()
    page.wait_for_url("**/answer.html#cite-2")
    assert page.locator("#cite-2 > button").evaluate(UNCOVERED)
    context.close()


def test_mkdocs_material_pages_link_both_ways_uncovered(browser: Any, tmp_path: Path) -> None:
    """Material's header sticks to the top: the claim a back-link returns to is never under it."""
    docs = tmp_path / "docs" / "guide"
    docs.mkdir(parents=True)
    filler = "\n\n".join(f"Paragraph {i} of the introduction, before the claims." for i in range(40))
    text = (HERE / "answer.md").read_text(encoding="utf-8").replace("# Can I work from home?\n", "")
    (docs / "answer.md").write_text(f"# Can I work from home?\n\n{filler}\n\n{text}\n\n{filler}\n", encoding="utf-8")
    (docs / "answer.sources.json").write_bytes((HERE / "answer.sources.json").read_bytes())
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\ntheme: {name: material}\nplugins:\n  - citerender:\n      style: hovercard\n", encoding="utf-8"
    )
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    answer = tmp_path / "site" / "guide" / "answer" / "index.html"
    context, page = _open(browser, answer.as_uri())
    trigger = page.locator(TRIGGER).first
    trigger.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_url("**/guide/answer/sources/index/turn0file0.html#L9-L13")
    for row in _range_rows(page, "L9-L13"):
        assert row.evaluate(UNCOVERED)
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_url("**/guide/answer/index.html#guide-answer-cite-1")
    assert page.locator("#guide-answer-cite-1 > button").evaluate(UNCOVERED)  # below the sticky header
    context.close()


# --------------------------------------------------------------------------- the footnotes style


@pytest.fixture(scope="module")
def footnotes_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The fixture answer as a footnotes page: no cards, the bibliography entries link the views."""
    text = (HERE / "answer.md").read_text(encoding="utf-8")
    path = tmp_path_factory.mktemp("footnotes") / "answer.html"
    html = render(text, load_sources(HERE / "answer.sources.json"), style="footnotes", standalone=True).html
    path.write_text(html, encoding="utf-8")
    return path.as_uri()


def _target_rows(page: Any, view: str) -> list[int]:
    """The lines of ``view`` painted as the range pointed at (unlike a cited line's, a plain one's)."""
    rows = page.evaluate(PAINTED, f"#{view} li.citerender-vl")
    looks = {tuple(r["bg"]) for r in rows}
    cited = {tuple(r["bg"]) for r in rows if r["n"] in (18, 20)}  # cited, never pointed at here
    plain = {tuple(r["bg"]) for r in rows if r["n"] == 1}
    (target,) = looks - cited - plain
    return [r["n"] for r in rows if tuple(r["bg"]) == target]


def test_a_footnotes_reader_goes_from_a_citation_to_its_lines_and_back(browser: Any, footnotes_url: str) -> None:
    """Keyboard, JavaScript off: the citation's number leads to its entry, Tab reaches the entry's
    link to the cited lines, Enter shows exactly that range uncovered, Tab reaches the range's
    back-link, Enter returns to the citation."""
    context, page = _open(browser, footnotes_url)
    page.locator("#cite-3 a.citerender-num").focus()
    page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    assert page.url.endswith("#ref-1")
    for _ in range(20):  # on through the entry: its back-links, then its links into the view
        page.keyboard.press("Tab")
        if _focused(page)["href"] == "#source-1-L11-L14":
            break
    assert _focused(page)["cls"] == "citerender-ref-view"
    page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    assert page.url.endswith("#source-1-L11-L14") and _focused(page)["id"] == "source-1-L11-L14"
    for row in _range_rows(page, "source-1-L11-L14"):
        assert row.evaluate(UNCOVERED)
    assert _target_rows(page, "source-1") == [11, 12, 13, 14]  # exactly the range, not the overlapping 9–13
    page.keyboard.press("Tab")
    assert _focused(page)["href"] == "#cite-3"
    page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    assert page.url.endswith("#cite-3") and page.locator("#cite-3").evaluate(UNCOVERED)
    context.close()


@pytest.mark.parametrize("width", [1280, 375])
def test_a_tap_on_an_entry_link_shows_its_range(browser: Any, footnotes_url: str, width: int) -> None:
    context, page = _open(browser, footnotes_url, width, has_touch=True, is_mobile=width < 600)
    page.locator('#ref-2 a.citerender-ref-view[href="#source-2-L4"]').tap()
    page.wait_for_timeout(200)
    assert page.url.endswith("#source-2-L4")
    for row in _range_rows(page, "source-2-L4"):
        assert row.evaluate(UNCOVERED)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.locator("[id='source-2-L4'] a.citerender-vback").tap()  # cited by the fifth claim
    page.wait_for_timeout(200)
    assert page.url.endswith("#cite-5") and page.locator("#cite-5").evaluate(UNCOVERED)
    context.close()


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (1280, "dark"), (375, "light")])
def test_axe_finds_nothing_on_a_footnotes_page_with_a_range_targeted(
    browser: Any, axe_script: str, footnotes_url: str, width: int, scheme: str
) -> None:
    from test_accessibility import RUN_AXE

    context = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    page.goto(footnotes_url + "#source-1-L9-L13")
    page.evaluate(axe_script)
    assert page.evaluate(RUN_AXE) == []
    context.close()
