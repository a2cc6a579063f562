"""Source views (issue 48 §1–5), read as a page: every cited source whose lines the registry
holds shown line by line with its numbers, exactly its cited lines highlighted, card passages and
ranges linked both ways, long sources bounded, out-of-range locators pointing nowhere; on a
standalone page, and as pages of a build, of MkDocs and of Sphinx. The browser half (keyboard,
viewport, contrast, axe) is tests/test_source_views_browser.py."""

from __future__ import annotations

import itertools
import json
import posixpath
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, expand, run_cli

from citerender import CiterenderError, RenderOptions, load_sources, render
from citerender.plugin.source_links import view_file
from citerender.plugin.state import Reference
from citerender.publish.manifest import MANIFEST
from citerender.publish.site import build_site
from citerender.publish.source_pages import answer_pages_clash
from citerender.rendering.source_view import MAX_SHOWN, PAGE_WHOLE_LINES, SLOTS, parts_of
from citerender.sources.model import Source, registry_from_data

HERE = FIXTURES / "source_views"
LOCATOR = re.compile(r"L(\d+)(?:-L(\d+))?$")
GAP = re.compile(r"^([\d,]+) lines omitted")


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


@pytest.fixture(scope="module")
def page() -> tuple[Any, Any]:
    """The fixture answer as a standalone hover-card page: (the rendered result, its soup)."""
    text = (HERE / "answer.md").read_text(encoding="utf-8")
    r = render(text, load_sources(HERE / "answer.sources.json"), style="hovercard", standalone=True)
    return r, soup(r.html)


def _span(href: str) -> tuple[int, int]:
    m = LOCATOR.search(href)
    assert m, href
    return int(m.group(1)), int(m.group(2) or m.group(1))


def _cited_numbers(view: Any) -> set[int]:
    return {int(li["value"]) for li in view.select("li.citerender-vl.citerender-vl-cited")}


def test_every_cited_source_with_lines_has_a_view_and_no_other(page: tuple[Any, Any]) -> None:
    r, doc = page
    views = doc.select("section.citerender-view")
    titles = [v.select_one(".citerender-view-title").get_text(" ", strip=True) for v in views]
    assert titles == [
        "Source 1: Remote Work Policy (uploaded PDF)",
        "Source 2: Travel and Expenses FAQ",
        "Source 3: מדיניות עבודה מרחוק",
    ]  # the snippet without lines has none, and the source nobody cites is nowhere
    assert "UNCITED-SECRET" not in r.html
    for v in views:  # a region named by its heading, which holds the source's title
        assert v["aria-labelledby"] == v.select_one(".citerender-view-title")["id"]
    lines = load_sources(HERE / "answer.sources.json")["turn0file0"].lines
    first = views[0].select("li.citerender-vl")
    assert [int(li["value"]) for li in first] == list(range(1, len(lines) + 1))  # the whole text, in order
    assert [li.select_one(".citerender-vno").get_text() for li in first] == [str(n) for n in range(1, len(lines) + 1)]
    assert [li.select_one(".citerender-vt").get_text() for li in first] == list(lines)
    # no script on the page (issue 48): the stylesheet places the cards and the views need none
    # (the browser tests run them with JavaScript off); the page's policy allows none either
    assert doc.find("script") is None and "script-src" not in r.html
    assert "default-src 'none'; style-src 'unsafe-inline'; img-src" in r.html


def test_cited_lines_and_only_those_are_highlighted(page: tuple[Any, Any]) -> None:
    _, doc = page
    views = doc.select("section.citerender-view")
    assert _cited_numbers(views[0]) == {*range(9, 15), 18, 20}  # L9-L13 (twice), L11-L14, L18, L20
    assert _cited_numbers(views[1]) == {2, 4}
    assert _cited_numbers(views[2]) == {2}


def test_an_out_of_range_locator_is_reported_and_points_nowhere(page: tuple[Any, Any]) -> None:
    r, doc = page
    assert [d.message for d in r.diagnostics if d.code == "CR102"] == ["L90-L95 is outside 'turn0file0' (lines 1-34)"]
    assert not doc.select('[id*="L90"], [href*="L90"]')  # no anchor, no passage link
    last = doc.select("section.citerender-view")[0].select("li.citerender-vl")[-1]
    assert "citerender-vl-cited" not in last["class"]  # never clamped to the last line


def test_each_card_passage_links_to_its_range_on_the_page(page: tuple[Any, Any]) -> None:
    _, doc = page
    links = doc.select(".citerender-card .citerender-card-passage")
    assert {a["href"] for a in links} == {
        "#source-1-L9-L13", "#source-1-L11-L14", "#source-1-L18", "#source-1-L20",
        "#source-2-L4", "#source-2-L2", "#source-3-L2",
    }  # fmt: skip
    for a in links:
        target = doc.find(id=a["href"][1:])
        assert target is not None and "citerender-vrange" in target["class"]
        assert target.get("tabindex") == "-1"  # following the link moves the keyboard there
        low, high = _span(a["href"])
        assert a.get_text() == (
            f"Show line {low} in the source" if low == high else f"Show lines {low}\u2013{high} in the source"
        )
        line = target.find_next_sibling("li", class_="citerender-vl")
        assert int(line["value"]) == low  # the target opens its range: right above its first line
    # a source with a URL keeps its text-fragment link in the card, and has its view too
    web = doc.select_one('.citerender-card-passage[href="#source-2-L2"]').find_parent(class_="citerender-card-item")
    assert web.select_one("a.citerender-card-title")["href"].startswith("https://company.example/travel-faq#:~:text=")


def test_every_range_links_back_to_every_claim_citing_it(page: tuple[Any, Any]) -> None:
    _, doc = page
    ref = doc.select("section.citerender-view")[0]
    opening = ref.find(id="source-1-L9-L13")
    backs = [a["href"] for a in opening.select("a.citerender-vback")]
    assert backs == ["#cite-1", "#cite-2"]  # two claims cite lines 9–13
    citing = {
        c["id"]
        for c in doc.select(".citerender-cite")
        if c.select_one('.citerender-card-passage[href="#source-1-L9-L13"]')
    }
    assert {h[1:] for h in backs} == citing
    for a in doc.select("a.citerender-vback"):
        cite = doc.find(id=a["href"][1:])
        assert cite is not None and "citerender-cite" in cite["class"]
        passage = cite.select_one(f'.citerender-card-passage[href="#{a.find_parent("li")["id"]}"]')
        assert passage is not None  # the claim's card links to the range back


def test_overlapping_ranges_each_mark_exactly_their_lines(page: tuple[Any, Any]) -> None:
    """Each range has a slot no overlapping range has; its rows carry it, its last line ends it
    (the stylesheet emphasises exactly those rows when the range is the target)."""
    _, doc = page
    view = doc.select("section.citerender-view")[0]
    slots = {}
    for rid, (low, high) in (("source-1-L9-L13", (9, 13)), ("source-1-L11-L14", (11, 14))):
        opening = view.find(id=rid)
        (slot,) = [c for c in opening["class"] if re.fullmatch(r"citerender-s\d-start", c)]
        slots[rid] = slot[: -len("-start")]
        rows = []  # as the slot's rule reads them: its rows after the opening one, to the first end
        for li in opening.find_next_siblings("li"):
            if slots[rid] in li["class"]:
                rows.append(int(li["value"]))
                if f"{slots[rid]}-end" in li["class"]:
                    break
        assert rows == list(range(low, high + 1))
    assert len(set(slots.values())) == 2
    css = render("x", style="hovercard", standalone=True).css
    for s in range(SLOTS):  # a rule per slot in the stylesheet
        assert f".citerender-s{s}-start:target ~ .citerender-s{s}:not(" in css


def test_lines_read_in_their_own_direction(page: tuple[Any, Any]) -> None:
    _, doc = page
    texts = doc.select("section.citerender-view .citerender-vt")
    assert texts and all(t.get("dir") == "auto" for t in texts)


HOSTILE = [
    '<script>alert(1)</script> and "><img src=x onerror=alert(2)>',
    "a right-to-left override \u202e that is never closed",
    "residue \ue200cite\ue202x\ue201 in a line",
]


@pytest.mark.parametrize("views", ["auto", "page"])
def test_a_hostile_source_is_shown_as_text(views: str) -> None:
    reg = registry_from_data(
        [{"id": "doc", "title": "<b onmouseover=alert(3)>T</b>", "url": "javascript:alert(4)", "lines": HOSTILE}]
    )
    html = render(
        expand("Claim.{S}cite{D}doc{D}L1-L3{E}"), reg, style="hovercard", standalone=True, source_views=views
    ).html
    doc = soup(html)
    views_part = doc.select_one("section.citerender-views")
    assert views_part is not None and not views_part.find(["script", "img", "b"])
    assert not doc.find("img") and not doc.find("b")
    assert not [a for a in doc.find_all(True) if any(k.startswith("on") for k in a.attrs)]
    assert not doc.select('a[href^="javascript"]')
    texts = [t.get_text() for t in doc.select("section.citerender-view .citerender-vt")]
    assert texts[0] == HOSTILE[0] and "\ue200" not in html and "\ue201" not in html
    assert all(t.get("dir") == "auto" for t in doc.select(".citerender-vt"))  # an override stays in its line


def _long_registry(n: int = 5000) -> Any:
    lines = [f"Entry {i}: the ledger records a transfer of {i * 7} units to account {i % 97}." for i in range(1, n + 1)]
    return registry_from_data([{"id": "ledger", "title": "Ledger 2025", "lines": lines}])


LONG = (
    "Opening balance.{S}cite{D}ledger{D}L8-L13{E} A long stretch.{S}cite{D}ledger{D}L2000-L2400{E} "
    "Inside it.{S}cite{D}ledger{D}L2100{E} The end.{S}cite{D}ledger{D}L4999-L5000{E} Again.{S}cite{D}ledger{D}L8-L13{E}"
)


def test_a_long_source_is_bounded_and_its_gaps_counted() -> None:
    r = render(expand(LONG), _long_registry(), style="hovercard", standalone=True)
    assert len(r.html.encode("utf-8")) < 250_000
    view = soup(r.html).select_one("section.citerender-view")
    shown = [int(li["value"]) for li in view.select("li.citerender-vl")]
    assert len(shown) <= 300
    gaps = []
    for g in view.select("li.citerender-vgap"):
        m = GAP.match(g.get_text())
        assert m, g.get_text()
        gaps.append(int(m.group(1).replace(",", "")))
    assert len(shown) + sum(gaps) == 5000  # every line either shown or counted, once
    assert len(set(shown)) == len(shown)
    for low, high in ((8, 13), (2000, 2400), (2100, 2100), (4999, 5000)):  # each range with context
        assert low in shown and high in shown
        assert (low == 1 or low - 1 in shown) and (high == 5000 or high + 1 in shown)
        assert view.find(id=f"source-1-L{low}" + (f"-L{high}" if high != low else ""))


#: lines that weigh more in a page than their length says: markup characters escaped (``<&>`` is
#: 13 bytes), CJK (3 bytes a character), and plain long lines
HEAVY_LINES = {
    "escaped": lambda i: f"{i}: " + "<&>" * 1000,
    "cjk": lambda i: f"{i}: " + "漢字のテキスト" * 300,
    "long": lambda i: f"{i}: " + "word " * 600,
}


@pytest.mark.parametrize("kind", sorted(HEAVY_LINES))
def test_a_long_source_of_heavy_lines_keeps_the_page_small(kind: str) -> None:
    """Thousands of lines of 3,000 characters, cited at three ranges: the view shows each with its
    context but only a share of each line's bytes (a 3,000-line source of ``<&>`` made a 354 KB
    page when lines were cut by characters, one of long plain lines 270 KB with cards), and a cut
    line says how many characters it leaves out. The footnotes style: no card quotes the lines."""
    lines = [HEAVY_LINES[kind](i) for i in range(1, 3001)]
    reg = registry_from_data([{"id": "heavy", "title": "Heavy", "lines": lines}])
    text = "A.{S}cite{D}heavy{D}L10{E} B.{S}cite{D}heavy{D}L1500-L1510{E} C.{S}cite{D}heavy{D}L2990-L3000{E}"
    html = render(expand(text), reg, style="footnotes", standalone=True).html
    assert len(html.encode("utf-8")) < 250_000
    cards = render(expand(text), reg, style="hovercard", standalone=True).html
    for style in ("hovercard", "pills", "sidenotes"):  # each card quotes a share of each line too
        page = cards if style == "hovercard" else render(expand(text), reg, style=style, standalone=True).html
        assert len(page.encode("utf-8")) < 250_000, style
    views_part = soup(cards).select_one("section.citerender-views")
    assert len(str(views_part).encode("utf-8")) < 100_000  # the views' share, whatever the cards quote
    view = soup(html).select_one("section.citerender-view")
    rows = view.select("li.citerender-vl")
    gaps = sum(int(GAP.match(g.get_text()).group(1).replace(",", "")) for g in view.select("li.citerender-vgap"))
    assert len(rows) <= 300 and len(rows) + gaps == 3000
    for li in rows:
        shown = li.select_one(".citerender-vt").contents[0]
        cut = li.select_one(".citerender-vcut")
        assert cut is not None  # every line is longer than its share
        more = int(re.search(r"([\d,]+) more characters", cut.get_text()).group(1).replace(",", ""))
        assert lines[int(li["value"]) - 1] == shown + lines[int(li["value"]) - 1][len(shown) :]
        assert len(shown) + more == len(lines[int(li["value"]) - 1])


def test_a_short_source_heavy_in_bytes_is_bounded_not_shown_whole() -> None:
    """200 lines of 300 characters are 60,000 characters, but 260,000 bytes escaped: shown by
    their ranges, not whole."""
    lines = [f"{i} " + "<&>" * 100 for i in range(1, 201)]
    reg = registry_from_data([{"id": "code", "title": "Markup", "lines": lines}])
    html = render(expand("It says so.{S}cite{D}code{D}L100-L102{E}"), reg, style="hovercard", standalone=True).html
    assert len(html.encode("utf-8")) < 250_000
    view = soup(html).select_one("section.citerender-view")
    shown = [int(li["value"]) for li in view.select("li.citerender-vl")]
    assert 100 in shown and 102 in shown and 99 in shown and 103 in shown and len(shown) < 200
    gaps = sum(int(GAP.match(g.get_text()).group(1)) for g in view.select("li.citerender-vgap"))
    assert len(shown) + gaps == 200


def test_a_page_shows_at_most_its_share_of_short_sources_whole() -> None:
    """An answer citing thirty 100-line chunks: the first twenty are shown whole, the rest by
    their ranges, each view's lines and gaps still adding up to its source."""
    reg = registry_from_data(
        [
            {"id": f"c{k}", "title": f"Chunk {k}", "lines": [f"chunk {k} line {n}" for n in range(1, 101)]}
            for k in range(30)
        ]
    )
    text = " ".join(f"Claim {k}.{{S}}cite{{D}}c{k}{{D}}L50{{E}}" for k in range(30))
    views = soup(render(expand(text), reg, standalone=True).html).select("section.citerender-view")
    shown = [len(v.select("li.citerender-vl")) for v in views]
    assert shown[:20] == [100] * 20 and all(n < 10 for n in shown[20:])
    assert sum(shown) <= PAGE_WHOLE_LINES + 10 * 10
    for v in views[20:]:
        gaps = sum(int(GAP.match(g.get_text()).group(1)) for g in v.select("li.citerender-vgap"))
        assert len(v.select("li.citerender-vl")) + gaps == 100


def test_parts_cover_the_source_once_within_the_limit() -> None:
    from citerender.rendering.source_view import CitedRange

    few = [CitedRange(k * 400 + 10, k * 400 + 12, ("cite-1",), 0) for k in range(20)]  # 20 ranges, 8,000 lines
    many = [CitedRange(k * 40 + 10, k * 40 + 12, ("cite-1",), 0) for k in range(200)]  # 200 ranges
    for ranges in (few, many):
        parts = parts_of(8000, ranges)
        assert parts[0].first == 1 and parts[-1].last == 8000
        assert all(b.first == a.last + 1 for a, b in itertools.pairwise(parts))  # once, in order
        shown = {n for p in parts if p.shown for n in range(p.first, p.last + 1)}
        assert all({r.low - 1, r.low, r.high, r.high + 1} <= shown for r in ranges)
    assert sum(p.count for p in parts_of(8000, few) if p.shown) <= MAX_SHOWN
    assert sum(p.count for p in parts_of(8000, many) if p.shown) == 200 * 5  # past the limit: one line of context
    assert parts_of(120, []) == parts_of(120, [], 10) and parts_of(120, [])[0].count == 120  # short: whole


def test_options_place_the_views(page: tuple[Any, Any]) -> None:
    text = (HERE / "answer.md").read_text(encoding="utf-8")
    reg = load_sources(HERE / "answer.sources.json")
    fragment = render(text, reg, style="hovercard")
    assert "citerender-view" not in fragment.html and "citerender-card-passage" not in fragment.html
    in_fragment = render(text, reg, style="hovercard", source_views="page")
    assert soup(in_fragment.html).select("section.citerender-view")
    off = render(text, reg, style="hovercard", standalone=True, source_views="off")
    assert not soup(off.html).select(".citerender-view, .citerender-card-passage")
    prefixed = soup(render(text, reg, style="sidenotes", standalone=True, id_prefix="a1").html)
    hrefs = [a["href"] for a in prefixed.select(".citerender-sidenote .citerender-card-passage")]
    assert hrefs and all(h.startswith("#a1-source-") and prefixed.find(id=h[1:]) for h in hrefs)
    for bad in ("../up/", "/abs/", "javascript:x/", "sources/a", "https://x.example/"):
        with pytest.raises(ValueError, match="source_views"):
            RenderOptions(source_views=bad)


def test_view_file_names_never_meet() -> None:
    ids = ["turn0file0", "Doc1", "doc1", "a/b", "a b", "con", "x" * 200, "héllo", ".."]
    refs = [Reference(n, Source(sid, lines=("x",))) for n, sid in enumerate(ids, 1)]
    names = [view_file(r) for r in refs]
    assert names[0] == "turn0file0.html" and names[2] == "doc1.html"
    assert len({n.lower() for n in names}) == len(names)
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9_.-]*\.html", n) and len(n) < 100 for n in names)


@pytest.mark.parametrize(
    "to", ["html", "markdown", "text", "json", "csl-json", "bibtex", "ris", "ai-sdk", "annotations"]
)
def test_every_export_reports_the_out_of_range_locator(tmp_path: Path, to: str) -> None:
    out = tmp_path / "out"
    r = run_cli("render", HERE / "answer.md", "-s", HERE / "answer.sources.json", "--to", to, "-o", out)
    assert "CR102" in r.stderr and "L90-L95" in r.stderr, r.stderr
    written = out.read_text(encoding="utf-8")
    if to == "json":  # the export carries its diagnostics too
        assert "CR102" in [d["code"] for d in json.loads(written)["diagnostics"]]
    if to == "html":
        assert not soup(written).select('[id*="L90"], [href*="L90"]')


# --------------------------------------------------------------------------- site builds


def _resolve(page: Path, href: str) -> tuple[Path, str]:
    """The file and fragment a relative link on ``page`` leads to."""
    url, frag = urldefrag(href)
    assert not re.match(r"[a-z]+:|/", url), href
    return Path(posixpath.normpath(posixpath.join(page.parent.as_posix(), unquote(url)))), frag


def _follow_both_ways(answer_page: Path, expected_text: str) -> None:
    """Every card passage link of ``answer_page`` leads to a view page holding the range, whose
    lines are the ones the card quotes, and whose back-links lead to the answer's citations; the
    view of ``turn0file0`` holds ``expected_text``."""
    doc = soup(answer_page.read_text(encoding="utf-8"))
    links = doc.select(".citerender-card-passage")
    assert links
    for a in links:
        view_path, frag = _resolve(answer_page, a["href"])
        assert re.fullmatch(r"L\d+(-L\d+)?", frag)
        view = soup(view_path.read_text(encoding="utf-8"))
        target = view.find(id=frag)
        assert target is not None and "citerender-vrange" in target["class"]
        quoted = [t.get_text() for t in a.find_parent(class_="citerender-card-body").select(".citerender-ltext")]
        low, high = _span(frag)
        shown = {int(li["value"]): li.select_one(".citerender-vt").get_text() for li in view.select("li.citerender-vl")}
        assert [shown[n] for n in range(low, high + 1)][: len(quoted)] == quoted  # its own text, not another's
        if view_path.name == "turn0file0.html":
            assert expected_text in shown.values()
        for back in target.select("a.citerender-vback"):
            page_path, cite = _resolve(view_path, back["href"])
            assert page_path == answer_page and doc.find(id=cite) is not None
        home = view.select_one(".citerender-nav a")
        assert _resolve(view_path, home["href"])[0] == answer_page
        css = view.find("link", rel="stylesheet")
        assert _resolve(view_path, css["href"])[0].is_file()


def _two_answers(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "team").mkdir(parents=True)
    for name in ("answer.md", "answer.sources.json"):
        shutil.copy(HERE / name, src / name)
    shutil.copy(HERE / "b.md", src / "team" / "b.md")
    shutil.copy(HERE / "b.sources.json", src / "team" / "b.sources.json")
    return src


def test_a_build_publishes_each_answers_own_sources(tmp_path: Path) -> None:
    src, out = _two_answers(tmp_path), tmp_path / "out"
    res = build_site(src, out, style="hovercard")
    assert not res.failed
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html"))
    assert files == [
        "answer.html",
        "index.html",
        "sources/answer/turn0file0.html",
        "sources/answer/turn0file2.html",
        "sources/answer/turn0search1.html",
        "team/b.html",
        "team/sources/b/turn0file0.html",
    ]
    _follow_both_ways(out / "answer.html", "Employees may work remotely up to three days per week.")
    _follow_both_ways(out / "team" / "b.html", "Employees may work remotely up to two days per week.")
    assert "two days" not in (out / "sources/answer/turn0file0.html").read_text(encoding="utf-8")
    assert not [p for p in out.rglob("*") if p.is_file() and b"UNCITED-SECRET" in p.read_bytes()]
    owned = json.loads((out / MANIFEST).read_text(encoding="utf-8"))["files"]
    assert owned["team/b.html"]["views"] == ["team/sources/b/turn0file0.html"]
    assert owned["team/sources/b/turn0file0.html"]["view_of"] == "team/b.html"
    # unchanged: skipped with its views kept; an answer that stops citing loses its views
    again = build_site(src, out, style="hovercard")
    assert again.skipped == 2 and (out / "team/sources/b/turn0file0.html").is_file()
    (src / "team" / "b.md").write_text("# No citations any more\n", encoding="utf-8")
    third = build_site(src, out, style="hovercard")
    assert third.removed == ["team/sources/b/turn0file0.html"]
    assert not (out / "team/sources/b/turn0file0.html").exists()


def test_a_build_never_writes_over_a_file_it_does_not_own(tmp_path: Path) -> None:
    src, out = _two_answers(tmp_path), tmp_path / "out"
    build_site(src, out, style="hovercard")
    view = out / "team/sources/b/turn0file0.html"
    view.write_text("edited by hand", encoding="utf-8")
    (src / "team" / "b.md").write_text((HERE / "b.md").read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    res = build_site(src, out, style="hovercard")
    assert res.failed and "changed after citerender build wrote it" in str([p.failure for p in res.pages])
    assert view.read_text(encoding="utf-8") == "edited by hand"
    assert not build_site(src, out, style="hovercard", overwrite=True).failed
    assert "two days" in view.read_text(encoding="utf-8")


def test_an_answer_inside_another_answers_views_folder_is_refused(tmp_path: Path) -> None:
    assert answer_pages_clash(["a.html", "sources/a/x.html"]) is not None
    assert answer_pages_clash(["a.html", "sources/b/x.html", "sources.html", "guide/a.html"]) is None
    src = _two_answers(tmp_path)
    (src / "sources" / "answer").mkdir(parents=True)
    (src / "sources" / "answer" / "turn0file0.md").write_text("# In the way\n", encoding="utf-8")
    with pytest.raises(CiterenderError, match="folder of source views"):
        build_site(src, tmp_path / "out")


def _host_docs(root: Path) -> Path:
    docs = root / "docs"
    (docs / "guide").mkdir(parents=True)
    for name in ("answer.md", "answer.sources.json"):
        shutil.copy(HERE / name, docs / "guide" / name)
    (docs / "index.md").write_text("# Home\n\nSee the guide.\n", encoding="utf-8")
    return docs


def test_mkdocs_publishes_a_page_per_cited_source(tmp_path: Path) -> None:
    _host_docs(tmp_path)
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\ntheme: {name: material}\nplugins:\n  - citerender:\n      style: hovercard\n", encoding="utf-8"
    )
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0 and "CR102 [error] L90-L95 is outside 'turn0file0'" in r.stderr, r.stderr
    site = tmp_path / "site"
    views = sorted(p.relative_to(site).as_posix() for p in site.rglob("sources/**/*.html"))
    assert views == [f"guide/answer/sources/index/{n}.html" for n in ("turn0file0", "turn0file2", "turn0search1")]
    _follow_both_ways(
        site / "guide" / "answer" / "index.html", "Employees may work remotely up to three days per week."
    )
    assert not [p for p in site.rglob("*") if p.is_file() and b"UNCITED-SECRET" in p.read_bytes()]


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_sphinx_publishes_a_page_per_cited_source(tmp_path: Path, builder: str) -> None:
    docs = _host_docs(tmp_path)
    (docs / "index.md").write_text("# Home\n\n```{toctree}\nguide/answer\n```\n", encoding="utf-8")
    (docs / "conf.py").write_text(
        'project = "t"\nextensions = ["myst_parser", "citerender.sphinx"]\nciterender_style = "hovercard"\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", builder, "-q", str(docs), str(out)], capture_output=True, text=True
    )
    assert r.returncode == 0 and "CR102 [error] L90-L95 is outside 'turn0file0'" in r.stderr, r.stderr
    page = out / "guide" / ("answer.html" if builder == "html" else "answer/index.html")
    _follow_both_ways(page, "Employees may work remotely up to three days per week.")
    assert not [p for p in out.rglob("*") if p.is_file() and b"UNCITED-SECRET" in p.read_bytes()]


def test_the_readmes_views_page_shows_a_targeted_range_and_leads_to_hypothesis() -> None:
    """Issue 48's docs: the page the README links shows a range pointed at in both schemes (the
    images exist) and says how Hypothesis loads the annotation export, linking the section that
    has the script (the section exists)."""
    root = Path(__file__).parent.parent
    assert "docs/source-views.md" in (root / "README.md").read_text(encoding="utf-8")
    page = (root / "docs" / "source-views.md").read_text(encoding="utf-8")
    for image in re.findall(r"!\[[^\]]*\]\((img/[^)]+)\)", page):
        assert (root / "docs" / image).stat().st_size > 10_000
    assert {"img/source-view-light.png", "img/source-view-dark.png"} <= set(re.findall(r"\]\((img/[^)]+)\)", page))
    assert "--to annotations" in page and "Hypothesis" in page and "api.hypothes.is" in page
    assert "(annotations.md#loading-it-into-hypothesis)" in page
    annotations = (root / "docs" / "annotations.md").read_text(encoding="utf-8")
    assert "\n## Loading it into Hypothesis\n" in annotations


@pytest.mark.parametrize("style", ["hovercard", "pills", "sidenotes"])
def test_a_card_quotes_a_share_of_a_minified_line_not_the_whole_line(style: str) -> None:
    """One 200,000-character line cited twice (a minified file): each card quotes its first
    characters, ending in an ellipsis (the view and the source have the rest), and so does the
    quote printed under the entry; the page stays small (443 KB before)."""
    from citerender.plugin.bibliography import PRINTED_QUOTE
    from citerender.plugin.styles import CARD_LINE_CHARS

    line = "var a=1;" * 25_000
    reg = registry_from_data([{"id": "min", "title": "app.min.js", "lines": [line, "tail"]}])
    text = expand("Built.{S}cite{D}min{D}L1{E} Shipped.{S}cite{D}min{D}L1-L2{E}")
    result = render(text, reg, style=style, standalone=True)
    assert len(result.html.encode("utf-8")) < 250_000
    doc = soup(result.html)
    quoted = [
        t.get_text() for t in doc.select(".citerender-card .citerender-ltext, .citerender-sidenote .citerender-ltext")
    ]
    assert quoted and any(q == "tail" for q in quoted)
    long = [q for q in quoted if q != "tail"]
    assert long and all(len(q) == CARD_LINE_CHARS and q.endswith("\u2026") and line.startswith(q[:-1]) for q in long)
    printed = [q.get_text() for q in doc.select(".citerender-ref-quote")]
    assert printed and all(len(q) < PRINTED_QUOTE + 40 for q in printed)  # the locator and quotes around it
