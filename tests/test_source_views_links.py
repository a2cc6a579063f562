"""Source views, the rest of issue 48: every citation style reaches the view (the bibliography
entry links each cited range to it, and the view's back-links return to the citation, ``#cite-N``,
in the footnotes and superscript styles too), sources merged into one reference by a shared URL
each get a view of their own, and a view is built in one sweep (a source cited forty thousand
times costs its lines plus its ranges, never their product). The browser half is
tests/test_source_views_browser.py."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, best_cpu, expand
from markdown_it import MarkdownIt
from test_source_views import _resolve

from citerender import citation_plugin, load_sources, render
from citerender.plugin.bibliography import ENTRY_RANGES, render_bibliography
from citerender.publish.site import build_site
from citerender.rendering.source_view import source_views
from citerender.rendering.source_view_html import view_html
from citerender.rendering.themes import load_theme
from citerender.sources.model import registry_from_data

HERE = FIXTURES / "source_views"
LOCATOR = re.compile(r"L(\d+)(?:-L(\d+))?$")


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def _answer(name: str = "answer") -> tuple[str, Any]:
    return (HERE / f"{name}.md").read_text(encoding="utf-8"), load_sources(HERE / f"{name}.sources.json")


def _span(href: str) -> tuple[int, int]:
    m = LOCATOR.search(href)
    assert m, href
    return int(m.group(1)), int(m.group(2) or m.group(1))


def _lines_after(target: Any, low: int, high: int) -> list[str]:
    """The text of lines ``low``–``high`` shown after a range's opening row."""
    rows = {int(li["value"]): li for li in target.find_next_siblings("li", class_="citerender-vl")}
    return [rows[n].select_one(".citerender-vt").get_text() for n in range(low, high + 1)]


# --------------------------------------------------------------------------- every style


@pytest.mark.parametrize("style", ["footnotes", "superscript"])
def test_a_bibliography_entry_links_each_cited_range_to_its_view(style: str) -> None:
    text, reg = _answer()
    doc = soup(render(text, reg, style=style, standalone=True).html)
    assert not doc.select(".citerender-card-passage")  # no cards in these styles: the entry is the way in
    entries = {li["id"]: li for li in doc.select("li.citerender-ref")}
    hrefs = {rid: [a["href"] for a in li.select("a.citerender-ref-view")] for rid, li in entries.items()}
    assert hrefs == {
        "ref-1": ["#source-1-L9-L13", "#source-1-L11-L14", "#source-1-L18", "#source-1-L20"],
        "ref-2": ["#source-2-L2", "#source-2-L4"],
        "ref-3": ["#source-3-L2"],
        "ref-4": [],  # a snippet without lines has no view
    }  # one link a distinct range, in line order; the out-of-range L90-L95 has none
    for li in entries.values():
        number = li["value"]
        for a in li.select("a.citerender-ref-view"):
            target = doc.find(id=a["href"][1:])
            assert target is not None and "citerender-vrange" in target["class"] and target["tabindex"] == "-1"
            assert target.find_parent("section", class_="citerender-view")["id"] == f"source-{number}"
            low, high = _span(a["href"])
            visible = a.get_text()
            assert visible == (f"line {low}" if low == high else f"lines {low}\u2013{high}")
            # named by what it opens, starting with what it shows (label in name)
            assert (
                a["aria-label"] == f"{visible}: show {'it' if low == high else 'them'} in the text of source {number}"
            )
            lines = reg[doc.find(id=f"source-{number}").select_one("code").get_text()].lines
            assert _lines_after(target, low, high) == list(lines[low - 1 : high])
        assert li.select_one(".citerender-ref-views") is None or li.select_one(
            ".citerender-ref-views"
        ).get_text().startswith("in the source: ")


@pytest.mark.parametrize("style", ["footnotes", "superscript"])
def test_the_views_back_links_return_to_the_citations_of_a_footnotes_page(style: str) -> None:
    text, reg = _answer()
    doc = soup(render(text, reg, style=style, standalone=True).html)
    backs = doc.select("a.citerender-vback")
    assert [a["href"] for a in doc.find(id="source-1-L9-L13").select("a.citerender-vback")] == ["#cite-1", "#cite-2"]
    assert len(backs) == 8
    for a in backs:
        cite = doc.find(id=a["href"][1:])
        assert cite is not None and cite.name == "sup" and "citerender-cite" in cite["class"]
        # the round trip: the entry linking this range lists this citation among its back-links
        rid = a.find_parent("li")["id"]
        entry = doc.find("a", class_="citerender-ref-view", href=f"#{rid}").find_parent("li", class_="citerender-ref")
        assert entry.select_one(f'.citerender-backlinks a[href="{a["href"]}"]') is not None


def test_no_entry_links_where_there_is_no_view() -> None:
    text, reg = _answer()
    for html in (
        render(text, reg, style="footnotes").html,  # a fragment: its page may hold no view
        render(text, reg, style="footnotes", standalone=True, source_views="off").html,
    ):
        doc = soup(html)
        assert not doc.select(".citerender-ref-views, .citerender-ref-view, .citerender-view")
        assert doc.select("a.citerender-num")  # (the citations are there, linked to their entries)
    hostile = registry_from_data([{"id": "d", "title": 'T"><img src=x onerror=alert(1)>', "lines": ["a", "b"]}])
    doc = soup(render(expand("X.{S}cite{D}d{D}L1{E}"), hostile, style="footnotes", standalone=True).html)
    assert not doc.find("img") and doc.select_one("a.citerender-ref-view")["href"] == "#source-1-L1"


def test_the_default_template_writes_the_entry_links_as_the_builtin_markup(tmp_path: Path) -> None:
    theme_dir = tmp_path / "copy"
    theme_dir.mkdir()
    shutil.copy(load_theme("default").dirs[0] / "bibliography.html.j2", theme_dir / "bibliography.html.j2")
    for name in ("answer", "merged"):
        text, reg = _answer(name)
        refs = render(text, reg, standalone=True).bibliography
        assert any(r.views == "page" for r in refs)
        for style in ("footnotes", "hovercard"):
            built = render_bibliography(refs, style)
            assert "citerender-ref-view" in built
            assert load_theme(theme_dir).render_bibliography(refs, style) == built


def _follow_entries(answer_page: Path) -> int:
    """Every entry link of ``answer_page`` leads to a view page holding its range, whose
    back-links lead to citations on the answer page; how many links there were."""
    doc = soup(answer_page.read_text(encoding="utf-8"))
    links = doc.select("a.citerender-ref-view")
    for a in links:
        view_path, frag = _resolve(answer_page, a["href"])
        view = soup(view_path.read_text(encoding="utf-8"))
        target = view.find(id=frag)
        assert target is not None and "citerender-vrange" in target["class"], a["href"]
        backs = target.select("a.citerender-vback")
        assert backs
        for back in backs:
            page_path, cite = _resolve(view_path, back["href"])
            assert page_path == answer_page and doc.find(id=cite).name == "sup"
    return len(links)


def test_a_footnotes_build_links_its_entries_to_the_source_pages(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for name in ("answer.md", "answer.sources.json", "merged.md", "merged.sources.json"):
        shutil.copy(HERE / name, src / name)
    assert not build_site(src, out, style="footnotes").failed
    assert _follow_entries(out / "answer.html") == 7
    assert _follow_entries(out / "merged.html") == 5
    doc = soup((out / "answer.html").read_text(encoding="utf-8"))
    assert doc.select_one("a.citerender-ref-view")["href"] == "sources/answer/turn0file0.html#L9-L13"


def test_mkdocs_footnotes_entries_link_to_the_source_pages(tmp_path: Path) -> None:
    """The host's bibliography (MkDocs and Sphinx render it apart from the page) links too."""
    docs = tmp_path / "docs" / "guide"
    docs.mkdir(parents=True)
    for name in ("answer.md", "answer.sources.json"):
        shutil.copy(HERE / name, docs / name)
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nplugins:\n  - citerender:\n      style: footnotes\n", encoding="utf-8"
    )
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert _follow_entries(tmp_path / "site" / "guide" / "answer" / "index.html") == 7


# --------------------------------------------------------------------------- merged references


def test_sources_merged_into_one_reference_each_get_their_own_view() -> None:
    text, reg = _answer("merged")
    r = render(text, reg, style="hovercard", standalone=True)
    assert [d.code for d in r.diagnostics] == ["CR310", "CR102"]  # one reference; L40 is outside the PDF
    doc = soup(r.html)
    views = doc.select("section.citerender-view")
    assert [(v["id"], v.select_one(".citerender-view-title").get_text(" ", strip=True)) for v in views] == [
        ("source-1", "Source 1: Parental leave (intranet page)"),
        ("source-1-2", "Source 1: Parental leave policy (PDF export)"),
    ]
    for v, sid in zip(views, ("turn0search0", "turn0file1"), strict=True):  # each its own text, whole
        assert [li.select_one(".citerender-vt").get_text() for li in v.select("li.citerender-vl")] == list(
            reg[sid].lines
        )
    # each card passage leads to the range of the source it quotes, in that source's view
    passages = doc.select(".citerender-card-passage")
    assert sorted({a["href"] for a in passages}) == [
        "#source-1-2-L3-L4", "#source-1-2-L4", "#source-1-2-L6", "#source-1-L2", "#source-1-L3",
    ]  # fmt: skip
    for a in passages:
        target = doc.find(id=a["href"][1:])
        quoted = [t.get_text() for t in a.find_parent(class_="citerender-card-body").select(".citerender-ltext")]
        assert _lines_after(target, *_span(a["href"])) == quoted
        cite = a.find_parent(class_="citerender-cite")["id"]
        assert f"#{cite}" in [b["href"] for b in target.select("a.citerender-vback")]  # and back
    assert [b["href"] for b in doc.find(id="source-1-2-L3-L4").select("a.citerender-vback")] == ["#cite-4"]
    assert [b["href"] for b in doc.find(id="source-1-L2").select("a.citerender-vback")] == ["#cite-1", "#cite-4"]
    assert not doc.select('[id*="L40"], [href*="L40"]')  # never clamped
    entry = doc.find(id="ref-1").select_one(".citerender-ref-views")
    assert entry.get_text() == (
        "in the sources: Parental leave (intranet page): line 2 \u00b7 line 3; "
        "Parental leave policy (PDF export): lines 3\u20134 \u00b7 line 4 \u00b7 line 6"
    )
    assert [a["aria-label"] for a in entry.select("a")][2] == (
        "lines 3\u20134 of Parental leave policy (PDF export): show them in the text of source 1"
    )
    # in print the entry quotes each range from the source it cites (the views are for the screen)
    quotes = [q.get_text() for q in doc.find(id="ref-1").select(".citerender-ref-quote")]
    assert quotes[:3] == [
        "line 2 of Parental leave (intranet page): \u201c" + reg["turn0search0"].lines[1] + "\u201d",
        "line 3 of Parental leave (intranet page): \u201c" + reg["turn0search0"].lines[2] + "\u201d",
        "line 4 of Parental leave policy (PDF export): \u201c" + reg["turn0file1"].lines[3] + "\u201d",
    ]


def test_a_build_publishes_a_page_per_merged_source(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for name in ("merged.md", "merged.sources.json"):
        shutil.copy(HERE / name, src / name)
    assert not build_site(src, out, style="pills").failed
    assert sorted(p.name for p in (out / "sources" / "merged").iterdir()) == ["turn0file1.html", "turn0search0.html"]
    doc = soup((out / "merged.html").read_text(encoding="utf-8"))
    for a in doc.select(".citerender-card-passage"):
        view_path, frag = _resolve(out / "merged.html", a["href"])
        quoted = [t.get_text() for t in a.find_parent(class_="citerender-card-body").select(".citerender-ltext")]
        assert _lines_after(soup(view_path.read_text(encoding="utf-8")).find(id=frag), *_span(frag)) == quoted


def test_the_document_table_says_which_merged_source_a_place_cites() -> None:
    """The table stays plain data, and a document rendered from it alone (its working state gone)
    still gives each merged source its view and its entry links."""
    text, reg = _answer("merged")
    md = MarkdownIt("commonmark").use(citation_plugin, registry=reg, style="footnotes", source_views="page")
    env: dict = {}
    expected = md.render(text, env)
    table = json.loads(json.dumps(env["citerender"]))
    places = table["references"][0]["places"]
    assert [p[2] if len(p) > 2 else None for p in places] == [
        None, None, "turn0file1", "turn0file1", None, "turn0file1", "turn0file1",
    ]  # fmt: skip
    assert table["references"][0]["views"] == "page"
    env = {}
    tokens = md.parse(text, env)
    for k in range(12):  # more documents than a thread keeps at hand: this one is read back from its table
        md.parse(f"Other {k}.\n", {})
    again = md.renderer.render(tokens, md.options, env)
    assert again == expected and 'href="#source-1-2-L3-L4"' in again


# --------------------------------------------------------------------------- the sweep


def _expected_classes(ranges: Any, n: int) -> list[str]:
    """What a line's classes are by definition: each slotted range covering it (its end marked),
    in the ranges' order; cited when any range covers it."""
    out = ["citerender-vl"]
    for r in ranges:
        if r.low <= n <= r.high and r.slot >= 0:
            out += [f"citerender-s{r.slot}"] + ([f"citerender-s{r.slot}-end"] if n == r.high else [])
    return out + (["citerender-vl-cited"] if any(r.low <= n <= r.high for r in ranges) else [])


def test_the_sweep_marks_each_line_as_every_range_checked_for_it_would() -> None:
    """Random answers over short and long sources, ranges overlapping past the slots: each shown
    line and gap carries exactly the classes the definition gives."""
    rnd = random.Random(48)
    checked = 0
    for _ in range(40):
        n = rnd.choice([12, 280, 2_000])
        reg = registry_from_data([{"id": "d", "title": "D", "lines": [f"line {i}" for i in range(1, n + 1)]}])
        cites = []
        for _ in range(rnd.randint(1, 60)):
            a = rnd.randint(1, n)
            b = min(n, a + rnd.choice([0, 1, 2, 5, 30, 400]))
            cites.append(f"C.{{S}}cite{{D}}d{{D}}L{a}" + (f"-L{b}" if b > a else "") + "{E}")
        refs = render(expand(" ".join(cites)), reg, standalone=True).bibliography
        (view,) = source_views(refs)
        rows = soup(view_html(view, "page")).select("li.citerender-vl, li.citerender-vgap")
        for li in rows:
            if "citerender-vl" in li["class"]:
                assert li["class"] == _expected_classes(view.ranges, int(li["value"]))
            else:
                first, last = (int(x.replace(",", "")) for x in re.findall(r"[\d,]+", li.get_text())[1:3])
                inside = [r for r in view.ranges if r.low < first and last < r.high]
                assert li["class"] == ["citerender-vgap", *[f"citerender-s{r.slot}" for r in inside if r.slot >= 0]] + (
                    ["citerender-vl-cited"] if inside else []
                )
            checked += 1
    assert checked > 2_000


def test_a_source_cited_ten_thousand_times_costs_its_lines_plus_its_ranges() -> None:
    """One 10,000-line source cited 10,000 times, each a range of its own: every line used to
    check every range before it (at 40,000 of each: 31-60 s of CPU against 2.4-3 s without
    views; here about 5x). Now the view is one sweep: a small multiple of the same render without
    views, whatever the count."""
    n = 10_000
    lines = [f"Line {i} of the ledger." for i in range(1, n + 1)]
    reg = registry_from_data([{"id": "big", "title": "Big", "lines": lines}])
    text = expand(" ".join(f"C{i}.{{S}}cite{{D}}big{{D}}L{i}{{E}}" for i in range(1, n + 1)))
    html: list[str] = []
    with_views = best_cpu(lambda: html.append(render(text, reg, standalone=True).html), 2)
    without = best_cpu(lambda: render(text, reg, standalone=True, source_views="off"), 2)
    assert with_views / without <= 3, f"views cost x{with_views / without:.1f} ({with_views:.2f} s, {without:.2f} s)"
    page = html[0]
    assert page.count('<li class="citerender-vrange') == n  # every range has its target
    entry = soup(page[page.index('<span class="citerender-ref-views">') :].split("</li>", 1)[0])
    links = entry.select("a.citerender-ref-view")  # the entry links the first ranges, and counts the rest
    assert [a["href"] for a in links[:3]] == ["#source-1-L1", "#source-1-L2", "#source-1-L3"]
    assert len(links) == ENTRY_RANGES + 1 and links[-1]["href"] == "#source-1"
    assert links[-1].get_text() == f"and {n - ENTRY_RANGES:,} more ranges, in the text of source 1"
