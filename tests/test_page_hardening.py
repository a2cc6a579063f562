"""A page under hostile input (issue 46): every id unique whatever the sources' order (G19)."""

from __future__ import annotations

import itertools
import re
from collections import Counter

import pytest

from citerender import render
from citerender.sources.model import registry_from_data

S, D, E = "\ue200", "\ue202", "\ue201"
STYLES = ("footnotes", "superscript", "hovercard", "pills", "sidenotes")

# ---------------------------------------------------------------------------------------------- G19

SOURCES = {
    "s1": {"id": "s1", "title": "One", "url": "https://one.example/"},
    "c1": {"id": "c1", "title": "Consulted", "url": "https://three.example/"},
    "c2": {"id": "c2", "title": "Consulted too", "url": "https://five.example/"},
    "l1": {"id": "l1", "title": "Listed", "url": "https://four.example/", "listed": "cited"},
    "l2": {"id": "l2", "title": "Listed too", "url": "https://six.example/", "listed": "cited"},
}
ANSWERS = [
    f"Claim {S}cite{D}s1{E}.\n",
    "No citation at all.\n",
    f"A {S}cite{D}s1{E} b {S}cite{D}zz{E} and c{S}cite{D}s1{E}.\n\n# Ref 1\n\n## Cite 1 card\n\nMore[^1].\n\n[^1]: a note\n",
]


def _duplicates(html: str) -> dict[str, int]:
    ids = Counter(re.findall(r"""\sid=["']([^"']*)["']""", html))
    return {k: n for k, n in ids.items() if n > 1}


def test_reproducer_consulted_before_a_placeless_cited_source() -> None:
    """G19: a consulted source before a ``"listed": "cited"`` one gave two ``id="ref-2"``."""
    reg = registry_from_data([SOURCES["s1"], SOURCES["c1"], SOURCES["l1"]])
    html = render(f"Claim {S}cite{D}s1{E}.\n", reg, consulted=True).html
    assert _duplicates(html) == {}
    assert html.count('id="ref-2"') == 1 and 'id="consulted-1"' in html


@pytest.mark.parametrize("style", STYLES)
def test_every_id_is_unique_in_any_order_of_the_sources(style: str) -> None:
    """G19 variants: every order of cited, consulted and placeless-cited sources, with and without
    ``list_all``, headings named like citerender's own ids, the model's own notes; every style."""
    for order in itertools.permutations(SOURCES):
        reg = registry_from_data([SOURCES[k] for k in order])
        for answer, list_all in itertools.product(ANSWERS, (False, True)):
            html = render(answer, reg, style=style, consulted=True, list_all=list_all).html
            assert _duplicates(html) == {}, (order, answer, list_all)


def test_ids_stay_unique_with_a_prefix_and_in_a_standalone_page() -> None:
    reg = registry_from_data([SOURCES[k] for k in ("c1", "l1", "s1", "c2", "l2")])
    for style in STYLES:
        for prefix in ("", "a1"):
            page = render(ANSWERS[2], reg, style=style, consulted=True, id_prefix=prefix, standalone=True).html
            assert _duplicates(page) == {}, (style, prefix)


def test_a_prefix_ending_in_a_hyphen_is_not_doubled() -> None:
    """``--id-prefix q1-`` and ``q1`` give the same ids (``q1-cite-1``, ``q1-ref-1``, the headings'
    and the model's notes'): never ``q1--cite-1``."""
    reg = registry_from_data([SOURCES[k] for k in ("c1", "l1", "s1")])
    answer = ANSWERS[2] + "\n\n## Notes\n\nA note[^a].\n\n[^a]: Said.\n"
    for style in STYLES:
        ids = {
            p: re.findall(r'id="([^"]+)"', render(answer, reg, style=style, id_prefix=p).html) for p in ("q1", "q1-")
        }
        assert ids["q1"] == ids["q1-"] and ids["q1"], style
        assert all(i.startswith("q1-") and "--" not in i for i in ids["q1"] if i.startswith("q1")), ids["q1"]


def test_a_heading_never_takes_an_id_of_citerenders_own() -> None:
    """A heading "Ref 1" gets ``section-ref-1``: ``ref-1`` is the first entry of Sources."""
    reg = registry_from_data([SOURCES["s1"]])
    html = render(f"# Ref 1\n\nClaim {S}cite{D}s1{E}.\n\n## Install\n", reg).html
    assert '<h1 id="section-ref-1">' in html and 'id="install"' in html and html.count('id="ref-1"') == 1


# ---------------------------------------------------------------------------------------------- G23

REG3 = registry_from_data([{"id": f"s{i}", "title": f"Source {i}", "url": f"https://s{i}.example/"} for i in (1, 2, 3)])
REPRODUCER = f"The price is 100\u202e dollars.{S}cite{D}s1{E}{S}cite{D}s2{E} Unrelated claim{S}cite{D}s3{E}"
#: answers whose text leaves a bidi control open (or holds a mark) before citations
BIDI = {
    "reproducer": REPRODUCER,
    "rle": f"Alpha \u202b beta gamma{S}cite{D}s1{E} delta epsilon{S}cite{D}s2{E} zeta",
    "lre": f"Alpha \u202a beta gamma{S}cite{D}s1{E} delta{S}cite{D}s2{E}",
    "lro in rtl": f"שלום \u202d abc def{S}cite{D}s1{E} עולם טוב{S}cite{D}s2{E}",
    "rli": f"Alpha \u2067 beta gamma{S}cite{D}s1{E} delta epsilon{S}cite{D}s2{E} zeta",
    "fsi": f"Alpha \u2068 שלום gamma{S}cite{D}s1{E} delta{S}cite{D}s2{E}",
    "nested": f"One \u202e two \u2067 three \u202a four{S}cite{D}s1{E} five{S}cite{D}s2{E}",
    "rlm before hebrew": f"Claim A \u200f{S}cite{D}s1{E} שלום עולם{S}cite{D}s2{E} end",
    "alm": f"Claim A \u061c{S}cite{D}s1{E} مرحبا بالعالم{S}cite{D}s2{E} end",
    "list": f"- item \u202e reversed words here{S}cite{D}s1{E} after{S}cite{D}s2{E}",
    "emphasis": f"*Some \u202e emphasised* text{S}cite{D}s1{E} tail{S}cite{D}s2{E}",
    "code": f"Run `x \u202e y` now{S}cite{D}s1{E} and then{S}cite{D}s2{E}",
    "heading": f"# Title \u202e words{S}cite{D}s1{E} more{S}cite{D}s2{E}",
    "table": f"| a | b |\n|---|---|\n| one \u202e two{S}cite{D}s1{E} three{S}cite{D}s2{E} | x |",
    "earlier line": f"First \u202e line\nsecond line{S}cite{D}s1{E} third{S}cite{D}s2{E}",
}


def _open_before(html: str, cite: str) -> list[str]:
    """The bidi controls still open where ``cite`` (a citation's element) starts in ``html``."""
    from citerender.plugin.bidi_guard import open_controls

    block_start = max(html.rfind("<p", 0, html.index(cite)), html.rfind("<li", 0, html.index(cite)),
                      html.rfind("<td", 0, html.index(cite)), html.rfind("<h1", 0, html.index(cite)))  # fmt: skip
    return open_controls(html[block_start : html.index(cite)])


@pytest.mark.parametrize("name", list(BIDI))
def test_no_control_is_open_where_a_citation_starts(name: str) -> None:
    """G23: in every style each citation starts with nothing the model opened still open, between
    two marks of its block's direction; the model's text is kept (nothing removed)."""
    for style in STYLES:
        r = render(BIDI[name], REG3, style=style)
        for k in (1, 2):
            assert _open_before(r.html, f'id="cite-{k}"') == [], (name, style, k)
        for c in "\u202a\u202b\u202d\u202e\u2066\u2067\u2068\u200f\u061c":
            assert r.html.count(c) >= BIDI[name].count(c), (name, style, c)  # the model's controls stay


def test_the_reproducer_is_closed_and_reported() -> None:
    """The override is closed before each citation and opened again after it; the closing is
    reported as CR312 once the code table holds it (codes.py waits for its split)."""
    from citerender.codes import CODES

    r = render(REPRODUCER, REG3)
    assert "dollars.\u202c\u200e" in r.html and "\u200e\u202e Unrelated claim\u202c\u200e" in r.html
    reported = [(d.code, d.line, d.column, d.message) for d in r.diagnostics if d.code == "CR312"]
    if "CR312" in CODES:
        assert [x[:3] for x in reported] == [("CR312", 1, 27)] and "U+202E" in reported[0][3]
    else:
        assert reported == []


def test_blocks_without_controls_are_unchanged() -> None:
    """A block without a control is written as before; closed controls are not reported."""
    plain = render(f"Alpha{S}cite{D}s1{E} beta.\n\nשלום עולם{S}cite{D}s2{E}.", REG3)
    assert not any(c in plain.html for c in "\u200e\u200f\u202c\u2069")
    closed = render(f"Alpha \u202eclosed\u202c and \u2067iso\u2069 words{S}cite{D}s1{E}.", REG3)
    assert "CR312" not in [d.code for d in closed.diagnostics]


def test_exports_close_controls_before_citations() -> None:
    """The text, Markdown and JSON exports put each citation where nothing the model opened is open."""
    from citerender.plugin.bidi_guard import open_controls
    from citerender.rendering.exports.json import to_json_data
    from citerender.rendering.exports.markdown import to_markdown
    from citerender.rendering.exports.parsed import parse_answer
    from citerender.rendering.exports.text import to_text

    p = parse_answer(REPRODUCER, REG3)
    text, md = to_text(p), to_markdown(p)
    assert open_controls(text[: text.index("[1, 2]")]) == [] and open_controls(text[: text.index("[3]")]) == []
    assert open_controls(md[: md.index("[^1]")]) == [] and open_controls(md[: md.index("[^3]")]) == []
    data = to_json_data(p)
    for c in data["citations"]:
        assert open_controls(data["text"][: c["clean"]["offset"]]) == []
    assert "\u202e Unrelated claim" in md and "\u202e Unrelated claim" in data["text"]


#: each citation's place measured in Chromium: how many of its block's characters on its line lie
#: on the wrong side of it (text before it in reading order must be before it on screen)
MEASURE = """() => {
  const out = [];
  for (const block of document.querySelectorAll('p, li, td, h1')) {
    const cites = [...block.querySelectorAll('.citerender-cite')];
    if (!cites.length) continue;
    const rtl = getComputedStyle(block).direction === 'rtl';
    const chars = [];
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    let n;
    while ((n = walker.nextNode())) {
      if (n.parentElement.closest('.citerender-cite')) continue;
      for (let i = 0; i < n.data.length; i++) {
        if (!/\\S/.test(n.data[i]) || /[\\u200e\\u200f\\u061c\\u202a-\\u202e\\u2060\\u2066-\\u2069]/.test(n.data[i])) continue;
        const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
        const b = r.getBoundingClientRect();
        if (b.width > 0) chars.push({node: n, b});
      }
    }
    for (const c of cites) {
      const cb = c.getBoundingClientRect();
      let bad = 0;
      for (const ch of chars) {
        if (Math.abs(ch.b.top - cb.top) > cb.height) continue;
        const before = c.compareDocumentPosition(ch.node) & Node.DOCUMENT_POSITION_PRECEDING;
        const left = rtl ? !before : before;
        if (left && ch.b.right > cb.left + 1) bad++;
        if (!left && ch.b.left < cb.right - 1) bad++;
      }
      out.push(bad);
    }
  }
  return out;
}"""


@pytest.mark.browser
@pytest.mark.parametrize("style", STYLES)
def test_chromium_shows_each_citation_after_its_words(browser, style: str) -> None:  # type: ignore[no-untyped-def]
    """G23 measured: in Chromium no character of the model's text sits on the wrong side of a
    citation, whatever control it left open (the reproducer showed [3] beside the price)."""
    page = browser.new_page(viewport={"width": 1600, "height": 800})
    for name, text in BIDI.items():
        if name in ("code", "earlier line"):
            continue  # measured alike, but a line break or a code box may put words on another line
        page.set_content(render(text, REG3, style=style, standalone=True, bibliography=False).html)
        misplaced = page.evaluate(MEASURE)
        assert misplaced and all(n == 0 for n in misplaced), (name, misplaced)
    page.close()
