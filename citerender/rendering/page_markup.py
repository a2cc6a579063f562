"""The default theme's standalone page written in Python (``page.html.j2``, character for
character). It carries no script: the stylesheet places every card (``themes/_core.css``), and
the page's Content-Security-Policy allows none."""

from __future__ import annotations

from markupsafe import escape

__all__ = ["page_markup"]


def page_markup(
    body: str,
    title: str,
    css: str,
    lang: str,
    css_href: str | None,
    home_href: str | None,
    home_label: str,
    heading: str | None,
) -> str:
    """``themes/default/page.html.j2`` written in Python, character for character (a test renders
    both): a standalone page from the command line then costs no Jinja2 import and compile, a
    third of a short answer's whole run."""
    e = escape
    style_src = "'self' 'unsafe-inline'" if css_href else "'unsafe-inline'"
    out = [
        f'<!DOCTYPE html>\n<html lang="{e(lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src {style_src}; '
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
    out.append("</body>\n</html>")
    return "".join(out)
