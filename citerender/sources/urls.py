"""URL policy and text fragments: which source URLs may become links, and how to deep-link lines."""

from __future__ import annotations

import html
import re
from functools import lru_cache
from urllib.parse import quote

from ..syntax.residue import url_has_residue

_STRIPPED = re.compile(r"[\t\n\r]")  # browsers drop these anywhere in a URL
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
SAFE_SCHEMES = frozenset({"http", "https"})
_MAX_DECODES = 8


@lru_cache(maxsize=4096)
def safe_url(url: str | None) -> str | None:
    """Return ``url`` if it is http(s) or relative, else None (it is then shown as text).

    Mirrors what a browser does before reading the scheme — tabs and newlines removed, leading
    controls and spaces skipped — so obfuscations such as ``java\\tscript:`` are caught. A URL
    holding marker residue is refused too: removing it later could change what the URL means.
    """
    if not url or url_has_residue(url):
        return None
    decoded = url
    for _ in range(_MAX_DECODES):  # unsafe once HTML entities are decoded, at any depth
        once = html.unescape(decoded)
        if once == decoded:
            break
        decoded = once
        if _judge(decoded) is None:
            return None
    else:
        return None  # entities nested deeper than any real URL: refuse
    return _judge(url)


def _judge(url: str) -> str | None:
    cleaned = _STRIPPED.sub("", url).lstrip(
        "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f"
        "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c"
        "\x1d\x1e\x1f\x20"
    )
    if not cleaned or "\\" in cleaned or any(ord(c) < 0x20 or ord(c) == 0x7F for c in cleaned):
        return None
    m = _SCHEME.match(cleaned)
    if m is not None:
        return cleaned if m.group(1).lower() in SAFE_SCHEMES else None
    head = re.split(r"[/?#]", cleaned, maxsplit=1)[0]
    if ":" in head:
        return None
    return cleaned


_LIVE = SAFE_SCHEMES | {"mailto"}


def link_scheme(url: str) -> str | None:
    """The scheme a browser reads from ``url`` once a Markdown reader has decoded it: entities
    decoded, C0 controls and spaces trimmed, tabs and newlines dropped, then a letter and letters,
    digits, ``+-.`` up to a colon; None for a relative URL."""
    decoded = url
    for _ in range(_MAX_DECODES):
        once = html.unescape(decoded)
        if once == decoded:
            break
        decoded = once
    cleaned = _STRIPPED.sub("", decoded).strip("".join(chr(c) for c in range(0x21)))
    m = _SCHEME.match(cleaned)
    return m.group(1).lower() if m else None


def is_live_link(url: str) -> bool:
    """Would a browser run ``url`` as something other than a page (``javascript:``, ``data:`` …)?
    http(s), mailto and relative URLs are fine."""
    scheme = link_scheme(url)
    return scheme is not None and scheme not in _LIVE


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
    """Append a text-fragment directive to ``url`` (after any existing fragment)."""
    if not fragment:
        return url
    return url + fragment if "#" in url else url + "#" + fragment
