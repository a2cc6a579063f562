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
