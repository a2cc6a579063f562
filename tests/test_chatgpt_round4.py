"""What ChatGPT users paste and export (issue 49 §2.8, §2.9, §3.2, §4.3), on the real answers in
``fixtures/chatgpt/copied`` (their origins in its README.md) and documentation-shaped ones:

* ``[oai_citation:N‡Title](url)`` and the older ``[oai_citation:N,Title](url)``: a citation named by
  its title, its URL linked without ChatGPT's ``utm_source``; an uploaded file named, not linked;
* ``<Cite ref="turn0view0" />``: a citation of that id where the tag stood; untouched in code;
* the copy residue objects ``{"fallbackMarkdown":…}``: a citation of the pages they name (a
  ``url`` pill a link), never the JSON, the fallback text when no page can be recovered;
* an export's ``image_group`` carousel: each image's page linked, with its domain, nothing fetched.

Every case is judged as a reader gets it: the page (BeautifulSoup), its links, its visible text,
the exit code and what stderr says; the exports (Markdown, JSON, text, strip) say the same."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, chat_conversation, run_cli
from test_stream_equality import check_html, check_markdown

from citerender import render
from citerender.options import RenderOptions
from citerender.sources.model import registry_from_data

COPIED = FIXTURES / "chatgpt" / "copied"
#: what must never be visible outside code
RAW_FORMS = ("oai_citation", "fallbackMarkdown", "showLoginRequiredCard", "<Cite", "sources_footnote", "utm_source")


def _page(text: str, registry: object = None, **options: object) -> tuple[BeautifulSoup, list[str]]:
    r = render(text, registry, **options)  # type: ignore[arg-type]
    return BeautifulSoup(r.body, "html.parser"), [d.code for d in r.diagnostics]


def _prose(soup: BeautifulSoup) -> str:
    """The page's visible text outside code."""
    for code in soup.find_all(["code", "pre"]):
        code.decompose()
    return soup.get_text(" ")


def _entries(soup: BeautifulSoup) -> list[tuple[str, str | None]]:
    """The Sources entries: (title, link or None)."""
    out = []
    for li in soup.select("li.citerender-ref"):
        title = li.select_one(".citerender-ref-title")
        assert title is not None
        out.append((title.get_text(" ", strip=True), title.get("href") if title.name == "a" else None))
    return out


def _groups(soup: BeautifulSoup) -> list[str]:
    """Each citing place as the reader sees it: ``[1]``, ``[1, 2]``."""
    return [" ".join(sup.get_text("").split()) for sup in soup.select("sup.citerender-cite")]


def _paragraphs(soup: BeautifulSoup) -> list[str]:
    """Each paragraph's text as read (the word joiner before a citation is no space)."""
    return [" ".join(p.get_text("").replace("\u2060", "").split()) for p in soup.find_all("p")]


def _urls_in_forms(text: str) -> set[str]:
    """The web URLs the copied citations of ``text`` name, as written (tracking and all)."""
    return set(re.findall(r"\[oai_citation:\d+[\u2021,][^\n]*?\]\((https?://[^\s)]+)\)", text))


# --------------------------------------------------------------------------- [oai_citation:N‡Title](url)


@pytest.mark.parametrize("name", sorted(p.name for p in COPIED.glob("oai-*.md")))
def test_every_copied_citation_is_a_citation_named_by_its_title(name: str) -> None:
    text = (COPIED / name).read_text(encoding="utf-8")
    soup, codes = _page(text)
    count = len(re.findall(r"\[oai_citation:", text))
    assert count and not any(f in _prose(BeautifulSoup(str(soup), "html.parser")) for f in RAW_FORMS)
    assert codes.count("CR220") == count  # each read, and said
    entries = _entries(soup)
    assert entries and all(title for title, _ in entries)
    linked = {href for _, href in entries if href}
    for url in _urls_in_forms(text):  # every page URL linked, ChatGPT's tracking taken off
        assert re.sub(r"[?&]utm_source=chatgpt\.com$", "", url) in linked
    assert not any("utm_source" in h for h in linked)
    assert "CR112" not in codes  # the citations carry their sources: nothing is unverified


def test_the_text_fragment_stays_and_the_citation_stands_where_it_was() -> None:
    soup, _ = _page((COPIED / "oai-sops.md").read_text(encoding="utf-8"))
    assert _entries(soup) == [("msound.net", "https://msound.net/blog/2023/05/managing-secrets/#:~:text=Keys")]
    assert "Generate a keypair with age-keygen [1] and store it in ~/.config/sops/age/keys.txt." in _paragraphs(soup)[0]


def test_several_in_a_row_are_one_group_and_the_comma_form_is_read() -> None:
    soup, _ = _page((COPIED / "oai-hyperflux-ja.md").read_text(encoding="utf-8"))
    assert _groups(soup) == ["[1, 2]", "[3]", "[4, 5]", "[6]"]
    titles = [t for t, _ in _entries(soup)]
    assert titles[0].startswith("GitHub - Setheum-Labs/Setheum: Setheum: zk-SNARKs")  # its colons kept
    assert titles[1].endswith("| Telos Blockchain | World's Fastest EVM")


def test_the_same_page_cited_twice_is_one_source() -> None:
    soup, _ = _page((COPIED / "oai-snowflake.md").read_text(encoding="utf-8"))
    assert _groups(soup) == ["[1]", "[1]", "[2]", "[2]"]
    assert [h for _, h in _entries(soup)] == [
        "https://docs.snowflake.com/en/user-guide/tables-hybrid-limitations",
        "https://docs.snowflake.com/en/sql-reference/sql/create-stage",
    ]


@pytest.mark.parametrize("name", ["oai-kfm-files.md", "oai-aerospace-sediment.md"])
def test_an_uploaded_file_is_named_not_linked(name: str) -> None:
    text = (COPIED / name).read_text(encoding="utf-8")
    r = run_cli("render", COPIED / name)
    assert r.returncode == 0, r.stderr
    soup = BeautifulSoup(r.stdout, "html.parser")
    entries = _entries(soup)
    files = set(re.findall(r"\[oai_citation:\d+\u2021([^\]]+)\]\((?:file-service|sediment)://", text))
    assert {t for t, _ in entries} == {f"{f} (uploaded file)" for f in files}
    assert all(href is None for _, href in entries)  # no dead file-service:// or sediment:// link
    assert not soup.select("a[href*='file-service'], a[href*='sediment']")
    assert r.stderr.count("CR223") == len(re.findall(r"\[oai_citation:", text))
    assert "uploaded file" in r.stderr and "not linked" in r.stderr


def test_a_broken_address_is_cited_by_title_and_reported() -> None:
    text = "Rollups scale. [oai_citation:3,Zero-knowledge rollups | ethereum.org](https:// ethereum.org/ja/zk/)."
    soup, codes = _page(text)
    assert _entries(soup) == [("Zero-knowledge rollups | ethereum.org", None)]
    assert "CR223" in codes and "oai_citation" not in soup.get_text()


def test_a_copied_citation_of_a_registry_page_cites_that_source() -> None:
    reg = registry_from_data(
        [{"id": "doc1", "title": "Handbook", "url": "https://hr.example/handbook", "text": "Leave."}]
    )
    soup, codes = _page("Leave is booked. [oai_citation:0‡HR](https://hr.example/handbook?utm_source=chatgpt.com)", reg)
    assert _entries(soup) == [("Handbook", "https://hr.example/handbook")]
    assert "CR308" not in codes and "CR101" not in codes


def test_the_copy_form_in_code_stays_as_written() -> None:
    code = "`see [oai_citation:0‡X](https://x.example/?utm_source=chatgpt.com)`"
    soup, codes = _page(f"Text {code}\n\n```\n[oai_citation:1‡Y](https://y.example)\n```\n")
    assert soup.find("code").get_text() == code.strip("`")
    assert soup.find("pre").get_text() == "[oai_citation:1‡Y](https://y.example)\n"
    assert "CR220" not in codes and not soup.select("sup.citerender-cite")


# --------------------------------------------------------------------------- <Cite ref="…" />

CITE_TAGS = (
    'The tutorial uses React and MySQL. <Cite ref="turn0view0" />\n\n'
    "Docker Hub stores images. <Cite ref='turn0search1'/>\n\n"
    'MD5 collisions are practical. <Cite refs={["turn0search5","turn0search6"]}/>\n\n'
    '`<Cite ref="turn0view0" />` is the tag.\n'
)  # the shapes seen in public READMEs pasted from ChatGPT (ref="…" with and without a space, refs={[…]})
TAG_SOURCES = [
    {"id": "turn0view0", "title": "Docker: Develop with containers", "url": "https://docs.docker.example/develop"},
    {"id": "turn0search1", "title": "Docker Hub", "url": "https://hub.docker.example/"},
    {"id": "turn0search5", "title": "HashClash", "url": "https://hashclash.example/"},
    {"id": "turn0search6", "title": "RFC 6151", "url": "https://rfc.example/6151"},
]


def test_a_cite_tag_is_a_citation_of_its_ids_where_it_stood() -> None:
    soup, codes = _page(CITE_TAGS, registry_from_data(TAG_SOURCES))
    assert _paragraphs(soup)[:3] == [
        "The tutorial uses React and MySQL. [1]",
        "Docker Hub stores images. [2]",
        "MD5 collisions are practical. [3, 4]",
    ]
    assert [h for _, h in _entries(soup)] == [s["url"] for s in TAG_SOURCES]
    assert soup.find("code").get_text() == '<Cite ref="turn0view0" />'  # code keeps it
    assert codes.count("CR221") == 3 and "<Cite" not in _prose(soup)


def test_a_cite_tag_without_sources_is_an_unverified_citation_not_text() -> None:
    soup, codes = _page('Docker Hub stores images. <Cite ref="turn0view0" />')
    assert _groups(soup) == ["[1]"] and _entries(soup) == [("turn0view0", None)]
    assert "CR112" in codes and "<Cite" not in soup.get_text()


def test_a_link_tag_is_a_link() -> None:
    soup, codes = _page(
        '- Link: <Link url="https://n8n.example/workflows/1?utm_source=chatgpt.com" title="B2B outreach"/>'
    )
    a = soup.select_one("li a")
    assert a is not None and a["href"] == "https://n8n.example/workflows/1" and a.get_text() == "B2B outreach"
    assert "CR221" in codes


# --------------------------------------------------------------------------- copy residue objects


@pytest.mark.parametrize("name", ["residue-pyjar.adoc", "residue-cancer-diag.md", "residue-foodstock-escaped.md"])
def test_a_residue_object_is_a_citation_of_its_pages_never_json(name: str) -> None:
    text = (COPIED / name).read_text(encoding="utf-8")
    r = run_cli("render", COPIED / name)
    assert r.returncode == 0, r.stderr
    soup = BeautifulSoup(r.stdout, "html.parser")
    prose = _prose(BeautifulSoup(r.stdout, "html.parser"))
    assert not any(f in prose for f in RAW_FORMS) and ":::" not in prose
    urls = {u.replace("\\_", "_") for u in re.findall(r'"url":"(https://[^"]+)"', text)}
    urls = {u.split("?utm")[0] for u in urls}
    linked = {a["href"] for a in soup.select("a[href^=http]")}
    assert urls <= linked  # every page a pill names is linked
    assert "CR222" in r.stderr


def test_the_residue_objects_stand_where_they_stood() -> None:
    soup, _ = _page((COPIED / "residue-pyjar.adoc").read_text(encoding="utf-8"))
    paragraphs = _paragraphs(soup)
    assert paragraphs[1].endswith("tests, and package archive. [1]")  # the grouped pill, after its sentence
    assert paragraphs[-1].endswith("while working in JavaScript. [1]")  # the sources footnote, at the end
    assert _entries(soup) == [("GitHub - cloudberrypitech/pyjar · GitHub", "https://github.com/cloudberrypitech/pyjar")]


def test_a_url_pill_is_a_link_and_an_untitled_page_is_named_by_its_site() -> None:
    soup, _ = _page((COPIED / "residue-cancer-diag.md").read_text(encoding="utf-8"))
    link = soup.find("a", string="View your GitHub repository")
    assert link is not None and link["href"] == "https://github.com/OliveiraTiago23/cancer_diag"
    assert _groups(soup) == ["[1]", "[1, 2]"]
    assert _entries(soup) == [
        ("GitHub", "https://raw.githubusercontent.com/OliveiraTiago23/cancer_diag/main/yeeesir.ipynb"),
        ("GitHub - OliveiraTiago23/cancer_diag · GitHub", "https://github.com/OliveiraTiago23/cancer_diag"),
    ]


def test_the_other_shapes_of_residue() -> None:
    """Own, documentation-shaped: raw line breaks and blank lines in the strings, Markdown escapes,
    a page without an address, a damaged object, a hostile URL, and one in code."""
    text = (COPIED / "residue-own-shapes.md").read_text(encoding="utf-8")
    r = run_cli("render", COPIED / "residue-own-shapes.md")
    assert r.returncode == 0, r.stderr
    soup = BeautifulSoup(r.stdout, "html.parser")
    paragraphs = _paragraphs(soup)
    assert "Example Download" in paragraphs  # the url pill alone in its paragraph: a link
    assert soup.find("a", string="Example Download")["href"] == "https://example.org/download"
    assert "Interfaces can hold default methods since Java 8. [1]" in paragraphs  # blank lines inside
    assert "The service answered with an error. (Status page)" in paragraphs  # nothing to cite: its fallback
    assert "A damaged copy. [2]" in paragraphs  # its URL salvaged
    assert "A hostile pill. Click me" in paragraphs and not soup.select("a[href^=javascript]")
    assert soup.find("pre").get_text() == text.split("```json\n")[1].split("```")[0]  # code as written
    assert "CR212" in r.stderr and "(1 named without one)" in r.stderr and "CR223" in r.stderr
    assert _entries(soup) == [
        ("Interfaces in Java - Example Docs", "https://docs.example.org/java/interfaces/"),
        ("wiki.example.org", "https://wiki.example.org/page"),
    ]


# --------------------------------------------------------------------------- the exports agree


@pytest.mark.parametrize("name", sorted(p.name for p in COPIED.iterdir() if p.name.startswith(("oai-", "residue-"))))
def test_the_exports_say_what_the_page_says(name: str) -> None:
    path = COPIED / name
    page = BeautifulSoup(run_cli("render", path).stdout, "html.parser")
    page_links = {a["href"] for a in page.select("a[href^=http]")}
    md = run_cli("render", path, "--to", "markdown").stdout
    out = [md, run_cli("render", path, "--to", "text").stdout, run_cli("strip", path).stdout]
    data = json.loads(run_cli("render", path, "--to", "json").stdout)
    out.append(data["text"])
    for body in out:  # outside code: fences, code spans, the text export's indented code
        prose = re.sub(r"```.*?```|`[^`\n]*`|^    [^\n]*$", "", body, flags=re.S | re.M)
        assert not any(f in prose for f in RAW_FORMS), (name, body[:300])
    md_links = set(re.findall(r"<?(https?://[^\s>)\[]+)>?", md))
    assert page_links <= md_links  # every page linked on the page is in the Markdown export
    json_urls = {s.get("url") for s in data.get("sources") or data.get("references") or [] if isinstance(s, dict)}
    cited = {h for _, h in _entries(page) if h}
    assert cited <= json_urls | md_links


def test_streams_equal_the_page_for_copied_forms() -> None:
    text = (
        "Generate a keypair [oai_citation:9‡msound.net](https://msound.net/a/#:~:text=Keys) and store it.\n\n"
        'The tutorial uses React. <Cite ref="turn0search0" />\n\n'
        'Read the docs. {"fallbackMarkdown":"(Docs)","reference":{"type":"grouped_webpages","items":'
        '[{"title":"Docs","url":"https://docs.example/","attribution":"Docs"}]},"showLoginRequiredCard":false}\n\n'
        'A line break inside. {"fallbackMarkdown":"(Wiki\n)","reference":{"type":"grouped_webpages","items":'
        '[{"title":"Wiki","url":"https://wiki.example/"}]},"alt":"(Wiki\n)","showLoginRequiredCard":false}\n\nEnd.\n'
    )  # (a blank line inside an object is read whole by the page; a stream decides the paragraph before it at
    # the blank line, before the object's end has come: pasted copies are not streamed)
    for style in ("footnotes", "hovercard"):
        check_html(text, RenderOptions(style=style), random.Random(style))
    check_markdown(text, random.Random(1))


# --------------------------------------------------------------------------- image_group carousels


def _export_with_carousel(tmp_path: Path) -> Path:
    """A conversation whose answer holds an ``image_group`` content reference in the export's
    shape (``images[].image_result`` with ``url``, ``title``, ``content_url``, ``thumbnail_url``)."""
    marker = "\ue200i\ue202turn0image0\ue202turn0image1\ue202turn0image2\ue201"
    text = f"{marker}The Louvre is in Paris."
    images = [
        {"image_result": {"url": "https://www.louvre.example/visit", "title": "Louvre pyramid",
                          "content_url": "https://cdn.louvre.example/p.jpg", "thumbnail_url": "https://tse.example/1"}},
        {"image_result": {"url": "https://en.wiki.example/wiki/Louvre", "title": "",
                          "content_url": "https://cdn.wiki.example/l.jpg", "thumbnail_url": "https://tse.example/2"}},
        {"image_result": {"title": "No page", "content_url": "https://cdn.example/x.jpg"}},
    ]  # fmt: skip
    ref = {"matched_text": marker, "start_idx": 0, "end_idx": len(marker), "type": "image_group", "images": images}
    answer = {
        "id": "a1", "author": {"role": "assistant"}, "create_time": 1767000010.0, "recipient": "all",
        "content": {"content_type": "text", "parts": [text]}, "metadata": {"content_references": [ref]},
    }  # fmt: skip
    user = {"id": "u1", "author": {"role": "user"}, "create_time": 1767000000.0, "recipient": "all",
            "content": {"content_type": "text", "parts": ["Where is the Louvre?"]}, "metadata": {}}  # fmt: skip
    mapping = {
        "root": {"id": "root", "message": None, "parent": None, "children": ["u1"]},
        "u1": {"id": "u1", "message": user, "parent": "root", "children": ["a1"]},
        "a1": {"id": "a1", "message": answer, "parent": "u1", "children": []},
    }
    conv = {"id": "conv-carousel", "title": "Carousel", "create_time": 1767000000.0, "current_node": "a1",
            "mapping": mapping}  # fmt: skip
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([conv]), encoding="utf-8")
    return path


def test_an_image_carousel_links_each_image_page_and_fetches_nothing(tmp_path: Path) -> None:
    r = run_cli("build", _export_with_carousel(tmp_path), tmp_path / "site")
    assert r.returncode == 0, r.stderr
    page = BeautifulSoup(next((tmp_path / "site" / "c").glob("*.html")).read_text(encoding="utf-8"), "html.parser")
    paragraphs = _paragraphs(page)
    carousel = paragraphs.index("Images: Louvre pyramid (louvre.example), en.wiki.example, No page")
    assert paragraphs[carousel + 1] == "The Louvre is in Paris."  # where the carousel stood, apart from the text
    links = {a.get_text(strip=True): a["href"] for a in page.select("a[href^=http]")}
    assert links["Louvre pyramid"] == "https://www.louvre.example/visit"
    assert links["en.wiki.example"] == "https://en.wiki.example/wiki/Louvre"
    assert not page.find("img")  # no remote image: nothing fetched
    html = str(page)
    assert "cdn." not in html and "tse.example" not in html


def test_what_a_user_pasted_into_a_chat_shows_its_pages_as_links(tmp_path: Path) -> None:
    """A user's message is the user's words: a pasted copied citation is the page's link there (no
    citation number pointing at a list the message does not have), a <Cite> tag nothing."""
    pasted = (
        "You said: keys are made with age-keygen [oai_citation:9‡msound.net](https://msound.net/a/#:~:text=Keys) "
        'and the tutorial uses React <Cite ref="turn0view0" />. Is that right?'
    )
    conv = chat_conversation("Pasted", [("user", pasted), ("assistant", "Yes.")], "conv-pasted")
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([conv]), encoding="utf-8")
    r = run_cli("build", export, tmp_path / "site")
    assert r.returncode == 0, r.stderr
    page = BeautifulSoup(next((tmp_path / "site" / "c").glob("*.html")).read_text(encoding="utf-8"), "html.parser")
    said = next(p for p in _paragraphs(page) if p.startswith("You said"))
    assert said == "You said: keys are made with age-keygen msound.net and the tutorial uses React. Is that right?"
    assert page.find("a", string="msound.net")["href"] == "https://msound.net/a/#:~:text=Keys"
    assert not page.select("sup.citerender-cite") and "oai_citation" not in page.get_text()
