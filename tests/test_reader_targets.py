"""What a reader's finger and eye meet on every citation (issue 45 §5), measured in Chromium on
answers of our own rendered by ``citerender render --standalone``: every interactive element of
every citation, in every style, at 375 and 1280 px, takes a tap over 24 × 24 CSS px (its hit
area, pseudo-elements included, found by ``elementFromPoint``) or else keeps the spacing of WCAG
2.2's 2.5.8 (no "inline" exception); and a citation naming lines its source lacks looks different
in the text from a valid citation of the same source, with the default flags."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from reader_geometry import LANGS, open_page, render_page

from citerender.options import STYLES

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    out = tmp_path_factory.mktemp("targets")
    return {(lang, style): render_page(out, lang, style) for lang in LANGS for style in STYLES}


#: every interactive element of every citation shown at rest, each scrolled into view in turn: its
#: box in the page, and whether a 24 × 24 px square around its middle (its largest box's, for a
#: link over two lines) takes a tap everywhere (the element itself, or inside it, is hit)
TARGETS = """() => {
  const SEL = 'a[href], button, input:not([type=hidden]), label, select, textarea, summary, [tabindex]:not([tabindex="-1"])';
  const cites = [...document.querySelectorAll('.citerender-cite')].filter(c => !c.parentElement.closest('.citerender-cite'));
  const els = cites.flatMap(c => [c, ...c.querySelectorAll(SEL)]).filter(e => e.matches(SEL))
    .filter(e => e.checkVisibility({visibilityProperty: true}) && e.getClientRects().length);
  const takes = (e, h) => !!h && (h === e || e.contains(h));
  return els.map(e => {
    e.scrollIntoView({block: 'center', inline: 'nearest'});
    const boxes = [...e.getClientRects()], big = boxes.reduce((a, b) => a.width * a.height >= b.width * b.height ? a : b);
    const cx = big.x + big.width / 2, cy = big.y + big.height / 2;
    let hit = 0, n = 0;
    for (let i = 0; i <= 6; i++) for (let j = 0; j <= 6; j++) {
      n++;
      if (takes(e, document.elementFromPoint(cx - 11.5 + 23 * i / 6, cy - 11.5 + 23 * j / 6))) hit++;
    }
    const r = e.getBoundingClientRect();
    return {what: e.tagName + '.' + e.className + ' in #' + e.closest('.citerender-cite').id,
            x: cx + scrollX, y: cy + scrollY, box: {x: r.x + scrollX, y: r.y + scrollY, w: r.width, h: r.height},
            big: hit === n};
  });
}"""


def _too_close(t: dict[str, Any], targets: list[dict[str, Any]]) -> list[str]:
    """WCAG 2.2 2.5.8's spacing for an undersized target: a 24 px circle on its middle touches no
    other target, and no other undersized target's circle."""
    near = []
    for o in targets:
        if o is t:
            continue
        b = o["box"]
        dx = max(b["x"] - t["x"], 0, t["x"] - (b["x"] + b["w"]))
        dy = max(b["y"] - t["y"], 0, t["y"] - (b["y"] + b["h"]))
        if (dx * dx + dy * dy) ** 0.5 < 12 or (
            not o["big"] and ((o["x"] - t["x"]) ** 2 + (o["y"] - t["y"]) ** 2) ** 0.5 < 24
        ):
            near.append(o["what"])
    return near


@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("style", STYLES)
def test_every_target_of_every_citation_takes_a_24_px_tap(
    browser: Any, pages: dict[tuple[str, str], Path], style: str, width: int
) -> None:
    """Grouped numbers ([1, 2]) included, in English, Japanese and Arabic."""
    bad = []
    for lang in LANGS:
        context, page = open_page(
            browser, pages[(lang, style)], width, 800, has_touch=width < 600, is_mobile=width < 600
        )
        targets = page.evaluate(TARGETS)
        context.close()
        assert len(targets) >= 8, (lang, targets)
        bad += [(lang, t["what"], t["box"], near) for t in targets if not t["big"] and (near := _too_close(t, targets))]
    assert bad == []


#: the label (what the eye reads) of a citation and how it is drawn
LOOK = """sel => {
  const c = document.querySelector(sel), shown = c.querySelector('a, button') || c;
  const s = getComputedStyle(shown);
  return {text: shown.innerText.replace(/\\s+/g, ''), decoration: s.textDecorationLine + ' ' + s.textDecorationStyle,
          colour: s.color, background: s.backgroundColor, width: shown.getBoundingClientRect().width};
}"""


@pytest.mark.parametrize("style", ["footnotes", "hovercard"])
def test_a_citation_of_lines_its_source_lacks_looks_different(
    browser: Any, pages: dict[tuple[str, str], Path], style: str
) -> None:
    """The English answer cites line 1 of the four-line spring tide table, then its line 40: with
    the default flags, the second reads differently in the text (a mark after its number) and is
    drawn differently (a wavy underline), not only told apart by an attribute."""
    context, page = open_page(browser, pages[("en", style)], 1280, 800)
    ids = page.evaluate("""() => [...document.querySelectorAll('.citerender-cite')].map(c => c.id)""")
    valid, invalid = page.evaluate(LOOK, f"#{ids[0]}"), page.evaluate(LOOK, f"#{ids[-1]}")
    context.close()
    assert valid["text"].strip("[]") == "1" and invalid["text"].strip("[]").startswith("1"), (valid, invalid)
    assert invalid["text"] != valid["text"], (valid, invalid)
    assert invalid["decoration"] != valid["decoration"], (valid, invalid)
