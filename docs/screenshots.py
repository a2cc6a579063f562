"""Take the README's screenshots from real pages in headless Chromium (Debian's chromium).

Run: .venv/bin/python docs/screenshots.py
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from citerender import load_sources, render
from citerender.publish.conversations import build_conversations

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples" / "service-agreement"
OUT = ROOT / "docs" / "img"


def _dataset_report(tmp: Path) -> Path:
    """``check-dataset --report`` on 36 answers of three models, some claims contradicting their lines."""
    import json

    from citerender.cli import main as cli

    s, d, e = "\ue200", "\ue202", "\ue201"
    sources = [
        {
            "id": "pumps",
            "title": "Pump test sheet",
            "lines": [f"Pump {k} delivers {20 + k} l/min." for k in range(1, 9)],
        }
    ]
    records = []
    for n in range(36):
        wrong = (n * 7) % 4
        answer = " ".join(
            f"Pump {k} delivers {20 + k + (k <= wrong)} l/min.{s}cite{d}pumps{d}L{k}{e}" for k in range(1, 6)
        )
        records.append({"id": f"q{n + 1}", "model": f"model-{'abc'[n % 3]}", "answer": answer, "sources": sources})
    data = tmp / "answers.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    report = tmp / "dataset-report.html"
    cli(["check-dataset", str(data), "-o", str(tmp / "results.jsonl"), "--group-by", "model", "--report", str(report)])
    return report


def main() -> None:
    reg = load_sources(EX / "answer.sources.yaml")
    text = (EX / "answer.md").read_text(encoding="utf-8")
    tmp = Path(tempfile.mkdtemp())
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        for style in ("footnotes", "superscript", "hovercard", "pills"):
            page_file = tmp / f"{style}.html"
            page_file.write_text(render(text, reg, style=style, standalone=True).html, encoding="utf-8")
            page = browser.new_page(viewport={"width": 900, "height": 760}, device_scale_factor=1)
            page.goto(page_file.as_uri())
            if style in ("hovercard", "pills"):  # the card open next to its citation
                page.locator("#cite-4 > button").hover()
                page.locator("#cite-4-card").wait_for(state="visible")
            page.screenshot(path=str(OUT / f"{style}.png"), full_page=style == "footnotes")
            page.close()
        # sidenotes beside their lines, one pointed at (opened whole, its sentence highlighted)
        hb = ROOT / "examples" / "handbook"
        notes = tmp / "sidenotes.html"
        notes.write_text(
            render(
                (hb / "answer.md").read_text(encoding="utf-8"),
                load_sources(hb / "answer.sources.json"),
                style="sidenotes",
                standalone=True,
            ).html,
            encoding="utf-8",
        )
        page = browser.new_page(viewport={"width": 1440, "height": 640})
        page.goto(notes.as_uri())
        page.locator(".citerender-sidenote").nth(4).hover()
        page.screenshot(path=str(OUT / "sidenotes.png"))
        page.close()
        # a phone: the card across the screen, under its citation, dark scheme
        context = browser.new_context(
            viewport={"width": 390, "height": 760}, has_touch=True, is_mobile=True, color_scheme="dark"
        )
        page = context.new_page()
        page.goto((tmp / "hovercard.html").as_uri())
        page.locator("#cite-3 > button").tap()
        page.locator("#cite-3-card").wait_for(state="visible")
        page.screenshot(path=str(OUT / "hovercard-phone-dark.png"))
        context.close()
        report = tmp / "report.html"
        report.write_text(render(text, reg, style="footnotes", theme="report", standalone=True).html, encoding="utf-8")
        page = browser.new_page(viewport={"width": 900, "height": 760})
        page.goto(report.as_uri())
        page.emulate_media(media="print")
        page.screenshot(path=str(OUT / "report-print.png"), full_page=True)
        page.close()
        # a ChatGPT export built into a site: one conversation, a card open
        site = tmp / "site"
        build_conversations(ROOT / "tests" / "fixtures" / "chatgpt" / "conversations.json", site, style="hovercard")
        page = browser.new_page(viewport={"width": 900, "height": 900})
        page.goto(next((site / "c").glob("remote-work-policy-*.html")).as_uri())
        page.locator(".citerender-has-card > button").first.hover()
        page.locator(".citerender-card:popover-open").wait_for(state="visible")
        page.screenshot(path=str(OUT / "conversation.png"))
        page.close()
        # a conversation with another version of a turn, opened
        page = browser.new_page(viewport={"width": 900, "height": 900})
        page.goto(next((site / "c").glob("branches-and-files-*.html")).as_uri())
        page.locator("details#t2-v1 > summary").click()
        page.locator("details#t2-v1 > summary").scroll_into_view_if_needed()
        page.screenshot(path=str(OUT / "conversation-versions.png"))
        page.close()
        # a right-to-left answer (Hebrew and Arabic), a card open
        rtl = ROOT / "tests" / "fixtures" / "rtl"
        rtl_page = tmp / "rtl.html"
        rtl_text = (rtl / "answer.md").read_text(encoding="utf-8")
        rtl_page.write_text(
            render(rtl_text, load_sources(rtl / "answer.sources.json"), style="hovercard", standalone=True).html,
            encoding="utf-8",
        )
        page = browser.new_page(viewport={"width": 900, "height": 560})
        page.goto(rtl_page.as_uri())
        page.locator("main p").first.locator("button").hover()
        page.locator(".citerender-card:popover-open").wait_for(state="visible")
        page.screenshot(path=str(OUT / "rtl.png"))
        # a dataset report (check-dataset --report), dark scheme
        page = browser.new_page(viewport={"width": 1100, "height": 1250}, color_scheme="dark")
        page.goto(_dataset_report(tmp).as_uri())
        page.screenshot(path=str(OUT / "dataset-report.png"))
        page.close()
        browser.close()
    print(f"wrote {', '.join(sorted(p.name for p in OUT.glob('*.png')))}")


if __name__ == "__main__":
    main()
