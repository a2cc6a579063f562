"""What copying a ChatGPT answer leaves where its citations were, beyond the markers: forms that
carry their own source (a title and a URL), or name sources by id in a tag.

* ``[oai_citation:N‡Title](url)`` — the copy button's form (older copies: ``[oai_citation:N,Title](url)``);
  the URL may be an uploaded file (``file-service://file-…``, ``sediment://file_…``, ``file://file-…``),
  which no reader can open: the file is named, not linked;
* ``<Cite ref="turn0view0" />`` — an MDX-style tag (``ref='…'``, ``ref={"…"}``, ``refs={["…", "…"]}``),
  and its companion ``<Link url="…" title="…"/>``;
* the copy residue objects ``{"fallbackMarkdown":…}`` (:mod:`.copy_residue`).

:func:`find_copied` finds them all in one pass; what each becomes is the plugin's business
(``citerender.plugin.copied``).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ..lazy_re import lazy_compile
from ..records import record
from .copy_residue import RESIDUE_START, Pill, pill_at
from .marks import edit_text
from .patterns import TURN_ID, may_hold_copied

__all__ = ["Copied", "Page", "as_links", "clean_url", "copied_at", "find_copied", "may_hold_copied", "page_of"]

_OAI = lazy_compile(r"\[oai_citation:(\d{1,9})(?:\u2021|,)")
_TITLE_END = lazy_compile(r"\]\(")
_TAG = lazy_compile(
    r"<(Cite|Link)\b((?:[^<>\"'{}]|\"[^\"\n]{0,2000}\"|'[^'\n]{0,2000}'|\{[^{}\n]{0,2000}\}){0,600}?)/?>"
)
_ATTR = lazy_compile(r"""([A-Za-z]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|\{([^{}]*)\})""")
_ID_SPLIT = lazy_compile(r"""[\s,"'\[\]]+""")
_TURN_ID = lazy_compile(TURN_ID)
_FILE_SCHEMES = ("file-service", "sediment", "file")
_TRACKING = frozenset({"chatgpt.com", "openai", "chatgpt"})
_MD_SPECIAL = lazy_compile(r"([\\`*_{}\[\]<>()#+\-!|~$&])")
_UNSAFE = lazy_compile(r"[\x00-\x20<>\\\x7f]")
_DEST_RUN = lazy_compile(r"[^ \t\n()]*")  # a destination's characters up to a parenthesis or a space


@record(frozen=True, slots=True)
class Page:
    """A page or an uploaded file a copied form names: ``url`` is a web address (``http``,
    ``https``) with ChatGPT's tracking taken off, ``file`` an uploaded file's address (no reader
    can open it), ``bad`` an address that is neither (shown in a report, never linked)."""

    title: str
    url: str | None = None
    file: str | None = None
    bad: str | None = None

    @property
    def key(self) -> str:
        """What makes two citations cite the same page."""
        return self.url or self.file or f"title:{self.title}"


@record(frozen=True, slots=True)
class Copied:
    """One copied form at ``[start, end)``: ``kind`` is ``oai`` (``pages`` cited), ``tag``
    (``ids`` cited), ``link`` (``pages[0]`` shown as a link) or a residue object (``pill``)."""

    start: int
    end: int
    kind: str
    pages: tuple[Page, ...] = ()
    ids: tuple[str, ...] = ()
    pill: Pill | None = None


#: where a copied form may start (each reader then takes it only in its real shape)
_START = lazy_compile(rf"{_OAI.pattern}|<(?:Cite|Link)\b|{RESIDUE_START.pattern}")


def find_copied(text: str) -> list[Copied]:
    """Every copied form of ``text``, in order, none overlapping another."""
    out: list[Copied] = []
    if not may_hold_copied(text):
        return out
    pos = 0
    while (m := _START.search(text, pos)) is not None:
        form = copied_at(text, m.start())
        out.extend([form] if form is not None else [])
        pos = form.end if form is not None else m.start() + 1
    return out


def copied_at(text: str, pos: int, limit: int | None = None) -> Copied | None:
    """The copied form starting at ``pos`` (and ending before ``limit``), or None when the text
    there is no copied form in its real shape."""
    limit = len(text) if limit is None else limit
    ch = text[pos] if pos < limit else ""
    if ch == "[":
        m = _OAI.match(text, pos, limit)
        return _oai(text, m, limit) if m is not None else None
    if ch == "<":
        m = _TAG.match(text, pos, limit)
        return _tag(m) if m is not None else None
    if ch in "{:":
        pill = pill_at(text, pos, limit)
        if pill is None:
            return None
        pages = tuple(page_of(x.title or x.site, x.url) for x in pill.pages)
        return Copied(pill.start, pill.end, "pill", pages, pill=pill)
    return None


def as_links(text: str) -> str:
    """``text`` with each copied form as the Markdown it stands for where nothing is cited (a
    user's own message, which pastes an answer): a page as its titled link, a file or an address
    no reader can open as its name, a residue pill with nothing to link as its fallback text, a
    ``<Cite>`` tag as nothing (as its marker would be)."""
    edits = []
    for form in find_copied(text):
        shown = [_as_link(p) for p in form.pages]
        if form.pill is not None and not shown and form.pill.fallback:
            shown = [_MD_SPECIAL.sub(r"\\\1", form.pill.fallback)]
        edits.append((form.start, form.end, " ".join(shown)))
    return edit_text(text, edits, tidy=True) if edits else text


def _as_link(page: Page) -> str:
    label = _MD_SPECIAL.sub(r"\\\1", page.title or page.url or page.file or "")
    return f"[{label}](<{_UNSAFE.sub(_percent, page.url)}>)" if page.url else label


def _percent(m: re.Match[str]) -> str:
    return f"%{ord(m.group()):02X}"


def _oai(text: str, m: re.Match[str], limit: int) -> Copied | None:
    nxt = text.find("[oai_citation:", m.end(), limit)
    limit = nxt if nxt != -1 else limit  # a form ends before the next begins: each character read once
    close = _TITLE_END.search(text, m.end(), min(limit, m.end() + 1000))
    if close is None or "\n" in text[m.end() : close.start()]:
        return None
    end, url = _destination(text, close.end(), limit)
    if end is None:
        return None
    title = " ".join(text[m.end() : close.start()].split())
    return Copied(m.start(), end, "oai", (page_of(title, url),))


def _destination(text: str, at: int, limit: int) -> tuple[int | None, str]:
    """Where a link destination that starts at ``at`` ends (past its ``)``), and the URL; a
    destination broken by a space (``https:// example.org/…``, seen in translated copies) ends at
    the next ``)`` of its line, its URL kept as written (it links nothing)."""
    i, limit = at, min(limit, at + 4096)
    while i < limit and text[i] in " \t":
        i += 1
    if text.startswith("<", i):
        close = text.find(">", i, limit)
        if close != -1 and text.startswith(")", close + 1):
            return close + 2, text[i + 1 : close]
    start, depth = i, 0
    while (i := _run_end(text, i, limit)) < limit and text[i] in "()":
        if text[i] == "(":
            depth += 1
        elif depth == 0:
            return i + 1, text[start:i]
        else:
            depth -= 1
        i += 1
    close = text.find(")", i, limit)
    if close == -1 or "\n" in text[i:close]:
        return None, ""
    return close + 1, text[start:close].strip()


def _run_end(text: str, at: int, limit: int) -> int:
    """Where the destination's characters from ``at`` stop: at a parenthesis, a space or ``limit``."""
    m = _DEST_RUN.match(text, at, limit)
    return m.end() if m is not None else at


def _tag(m: re.Match[str]) -> Copied | None:
    attrs = {a.group(1).lower(): a.group(2) or a.group(3) or a.group(4) or "" for a in _ATTR.finditer(m.group(2))}
    if m.group(1) == "Link":
        url = attrs.get("url") or attrs.get("href")
        if not url:
            return None
        return Copied(m.start(), m.end(), "link", (page_of(attrs.get("title") or attrs.get("text") or "", url),))
    raw = attrs.get("ref", "") + " " + attrs.get("refs", "")
    ids = tuple(dict.fromkeys(x for x in _ID_SPLIT.split(raw) if x and _TURN_ID.fullmatch(x)))
    return Copied(m.start(), m.end(), "tag", ids=ids) if ids else None


def page_of(title: str, address: str) -> Page:
    """The page (or uploaded file) an address names, titled (a file by its name, a page by its
    title or else its domain)."""
    address = address.strip()
    scheme = address.split(":", 1)[0].lower() if ":" in address else ""
    if scheme in _FILE_SCHEMES and address[len(scheme) : len(scheme) + 3] == "://":
        return Page(title or address.split("//", 1)[1].split("#", 1)[0], file=address)
    if scheme in ("http", "https") and " " not in address and "\n" not in address:
        url = clean_url(address)
        return Page(title or _host(url) or url, url=url)
    return Page(title or "", bad=address[:300])


def clean_url(url: str) -> str:
    """``url`` without ChatGPT's ``utm_source=chatgpt.com`` (or ``openai``); every other byte kept,
    the text fragment included (the query is not decoded and encoded again)."""
    if "utm_source=" not in url:
        return url
    base, hash_, fragment = url.partition("#")
    path, q, query = base.partition("?")
    if not q:
        return url
    kept = [p for p in query.split("&") if not _tracking(p)]
    return path + (("?" + "&".join(kept)) if kept else "") + hash_ + fragment


def _tracking(param: str) -> bool:
    key, _, value = param.partition("=")
    return key == "utm_source" and value.lower() in _TRACKING


def _host(url: str) -> str | None:
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host.removeprefix("www.") if host else None
