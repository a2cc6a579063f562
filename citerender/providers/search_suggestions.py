"""Gemini's Search Suggestions (``groundingMetadata.searchEntryPoint.renderedContent``, and the
Interactions API's ``search_suggestions``): the HTML widget whose chips (``<a class="chip"
href="…">query</a>``) Google's terms require showing beside the answer. Read as data, never passed
through: each chip's text and https link, as one Markdown paragraph after the answer; a chip
without one, or a widget with no chips (its search queries then), is shown as text (CR515).
Nothing the widget names is fetched, and its links pass the one URL policy like any other."""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import unescape
from typing import Any

from ..sources.clean import display_text
from ..syntax.escapes import printable
from ..syntax.residue import has_residue
from .common import Builder, as_list, as_map
from .content_refs import md_text

__all__ = ["LABEL", "after_answer", "chips", "paragraph", "suggestions"]

#: what the paragraph opens with (Google's widget shows its logo there)
LABEL = "Search suggestions from Google:"
#: the most of the snippet read, and of chips shown (the widget is ~4 KB of style and a few chips)
_MAX_HTML = 1 << 20
_MAX_CHIPS = 50
_MAX_TEXT = 200
_URL_UNSAFE = re.compile(r"[\x00-\x20<>\\\x7f]")


#: what a chip reader looks for: a skipped element's start (its text is not text), a comment, an
#: ``<a>`` start tag (quoted values may hold ``<`` and ``>``), an end tag, any tag
_SKIP_START = re.compile(r"<(style|script|svg|template|noscript|title)\b|<!--", re.I)
_A_START = re.compile(r"""<a(?=[\s/>])((?:[^<>"']|"[^"]{0,8192}"|'[^']{0,8192}')*)>""", re.I)
_A_END = re.compile(r"</a\s*>", re.I)
_ANY_TAG = re.compile(r"""<[^<>"']*(?:(?:"[^"]{0,8192}"|'[^']{0,8192}')[^<>"']*)*>""")
_ATTR = re.compile(r"""([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")


def _visible(html: str) -> str:
    """``html`` without comments and elements whose text is not text (style, script, SVG…)."""
    out, pos = [], 0
    while (m := _SKIP_START.search(html, pos)) is not None:
        out.append(html[pos : m.start()])
        end = re.compile("-->" if m.group(1) is None else rf"</{m.group(1)}\s*>", re.I).search(html, m.end())
        if end is None:
            return "".join(out)
        pos = end.end()
    out.append(html[pos:])
    return "".join(out)


def _href(attrs: str) -> str | None:
    """The ``href`` of a start tag's attributes (the first, as a browser takes it), references read."""
    for a in _ATTR.finditer(attrs):
        if a.group(1).lower() == "href":
            value = next((g for g in a.groups()[1:] if g is not None), "")
            return unescape(value)
    return None


def _chip_text(inner: str) -> str:
    """A chip's words: its tags taken out, character references read, white space collapsed."""
    return " ".join(unescape(_ANY_TAG.sub("", inner)).split())[:_MAX_TEXT]


def chips(html: str) -> list[tuple[str, str | None]]:
    """The widget's chips as ``(query text, href)``, in order, read from its first MiB: an ``<a>``
    inside a chip is part of its text, a chip left open ends at the snippet's end."""
    html = _visible(html[:_MAX_HTML])
    found: list[tuple[str, str | None]] = []
    pos, close = 0, None
    for m in _A_START.finditer(html):
        if m.start() < pos:
            continue  # inside the chip before it
        if close is None or close.start() < m.end():
            close = _A_END.search(html, m.end())
        text = _chip_text(html[m.end() : close.start() if close is not None else len(html)])
        if text:
            found.append((text, _href(m.group(1))))
        pos = close.end() if close is not None else len(html)
    return found


def _https(href: str | None) -> str | None:
    """``href`` when it is an https URL holding no marker residue (a link a marker cut is never
    followed), else None."""
    if not isinstance(href, str):
        return None
    href = href.strip()
    return href if href[:8].lower() == "https://" and len(href) > 8 and not has_residue(href) else None


def _link(text: str, url: str) -> str:
    """``[text](<url>)``: the text escaped, the URL percent-encoded where it could end the link."""
    return f"[{md_text(text)}](<{_URL_UNSAFE.sub(lambda m: f'%{ord(m.group()):02X}', url)}>)"


def suggestions(meta: Any, b: Builder) -> str:
    """The Search Suggestions paragraph for a candidate's grounding metadata (``""``: no widget)."""
    html = as_map(as_map(meta).get("searchEntryPoint")).get("renderedContent")
    if not isinstance(html, str) or not html.strip():
        return ""
    return paragraph([html], as_list(meta.get("webSearchQueries")), b)


def paragraph(snippets: Sequence[str], queries: Sequence[str], b: Builder) -> str:
    """One paragraph for the widgets ``snippets`` (the Interactions API repeats one per search
    result: each chip shown once); ``queries`` are shown as text when no snippet holds a chip.
    Marker forms in a chip's words are taken out (CR114); what is not shown is said (CR515)."""
    if any(len(html) > _MAX_HTML for html in snippets):
        b.note(("CR515", f"the Search Suggestions widget is over {_MAX_HTML:,} characters: only its start is read"))
    found = _shown(list(dict.fromkeys(chip for html in snippets for chip in chips(html))), b)
    shown = []
    for text, href in found:
        url = _https(href)
        if url is None:
            b.note(("CR515", f"the Search Suggestions chip {printable(text)} has no https link: shown as text"))
        shown.append(_link(text, url) if url else md_text(text))
    if not found:
        named = [" ".join(q.split())[:_MAX_TEXT] for q in queries if isinstance(q, str) and q.strip()]
        shown = [md_text(q) for q, _ in _shown([(q, None) for q in dict.fromkeys(named)], b)]
        how = "the response's search queries shown as text" if shown else "nothing to show"
        b.note(("CR515", f"the Search Suggestions widget holds no link: {how}"))
    return f"{LABEL} " + " · ".join(shown) if shown else ""


def _shown(found: list[tuple[str, str | None]], b: Builder) -> list[tuple[str, str | None]]:
    """The chips as shown: their words without marker forms, the first 50; the rest said."""
    out: list[tuple[str, str | None]] = []
    for text, href in found:
        words, changed = display_text(text)
        if changed:
            b.note(("CR114", f"the Search Suggestions chip {printable(text)} held marker forms: removed"))
        if words and (words, href) not in out:
            out.append((words, href))
    if len(out) > _MAX_CHIPS:
        b.note(("CR515", f"the Search Suggestions widget holds {len(out)} chips: the first {_MAX_CHIPS} are shown"))
    return out[:_MAX_CHIPS]


def after_answer(answer: str, shown: str) -> str:
    """What follows ``answer`` so that ``shown`` is a paragraph of its own (``""`` for nothing)."""
    if not shown:
        return ""
    if not answer.strip():
        return shown
    return ("" if answer.endswith("\n\n") else "\n" if answer.endswith("\n") else "\n\n") + shown
