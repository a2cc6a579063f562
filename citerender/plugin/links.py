"""The parser's link policy: which URLs become links, and that no URL a marker sits in does
(README: "a URL that needed marker residue removed is never a link").

* ``normalizeLink`` leaves a URL holding a marker character as it is (punycoding would hide it in
  the host), which ``validateLink`` (:class:`LinkPolicy`) refuses, in every link form;
* a marker inside a bare URL or an autolink is removed and reported (:func:`in_url`), and
  linkify makes no link that ends at it or starts right after it: the URL is shown as text.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from ..lazy_re import lazy_compile
from ..sources.urls import allowed_link
from ..syntax.residue import url_has_residue

__all__ = ["LinkPolicy", "in_destination", "in_url", "url_before"]

_IN_DESTINATION = lazy_compile(r"[ \t]*<?[^\s()<>\]\[]*")  # after ``](``, up to the marker
#: a URL ending where a marker starts: a scheme's ``//`` (or ``mailto:``, ``www.``) and URL characters
_URL_BEFORE = lazy_compile(r"(?<![A-Za-z0-9+.-])(?:[A-Za-z][A-Za-z0-9+.-]{0,31}://|mailto:|www\.)[^\s<>]*\Z", re.I)
#: a character that carries a URL on past a marker (a host's, a path's or a query's)
_GOES_ON = lazy_compile(r"[A-Za-z0-9/_~%#=&+@-]")
_LOOKBACK = 400
_WWW = lazy_compile(r"www\.", re.I)


def in_destination(src: str, pos: int) -> bool:
    """Does the marker at ``pos`` sit in a link destination (``](url…`` right before it)?"""
    opener = src.rfind("](", max(0, pos - _LOOKBACK), pos)
    return opener != -1 and _IN_DESTINATION.fullmatch(src, opener + 2, pos) is not None


def url_before(src: str, pos: int) -> bool:
    """Does a bare URL (``https://…``, ``mailto:…``, ``www.…``) end right at ``pos``?"""
    start = max(0, pos - _LOOKBACK)
    run = max(src.rfind(" ", start, pos), src.rfind("\n", start, pos), src.rfind("\t", start, pos)) + 1
    lo = max(run, start)
    if src.find(":", lo, pos) == -1 and (src.find(".", lo, pos) == -1 or _WWW.search(src, lo, pos) is None):
        return False  # no "://", "mailto:" or "www." before it: the pattern (re.I, ~0.5 ms to compile) cannot match
    return _URL_BEFORE.search(src, lo, pos) is not None


def in_url(src: str, pos: int, end: int, next_mark: Callable[[str, int], int]) -> bool:
    """Does the marker at ``pos``–``end`` sit inside a bare URL or an autolink, going on past it
    and any further markers (``next_mark(src, at)``: a marker's end, or -1)?"""
    if not url_before(src, pos):
        return False  # first, as it looks back a bounded way: a run of markers is not walked per marker
    at = end
    while at < len(src) and (past := next_mark(src, at)) > at:
        at = past
    return at < len(src) and _GOES_ON.match(src, at) is not None


def _may_hold_url(text: str) -> bool:
    """Could ``text`` hold a URL (:func:`url_before`) a marker sat in?"""
    return ":" in text or _WWW.search(text) is not None


def _in_url_mark(tok: Token | None) -> bool:
    return tok is not None and tok.type == "citation_dropped" and bool(tok.meta.get("in_url"))


class LinkPolicy:
    """The parser's ``validateLink``: :func:`citerender.sources.urls.allowed_link`, the one
    allow-list (``data:image/…`` only while the ``image`` rule reads a destination). A URL holding
    marker residue is refused too: removing it later could make a refused URL live."""

    def __init__(self, marker_chars: str) -> None:
        self.marker_chars = marker_chars
        self._reading = threading.local()  # inside the image rule, on this thread

    def __call__(self, url: str) -> bool:
        if not allowed_link(url, image=getattr(self._reading, "image", False)) or url_has_residue(url):
            return False
        decoded = unquote(url)
        return not any(c in decoded for c in self.marker_chars)

    def install(self, md: MarkdownIt) -> None:
        """Make this ``md``'s link check and normalisation, wrapping its ``image`` and ``linkify`` rules."""
        md.validateLink = self  # type: ignore[method-assign]
        md.normalizeLink = self._normalize(md.normalizeLink)  # type: ignore[method-assign,assignment]
        inline = {r.name: r.fn for r in md.inline.ruler.__rules__}
        if "image" in inline:
            md.inline.ruler.at("image", self._image_rule(inline["image"]))
        if "linkify" in inline:
            md.inline.ruler.at("linkify", self._inline_linkify(inline["linkify"]))
        core = next((r.fn for r in md.core.ruler.__rules__ if r.name == "linkify"), None)
        if core is not None:
            md.core.ruler.at("linkify", self._core_linkify(core))

    def _normalize(self, normalize: Callable[[str], str]) -> Callable[[str], str]:
        """markdown-it's ``normalizeLink``, leaving a URL with a marker character for the check to refuse."""
        chars = self.marker_chars

        def normalize_link(url: str) -> str:
            return url if any(c in url for c in chars) else normalize(url)

        return normalize_link

    def _image_rule(self, image: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
        """markdown-it's ``image`` rule, during which an image may have a ``data:image`` source."""
        reading = self._reading

        def rule(state: StateInline, silent: bool) -> bool:
            if state.src[state.pos] != "!":  # what the image rule checks first: no thread-local write
                return False
            reading.image = True
            try:
                return image(state, silent)
            finally:
                reading.image = False

        return rule

    def _inline_linkify(self, linkify: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
        """markdown-it's inline ``linkify`` rule, declining a bare URL that a marker cuts short."""
        chars = self.marker_chars

        def rule(state: StateInline, silent: bool) -> bool:
            pos = state.pos
            if state.src[pos] != ":" or not linkify(state, True):  # a bare URL is found at its "://"
                return False
            end, state.pos = state.pos, pos
            if end < state.posMax and state.src[end] in chars:
                return False  # the URL goes on past a marker (in_url) or ends at a citation: core decides
            return silent or linkify(state, False)

        return rule

    @staticmethod
    def _core_linkify(linkify: Callable[[StateCore], None]) -> Callable[[StateCore], None]:
        """markdown-it's core ``linkify``, blind to a URL's two halves either side of a marker."""

        def rule(state: StateCore) -> None:
            hidden: list[Token] = []
            for block in state.tokens:
                kids = block.children
                if block.type != "inline" or not kids or not _may_hold_url(block.content):
                    continue
                if not any(_in_url_mark(t) for t in kids):
                    continue
                for i, tok in enumerate(kids):
                    if tok.type == "text" and (
                        _in_url_mark(kids[i - 1] if i else None)
                        or _in_url_mark(kids[i + 1] if i + 1 < len(kids) else None)
                    ):
                        tok.type = "citerender_url_part"
                        hidden.append(tok)
            try:
                linkify(state)
            finally:
                for tok in hidden:
                    tok.type = "text"

        return rule
