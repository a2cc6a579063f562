"""G17 and G08: a marker inside a URL (any link form, any part of the URL) never leaves a live,
punycoded or truncated link; a marker in an image's alt text or a title never shows as text, and
every in-page link of the HTML has its target."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup
from conftest import ROOT, assert_no_marker, expand

from citerender import Source, render
from citerender.sources.model import Registry

STYLES = ["footnotes", "superscript", "hovercard", "pills", "sidenotes"]
M = "{S}cite{D}turn0search0{E}"
REG = Registry([Source(id="turn0search0", title="T", url="https://t.example/")])
R4 = ROOT.parent / "shared" / "reproducers" / "round4"
VISIBLE_FORM = re.compile(r"cite\s*turn\d|turn\d+search\d+|xn--", re.I)

#: a marker cutting a URL in two, in every link form and in every part of the URL
CUT_URLS = [
    f"See [docs](https://x.{M}example/path) end.",
    f"See <https://y.{M}example/> end.",
    f"See https://z.{M}example/ end.",
    f"See www.{M}example.com/x end.",
    f"In a path: [docs](https://x.example/pa{M}th).",
    f"In a path: https://x.example/pa{M}th end.",
    f"In a query: https://x.example/p?q=1{M}&r=2 end.",
    f"In a fragment: <https://x.example/p#fr{M}ag> end.",
    f"Two: https://x.exa{M}{M}mple.org/ end.",
    f"A port: http://localhost:80{M}80/ end.",
    f"A mail: <mailto:someone@ex{M}ample.org> end.",
    f"A reference: [docs][r] end.\n\n[r]: https://r.{M}example/",
    f"Strong: **https://s.{M}example/x** end.",
]


def _html(text: str, style: str = "footnotes", **kw: object) -> tuple[str, list]:
    r = render(expand(text), REG, style=style, **kw)
    return r.html, r.diagnostics


def _links(html: str) -> list[str]:
    soup = BeautifulSoup(html, "html.parser")
    return [a["href"] for a in soup.find_all("a", href=True) if not a["href"].startswith("#")]


def _targets_exist(html: str) -> None:
    soup = BeautifulSoup(html, "html.parser")
    ids = {el["id"] for el in soup.find_all(id=True)}
    for a in soup.find_all(["a", "button"]):
        for attr in ("href", "popovertarget", "interestfor"):
            v = a.get(attr)
            if isinstance(v, str) and v.startswith("#"):
                assert v[1:] in ids, f"{attr}={v} has no target"
            elif isinstance(v, str) and attr != "href":
                assert v in ids, f"{attr}={v} has no target"


@pytest.mark.parametrize("text", CUT_URLS)
@pytest.mark.parametrize("style", ["footnotes", "hovercard"])
def test_a_url_cut_by_a_marker_is_never_a_link(text: str, style: str) -> None:
    html, diags = _html(text, style)
    answer_links = [h for h in _links(html) if "t.example" not in h]
    assert answer_links == [], answer_links
    assert "xn--" not in html
    assert any(d.code == "CR311" for d in diags)
    assert_no_marker(html)
    assert not VISIBLE_FORM.search(BeautifulSoup(html, "html.parser").get_text())


@pytest.mark.parametrize(
    ("text", "href"),
    [
        (f"See https://example.com/page{M}.", "https://example.com/page"),
        (f"See https://example.com/page{M} and more.", "https://example.com/page"),
        (f"See <https://example.com/page>{M} now.", "https://example.com/page"),
        (f"See [docs](https://example.com/){M} now.", "https://example.com/"),
        (f"See www.example.com{M}, then.", "http://www.example.com"),
    ],
)
def test_a_citation_right_after_a_url_keeps_both(text: str, href: str) -> None:
    html, diags = _html(text)
    assert href in _links(html)
    assert 'class="citerender-cite' in html
    assert not any(d.code == "CR311" for d in diags)


def test_the_g17_reproducer_links_nothing() -> None:
    md = (R4 / "G17-marker-in-url-host.md").read_text(encoding="utf-8")
    html = render(md, REG).html
    assert [h for h in _links(html) if "t.example" not in h] == []
    assert "xn--" not in html


ALT_AND_TITLES = [
    f"See ![chart {M}](https://x.example/c.png) now.",
    f"See ![{M}chart](https://x.example/c.png) and ![two {M}{M}](https://x.example/d.png).",
    f"A [link](https://x.example/ {chr(34)}title {M}{chr(34)}) here.",
    f"A [ref][r] and [again][r].\n\n[r]: https://y.example/ {chr(34)}ref {M}{chr(34)}",
    f"See [x][r] now.\n\n[r]: https://x.example/ {chr(34)}t {M}{chr(34)}",
    f"A ![img][i] there.\n\n[i]: https://x.example/i.png {chr(34)}{M}{chr(34)}",
    f"- item ![alt {M}](https://x.example/a.png)\n- and [l](https://x.example/ 'q {M}')",
    f"One block: ![chart {M}](https://x.example/c.png) and [l](https://x.example/ {chr(34)}ti {M}{chr(34)}).",
]


@pytest.mark.parametrize("text", ALT_AND_TITLES)
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("images", ["text", "keep"])
def test_markers_in_alt_text_and_titles_never_show(text: str, style: str, images: str) -> None:
    html, _ = _html(text, style, images=images)
    assert_no_marker(html)
    soup = BeautifulSoup(html, "html.parser")
    shown = [soup.get_text(), *(str(v) for el in soup.find_all(True) for v in el.attrs.values())]
    assert not any(VISIBLE_FORM.search(s) for s in shown), shown
    _targets_exist(html)


def test_an_alt_text_citation_is_kept_after_its_image() -> None:
    html, _ = _html(f"See ![chart {M}](https://x.example/c.png) now.")
    soup = BeautifulSoup(html, "html.parser")
    cite = soup.find(class_="citerender-cite")
    assert cite is not None and cite.get("id") == "cite-1"
    assert soup.find(href="#cite-1") is not None


def _exports(text: str) -> dict[str, str]:
    from citerender.rendering.exports.json import to_json_data
    from citerender.rendering.exports.markdown import to_markdown, to_stripped
    from citerender.rendering.exports.parsed import parse_answer

    answer = expand(text)
    p = parse_answer(answer, REG)
    return {
        "markdown": to_markdown(p),
        "strip": to_stripped(parse_answer(answer, REG)),
        "json": to_json_data(parse_answer(answer, REG))["text"],
    }


@pytest.mark.parametrize("text", ALT_AND_TITLES)
def test_exports_show_no_marker_form_from_alt_text_or_titles(text: str) -> None:
    for name, out in _exports(text).items():
        assert_no_marker(out, name, markdown=True)
        assert not VISIBLE_FORM.search(out), (name, out)


def test_an_alt_text_citation_is_noted_after_the_image_in_markdown() -> None:
    md = _exports(
        f'See ![chart {M}](https://x.example/c.png "t") and ![b {M}][i] now.\n\n[i]: https://x.example/i.png'
    )["markdown"]
    assert '![chart](https://x.example/c.png "t")[^1]' in md
    assert "![b][i][^1]" in md


def test_a_reference_definition_marker_is_reported_at_its_line() -> None:
    r = render(expand(f"See [x][r] now.\n\n[r]: https://x.example/ {chr(34)}t {M}{chr(34)}"), REG)
    where = [(d.code, d.line) for d in r.diagnostics if d.code == "CR311"]
    assert where == [("CR311", 3)]


@pytest.mark.parametrize("text", ALT_AND_TITLES)
def test_host_pages_show_no_marker_form(text: str) -> None:
    """MkDocs and Sphinx pages (and Sphinx's _sources copy) come from the host transform."""
    from citerender.publish.host import transform_for_host

    t = transform_for_host(expand(text), REG)
    for out in (t.markdown, t.stripped):
        assert_no_marker(out, markdown=True)
        assert not VISIBLE_FORM.search(out), out


@pytest.mark.parametrize("text", CUT_URLS)
def test_exports_link_no_url_a_marker_cut(text: str) -> None:
    """Read back by pandoc (its Markdown, GFM and CommonMark readers) and by our own reader, the
    Markdown, strip and JSON texts link none of these URLs and show no marker form or footnote."""
    import shutil
    import subprocess

    from citerender.rendering.pipeline import permissive_reader

    for name, out in _exports(text).items():
        assert "\ufdd0" not in out and not VISIBLE_FORM.search(out), (name, out)
        assert_no_marker(out, name, markdown=True)
        html = permissive_reader().render(out)
        assert [h for h in _links(html) if "t.example" not in h] == [], (name, out)
        assert not re.search(r"\[\^\d", out.split("\n\n[^")[0]) or "](" not in out, (name, out)
        if shutil.which("pandoc"):
            for reader in ("markdown", "gfm", "commonmark_x"):
                page = subprocess.run(
                    ["pandoc", "-f", reader, "-t", "html"], input=out, capture_output=True, text=True, check=True
                ).stdout
                assert [h for h in _links(page) if "t.example" not in h and not h.startswith("#")] == [], (
                    reader,
                    out,
                )


def test_json_offsets_survive_a_cut_url() -> None:
    from citerender.rendering.exports.json import to_json_data
    from citerender.rendering.exports.parsed import parse_answer

    data = to_json_data(parse_answer(expand(f"See https://z.{M}example/ end. Claim.{M}"), REG))
    (cite,) = data["citations"]
    at = cite["clean"]["offset"]
    assert data["text"][:at].endswith("Claim.")
