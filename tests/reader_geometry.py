"""What the reader's tests measure in Chromium (issue 45 §5), shared by the modules that measure it:
the pages rendered by the command line from answers of our own, and the scripts that read boxes
(``getBoundingClientRect``) and hit tests (``elementFromPoint``) in one round trip each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import FIXTURES, run_cli

READER = FIXTURES / "reader4"
LANGS = ("en", "ja", "ar")
TRIGGER = ".citerender-has-card > button"


def render_page(out: Path, lang: str, style: str, *flags: str) -> Path:
    """``citerender render ANSWER --sources … --style STYLE --standalone`` as a reader's page."""
    path = out / f"{lang}-{style}{''.join(flags).replace('-', '_')}.html"
    r = run_cli("render", READER / f"{lang}.md", "--sources", READER / "sources.json", "--style", style,
                "--standalone", *flags, "-o", path)  # fmt: skip
    assert r.returncode in (0, 1) and path.is_file(), r.stderr  # 1: the answer's own errors (L40)
    return path


def open_page(browser: Any, path: Path, width: int, height: int, **ctx: Any) -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": width, "height": height}, **ctx)
    page = context.new_page()
    page.goto(path.as_uri())
    page.evaluate("document.fonts.ready")
    return context, page


def settled(page: Any, selector: str) -> dict[str, float]:
    """The box of ``selector`` once layout has settled: fonts loaded, and the same box two frames
    running (a wait for the layout, never for a fixed time)."""
    return dict(page.evaluate(SETTLED, selector))


SETTLED = """async sel => {
  await document.fonts.ready;
  let last = '';
  for (let i = 0; i < 120; i++) {
    await new Promise(r => requestAnimationFrame(r));
    const r = document.querySelector(sel).getBoundingClientRect();
    const key = [r.x, r.y, r.width, r.height].map(v => v.toFixed(1)).join();
    if (key === last) return {x: r.x, y: r.y, width: r.width, height: r.height};
    last = key;
  }
  throw new Error('the layout of ' + sel + ' never settled');
}"""

#: the claim of a citation as the issue defines it: the text since the previous citation, on the
#: citation's line and the two lines above; its boxes, and the trigger's
CLAIM = """t => {
  const cite = t.closest('.citerender-cite');
  const block = cite.parentElement.closest('p, li, td, th, dd, dt, blockquote, h1, h2, h3, h4, h5, h6') || cite.parentElement;
  const cites = [...block.querySelectorAll('.citerender-cite')].filter(c => !c.parentElement.closest('.citerender-cite'));
  const i = cites.indexOf(cite), r = document.createRange();
  if (i > 0) r.setStartAfter(cites[i - 1]); else r.setStart(block, 0);
  r.setEndBefore(cite);
  const boxes = [...r.getClientRects()].filter(b => b.width > 0.5 && b.height > 0.5);
  const lh = parseFloat(getComputedStyle(block).lineHeight) || 1.4 * parseFloat(getComputedStyle(block).fontSize);
  const last = boxes.length ? Math.max(...boxes.map(b => b.top)) : t.getBoundingClientRect().top;
  const claim = boxes.filter(b => b.top >= last - 2 * lh - 3).map(b => ({x: b.x, y: b.y, width: b.width, height: b.height}));
  const q = t.getBoundingClientRect();
  return {claim, trigger: {x: q.x, y: q.y, width: q.width, height: q.height}};
}"""

#: the cards open now, the box of the one asked for, and whether its content is cut (inner scroll)
CARD = """id => {
  const c = document.getElementById(id), r = c.getBoundingClientRect();
  const open = [...document.querySelectorAll('.citerender-card')].filter(e => e.matches(':popover-open')).map(e => e.id);
  const cut = c.scrollHeight > c.clientHeight + 1 || c.scrollWidth > c.clientWidth + 1;
  const links = [...c.querySelectorAll('a')].map(a => a.getBoundingClientRect())
    .filter(a => a.top < r.top - 0.5 || a.bottom > r.bottom + 0.5 || a.left < r.left - 0.5 || a.right > r.right + 0.5).length;
  const dates = [];
  const walk = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
  for (let n; (n = walk.nextNode());) {
    for (const m of n.data.matchAll(/\\d{4}-\\d{2}-\\d{2}/g)) {
      const d = document.createRange(); d.setStart(n, m.index); d.setEnd(n, m.index + 10);
      dates.push(new Set([...d.getClientRects()].map(b => Math.round(b.top))).size);
    }
  }
  return {open, cut, linksOutside: links, dates, box: {x: r.x, y: r.y, width: r.width, height: r.height},
          view: {w: visualViewport.width, h: visualViewport.height}};
}"""

#: what a tap or the pointer at the middle of an element reaches: the element itself (or inside
#: it), or something on top of it (an open card)
HIT = """t => {
  const r = t.getBoundingClientRect(), x = r.x + r.width / 2, y = r.y + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return {x, y, ok: !!hit && (hit === t || t.contains(hit)), on: hit ? (hit.closest('.citerender-card')?.id || hit.tagName) : null};
}"""


def meets(a: dict[str, float], b: dict[str, float], slack: float = 0.5) -> bool:
    """Whether two boxes overlap (by more than ``slack`` px each way)."""
    return (
        a["x"] < b["x"] + b["width"] - slack
        and b["x"] < a["x"] + a["width"] - slack
        and a["y"] < b["y"] + b["height"] - slack
        and b["y"] < a["y"] + a["height"] - slack
    )


def gap(a: dict[str, float], b: dict[str, float]) -> float:
    """Distance between two boxes (0 when they touch or overlap)."""
    dx = max(b["x"] - (a["x"] + a["width"]), a["x"] - (b["x"] + b["width"]), 0)
    dy = max(b["y"] - (a["y"] + a["height"]), a["y"] - (b["y"] + b["height"]), 0)
    return float(max(dx, dy))


def inside(box: dict[str, float], w: float, h: float) -> bool:
    return (
        box["x"] >= -0.5
        and box["y"] >= -0.5
        and box["x"] + box["width"] <= w + 0.5
        and box["y"] + box["height"] <= h + 0.5
    )


def painted_fonts(page: Any, selector: str) -> list[str]:
    """The font families Chromium drew ``selector``'s text with (CDP), not what the CSS asked for."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    return [f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]]
