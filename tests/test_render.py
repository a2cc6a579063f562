"""Rendering: structure checked by parsing the HTML back, golden files per style and theme."""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import EXAMPLES, TESTS, assert_no_marker, example_pairs, expand
from markdown_it.utils import read_fixture_file

from citerender import load_sources, render
from citerender.options import STYLES as ALL_STYLES
from citerender.plugin.labels import collapse_runs
from citerender.rendering.html import UnknownSourceError
from citerender.rendering.themes import builtin_themes, load_theme
from citerender.sources.model import registry_from_data

STYLES = ALL_STYLES  # every style the library has
THEMES = ("default", "report", "minimal")
PAIRS = example_pairs()
GOLDEN = TESTS / "golden"
UPDATE = bool(os.environ.get("CITERENDER_UPDATE_GOLDEN"))

REG = registry_from_data(
    [
        {
            "id": "a",
            "title": "Alpha",
            "url": "https://alpha.example/doc",
            "updated": "2026-03-01",
            "lines": ["first line of alpha", "second line", "third line", "fourth"],
        },
        {"id": "b", "title": "Beta", "url": "https://www.beta.example/x#sec"},
        {"id": "c", "title": "Gamma", "url": "https://gamma.example/"},
        {"id": "d", "url": "https://delta.example/only-url"},
        {"id": "e"},
    ]
)


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def _label_of(cite: Any) -> str:
    """A citation's visible numbers, ``[1, 3]``, in every style: a pill's printed numbers, a
    card's button, a sidenote's number (not the note beside it)."""
    for sel in (".citerender-pill-print", "button", ".citerender-sn-num"):
        found = cite.select_one(sel)
        if found is not None:
            return str(found.get_text())
    return str(cite.get_text())


def _check_structure(html: str, style: str) -> None:
    doc = soup(html)
    ids = [el["id"] for el in doc.find_all(id=True)]
    assert len(ids) == len(set(ids)), "every id is unique"
    idset = set(ids)
    for a in doc.find_all(["a"], href=True):
        if a["href"].startswith("#"):
            assert a["href"][1:] in idset, f"link to missing {a['href']}"
    for btn in doc.select("button[popovertarget]"):
        assert btn["popovertarget"] in idset
    # numbering by first appearance
    seen: list[int] = []
    for cite in doc.select(".citerender-cite"):
        for n in re.findall(r"\d+", _label_of(cite)):
            if int(n) not in seen:
                seen.append(int(n))
    runs_ok = all(b > a for a, b in itertools.pairwise(seen))
    assert runs_ok, f"numbers appear in order of first citation: {seen}"
    # back-links round-trip: every place an entry links back to cites that entry
    for li in doc.select("li.citerender-ref"):
        n = li["value"]
        for back in li.select('a[role="doc-backlink"]'):
            place = doc.find(id=back["href"][1:])
            assert place is not None
            label = _label_of(place)
            nums = set()
            for part in re.findall(r"\d+(?:\u2013\d+)?", label):
                lo, _, hi = part.partition("\u2013")
                nums.update(range(int(lo), int(hi or lo) + 1))
            assert int(n) in nums, f"back-link of {n} goes to a place citing {label}"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("answer,sources", PAIRS, ids=[p[0].parent.name for p in PAIRS])
def test_examples_render_well_formed(answer: Path, sources: Path, style: str) -> None:
    r = render(answer.read_text(encoding="utf-8"), load_sources(sources), style=style, standalone=True)
    assert_no_marker(r.html, f"{answer} ({style})")
    _check_structure(r.html, style)


RENDER_FIXTURE = TESTS / "fixtures" / "render.md"
RENDER_CASES = read_fixture_file(RENDER_FIXTURE)


@pytest.mark.parametrize(("line", "title", "text", "expected"), RENDER_CASES, ids=[c[1] for c in RENDER_CASES])
def test_render_fixture(line: int, title: str, text: str, expected: str) -> None:
    """Rendering specified as markdown-it specifies itself: markers in, HTML out, per style."""
    style = title.split(":", 1)[0]
    html = render(expand(text), REG, style=style).html
    if UPDATE:
        _update_fixture(title, expected, html)
        return
    assert html.rstrip("\n") == expected.rstrip("\n"), f"{title} (fixture line {line})"


def _update_fixture(title: str, old: str, new: str) -> None:
    text = RENDER_FIXTURE.read_text(encoding="utf-8")
    head = f"{title}\n.\n"
    at = text.index(head)
    start = text.index("\n.\n", at + len(head)) + 3
    assert text[start : start + len(old)] == old
    RENDER_FIXTURE.write_text(text[:start] + new.rstrip("\n") + "\n" + text[start + len(old) :], encoding="utf-8")


# One whole page per theme (the handbook example with hover cards); the rest is in render.md.
@pytest.mark.parametrize("theme", THEMES)
def test_golden_page(theme: str) -> None:
    answer, sources = next((a, s) for a, s in PAIRS if a.parent.name == "handbook")
    r = render(
        answer.read_text(encoding="utf-8"), load_sources(sources), style="hovercard", theme=theme, standalone=True
    )
    assert f"<style>{r.css}</style>" in r.html  # the page's inline CSS is checked once per theme, below
    # no script: the stylesheet places the cards (test_reader_round4 measures where), and the
    # page's policy allows none
    assert "<script" not in r.html and "script-src" not in r.html
    page = r.html.replace(f"<style>{r.css}</style>", f"<style>/* {theme}.css */</style>")
    _golden(f"handbook.{theme}.html", page)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("answer", "sources"), PAIRS, ids=[p[0].parent.name for p in PAIRS])
def test_examples_render_cleanly(answer: Path, sources: Path, style: str) -> None:
    """Every bundled example, every style: no marker left, ids unique, every citation numbered."""
    html = render(answer.read_text(encoding="utf-8"), load_sources(sources), style=style).html
    assert_no_marker(html, f"{answer.parent.name} {style}")
    doc = soup(html)
    ids = [el["id"] for el in doc.find_all(id=True)]
    assert len(ids) == len(set(ids))
    labels = [_label_of(c) for c in doc.select(".citerender-cite")]
    assert labels and all(re.fullmatch(r"\[[0-9?, \u2013]+\]", c) for c in labels), labels  # ?: lines not there


@pytest.mark.parametrize("theme", THEMES)
def test_theme_css_is_scoped_to_citerender(theme: str) -> None:
    """Every style rule of every theme selects only citerender's own elements, so a fragment
    embeds in any site without restyling it (a golden copy of the CSS once stood here: it
    checked that nothing changed, not that anything holds)."""
    css = re.sub(r"/\*.*?\*/", "", load_theme(theme).css, flags=re.S)
    rules = [(at, sel.strip()) for at, sel in re.findall(r"(@?)([^{}@;]+)\{", css)]
    selectors = [part.strip() for at, sel in rules if not at for part in _top_level(sel)]
    keyframes = re.compile(r"(from|to|\d+(\.\d+)?%)")
    assert len(selectors) > 100
    assert [x for x in selectors if "citerender" not in x and not keyframes.fullmatch(x)] == []


def _top_level(selector_list: str) -> list[str]:
    """A selector list's selectors: split at commas outside ``:is(…)``, ``:has(…)`` and the like."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(selector_list):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(selector_list[start:i])
            start = i + 1
    return [*parts, selector_list[start:]]


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE or not path.exists():
        assert UPDATE, f"missing golden file {name}; run with CITERENDER_UPDATE_GOLDEN=1"
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed; review and update the golden file"


def test_numbering_grouping_and_runs() -> None:
    text = expand("One.{S}cite{D}b{E} Two.{S}cite{D}a{D}c{E} {S}cite{D}d{E} Three.{S}cite{D}b{D}a{D}c{E}")
    doc = soup(render(text, REG).html)
    cites = [c.get_text() for c in doc.select("sup.citerender-cite")]
    assert cites == ["[1]", "[2\u20134]", "[1\u20133]"]
    entries = [li.select_one(".citerender-ref-title").get_text() for li in doc.select("li.citerender-ref")]
    assert entries == ["Beta", "Alpha", "Gamma", "delta.example"]
    beta = doc.find(id="ref-1")
    assert [a["href"] for a in beta.select('a[role="doc-backlink"]')] == ["#cite-1", "#cite-3"]
    assert beta.select_one(".citerender-backlinks").get_text().split() == ["\u21a9", "a", "·", "b"]


def test_collapse_runs() -> None:
    assert collapse_runs([3, 1, 2, 5, 7, 8]) == [(1, 3), (5, 5), (7, 7), (8, 8)]
    assert collapse_runs([]) == []


def test_locator_shows_in_the_entry_and_card() -> None:
    text = expand("Alpha says so.{S}cite{D}a{D}L2-L3{E} Again.{S}cite{D}a{E}")
    doc = soup(render(text, REG).html)
    assert "lines 2\u20133" in doc.select_one("#ref-1").get_text()
    card = soup(render(text, REG, style="hovercard").html).select_one("#cite-1-card")
    assert [s.get_text() for s in card.select(".citerender-lno")] == ["2", "3"]
    assert "second line" in card.get_text() and "third line" in card.get_text()
    assert card["popover"] == "hint" and not card.has_attr("role")  # a card holds links: no tooltip role


def test_superscript_links_to_the_source_with_a_text_fragment() -> None:
    text = expand("Alpha.{S}cite{D}a{D}L1{E} Beta.{S}cite{D}b{E} Nothing.{S}cite{D}e{E}")
    doc = soup(render(text, REG, style="superscript").html)
    links = doc.select("sup.citerender-cite a")
    assert links[0]["href"] == "https://alpha.example/doc#:~:text=first%20line%20of%20alpha"
    assert links[0]["target"] == "_blank" and links[0]["rel"] == ["noopener", "noreferrer"]
    assert links[0]["aria-label"] == "1: Alpha, opens in a new tab"  # the visible number first
    assert links[1]["href"] == "https://www.beta.example/x#sec"
    assert links[2]["href"] == "#ref-3"  # no URL: falls back to the bibliography entry


def test_sources_without_title_or_url_render_sensibly() -> None:
    doc = soup(render(expand("X.{S}cite{D}d{E} Y.{S}cite{D}e{E}"), REG).html)
    titles = [li.select_one(".citerender-ref-title").get_text() for li in doc.select("li.citerender-ref")]
    assert titles == ["delta.example", "e"]


def test_shared_url_merges_entries() -> None:
    reg = registry_from_data(
        [
            {"id": "x1", "title": "X", "url": "https://x.example/"},
            {"id": "x2", "title": "X mirror", "url": "https://x.example/"},
        ]
    )
    r = render(expand("A.{S}cite{D}x1{E} B.{S}cite{D}x2{E}"), reg)
    doc = soup(r.html)
    assert len(doc.select("li.citerender-ref")) == 1
    assert [c.get_text() for c in doc.select("sup.citerender-cite")] == ["[1]", "[1]"]
    assert "CR310" in {d.code for d in r.diagnostics}


def test_unknown_policies() -> None:
    text = expand("A.{S}cite{D}a{E} B.{S}cite{D}zzz{E}")
    dropped = soup(render(text, REG, unknown="drop").html)
    assert len(dropped.select("sup.citerender-cite")) == 1
    kept = soup(render(text, REG, unknown="keep").html)
    assert kept.select_one("sup.citerender-unverified").get_text() == "[2]"
    assert "unverified" in kept.select_one("#ref-2").get_text()
    with pytest.raises(UnknownSourceError) as e:
        render(text, REG, unknown="error")
    assert e.value.ids == ["zzz"]


def test_list_all_sources() -> None:
    doc = soup(render(expand("A.{S}cite{D}c{E}"), REG, list_all=True).html)
    assert len(doc.select("li.citerender-ref")) == len(REG)
    assert doc.select_one("#ref-1 .citerender-ref-title").get_text() == "Gamma"


def test_markers_in_code_are_removed_and_code_kept() -> None:
    text = expand("Use `x {S}cite{D}a{E} y`.\n\n```\ncode {S}cite{D}a{E}\n```\n")
    r = render(text, REG)
    doc = soup(r.html)
    assert doc.find("code").get_text() == "x citea y"  # the author's code, minus invisible characters
    assert doc.find("pre").get_text() == "code citea\n"
    assert [d.code for d in r.diagnostics if d.code == "CR302"] == ["CR302", "CR302"]


def test_citation_inside_link_text_does_not_nest_links() -> None:
    for style in STYLES:
        doc = soup(render(expand("[see {S}cite{D}a{E}](https://x.example)"), REG, style=style).html)
        link = doc.select_one("p a")
        assert link.find("a") is None and link.find("button") is None
        assert "[1]" in link.get_text()


def test_hostile_metadata_is_escaped_and_urls_filtered() -> None:
    reg = registry_from_data(
        [
            {
                "id": "x",
                "title": '<script>alert(1)</script>"',
                "url": "javascript:alert(1)",
                "lines": ["<img src=x onerror=alert(1)>"],
            },
            {"id": "y", "title": "ok", "url": " JaVa\tScRiPt:alert(1)"},
            {"id": "z", "title": "{{7*7}}", "url": "data:text/html,<b>x</b>"},
        ]
    )
    text = expand("<b>bold</b> A.{S}cite{D}x{D}L1{E} B.{S}cite{D}y{E} C.{S}cite{D}z{E}")
    for style in STYLES:
        html = render(text, reg, style=style, standalone=True).html
        doc = soup(html)
        assert doc.find("script") is None  # no script at all: the stylesheet places the cards
        assert doc.find("b") is None and doc.find("img") is None
        for a in doc.find_all("a", href=True):
            assert not a["href"].lower().replace("\t", "").strip().startswith(("javascript", "data", "vbscript"))
        assert "49" not in doc.get_text() and "{{7*7}}" in doc.get_text()


def test_raw_html_only_when_allowed() -> None:
    assert soup(render("<em>x</em>", REG).html).find("em") is None
    assert soup(render("<em>x</em>", REG, html=True).html).find("em") is not None


def test_highlight_spans() -> None:
    doc = soup(render(expand("{HS}cited words{HE}.{S}cite{D}a{E} and {HS}*crossed{HE} em*"), REG).html)
    spans = doc.select("span.citerender-highlight")
    assert [s.get_text() for s in spans] == ["cited words"]


def test_standalone_page_is_self_contained() -> None:
    r = render(expand("# Title here\n\nA.{S}cite{D}a{E}"), REG, standalone=True)
    doc = soup(r.html)
    assert doc.title.get_text() == "Title here"
    assert doc.find("style") is not None and doc.find("link") is None and doc.find("script") is None
    csp = doc.find("meta", attrs={"http-equiv": "Content-Security-Policy"})["content"]
    assert "default-src 'none'" in csp
    assert not re.search(r"""(?:src|href)=["']https?://(?!alpha)""", r.html.split("<main")[0])


def test_themes_are_found_and_overridable(tmp_path: Path) -> None:
    assert {"default", "report", "minimal"} <= set(builtin_themes())
    custom = tmp_path / "mytheme"
    custom.mkdir()
    (custom / "bibliography.html.j2").write_text(
        '<aside class="my-refs">{% for e in entries %}<p id="{{ e.anchor }}">{{ e.number }}. {{ e.title }}</p>{% endfor %}</aside>',
        encoding="utf-8",
    )
    (custom / "theme.toml").write_text('base = "report"\n', encoding="utf-8")
    theme = load_theme(custom)
    r = render(expand("A.{S}cite{D}a{E}"), REG, theme=theme, standalone=True)
    doc = soup(r.html)
    assert doc.select_one("aside.my-refs #ref-1").get_text() == "1. Alpha"
    assert "@page" in r.css  # the report base's CSS, since the folder has none of its own
    assert doc.find("main") is not None  # page template from the default chain


def test_all_examples_every_style_and_theme_leak_nothing() -> None:
    count = 0
    for answer, sources in PAIRS:
        reg = load_sources(sources)
        text = answer.read_text(encoding="utf-8")
        for style in STYLES:
            for theme in THEMES:
                for standalone in (False, True):
                    assert_no_marker(render(text, reg, style=style, theme=theme, standalone=standalone).html)
                    count += 1
    assert count == len(PAIRS) * len(STYLES) * 6 and len(PAIRS) >= 4
    assert (EXAMPLES / "handbook" / "answer.md").exists()


def test_answer_images_are_not_fetched_unless_kept() -> None:
    text = "![chart](https://tracker.example/p.png) and ![dot](data:image/png;base64,iVBORw0KGgo=)"
    doc = soup(render(text, REG).html)
    assert [i["src"] for i in doc.find_all("img")] == ["data:image/png;base64,iVBORw0KGgo="]
    assert doc.select_one("span.citerender-image").get_text() == "[image: chart]"
    kept = soup(render(text, REG, images="keep").html)
    assert len(kept.find_all("img")) == 2


def test_the_default_template_writes_the_builtin_bibliography(tmp_path: Path) -> None:
    """A theme that starts from the default bibliography.html.j2 gets the markup fragments get
    without Jinja2 (hostile titles, merged sources, unverified ids and locators included)."""
    import shutil

    from citerender.plugin.bibliography import render_bibliography

    theme_dir = tmp_path / "copy"
    theme_dir.mkdir()
    shutil.copy(load_theme("default").dirs[0] / "bibliography.html.j2", theme_dir / "bibliography.html.j2")
    theme = load_theme(theme_dir)
    assert theme.own_bibliography and not load_theme("default").own_bibliography
    reg = registry_from_data(
        [
            {
                "id": "a",
                "title": "<b>A & 'q'\u202e</b>",
                "url": "https://a.example/x?y=1&z=2",
                "updated": "2026-01-02",
                "lines": ["one", "two"],
            },
            {"id": "m", "title": "Mirror", "url": "https://a.example/x?y=1&z=2"},
            {"id": "b", "url": "javascript:alert(1)"},
        ]
    )
    text = expand("One.{S}cite{D}a{D}L1{E} Two.{S}cite{D}m{E} {S}cite{D}b{E} {S}cite{D}zz{E} Three.{S}cite{D}a{D}L2{E}")
    refs = render(text, reg, unknown="keep").bibliography
    for style in STYLES:
        assert theme.render_bibliography(refs, style) == render_bibliography(refs, style)


@pytest.mark.parametrize(
    ("css_href", "home_href", "heading"),
    [(None, None, "shown"), ("../style.css", "../index.html", "sr"), (None, "./", None), ("a&b.css", None, "shown")],
)
def test_the_page_written_in_python_is_the_default_template(
    css_href: str | None, home_href: str | None, heading: str | None
) -> None:
    """A standalone page of the default theme is written without Jinja2: character for character
    what ``page.html.j2`` gives, for every branch of the template and hostile values."""
    from citerender.rendering.themes import page_markup

    theme = load_theme("default")
    values = {
        "body": "<p>x</p>",
        "title": "T <b>\"&'",
        "css": "p{}",
        "lang": 'e"n',
        "css_href": css_href,
        "home_href": home_href,
        "home_label": "All <answers>",
        "heading": heading,
    }
    assert page_markup(**values) == theme._render("page.html.j2", **values)  # type: ignore[arg-type]


@pytest.mark.parametrize("dark", [False, True])
def test_the_code_colours_are_what_pygments_gives(dark: bool) -> None:
    """Pages read the highlighting CSS from the themes folder (no Pygments import for a page's CSS):
    the files hold what the installed Pygments writes (CITERENDER_UPDATE_GOLDEN=1 rewrites them)."""
    from citerender.rendering.full_preset import generated_highlight_css
    from citerender.rendering.themes import code_css, themes_root

    made = generated_highlight_css(dark=dark)
    if UPDATE:
        light = generated_highlight_css(dark=False)
        if dark:  # the dark file holds only what the dark scheme adds
            (themes_root() / "_code-dark.css").write_text(made.removeprefix(light + "\n"), encoding="utf-8")
        else:
            (themes_root() / "_code.css").write_text(light, encoding="utf-8")
        code_css.cache_clear()
    assert code_css(dark=dark) == made


def test_a_sources_bibliography_head_is_written_once_and_never_shared_across_registries() -> None:
    """The entry head (title, site, date) is kept with the source (``Source.memo``) so a service
    rendering many answers over one registry writes it once; another registry's source with the
    same id keeps its own, and the page is the same whether the head was kept or not."""
    marked = "Remote work is allowed.\ue200cite\ue202a\ue201"
    one = registry_from_data([{"id": "a", "title": "Handbook", "url": "https://hr.example/h", "updated": "2026-01-02"}])
    other = registry_from_data([{"id": "a", "title": "Другой <справочник>", "url": "https://x.example/"}])
    first = render(marked, one).html
    kept = one.shown("a")
    assert kept is not None and "Handbook" in kept.memo["bibliography.head"]
    assert render(marked, one).html == first  # written from the kept head: the same page
    theirs = render(marked, other).html
    assert "Handbook" not in theirs and "Другой &lt;справочник&gt;" in theirs
    kept.memo.clear()
    assert render(marked, one).html == first
