"""The default theme's standalone page written in Python (``page.html.j2``, character for
character), and the script it carries when the answer has cards: where a card opens, chosen as it
opens (``themes/_cards.js``), allowed by its hash in the page's Content-Security-Policy and by
nothing else. A page reads without it: the stylesheet places every card too."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from markupsafe import escape

__all__ = ["page_markup", "read_card_script", "script_hash"]


def page_markup(
    body: str,
    title: str,
    css: str,
    lang: str,
    css_href: str | None,
    home_href: str | None,
    home_label: str,
    heading: str | None,
    script: str = "",
) -> str:
    """``themes/default/page.html.j2`` written in Python, character for character (a test renders
    both): a standalone page from the command line then costs no Jinja2 import and compile, a
    third of a short answer's whole run. ``script``: the cards' placement (:func:`read_card_script`),
    allowed by its hash and nothing else."""
    e = escape
    style_src = "'self' 'unsafe-inline'" if css_href else "'unsafe-inline'"
    script_src = f"script-src '{script_hash(script)}'; " if script else ""
    out = [
        f'<!DOCTYPE html>\n<html lang="{e(lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; {script_src}style-src {style_src}; '
        "img-src data:; base-uri 'none'; form-action 'none'\">\n"
        '<meta name="referrer" content="no-referrer">\n<meta name="generator" content="citerender">\n'
        f"<title>{e(title)}</title>\n"
    ]
    out.append(f'<link rel="stylesheet" href="{e(css_href)}">\n' if css_href else f"<style>{css}</style>\n")
    out.append("</head>\n<body>\n")
    if home_href:
        out.append(f'<nav class="citerender-nav"><a href="{e(home_href)}">{e(home_label)}</a></nav>\n')
    out.append('<main class="citerender-page">\n')
    if heading:
        sr = " citerender-sr" if heading == "sr" else ""
        out.append(f'<h1 class="citerender-page-title{sr}">{e(title)}</h1>\n')
    out.append(f"{body}\n</main>\n")
    if script:
        out.append(f"<script>{script}</script>\n")
    out.append("</body>\n</html>")
    return "".join(out)


@lru_cache(maxsize=1)
def read_card_script(themes: Path) -> str:
    """The cards' placement script in the themes' folder (``_cards.js``), safe inside a script
    element: an enhancement, a page reads without it."""
    return (themes / "_cards.js").read_text(encoding="utf-8").replace("</", "<\\/")


def script_hash(script: str) -> str:
    """The Content-Security-Policy source that allows exactly ``script`` ('' for none)."""
    import base64
    import hashlib

    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode() if script else ""
