"""Hover cards, footnote links and print rules, checked in a real headless Chromium.

Debian's ``chromium`` is driven through Playwright with ``executable_path``; no browser is
downloaded. Select these tests with ``-m browser``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES

from citerender import load_sources, render

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("pages")
    reg = load_sources(EXAMPLES / "service-agreement" / "answer.sources.yaml")
    text = (EXAMPLES / "service-agreement" / "answer.md").read_text(encoding="utf-8")
    paths = {}
    for style in ("footnotes", "superscript", "hovercard"):
        for theme in ("default", "report"):
            p = out / f"{style}-{theme}.html"
            p.write_text(render(text, reg, style=style, theme=theme, standalone=True).html, encoding="utf-8")
            paths[f"{style}-{theme}"] = p
    return paths


def _open(browser, path: Path, **ctx):  # type: ignore[no-untyped-def]
    context = browser.new_context(**ctx)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if not r.url.startswith("file:") else None)
    page.goto(path.as_uri())
    return context, page, requests


def test_footnote_link_scrolls_to_entry_and_back(browser, pages) -> None:  # type: ignore[no-untyped-def]
    context, page, _ = _open(browser, pages["footnotes-default"], viewport={"width": 800, "height": 400})
    page.locator("#cite-4 a").first.click()
    assert page.evaluate("location.hash") == "#ref-1"
    assert page.evaluate(
        "(() => { const r = document.getElementById('ref-1').getBoundingClientRect();"
        " return r.top >= 0 && r.top < innerHeight; })()"
    )
    back = page.locator('#ref-1 a[role="doc-backlink"][href="#cite-4"]')
    back.click()
    assert page.evaluate("location.hash") == "#cite-4"
    assert page.evaluate(
        "(() => { const r = document.getElementById('cite-4').getBoundingClientRect();"
        " return r.top >= 0 && r.top < innerHeight; })()"
    )
    context.close()


@pytest.mark.parametrize("theme", ["default", "report"])
def test_print_shows_notes_not_cards(browser, pages, theme) -> None:  # type: ignore[no-untyped-def]
    context, page, _ = _open(browser, pages[f"hovercard-{theme}"])
    page.emulate_media(media="print")
    page.locator("#cite-2 button").hover()
    assert not page.locator("#cite-2-card").is_visible()
    assert page.locator(".citerender-bibliography").is_visible()
    assert page.locator("#ref-1").is_visible()
    context.close()


def test_no_marker_visible_and_nothing_loaded(browser, pages) -> None:  # type: ignore[no-untyped-def]
    for name, path in pages.items():
        context, page, requests = _open(browser, path)
        text = page.evaluate("document.documentElement.outerHTML + document.body.innerText")
        assert not any(0xE200 <= ord(c) <= 0xE206 for c in text), name
        assert requests == [], name
        context.close()


def test_three_answers_on_one_page_each_round_trip(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Answers rendered separately with id_prefix share a page: every citation reaches its own
    answer's source and every back-link returns to its own citation."""
    from citerender.rendering.themes import load_theme

    reg = load_sources(EXAMPLES / "service-agreement" / "answer.sources.yaml")
    text = (EXAMPLES / "service-agreement" / "answer.md").read_text(encoding="utf-8")
    bodies = [render(text, reg, id_prefix=f"a{n}").body for n in (1, 2, 3)]
    theme = load_theme("default")
    page = tmp_path / "three.html"
    page.write_text(theme.render_page("\n<hr>\n".join(bodies), title="Three answers", css=theme.css), encoding="utf-8")
    context, tab, requests = _open(browser, page, viewport={"width": 800, "height": 400})
    ids = tab.evaluate("[...document.querySelectorAll('[id]')].map(e => e.id)")
    assert len(ids) == len(set(ids)) and len(ids) > 30

    def in_view(element_id: str) -> bool:
        return bool(
            tab.evaluate(
                "id => { const r = document.getElementById(id).getBoundingClientRect();"
                " return r.top >= 0 && r.top < innerHeight; }",
                element_id,
            )
        )

    for n in (1, 2, 3):
        tab.locator(f"#a{n}-cite-4 a").first.click()
        assert tab.evaluate("location.hash") == f"#a{n}-ref-1" and in_view(f"a{n}-ref-1")
        tab.locator(f'#a{n}-ref-1 a[role="doc-backlink"][href="#a{n}-cite-4"]').click()
        assert tab.evaluate("location.hash") == f"#a{n}-cite-4" and in_view(f"a{n}-cite-4")
    assert requests == []
    context.close()
