"""What a rendered page shows a reader, read with BeautifulSoup: its citations (each
``citerender-cite`` element), its links, its visible text, any citation marker left in view
outside code, and how much of the answer's own text made it onto the page."""

from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from bs4 import BeautifulSoup

#: marker forms that must never be seen outside code (issue 49 §1)
MARKERS = {
    "private-use marker": re.compile("[\ue200-\ue206]"),
    "citeturn": re.compile(r"cite\s*turn\d", re.I),
    "bare turn id": re.compile(r"\bturn\d+[a-z]+\d+\b"),
    ":contentReference": re.compile(r":contentReference|oaicite"),
    "【F:…】": re.compile(r"【F:"),
    "【…†…】": re.compile(r"【[^】\n]{0,200}†[^】\n]{0,200}】"),
    "oai_citation": re.compile(r"oai_citation"),
    "<Cite …/>": re.compile(r"<Cite\b"),
    "copy-residue JSON": re.compile(r'"(fallbackMarkdown|matched_text|showLoginRequiredCard)"'),
    "raw response JSON": re.compile(
        r'\{\s*"(type|candidates|choices|output|content|delta|sequence_number|event_type)"\s*:'
    ),
}
_DROP = ("section.citerender-bibliography", "section.citerender-consulted", "sup.citerender-cite")


def norm_url(url: str) -> str:
    """A URL as compared: unquoted, without ChatGPT's or OpenAI's ``utm_source`` tag (which the
    page may take off) or a text fragment."""
    parts = urlsplit(html.unescape(url.strip()))
    query = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not (k == "utm_source" and v in ("chatgpt.com", "openai"))
    ]
    fragment = "" if parts.fragment.startswith(":~:") else parts.fragment
    return unquote(urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, urlencode(query), fragment)))


@dataclass
class Page:
    cites: int  # citerender-cite elements
    links: set[str]  # every href, normalised
    answer_text: str  # visible text without citations, Sources and consulted lists
    visible: str  # all visible text
    outside_code: str  # visible text outside code

    def markers(self) -> list[str]:
        """The marker forms in view outside code, each with a sample."""
        out = []
        for name, rx in MARKERS.items():
            m = rx.search(self.outside_code)
            if m:
                out.append(f"{name} ({self.outside_code[max(0, m.start() - 20) : m.end() + 20]!r})")
        return out


def read_page(page: str) -> Page:
    soup = BeautifulSoup(page, "html.parser")
    for tag in soup.find_all(["script", "style", "template"]):
        tag.decompose()
    for img in soup.find_all("img"):
        img.replace_with(f" {img.get('alt') or ''} ")
    links = {norm_url(str(a["href"])) for a in soup.find_all("a", href=True)}
    cites = len(soup.select("sup.citerender-cite, span.citerender-cite, a.citerender-cite"))
    visible = soup.get_text(" ")
    code_free = BeautifulSoup(str(soup), "html.parser")
    for tag in code_free.find_all(["pre", "code"]):
        tag.decompose()
    answer = BeautifulSoup(str(soup), "html.parser")
    for sel in _DROP:
        for tag in answer.select(sel):
            tag.decompose()
    return Page(cites, links, answer.get_text(" "), visible, code_free.get_text(" "))


_LINK_DEST = re.compile(r"\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_LIST_ITEM = re.compile(r"^([ \t>]*)\d{1,9}[.)](?=[ \t]|$)", re.M)  # an ordered list's numbers are the list's, not text
_WORD = re.compile(r"\w+")
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")  # CommonMark's: with the ;


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def answer_words(text: str) -> list[str]:
    """The words of an answer's own text as a reader sees them: link destinations are not shown."""
    return words(_LIST_ITEM.sub(r"\1", _LINK_DEST.sub("]", _ENTITY.sub(lambda m: html.unescape(m.group(0)), text))))


def missing_words(answer: str, page_text: str) -> list[str]:
    """The answer's words the page does not show, in order (matched as sequences, so a word
    shown elsewhere does not hide one dropped here)."""
    a, b = answer_words(answer), words(page_text)
    if not a:
        return []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    kept = set()
    for block in sm.get_matching_blocks():
        kept.update(range(block.a, block.a + block.size))
    return [w for i, w in enumerate(a) if i not in kept]


def shown_names(names: set[str], page: Page) -> set[str]:
    """The file names the page shows (in its visible text)."""
    text = page.visible.casefold()
    return {n for n in names if n.casefold() in text}


def linked(urls: set[str], page: Page) -> set[str]:
    return {u for u in urls if norm_url(u) in page.links}
