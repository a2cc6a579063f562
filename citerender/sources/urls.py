"""URL policy and text fragments: the one allow-list deciding which URL may become a link (answer
links, autolinks, linkify, source URLs, exports), and how to deep-link lines."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from functools import lru_cache
from urllib.parse import quote

from ..lazy_re import lazy_compile
from ..syntax.residue import url_has_residue

_STRIPPED = re.compile(r"[\t\n\r]")  # browsers drop these anywhere in a URL
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
#: the schemes a link may have; relative and fragment URLs have none. Everything else (``ftp:``,
#: ``ms-msdt:``, ``search-ms:``, ``intent:``, ``chrome:`` …) stays text: a deny-list of the known
#: dangerous ones misses every protocol handler an operating system registers.
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
#: ``data:`` URLs allowed only as the source of a shown image (as markdown-it's own validator has them)
_DATA_IMAGE = lazy_compile(r"data:image/(?:gif|png|jpeg|webp);", re.I)
_MAX_DECODES = 8
_C0_AND_SPACE = "".join(map(chr, range(0x21)))  # skipped around a URL by browsers


@lru_cache(maxsize=4096)
def safe_url(url: str | None) -> str | None:
    """Return ``url`` if :data:`LINK_SCHEMES` allows it (or it is relative), else None (it is
    then shown as text).

    Mirrors what a browser does before reading the scheme — tabs and newlines removed, leading
    controls and spaces skipped — so obfuscations such as ``java\\tscript:`` are caught. A URL
    holding marker residue is refused too: removing it later could change what the URL means.
    """
    if not url or url_has_residue(url):
        return None
    decodings = list(_decodings(url))
    if len(decodings) >= _MAX_DECODES:
        return None  # entities nested deeper than any real URL: refuse
    if any(_judge(d) is None for d in decodings):
        return None  # unsafe once HTML entities are decoded, at any depth
    return _judge(url)


def _decodings(url: str) -> Iterator[str]:
    """``url`` with HTML entities decoded once, twice, … until nothing changes (at most
    :data:`_MAX_DECODES` times: nesting that deep is refused by :func:`safe_url`)."""
    decoded = url
    for _ in range(_MAX_DECODES):
        once = html.unescape(decoded)
        if once == decoded:
            return
        decoded = once
        yield decoded


def _judge(url: str) -> str | None:
    cleaned = _STRIPPED.sub("", url).lstrip(_C0_AND_SPACE)
    if not cleaned or "\\" in cleaned or any(ord(c) < 0x20 or ord(c) == 0x7F for c in cleaned):
        return None
    m = _SCHEME.match(cleaned)
    if m is not None:
        return cleaned if m.group(1).lower() in LINK_SCHEMES else None
    head = re.split(r"[/?#]", cleaned, maxsplit=1)[0]
    if ":" in head:
        return None
    return cleaned


def _cleaned(url: str) -> str:
    """``url`` as a browser reads its scheme once a Markdown reader has decoded it: entities
    decoded, C0 controls and spaces trimmed, tabs and newlines dropped."""
    decoded = [url, *_decodings(url)][-1]  # the last decoding is what a reader sees
    return _STRIPPED.sub("", decoded).strip(_C0_AND_SPACE)


def _scheme(cleaned: str) -> str | None:
    m = _SCHEME.match(cleaned)
    return m.group(1).lower() if m else None


@lru_cache(maxsize=4096)
def allowed_link(url: str, *, image: bool = False) -> bool:
    """May ``url`` become a link (``image``: the source of a shown image)? The one allow-list:
    :data:`LINK_SCHEMES`, relative and fragment URLs, and ``data:image/…`` for images only."""
    cleaned = _cleaned(url)
    scheme = _scheme(cleaned)
    if scheme is None or scheme in LINK_SCHEMES:
        return True
    return image and scheme == "data" and _DATA_IMAGE.match(cleaned) is not None


def is_live_link(url: str) -> bool:
    """Would ``url`` be a link the allow-list refuses (``javascript:``, ``ms-msdt:``, ``ftp:`` …)?"""
    return not allowed_link(url)


def _enc(text: str) -> str:
    return quote(text, safe="").replace("-", "%2D")


def text_fragment(lines: list[str], *, words: int = 5) -> str | None:
    """A ``:~:text=`` directive that scrolls to the cited lines (start and end words)."""
    tokens = " ".join(lines).split()
    if not tokens:
        return None
    if len(tokens) <= 2 * words:
        return ":~:text=" + _enc(" ".join(tokens))
    return ":~:text=" + _enc(" ".join(tokens[:words])) + "," + _enc(" ".join(tokens[-words:]))


def with_fragment(url: str, fragment: str | None) -> str:
    """Append a text-fragment directive to ``url`` (after any existing fragment); only web pages have them."""
    if not fragment or _scheme(url) not in (None, "http", "https"):
        return url
    return url + fragment if "#" in url else url + "#" + fragment
