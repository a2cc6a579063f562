"""The report page as a person sees it, measured in Chromium at 1280 and 375 px, light and dark,
on 18 groups whose rates all lie between 70% and 92%: nothing clipped or scrolled sideways, no
legend on the marks, the rates' axis fitted to the data with only support, recall and precision on
it, every chart and table text at least 10 CSS px with no chart labels over each other, and in
dark mode a dark page with no white chart panel."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from reader_geometry import painted_fonts

S, D, E = "\ue200", "\ue202", "\ue201"
LINES = [f"Meter {k} reads {7 * k + 3} units at noon." for k in range(1, 11)]
SOURCES = [{"id": "log", "title": "Meter log", "lines": LINES}]


def answer(supported: int) -> str:
    return " ".join(
        f"Meter {k} reads {7 * k + 3 + (k > supported)} units at noon.{S}cite{D}log{D}L{k}{E}" for k in range(1, 11)
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("report18")
    records = []
    for g in range(18):  # group g's answers support 7 to 9 of their 10 claims: rates 70% to 92%
        for q in range(12):
            supported = 7 + (q * 3 + g) % 3 if g < 9 else 8 + (q + g) % 2
            records.append({"id": f"g{g}-q{q}", "model": f"model-{g:02d}-{'large' if g % 2 else 'small'}",
                            "answer": answer(supported), "sources": SOURCES})  # fmt: skip
    data = tmp / "answers.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    r = run_cli("check-dataset", data, "-o", tmp / "r.jsonl", "--group-by", "model", "--report", tmp / "report.html")
    assert r.returncode == 0, r.stderr
    return tmp / "report.html"


MEASURE = """() => {
  const box = e => e.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const charts = [...document.querySelectorAll('figure svg')].map(svg => {
    const scale = box(svg).width / svg.viewBox.baseVal.width;
    const texts = [...svg.querySelectorAll('text')];
    const boxes = texts.map(box);
    const overlaps = [];
    boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b, j) => { if (meets(a, b)) overlaps.push([texts[i].textContent, texts[i + 1 + j].textContent]); }));
    const outer = box(svg);
    const axes = box(svg.querySelector('#axes_1 > #patch_2') || svg.querySelector('#axes_1 > g'));
    const legend = svg.querySelector('#legend_1');
    const white = [...svg.querySelectorAll('path, rect')].filter(p => ['rgb(255, 255, 255)', 'white', '#ffffff'].includes(getComputedStyle(p).fill) && box(p).width * box(p).height > 400);
    return {
      smallest: Math.min(...texts.map(t => parseFloat(getComputedStyle(t).fontSize) * scale)),
      overlaps,
      outside: boxes.filter(b => b.left < outer.left - 1 || b.right > outer.right + 1 || b.top < outer.top - 1 || b.bottom > outer.bottom + 1).length,
      legendOnMarks: legend ? meets(box(legend), axes) : false,
      legend: legend ? [...legend.querySelectorAll('text')].map(t => t.textContent) : [],
      xticks: [...svg.querySelectorAll('[id^=xtick_] text')].map(t => t.textContent),
      white: white.length,
    };
  });
  const cells = [...document.querySelectorAll('main td, main th, main caption, main p, main dd, main dt')];
  const boxes = [...document.querySelectorAll('main table, main .citerender-table-wrap, main figure, main dl')];
  return {
    charts,
    pageWider: document.documentElement.scrollWidth > window.innerWidth,
    sideways: boxes.filter(b => b.scrollWidth > b.clientWidth + 1 || box(b).right > window.innerWidth + 0.5).length,
    smallestText: Math.min(...cells.map(c => parseFloat(getComputedStyle(c).fontSize))),
    background: getComputedStyle(document.documentElement).backgroundColor,
    mainBackground: getComputedStyle(document.querySelector('main')).backgroundColor,
  };
}"""


def luminance(css: str) -> float:
    parts = [float(x) for x in css[css.index("(") + 1 : css.index(")")].split(",")[:3]]
    return sum(w * v / 255 for w, v in zip((0.2126, 0.7152, 0.0722), parts, strict=True))


@pytest.mark.browser
@pytest.mark.parametrize("scheme,width", [("light", 1280), ("light", 375), ("dark", 1280), ("dark", 375)])
def test_the_report_page_reads_at_both_widths_and_in_dark_mode(
    browser: Any, report: Path, scheme: str, width: int
) -> None:
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(report.as_uri())
    got = page.evaluate(MEASURE)
    context.close()
    assert not got["pageWider"] and got["sideways"] == 0, got
    assert got["smallestText"] >= 10, got["smallestText"]
    rates, hist = got["charts"]
    for chart in (rates, hist):
        assert chart["smallest"] >= 10, chart["smallest"]
        assert chart["overlaps"] == [] and chart["outside"] == 0 and not chart["legendOnMarks"], chart
        assert chart["white"] == 0, chart
    assert rates["legend"] == ["Support rate", "Citation recall", "Citation precision"]
    assert float(rates["xticks"][0]) >= 50  # fitted to rates between 70% and 92%, not 0-100
    if scheme == "dark":  # the page itself dark, not a dark box on a white canvas
        assert not got["background"].startswith("rgba") and luminance(got["background"]) < 0.2, got
        assert luminance(got["mainBackground"]) < 0.2, got


# --- issue 45 §3: a page that looks like one, measured from what Chromium paints -------------------

PUMPS = [
    {
        "id": "pumps",
        "title": "Pump test sheet",
        "lines": [f"Pump {k} delivers {20 + k} litres per minute." for k in range(1, 9)],
    }
]


def _pumps(wrong: int, cite: str = "") -> str:
    """Four claims about pumps, the first ``wrong`` of them contradicting their cited line;
    ``cite``: a fifth sentence citing it (an unknown id, lines the sheet lacks)."""
    text = " ".join(
        f"Pump {k} delivers {20 + k + (k <= wrong)} litres per minute.{S}cite{D}pumps{D}L{k}{E}" for k in range(1, 5)
    )
    return text + (f" Pump 5 delivers 25 litres per minute.{S}cite{D}{cite}{E}" if cite else "")


@pytest.fixture(scope="module")
def ranked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """26 flawed answers: 24 with one contradicted claim each (t1 … t24), then one with two and one
    with three, then one whose only problem is an unknown id and one whose only problem is a line
    locator the sheet does not have; the groups named as models are named, unbroken, at length."""
    tmp = tmp_path_factory.mktemp("ranked")
    long = "provider-{}/an-unusually-long-model-name-without-a-single-space-2025-06-01-preview"
    records = [
        {"id": f"t{k}", "model": long.format(k % 3), "answer": _pumps(1), "sources": PUMPS} for k in range(1, 25)
    ]
    records += [{"id": "c2", "model": long.format(0), "answer": _pumps(2), "sources": PUMPS},
                {"id": "c3", "model": long.format(1), "answer": _pumps(3), "sources": PUMPS},
                {"id": "clean", "model": long.format(2), "answer": _pumps(0), "sources": PUMPS},
                {"id": "unknown", "model": long.format(0), "answer": _pumps(0, "pump-catalogue"), "sources": PUMPS},
                {"id": "invented", "model": long.format(1), "answer": _pumps(0, "pumps" + D + "L40"), "sources": PUMPS}]  # fmt: skip
    data = tmp / "pumps.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    r = run_cli("check-dataset", data, "-o", tmp / "r.jsonl", "--group-by", "model", "--report", tmp / "report.html")
    assert r.returncode == 0, r.stderr
    return tmp / "report.html"


def test_the_worst_answers_rank_by_contradicted_claims_then_dataset_order(ranked: Path) -> None:
    """Three contradicted claims above two above one; the 24 answers with one each in the
    dataset's order (t9 before t10, never sorted as text); the answers whose only problem is a
    citation of nothing (an unknown id, an invented locator) listed too, though twenty answers
    with contradicted claims fill the list, each row linking to its own page."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(ranked.read_text(encoding="utf-8"), "html.parser")
    table = soup.find("h2", string="The worst answers").find_next("table")
    rows = [tr.find("th").get_text(" ", strip=True).split(" (")[0] for tr in table.tbody.find_all("tr")]
    assert rows[:2] == ["c3", "c2"], rows
    ones = [r for r in rows if r.startswith("t")]
    assert ones == [f"t{k}" for k in range(1, len(ones) + 1)] and len(ones) >= 10, rows  # t9, then t10
    assert "unknown" in rows and "invented" in rows and "clean" not in rows, rows
    assert rows.index("unknown") > rows.index(ones[-1]) and rows.index("invented") > rows.index(ones[-1]), rows
    for tr in table.tbody.find_all("tr"):
        page = ranked.parent / tr.find("a")["href"]
        assert page.is_file(), page


#: what the page's layout does: its body's font as painted (by CDP, below), tables against their boxes
LAYOUT = """() => ({
  scrollWidth: document.documentElement.scrollWidth,
  tables: [...document.querySelectorAll('main table')].map(t => {
    const r = t.getBoundingClientRect(), box = t.parentElement;
    return {right: r.right, width: r.width, box: box.clientWidth, boxScroll: box.scrollWidth};
  }),
  background: getComputedStyle(document.documentElement).backgroundColor,
})"""


def white_panel(png: bytes, size: int = 32, lightness: float = 0.85) -> tuple[int, int] | None:
    """The top-left corner of a ``size`` × ``size`` square of near-white pixels in a screenshot, or None."""
    import io

    import numpy as np
    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float) / 255
    light = (rgb @ np.array([0.2126, 0.7152, 0.0722]) >= lightness).astype(np.int64)
    sums = np.pad(light.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    full = sums[size:, size:] - sums[:-size, size:] - sums[size:, :-size] + sums[:-size, :-size]
    ys, xs = np.nonzero(full == size * size)
    return (int(xs[0]), int(ys[0])) if len(xs) else None


@pytest.mark.browser
def test_the_report_is_styled_its_tables_fit_and_nothing_scrolls_sideways(browser: Any, ranked: Path) -> None:
    """Its inline CSS arrives as CSS (not HTML-escaped), so its text is drawn in a sans-serif
    face, not the browser's default serif; with group names of 80 unbroken characters, no table
    is wider than its box or the window, and the page does not scroll sideways."""
    from bs4 import BeautifulSoup

    style = BeautifulSoup(ranked.read_text(encoding="utf-8"), "html.parser").find("style").string
    assert "&#" not in style and "&quot;" not in style and 'content: ""' in style
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(ranked.as_uri())
    fonts = painted_fonts(page, "main > p")
    got = page.evaluate(LAYOUT)
    context.close()
    serif = [f for f in fonts if ("serif" in f.lower() and "sans" not in f.lower()) or "times" in f.lower()]
    assert fonts and serif == [], fonts
    assert got["scrollWidth"] <= 1280, got
    assert len(got["tables"]) >= 4
    for t in got["tables"]:
        assert t["width"] <= t["box"] + 0.5 and t["boxScroll"] <= t["box"] and t["right"] <= 1280, t


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 375])
def test_in_dark_mode_no_white_panel_appears_anywhere(browser: Any, ranked: Path, report: Path, width: int) -> None:
    """Dark scheme, the whole page painted (a full-page screenshot): dark, and not one square of
    32 × 32 near-white pixels anywhere — charts, tables and captions included."""
    context = browser.new_context(color_scheme="dark", viewport={"width": width, "height": 900})
    page = context.new_page()
    for path in (ranked, report):
        page.goto(path.as_uri())
        png = page.screenshot(full_page=True)
        got = page.evaluate(LAYOUT)
        assert luminance(got["background"]) < 0.2, got
        assert white_panel(png) is None, (path.name, white_panel(png))
        assert white_panel(page.screenshot(full_page=True), lightness=0.0) is not None  # the probe sees squares at all
    context.close()
