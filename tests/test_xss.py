"""An XSS suite in a real browser: 125 payloads in the answer, titles, URLs, ids, lines, meta,
front matter and theme options; every style and theme; nothing may run, load or reshape the page."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, assert_no_marker

from citerender import CiterenderError, render
from citerender.options import STYLES as ALL_STYLES
from citerender.publish.site import build_site
from citerender.rendering.mathml import MATHML_ELEMENTS
from citerender.rendering.themes import load_theme
from citerender.sources.model import registry_from_data
from citerender.sources.urls import allowed_link

pytestmark = pytest.mark.browser

PAYLOADS = [p for p in (FIXTURES / "xss-payloads.txt").read_text(encoding="utf-8").split("\n") if p]
STYLES = ALL_STYLES  # every style the library has
THEMES = ("default", "report", "minimal")
ALLOWED_TAGS = set(MATHML_ELEMENTS) | {  # MathML: latex2mathml's output, rebuilt from an allow-list
    "main",
    "label",  # a sidenote's number, labelling its toggle
    "input",  # that toggle (every input is checked to be one, below)
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "ul",
    "ol",
    "li",
    "em",
    "strong",
    "code",
    "pre",
    "a",
    "sup",
    "span",
    "button",
    "section",
    "blockquote",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "br",
    "hr",
    "time",
    "s",
    "img",
    "nav",
    "bdi",
}
HEAD_TAGS = ["meta", "meta", "meta", "meta", "meta", "title", "style"]
S, D, E = "\ue200", "\ue202", "\ue201"


def _registry():  # type: ignore[no-untyped-def]
    return registry_from_data(
        [
            {
                "id": f"p{i}",
                "title": p,
                "url": p,
                "updated": "2026-03-01",
                "lines": [p, "a safe line"],
                "meta": {"note": p},
            }
            for i, p in enumerate(PAYLOADS)
        ]
    )


def _answer() -> str:
    parts = [f"# Hostile {PAYLOADS[0]}"]
    for i, p in enumerate(PAYLOADS):
        parts.append(f"Paragraph {i}: {p}{S}cite{D}p{i}{D}L1{E} and an id {S}cite{D}{p}{E}")
    return "\n\n".join(parts) + "\n"


def _load_and_probe(browser, path: Path, *, hover: bool) -> dict:  # type: ignore[no-untyped-def]
    context = browser.new_context()
    page = context.new_page()
    events: dict[str, list[str]] = {"dialogs": [], "console": [], "requests": [], "errors": []}
    page.on("dialog", lambda d: (events["dialogs"].append(d.message), d.dismiss()))
    page.on("console", lambda m: events["console"].append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: events["errors"].append(str(e)))
    page.on("request", lambda r: events["requests"].append(r.url) if not r.url.startswith("file:") else None)
    page.goto(path.as_uri())
    if hover:
        for trigger in page.locator(".citerender-has-card > button").all()[:25]:
            trigger.focus()
            trigger.evaluate("e => e.blur()")
            trigger.hover()
            page.mouse.move(0, 0)
    page.mouse.move(5, 5)
    page.wait_for_timeout(100)
    probe = page.evaluate("""() => {
        const bad = [], urls = [];
        for (const el of document.querySelectorAll('*')) {
            for (const a of el.attributes) {
                if (['href', 'src', 'action', 'formaction', 'xlink:href', 'srcset', 'data', 'ping', 'poster', 'cite'].includes(a.name))
                    urls.push([el.tagName, a.name, a.value]);
                const v = a.value.replace(/[\\s\\u0000-\\u001f]/g, '').toLowerCase();
                if (a.name.startsWith('on')) bad.push(el.tagName + ' ' + a.name);
                if (['href', 'src', 'action', 'formaction', 'xlink:href', 'srcset', 'data', 'ping'].includes(a.name)
                    && /^(javascript|vbscript|data:text|livescript)/.test(v)) bad.push(el.tagName + ' ' + a.name + '=' + v);
            }
        }
        return {
            xss: window.__xss === undefined ? null : String(window.__xss),
            bad,
            urls,
            main: [...document.querySelectorAll('main *')].map(e => e.tagName.toLowerCase()),
            inputs: [...document.querySelectorAll('main input')].map(e => e.type + ' ' + e.className + ' '
                     + (e.labels.length === 1 && e.labels[0].classList.contains('citerender-sn-num'))),
            head: [...document.head.children].map(e => e.tagName.toLowerCase()),
            bodyChildren: [...document.body.children].map(e => e.tagName.toLowerCase()),
            scripts: [...document.scripts].map(s => s.textContent),
            cites: document.querySelectorAll('.citerender-cite').length,
            ids: [...document.querySelectorAll('[id]')].map(e => e.id),
        };
    }""")
    context.close()
    probe.update(events)
    return probe


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("style", STYLES)
def test_payloads_never_run_load_or_reshape(browser, tmp_path: Path, style: str, theme: str) -> None:  # type: ignore[no-untyped-def]
    html = render(_answer(), _registry(), style=style, theme=theme, standalone=True).html
    assert_no_marker(html)
    path = tmp_path / f"{style}-{theme}.html"
    path.write_text(html, encoding="utf-8")
    probe = _load_and_probe(browser, path, hover=style in ("hovercard", "pills"))
    assert probe["xss"] is None
    assert probe["dialogs"] == [] and probe["errors"] == [] and probe["requests"] == []
    assert probe["console"] == []
    assert probe["bad"] == []
    # the one allow-list, as the browser holds the attributes: the protocol handlers stay text
    outside = [u for u in probe["urls"] if not allowed_link(u[2], image=u[0] == "IMG")]
    assert outside == [], outside[:5]
    assert set(probe["main"]) <= ALLOWED_TAGS, set(probe["main"]) - ALLOWED_TAGS
    assert set(probe["inputs"]) <= {"checkbox citerender-sn-toggle true"}, probe["inputs"]  # only sidenote toggles
    # no script, cards or not: the stylesheet places the cards
    assert probe["head"] == HEAD_TAGS and probe["bodyChildren"] == ["main"]
    assert probe["scripts"] == []
    assert probe["cites"] == len(PAYLOADS)
    assert len(probe["ids"]) == len(set(probe["ids"]))


def test_front_matter_and_build_pages(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import json

    src = tmp_path / "src"
    src.mkdir()
    (src / "a.sources.json").write_text(
        json.dumps([{"id": "s", "title": PAYLOADS[8], "url": PAYLOADS[22]}]), encoding="utf-8"
    )
    for i, p in enumerate(PAYLOADS[:30]):
        title = json.dumps(p)  # a YAML double-quoted scalar
        (src / f"a{i:02}.md").write_text(
            f"---\ntitle: {title}\nsources: a.sources.json\n---\n{p}{S}cite{D}s{E}\n", encoding="utf-8"
        )
    out = tmp_path / "out"
    build_site(src, out)
    for page in [out / "index.html", *sorted(out.glob("a0*.html"))[:5]]:
        probe = _load_and_probe(browser, page, hover=False)
        assert probe["xss"] is None and probe["bad"] == [] and probe["requests"] == []
        assert probe["dialogs"] == [] and probe["errors"] == []
        assert set(probe["main"]) <= ALLOWED_TAGS


def test_theme_options_and_ids_are_validated(tmp_path: Path) -> None:
    for p in PAYLOADS[:20]:
        with pytest.raises(CiterenderError):
            registry_from_data([{"id": p}])
    theme = tmp_path / "t"
    theme.mkdir()
    (theme / "theme.toml").write_text(f"base = {json_str(PAYLOADS[0])}\n", encoding="utf-8")
    with pytest.raises(CiterenderError, match="base theme"):
        load_theme(theme)
    shutil.rmtree(theme)


def json_str(s: str) -> str:
    import json

    return json.dumps(s)
