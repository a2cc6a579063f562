"""Gemini's Search Suggestions: ``groundingMetadata.searchEntryPoint.renderedContent``, the HTML
widget Grounding with Google Search returns with a chip (``<a class="chip" href="…">query</a>``)
per search query. Google's terms for grounding require showing it beside the answer.

The snippet is read as data, never passed through: the standard library's HTML parser takes
each ``<a>``'s text and ``href`` (its ``<style>``, ``<script>``, SVG logo, classes and every other
attribute are dropped), and the suggestions become one Markdown paragraph after the answer,
``Search suggestions from Google: [query](<https link>) · …``. It goes through the pipeline like
the answer's own text, so the page (fragment or standalone), the site builds and every export
show it, escaped, its links judged by the one URL policy. The Interactions API's
``google_search_result`` steps carry the same widget (``search_suggestions``): shown the same way. Only ``https`` links are kept; a chip
with another link, or a snippet with no link at all (then the response's ``webSearchQueries``
are shown), is shown as its text and reported (CR515). Nothing the snippet names is fetched."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html.parser import HTMLParser
from typing import Any

from .common import Builder
from .content_refs import md_text

__all__ = ["LABEL", "after_answer", "chips", "paragraph", "suggestions"]

#: what the paragraph opens with (Google's widget shows its logo there)
LABEL = "Search suggestions from Google:"
#: the most of the snippet read, and of chips shown (Google sends a few hundred bytes of chips
#: after ~4 KB of style; anything far larger is not the widget)
_MAX_HTML = 1 << 20
_MAX_CHIPS = 50
_MAX_TEXT = 200
_URL_UNSAFE = re.compile(r"[\x00-\x20<>\\\x7f]")
_SKIPPED = frozenset({"style", "script", "svg", "template", "noscript", "title"})


class _Chips(HTMLParser):
    """Each ``<a>``'s text and ``href``, in order; text inside style, script or SVG is not text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str | None]] = []
        self._href: str | None = None
        self._text: list[str] | None = None
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skip += 1
        elif tag == "a" and self._text is None:
            self._href = next((v for k, v in attrs if k == "href"), None)
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skip = max(0, self._skip - 1)
        elif tag == "a" and self._text is not None:
            self.found.append((" ".join("".join(self._text).split())[:_MAX_TEXT], self._href))
            self._text = self._href = None

    def handle_data(self, data: str) -> None:
        if self._text is not None and not self._skip:
            self._text.append(data)

    def close(self) -> None:
        super().close()
        if self._text is not None:  # the snippet ended inside a chip
            self.handle_endtag("a")


def chips(html: str) -> list[tuple[str, str | None]]:
    """The widget's chips as ``(query text, href)``, in order (an unclosed last chip included)."""
    parser = _Chips()
    parser.feed(html[:_MAX_HTML])
    parser.close()
    return [(text, href) for text, href in parser.found if text][:_MAX_CHIPS]


def _https(href: str | None) -> str | None:
    """``href`` when it is an https URL (what Google's chips link to), else None."""
    if not isinstance(href, str):
        return None
    href = href.strip()
    return href if href[:8].lower() == "https://" and len(href) > 8 else None


def _link(text: str, url: str) -> str:
    """``[text](<url>)`` as literal Markdown: the text escaped, the URL percent-encoded where it
    could end the destination."""
    return f"[{md_text(text)}](<{_URL_UNSAFE.sub(lambda m: f'%{ord(m.group()):02X}', url)}>)"


def _rendered(meta: Mapping[str, Any]) -> str | None:
    """The widget's HTML (camelCase as the API writes it, snake_case as SDK dumps do)."""
    entry = meta.get("searchEntryPoint") or meta.get("search_entry_point")
    if not isinstance(entry, Mapping):
        return None
    html = entry.get("renderedContent") or entry.get("rendered_content")
    return html if isinstance(html, str) and html.strip() else None


def _queries(meta: Mapping[str, Any]) -> list[str]:
    found = meta.get("webSearchQueries") or meta.get("web_search_queries") or []
    return list(found) if isinstance(found, list) else []


def suggestions(meta: Any, b: Builder) -> str:
    """The Search Suggestions paragraph for a candidate's grounding metadata (``""`` when the
    response has no widget), each chip a link to the search Google made for it."""
    html = _rendered(meta) if isinstance(meta, Mapping) else None
    if html is None:
        return ""
    assert isinstance(meta, Mapping)
    return paragraph([html], _queries(meta), b)


def paragraph(snippets: Sequence[str], queries: Sequence[str], b: Builder) -> str:
    """One paragraph for the widgets ``snippets`` (the Interactions API sends one per search
    result, the same chips each time: each chip is shown once); ``queries``, the searches the
    model made, are shown as text when no snippet holds a chip."""
    found = list(dict.fromkeys(chip for html in snippets for chip in chips(html)))[:_MAX_CHIPS]
    shown = []
    for text, href in found:
        url = _https(href)
        if url is None:
            b.note(("CR515", f"the Search Suggestions chip {text[:80]!r} has no https link: shown as text"))
        shown.append(_link(text, url) if url else md_text(text))
    if not found:
        named = [" ".join(q.split())[:_MAX_TEXT] for q in queries if isinstance(q, str) and q.strip()]
        shown = [md_text(q) for q in list(dict.fromkeys(named))[:_MAX_CHIPS]]
        how = "the response's search queries shown as text" if shown else "nothing to show"
        b.note(("CR515", f"the Search Suggestions widget holds no link: {how}"))
    return f"{LABEL} " + " · ".join(shown) if shown else ""


def after_answer(answer: str, shown: str) -> str:
    """What follows ``answer`` so that ``shown`` is a paragraph of its own (``""`` for nothing)."""
    if not shown:
        return ""
    if not answer.strip():
        return shown
    return ("" if answer.endswith("\n\n") else "\n" if answer.endswith("\n") else "\n\n") + shown
