"""Marker residue: every form a marker character can take in output, and the one way to remove it.

Every output path (HTML fragments and pages, streams, exports, reports) ends with this pass, so a
marker character that slipped through a rule (from source metadata, a link, a theme) never reaches
a reader. URLs are judged after it: a URL that needed residue removed is never a link, since
removing characters can turn a harmless URL into a dangerous one (``java%EE%88%80script:``).
"""

from __future__ import annotations

import html
import re
from urllib.parse import unquote

from ..lazy_re import lazy_compile
from .charset import CharSet
from .escapes import ESCAPE_RE, has_escape
from .format import RESERVED_CHARS, RESERVED_RE

__all__ = ["PCT_RESIDUE", "RESIDUE", "clean_html", "has_residue", "remove_residue", "url_has_residue"]

#: The UTF-8 percent-encoding of a reserved character (a marker character inside a URL).
PCT_RESIDUE = lazy_compile(r"%EE%88%8[0-6]", re.I)
#: Raw reserved characters, their UTF-8 percent-encoding, and every literal escape of them.
RESIDUE = lazy_compile(f"[{RESERVED_CHARS}]|{PCT_RESIDUE.pattern}|" + ESCAPE_RE.pattern, re.I)
# Attributes whose value a browser treats as a URL (our templates emit href and src only).
_URL_ATTR = lazy_compile(
    r"""\s(?:href|src|srcset|action|formaction|poster|cite|background|xlink:href|data)\s*=\s*("[^"]*"|'[^']*')""",
    re.I,
)
_CODE = lazy_compile(r"<code\b[^>]*>.*?</code>", re.S | re.I)
# RESIDUE tried at every position is slow; each form alone starts with a character found directly
_RESERVED = CharSet(RESERVED_CHARS)


def has_residue(text: str) -> bool:
    """Does ``text`` hold a reserved character in any form?"""
    return _RESERVED.found_in(text) or ("%" in text and PCT_RESIDUE.search(text) is not None) or has_escape(text)


def remove_residue(text: str) -> str:
    """``text`` without any reserved character in any form."""
    return RESIDUE.sub("", text) if has_residue(text) else text


def url_has_residue(url: str) -> bool:
    """Does ``url`` hold a reserved character, also once percent- or entity-decoded?"""
    if has_residue(url):
        return True
    if "%" not in url and "&" not in url and "\\" not in url:
        return False  # nothing to decode, and every other form needs one of these three characters
    decoded = html.unescape(url)
    return RESIDUE.search(unquote(url)) is not None or RESIDUE.search(unquote(decoded)) is not None


def _drop_url_attr(m: re.Match[str]) -> str:
    value = m.group(1)[1:-1]
    return "" if url_has_residue(value) else m.group(0)


def clean_html(markup: str) -> tuple[str, bool]:
    """Remove residue from HTML; a URL attribute that holds any is removed whole, never cleaned.
    Inside ``<code>`` only reserved characters go: visible escapes there are the author's code.

    Returns the markup and whether anything was removed. A NUL (from a source title, say) becomes
    U+FFFD, as every HTML parser would read it, so the page parses the same everywhere.
    """
    if "\x00" in markup:
        markup = markup.replace("\x00", "\ufffd")
    if not has_residue(markup):
        return markup, False
    given = markup
    markup = _URL_ATTR.sub(_drop_url_attr, markup)
    out: list[str] = []
    pos = 0
    for m in _CODE.finditer(markup) if "<code" in markup else ():
        out.append(RESIDUE.sub("", markup[pos : m.start()]))
        out.append(RESERVED_RE.sub("", m.group(0)))
        pos = m.end()
    out.append(RESIDUE.sub("", markup[pos:]))
    result = "".join(out)
    return result, result != given
