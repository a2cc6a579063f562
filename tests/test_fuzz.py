"""Fuzzing the whole pipeline with hypothesis: parse → check → render (every style and theme)
→ every export. Documented error type only; well-formed HTML; no leaks; unique ids; determinism.

The CI profile runs a short session; ``--hypothesis-profile=deep`` runs 100,000 examples.
"""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from html.parser import HTMLParser

import pytest
from bs4 import BeautifulSoup
from conftest import assert_no_marker
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from citerender import CiterenderError, check, render, strip_citations
from citerender.options import STYLES as ALL_STYLES
from citerender.plugin.rules import MAX_MARKERS
from citerender.rendering.exports.csl import to_csl_json
from citerender.rendering.exports.json import to_json, to_json_data
from citerender.rendering.exports.markdown import to_markdown
from citerender.rendering.exports.parsed import parse_answer
from citerender.rendering.exports.text import to_text
from citerender.sources.model import Registry, Source
from citerender.sources.urls import is_live_link

S, D, E = "\ue200", "\ue202", "\ue201"
STYLES = ALL_STYLES  # every style the library has
THEMES = ("default", "report", "minimal")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

PIECES = [
    S,
    D,
    E,
    "\ue203",
    "\ue204",
    "\ue205",
    "\ue206",
    "cite",
    "filecite",
    "entity",
    "navlist",
    "a1",
    "b2",
    "turn0file0",
    "L1",
    "L2-L3",
    "L3-L1",
    "L99",
    "【",
    "】",
    "†",
    "|",
    "\\ue200",
    "&#xE200;",
    "*",
    "**",
    "_",
    "`",
    "```",
    "~~~",
    "\n",
    "\n\n",
    "\r\n",
    "\x00",
    "> ",
    "- ",
    "1. ",
    "# ",
    "| a | b |\n|---|---|\n",
    "[",
    "](",
    ")",
    "<",
    ">",
    "&",
    '"',
    "'",
    "<b>",
    "</b>",
    "<script>",
    "{{7*7}}",
    " ",
    "x",
    "é",
    "😀",
    "\t",
    # every dialect and residue form, and what removal could turn into a live link
    "%EE%88%80",
    "&#x0E200;",
    "&#xE200",
    "&#057858;",
    "\\u{E200}",
    "\\\\ue201",
    "【4:0†source】",
    "【6†L1-L2】",
    "citeturn0file0",
    'entity["people","Ada"]',
    "java",
    "script:",
    "javascript:alert(1)",
    "[x](",
    "]: ",
    "\u202e",
    "\x1b[2J",
    ":contentReference[oaicite:1]{index=1}",
]
answers = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=60).map("".join),
    st.text(max_size=120),
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=5)), max_size=40).map("".join),
)
titles = st.one_of(st.none(), st.text(max_size=30), st.sampled_from(["<script>x</script>", "\"'><", S + "cite" + E]))
urls = st.one_of(
    st.none(),
    st.sampled_from(
        [
            "https://a.example/x",
            "javascript:alert(1)",
            "data:text/html,x",
            "/rel",
            " JaVa\tScRiPt:x",
            "https://b.example/#frag",
            "http://[::1",
            "//x",
            "java%EE%88%80script:alert(1)",
            "java\ue201script:alert(1)",
            "&#xE200;javascript:alert(1)",
            "https://ex\u202eelpmaxe.com/",
        ]
    ),
)


@st.composite
def registries(draw):  # type: ignore[no-untyped-def]
    out = []
    for sid in draw(st.lists(st.sampled_from(["a1", "b2", "turn0file0", "x"]), unique=True, max_size=4)):
        lines = draw(st.one_of(st.none(), st.lists(st.text(max_size=20), max_size=4).map(tuple)))
        out.append(
            Source(
                sid,
                title=draw(titles),
                url=draw(urls),
                lines=lines,
                text=None if lines is not None else draw(st.one_of(st.none(), st.text(max_size=20))),
            )
        )
    return Registry(out)


class _Balance(HTMLParser):
    """Every non-void element opened is closed, in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.errors.append(f"<{tag}/> is not a void element")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            self.errors.append(f"</{tag}> closes a void element")
        elif not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
        else:
            self.stack.pop()


def _shape(html: str, parser: str) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    soup = BeautifulSoup(html, parser)
    root = soup.body or soup
    return [
        (el.name, tuple(sorted((k, " ".join(v) if isinstance(v, list) else v) for k, v in el.attrs.items())))
        for el in root.find_all(True)
    ]


def assert_well_formed(html: str) -> None:
    b = _Balance()
    b.feed(html)
    b.close()
    assert b.errors == [] and b.stack == [], (b.errors, b.stack)
    assert _shape(html, "html5lib") == _shape(html, "html.parser")


def _has_code(text: str) -> bool:
    return "`" in text or "~~~" in text or re.search(r"(?m)^(?: {4}|\t)", text) is not None


def _pipeline(text: str, reg: Registry, combos: list[tuple[str, str]]) -> None:
    try:
        diags = check(text, reg)
    except CiterenderError:
        return
    assert all(d.line >= 1 and d.column >= 1 for d in diags)
    for style, theme in combos:
        r = render(text, reg, style=style, theme=theme)
        assert_no_marker(r.html)
        assert_well_formed(r.html)
        ids = [el["id"] for el in BeautifulSoup(r.html, "html.parser").find_all(id=True)]
        assert len(ids) == len(set(ids)), Counter(ids).most_common(3)
        assert render(text, reg, style=style, theme=theme).html == r.html  # deterministic
        page = render(text, reg, style=style, theme=theme, standalone=True).html
        assert_no_marker(page)
        assert_well_formed(page)
        assert_no_live_script_url(r.html)
    p = parse_answer(text, reg)
    assert_no_marker(to_markdown(p), markdown=True)
    assert_no_marker(to_json_data(p)["text"], markdown=True)
    assert_no_marker(to_csl_json(p))
    for out in (to_text(p), to_json(p)):  # their code is not delimited: strict when there is none
        if _has_code(text):
            assert not re.search("[\ue200-\ue206]", out)
        else:
            assert_no_marker(out)
    for link in markdown_links(to_markdown(p)):
        assert not is_live_link(link), link
    assert_no_marker(strip_citations(text))


_DANGEROUS = re.compile(r"^\s*(?:javascript|vbscript|data|livescript):", re.I)


def assert_no_live_script_url(html: str) -> None:
    for el in BeautifulSoup(html, "html.parser").find_all(True):
        for attr in ("href", "src"):
            value = el.get(attr)
            if value is not None:
                assert not _DANGEROUS.match(re.sub(r"[\t\n\r\x00-\x1f]", "", str(value))), value


_PERMISSIVE = MarkdownIt("commonmark", {"html": True})
_PERMISSIVE.validateLink = lambda url: True  # type: ignore[method-assign]


def markdown_links(markdown: str) -> list[str]:
    """Every link and image URL a permissive Markdown reader (pandoc's rules) finds."""
    md = _PERMISSIVE
    return [
        str(c.attrs.get("href") or c.attrs.get("src"))
        for t in md.parse(markdown)
        for c in t.children or []
        if c.type in ("link_open", "image")
    ]


_PROFILE_EXAMPLES = settings().max_examples
#: the deep profile runs every example it asks for; shorter profiles spend a fifth on this costly test
FUZZ_EXAMPLES = _PROFILE_EXAMPLES if _PROFILE_EXAMPLES >= 10_000 else max(40, _PROFILE_EXAMPLES // 5)
COMBOS = [(s, t) for s in STYLES for t in THEMES]


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers, registries(), st.lists(st.sampled_from(COMBOS), min_size=1, max_size=2, unique=True))
def test_whole_pipeline(text: str, reg: Registry, combos: list[tuple[str, str]]) -> None:
    _pipeline(text, reg, combos)
    _count_example()


def _count_example() -> None:
    """With CITERENDER_FUZZ_COUNT=FILE, keep the number of examples run in FILE (for long runs)."""
    path = os.environ.get("CITERENDER_FUZZ_COUNT")
    if path:
        global _RUN
        _RUN += 1
        if _RUN % 500 == 0:
            with open(path, "w", encoding="utf-8") as f:
                f.write(str(_RUN))


_RUN = 0


def test_every_style_and_theme_on_a_hostile_sample() -> None:
    reg = Registry([Source("a1", title="<b>A</b>", url="javascript:x", lines=("l1", "l2")), Source("b2")])
    text = (
        "# T" + S + "cite" + D + "a1" + E + "\n\n> - *x" + S + "cite" + D + "a1" + D + "L2" + E + "* `c" + S + "`\n"
        "\n| a | b"
        + S
        + "cite"
        + D
        + "b2"
        + E
        + " |\n|---|---|\n| 【6†L1】 | citeturn0file0 |\n\n"
        + E
        + D
        + "a1\r\n\x00"
    )
    _pipeline(text, reg, COMBOS)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    st.lists(st.sampled_from(["> ", "- ", "  ", "1. ", "* "]), min_size=1, max_size=60).map("".join),
    st.sampled_from([f"{S}cite{D}a1{E}", f"{S}cite{D}a1", "citeturn0file0", f"x{E}y"]),
)
def test_deep_nesting_around_markers(prefix: str, marker: str) -> None:
    reg = Registry([Source("a1", title="A"), Source("turn0file0", title="T")])
    _pipeline(f"{prefix}claim.{marker}\n{prefix}more {marker}\n", reg, [("hovercard", "default")])


def test_enormous_ids_and_ten_thousand_markers_on_one_line() -> None:
    reg = Registry([Source("a1", title="A", url="https://a.example/")])
    huge = "x" * 200_000
    r = render(f"Claim.{S}cite{D}{huge}{E} and{S}cite{D}a1{E}", reg)
    assert_no_marker(r.html)
    assert len(r.html) < 10_000  # the 200,000-character id is reported (CR101), not printed
    assert {d.code for d in r.diagnostics} >= {"CR101", "CR107"}
    line = "word" + f"{S}cite{D}a1{E} word" * 10_000
    r = render(line, reg)
    assert r.html.count("citerender-cite") == 10_000
    assert_no_marker(r.html)


def test_marker_cap_is_a_clear_error() -> None:
    with pytest.raises(CiterenderError, match=f"more than {MAX_MARKERS:,} markers"):
        render(f"{S}cite{D}a1{E} " * (MAX_MARKERS + 1))


def _calls(fn) -> int:  # type: ignore[no-untyped-def]
    """Python-level function calls made by ``fn()`` (an operation count, not a timing)."""
    count = 0

    def prof(frame, event, arg):  # type: ignore[no-untyped-def]
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


@pytest.mark.parametrize(
    "unit",
    [
        f"Claim.{S}cite{D}a1{D}L1{E} ",
        f"{S}cite{D}a1 broken ",
        "x【6†L1】 ",
        "w citeturn0file0 ",
        f"> {S}cite{D}a1{E}\n",
        f"- {S}cite{D}zz{E}\n",
        f"`{S}cite{D}a1{E}` ",
    ],
)
def test_no_quadratic_path(unit: str) -> None:
    reg = Registry([Source("a1", title="A", lines=("l",)), Source("turn0file0")])
    small = _calls(lambda: render(unit * 300, reg, style="hovercard"))
    large = _calls(lambda: render(unit * 1200, reg, style="hovercard"))
    assert large <= 4.6 * small, (small, large)  # 4× the input: linear, with slack for fixed costs
    assert re.sub(r"\s", "", unit)
