"""axe-core (bundled by axe-playwright-python) in Debian's Chromium: zero violations, experimental
rules included, on every style × theme × colour scheme, standalone and embedded, with a card open,
and on the build's and MkDocs' pages. Select with ``-m browser``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, FIXTURES, expand

from citerender import build_site, load_sources, render
from citerender.options import STYLES as ALL_STYLES
from citerender.publish.web import stylesheet

pytestmark = pytest.mark.browser

STYLES = ALL_STYLES  # every style the library has
THEMES = ("default", "report", "minimal")
EXTRA = (
    "\n\n## Details\n\n- [x] Checked with the policy.{S}cite{D}turn0file0{E}\n- [ ] Ask HR.[^1]\n\n"
    "| Item | Rule |\n|---|---|\n| Days | three{S}cite{D}turn0file1{D}L1{E} |\n\n"
    "The budget is $x^2 + 1$ units, and an unknown id{S}cite{D}turn9file9{E}.\n\n"
    "```python\nprint('hello')  # a comment\n```\n\n[^1]: HR answers within a week.\n"
)
RUN_AXE = """async () => {
  const rules = Object.fromEntries(axe.getRules(['experimental']).map(r => [r.ruleId, {enabled: true}]));
  const r = await axe.run(document, {rules, resultTypes: ['violations']});
  return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.html.slice(0, 160) + ' ' + JSON.stringify((n.any[0] || {}).data || '').slice(0, 160))}));
}"""


@pytest.fixture(scope="module")
def axe_script() -> str:
    from axe_playwright_python.sync_playwright import Axe

    return str(Axe().axe_script)


def _answer() -> tuple[str, Any]:
    reg = load_sources(EXAMPLES / "handbook" / "answer.sources.json")
    text = (EXAMPLES / "handbook" / "answer.md").read_text(encoding="utf-8") + expand(EXTRA)
    return text, reg


def _violations(browser: Any, axe_script: str, path: Path, scheme: str, *, open_card: bool = False) -> list[Any]:
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.goto(path.as_uri())
    if open_card:
        page.locator(".citerender-has-card > button").first.hover()
        page.locator(".citerender-card:popover-open").wait_for(state="visible")
    elif page.locator(".citerender-sidenote").count():  # a note opened whole, its sentence highlighted
        note = page.locator(".citerender-sidenote").first
        if not note.is_visible():  # a toggle (no margin in a host's page): opened by its number
            page.locator(".citerender-sn-num").first.click()
        note.hover()
    page.evaluate(axe_script)
    found = page.evaluate(RUN_AXE)
    context.close()
    return list(found)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("style", STYLES)
def test_standalone_pages_have_no_violations(
    browser: Any, axe_script: str, tmp_path: Path, style: str, theme: str, scheme: str
) -> None:
    text, reg = _answer()
    path = tmp_path / "page.html"
    path.write_text(render(text, reg, style=style, theme=theme, standalone=True, unknown="keep").html, encoding="utf-8")
    assert _violations(browser, axe_script, path, scheme, open_card=style in ("hovercard", "pills")) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("style", STYLES)
def test_embedded_fragments_have_no_violations(
    browser: Any, axe_script: str, tmp_path: Path, style: str, scheme: str
) -> None:
    """A fragment inside someone else's page, with citerender's stylesheet only."""
    text, reg = _answer()
    body = render(text.replace("# Can I work from home?", "## Can I work from home?"), reg, style=style).body
    host = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>'
        f"<style>body {{ font: 17px/1.5 Georgia, serif; margin: 2rem; }}</style><style>{stylesheet('minimal')}</style>"
        f"</head><body><header><h1>Host site</h1></header><main><article>{body}</article></main></body></html>"
    )
    path = tmp_path / "host.html"
    path.write_text(host, encoding="utf-8")
    assert _violations(browser, axe_script, path, scheme, open_card=style in ("hovercard", "pills")) == []


def test_an_answer_starting_at_h2_still_has_one_h1(browser: Any, axe_script: str, tmp_path: Path) -> None:
    text, reg = _answer()
    path = tmp_path / "h2.html"
    path.write_text(render(text.replace("# Can I", "## Can I"), reg, standalone=True).html, encoding="utf-8")
    assert _violations(browser, axe_script, path, "light") == []
    assert path.read_text(encoding="utf-8").count("<h1") == 1


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_build_pages_have_no_violations(browser: Any, axe_script: str, tmp_path: Path, scheme: str) -> None:
    src = tmp_path / "answers"
    src.mkdir()
    (src / "good.md").write_text((EXAMPLES / "handbook" / "answer.md").read_text(encoding="utf-8"), encoding="utf-8")
    (src / "good.sources.json").write_text(
        (EXAMPLES / "handbook" / "answer.sources.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (src / "bad.md").write_text(
        expand("## Unknown\n\nA claim.{S}cite{D}nosuch{E} Before{S}cite{D}x{E}.\n"), encoding="utf-8"
    )
    (src / "bad.sources.json").write_text('[{"id": "x", "title": "X"}]', encoding="utf-8")
    out = tmp_path / "site"
    build_site(src, out)
    for page in ("index.html", "good.html", "bad.html"):
        assert _violations(browser, axe_script, out / page, scheme) == [], page


def test_mkdocs_material_page_has_no_violations_in_citerender_parts(
    browser: Any, axe_script: str, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text((EXAMPLES / "handbook" / "answer.md").read_text(encoding="utf-8"), encoding="utf-8")
    (docs / "index.sources.json").write_text(
        (EXAMPLES / "handbook" / "answer.sources.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\ntheme: {name: material}\nplugins: [{citerender: {style: hovercard, theme: minimal}}]\n",
        encoding="utf-8",
    )
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.goto((tmp_path / "site" / "index.html").as_uri())
    page.locator(".citerender-has-card > button").first.hover()
    page.locator(".citerender-card:popover-open").wait_for(state="visible")
    # the card's text is the size of the page's text, not larger
    sizes = page.evaluate(
        "() => [getComputedStyle(document.querySelector('article p')).fontSize,"
        " getComputedStyle(document.querySelector('.citerender-card:popover-open')).fontSize].map(parseFloat)"
    )
    assert sizes[1] <= sizes[0] + 0.5, sizes
    page.evaluate(axe_script)
    found = page.evaluate(
        RUN_AXE.replace("axe.run(document,", "axe.run({include: [['.citerender-cite'], ['.citerender-bibliography']]},")
    )
    context.close()
    assert found == []


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _rgb(css: str) -> tuple[float, float, float]:
    nums = [float(x) for x in re.findall(r"[\d.]+", css)[:3]]
    return nums[0], nums[1], nums[2]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("style", STYLES)
def test_focus_rings_are_visible_in_both_schemes(browser: Any, tmp_path: Path, style: str, scheme: str) -> None:
    text, reg = _answer()
    path = tmp_path / "focus.html"
    path.write_text(render(text, reg, style=style, standalone=True).html, encoding="utf-8")
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    page.goto(path.as_uri())
    page.keyboard.press("Tab")
    for _ in range(20):
        if page.evaluate("!!document.activeElement.closest('.citerender-cite')"):
            break
        page.keyboard.press("Tab")
    ring, background = page.evaluate(
        "() => [getComputedStyle(document.activeElement).outlineColor,"
        " getComputedStyle(document.querySelector('.citerender-page')).backgroundColor]"
    )
    context.close()
    lighter, darker = sorted((_luminance(_rgb(ring)), _luminance(_rgb(background))), reverse=True)
    assert (lighter + 0.05) / (darker + 0.05) >= 3, (ring, background)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("style", ["footnotes", "hovercard"])
def test_unsupported_claims_are_flagged_accessibly(
    browser: Any, axe_script: str, tmp_path: Path, style: str, scheme: str
) -> None:
    """``mark_unsupported``: axe finds nothing, the badge is seen beside its citation, and a
    screen reader hears why (the warning sign itself is not read out)."""
    reg = load_sources(EXAMPLES / "evidence" / "answer.sources.yaml")
    text = (EXAMPLES / "evidence" / "answer.md").read_text(encoding="utf-8")
    path = tmp_path / "flags.html"
    path.write_text(render(text, reg, style=style, standalone=True, mark_unsupported=True).html, encoding="utf-8")
    assert _violations(browser, axe_script, path, scheme, open_card=style == "hovercard") == []
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.goto(path.as_uri())
    flag, cite = page.locator(".citerender-flag").first, page.locator("#cite-1")
    f, c = flag.bounding_box(), cite.bounding_box()
    assert f is not None and c is not None and f["width"] > 20
    assert abs(f["y"] - c["y"]) < f["height"] and 0 <= c["x"] - (f["x"] + f["width"]) < 12  # side by side
    assert flag.inner_text().startswith("\u26a0 unsupported")
    cdp = context.new_cdp_session(page)
    cdp.send("Accessibility.enable")
    tree = cdp.send("Accessibility.getFullAXTree")["nodes"]
    context.close()
    by_id = {n["nodeId"]: n for n in tree}
    notes = [n for n in tree if n.get("role", {}).get("value") == "note"]

    def spoken(node: dict[str, Any]) -> str:  # the text a screen reader reads inside a node
        reasons = {r.get("name") for r in node.get("ignoredReasons", [])}
        if reasons & {"ariaHiddenElement", "ariaHiddenSubtree"}:
            return ""
        if node.get("role", {}).get("value") in ("StaticText", "text"):
            return str(node.get("name", {}).get("value", ""))
        return "".join(spoken(by_id[c]) for c in node.get("childIds", []) if c in by_id)

    assert len(notes) == 4
    heard = spoken(notes[0])
    assert heard.strip() == "unsupported: 'sixty days' is not in the cited passage (it says 'thirty (30) days')"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_built_conversation_reads_as_the_chat_did(browser: Any, axe_script: str, tmp_path: Path, scheme: str) -> None:
    """A ChatGPT export built into a site, opened as a reader would: axe finds nothing on the
    index and on every conversation, each citation's card quotes the page's snippet and links to
    the recorded URL, no marker is visible, and who speaks is said in words."""
    from citerender.publish.conversations import build_conversations

    out = tmp_path / "site"
    build_conversations(FIXTURES / "chatgpt" / "conversations.json", out, style="hovercard")
    assert _violations(browser, axe_script, out / "index.html", scheme) == []
    pages = sorted((out / "c").glob("*.html"))
    for page in pages:
        assert _violations(browser, axe_script, page, scheme, open_card="untitled" not in page.name) == [], page.name
    remote = next(p for p in pages if p.name.startswith("remote-work-policy"))
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.goto(remote.as_uri())
    visible_text = page.locator("main").inner_text()
    assert re.search("[\ue200-\ue206]|cite\ue202|turn0search", visible_text) is None
    trigger = page.locator(".citerender-has-card > button").first
    trigger.hover()
    card = page.locator(".citerender-card:popover-open")
    card.wait_for(state="visible")
    assert "Employees may work remotely up to three days per week." in card.inner_text()
    hrefs = card.locator("a.citerender-card-title").evaluate_all("els => els.map(e => e.href)")
    assert hrefs == ["https://handbook.example/remote", "https://hr.example/faq", "https://intranet.example/summary"]
    who = page.locator(".citerender-turn-who:visible").all_inner_texts()  # the other version stays closed
    context.close()
    assert [w.casefold() for w in who] == ["you · version 2 of 2", "chatgpt", "you", "chatgpt"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_conversation_index_search_filters_and_degrades_to_the_list(
    browser: Any, axe_script: str, tmp_path: Path, scheme: str
) -> None:
    """The index's search box, run by the one script the page's CSP allows by hash: typing filters
    the list and says how many match; without script the box is not there and the list is whole."""
    from citerender.publish.conversations import build_conversations

    out = tmp_path / "site"
    build_conversations(FIXTURES / "chatgpt" / "conversations.json", out)
    index = (out / "index.html").as_uri()
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)  # a CSP refusal shows here
    page.goto(index)
    box = page.get_by_role("searchbox", name="Search conversations")
    assert box.is_visible()
    box.fill("louvre")
    visible = page.locator(".citerender-conversations > li:visible a").all_inner_texts()
    assert visible == ["Paris trip"]
    assert page.locator(".citerender-search output").inner_text() == "1 of 5 conversations"
    box.fill("remote days week")
    assert page.locator(".citerender-conversations > li:visible a").all_inner_texts() == ["Remote work policy"]
    box.fill("Branches")  # a word of its title
    assert page.locator(".citerender-conversations > li:visible a").all_inner_texts() == ["Branches and files"]
    box.fill("gpt-4o")  # a model's name: newest first
    assert page.locator(".citerender-conversations > li:visible a").all_inner_texts() == [
        "Branches and files",
        "Paris trip",
    ]
    box.fill("2022")  # the user's words on another version of a turn
    assert page.locator(".citerender-conversations > li:visible a").all_inner_texts() == ["Branches and files"]
    box.fill("")
    assert page.locator(".citerender-conversations > li:visible").count() == 5
    assert errors == []  # before axe, which reads the stylesheet in a way the CSP refuses (and says so)
    page.evaluate(axe_script)
    assert page.evaluate(RUN_AXE) == []
    context.close()
    bare = browser.new_context(java_script_enabled=False, color_scheme=scheme)
    page = bare.new_page()
    page.goto(index)
    assert page.locator(".citerender-search").is_hidden()
    assert page.locator(".citerender-conversations > li:visible").count() == 5
    bare.close()


@pytest.mark.parametrize("width", [375, 1280])
def test_another_version_opens_by_keyboard_and_pointer(
    browser: Any, axe_script: str, tmp_path: Path, width: int
) -> None:
    """A turn's other versions, as a reader meets them: closed until asked, a button-like summary
    that says which version and when; Enter or a click opens it and its messages and citations are
    there to read; the detached part is under its heading. axe finds nothing, open or closed."""
    from citerender.publish.conversations import build_conversations

    out = tmp_path / "site"
    build_conversations(FIXTURES / "chatgpt" / "conversations.json", out, style="hovercard")
    page_path = next((out / "c").glob("branches-and-files-*.html"))
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.goto(page_path.as_uri())
    outer = page.locator("details#t2-v1")
    summary = outer.locator("> summary")
    assert summary.inner_text() == "Version 1 of 2 · 2026-01-01 00:01 UTC · 2 messages"
    assert not page.get_by_text("The 2024 report counts 120 sites.").is_visible()
    summary.focus()
    assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
    page.keyboard.press("Enter")  # by keyboard
    assert outer.get_attribute("open") is not None
    old = page.get_by_text("The 2024 report counts 120 sites.")
    assert old.is_visible()
    box = old.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width  # no sideways scroll
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    inner = page.locator("details#t2-v1-2-v1")
    inner.locator("> summary").click()  # by pointer, the version inside it
    assert page.get_by_text("The 2023 report counts 110 sites.").is_visible()
    cite = outer.locator(".citerender-bibliography a[href]").first
    assert cite.get_attribute("href") == "https://reports.example/0"
    page.evaluate(axe_script)
    assert page.evaluate(RUN_AXE) == []
    page.keyboard.press("Shift+Tab")
    summary.click()  # closes again
    assert not old.is_visible()
    heading = page.get_by_role("heading", name="Messages whose place was lost")
    assert heading.is_visible() or heading.count() == 1
    assert "What about 2021?" in page.locator("section.citerender-detached").inner_text()
    page.evaluate(axe_script)
    assert page.evaluate(RUN_AXE) == []
    context.close()


@pytest.mark.parametrize("width", [375, 1280])
def test_a_claude_export_site_reads_cleanly(browser: Any, axe_script: str, tmp_path: Path, width: int) -> None:
    """Claude's export built into a site: axe finds nothing on the index or a page, light and
    dark; nothing scrolls sideways; each citation's card links to the page the search returned."""
    from citerender.publish.conversations import build_conversations

    out = tmp_path / "site"
    build_conversations(FIXTURES / "claude" / "conversations.json", out, style="hovercard")
    page_path = next((out / "c").glob("blocking-search-ads-*.html"))
    for scheme in ("light", "dark"):
        for path in (out / "index.html", page_path):
            context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 800})
            page = context.new_page()
            page.goto(path.as_uri())
            assert page.evaluate("document.documentElement.scrollWidth") <= width, path.name
            page.evaluate(axe_script)
            assert page.evaluate(RUN_AXE) == [], (path.name, scheme)
            context.close()
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.goto(page_path.as_uri())
    trigger = page.locator(".citerender-has-card > button:visible").first
    trigger.click()
    card = page.locator(".citerender-card:popover-open")
    card.wait_for(state="visible")
    assert card.locator("a.citerender-card-title").first.get_attribute("href") == (
        "https://support.google.com/chrome/answer/7632919"
    )
    assert "Block or allow pop-ups and intrusive ads in Chrome" in card.inner_text()
    context.close()


def _host_site(tmp_path: Path, host: str, scheme_yaml: str = "") -> Path:
    """The handbook answer published by MkDocs Material (its palette as given) or Sphinx
    (alabaster), with the default theme: the index page's path."""
    docs = tmp_path / "docs"
    docs.mkdir()
    answer = (EXAMPLES / "handbook" / "answer.md").read_text(encoding="utf-8")
    (docs / "index.md").write_text(answer, encoding="utf-8")
    (docs / "index.sources.json").write_text(
        (EXAMPLES / "handbook" / "answer.sources.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    if host == "mkdocs":
        (tmp_path / "mkdocs.yml").write_text(
            f"site_name: t\ntheme: {{name: material{scheme_yaml}}}\nplugins: [{{citerender: {{style: hovercard}}}}]\n",
            encoding="utf-8",
        )
        r = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "-q"], cwd=tmp_path, capture_output=True, text=True
        )
        assert r.returncode == 0, r.stderr
        return tmp_path / "site" / "index.html"
    (docs / "conf.py").write_text(
        'project = "t"\nextensions = ["myst_parser", "citerender.sphinx"]\nsource_suffix = {".md": "markdown"}\n'
        'citerender_style = "hovercard"\nsuppress_warnings = ["myst.header"]\n',
        encoding="utf-8",
    )
    out = tmp_path / "html"
    r = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-q", str(docs), str(out)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    return out / "index.html"


@pytest.mark.parametrize(
    "host,palette,os_scheme,dark",
    [
        ("sphinx", "", "dark", False),  # alabaster is light whatever the system: so are its cards
        ("sphinx", "", "light", False),
        ("mkdocs", "", "dark", False),  # Material's default scheme is light
        ("mkdocs", ", palette: {scheme: slate}", "light", True),  # slate is dark on a light system
        ("mkdocs", ", palette: {scheme: slate}", "dark", True),
    ],
    ids=["sphinx-os-dark", "sphinx-os-light", "material-default-os-dark", "material-slate-os-light", "material-slate-os-dark"],
)  # fmt: skip
def test_cards_follow_the_hosts_scheme_not_the_systems(
    browser: Any, axe_script: str, tmp_path: Path, host: str, palette: str, os_scheme: str, dark: bool
) -> None:
    """In MkDocs Material and Sphinx, the default theme's cards and sources are dark exactly when
    the page is: a dark system under a light page keeps them light (no dark card on a light page,
    no 1.97:1 citation numbers); axe finds nothing in citerender's parts, open card included."""
    index = _host_site(tmp_path, host, palette)
    context = browser.new_context(color_scheme=os_scheme, viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.goto(index.as_uri())
    page.locator(".citerender-has-card > button").first.hover()
    card = page.locator(".citerender-card:popover-open")
    card.wait_for(state="visible")
    bg = _rgb(card.evaluate("e => getComputedStyle(e).backgroundColor"))
    assert (_luminance(bg) < 0.2) is dark, bg
    page.evaluate(axe_script)
    found = page.evaluate(
        RUN_AXE.replace("axe.run(document,", "axe.run({include: [['.citerender-cite'], ['.citerender-bibliography']]},")
    )
    context.close()
    assert found == []
