"""Take the source views' screenshots (docs/source-views.md) from a real page in headless Chromium
(Debian's chromium), JavaScript off, a range pointed at, light and dark.

Run: .venv/bin/python docs/source_view_screenshots.py
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from citerender import load_sources, render

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "source_views"
OUT = ROOT / "docs" / "img"


def main() -> None:
    text = (FIXTURE / "answer.md").read_text(encoding="utf-8")
    page_file = Path(tempfile.mkdtemp()) / "answer.html"
    html = render(text, load_sources(FIXTURE / "answer.sources.json"), style="hovercard", standalone=True).html
    page_file.write_text(html, encoding="utf-8")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        for scheme in ("light", "dark"):
            context = browser.new_context(
                viewport={"width": 900, "height": 900}, color_scheme=scheme, java_script_enabled=False
            )
            page = context.new_page()
            page.goto(page_file.as_uri() + "#source-1-L11-L14")  # as the card's passage link leaves it
            page.locator("body").evaluate("b => b.focus()")  # no focus ring in the picture
            view = page.locator("#source-1")
            box = view.bounding_box()
            assert box is not None
            top = box["y"] + page.evaluate("scrollY")  # the clip is in the page's coordinates
            page.screenshot(
                path=str(OUT / f"source-view-{scheme}.png"),
                clip={"x": box["x"] - 16, "y": top - 8, "width": box["width"] + 32, "height": 600},
                full_page=True,
            )
            context.close()
        browser.close()


if __name__ == "__main__":
    main()
