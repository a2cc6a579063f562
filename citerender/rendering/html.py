"""``render``: one answer and its sources to an HTML fragment or a self-contained page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Any

from markdown_it.token import Token

from ..diagnostics import Diagnostic, sort_key
from ..errors import CiterenderError
from ..lazy_re import lazy_compile
from ..options import RenderOptions
from ..plugin.direction import has_rtl
from ..plugin.source_links import VIEWS_PAGE, has_view, views_mode
from ..plugin.state import Reference, release
from ..records import record
from ..sources.model import Registry
from ..syntax.residue import clean_html
from .pipeline import pipeline
from .themes import load_theme

__all__ = ["Rendered", "UnknownSourceError", "answer_lang", "demote_headings", "prose_of", "render"]


class UnknownSourceError(CiterenderError):
    """Raised by ``render(..., unknown="error")`` when the answer cites ids the registry lacks."""

    def __init__(self, ids: Sequence[str], diagnostics: list[Diagnostic]) -> None:
        uniq = list(dict.fromkeys(ids))
        super().__init__(
            f"unknown source id(s): {', '.join(repr(i) for i in uniq)}",
            hint="add them to the sources or use --unknown drop",
        )
        self.ids = uniq
        self.diagnostics = diagnostics


@record(compile_init=False)  # built a few times a process: no __init__ compiled at import
class Rendered:
    """The result of :func:`render`."""

    html: str
    body: str
    css: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    bibliography: list[Reference] = field(default_factory=list)
    #: the language a page of the answer declares (:func:`answer_lang`)
    lang: str = "en"


def demote_headings(tokens: Sequence[Token], levels: int) -> None:
    """Fit the headings of a parse under a page's own ``levels`` heading levels: the answer's top
    heading becomes ``h{levels + 1}``, the others keep their distance below it (at most ``h6``), so
    the page keeps its one ``h1`` and the outline has no gap (axe's heading-order)."""
    heads = [t for t in tokens if t.type in ("heading_open", "heading_close") and t.tag[1:].isdigit()]
    if not heads:
        return
    shift = levels + 1 - min(int(t.tag[1:]) for t in heads)
    for tok in heads:
        tok.tag = f"h{max(1, min(6, int(tok.tag[1:]) + shift))}"


#: letters of the Arabic script (Arabic, Persian, Urdu …) and of Hebrew, presentation forms included
_ARABIC = lazy_compile(
    "[\u0620-\u064a\u066e-\u06d3\u06d5\u06ee-\u06ff\u0750-\u077f\u08a0-\u08c9\ufb50-\ufdfb\ufe70-\ufefc]"
)
_HEBREW = lazy_compile("[\u05d0-\u05ea\u05ef-\u05f2\ufb1d-\ufb4f]")
#: letters that only Urdu writes among these three (ٹ ڈ ڑ ں ے), only Arabic (ة ى ي ك), only
#: Persian and Urdu (پ چ ژ گ ی ک)
_URDU_ONLY = frozenset("\u0679\u0688\u0691\u06ba\u06d2")
_ARABIC_ONLY = frozenset("\u0629\u0649\u064a\u0643")
_PERSIAN = frozenset("\u067e\u0686\u0698\u06af\u06cc\u06a9")


def answer_lang(text: str, default: str = "en") -> str:
    """The language a page of ``text`` declares, from the script most of its letters are in, for
    screen readers: Hebrew is ``he``; the Arabic script ``ar``, or ``ur`` / ``fa`` only when letters
    only those write show it; any other majority (Latin, CJK …) keeps ``default``."""
    if text.isascii():
        return default
    letters = sum(ch.isalpha() for ch in text)
    arabic, hebrew = _ARABIC.findall(text), len(_HEBREW.findall(text))
    if hebrew * 2 > letters:
        return "he"
    if len(arabic) * 2 <= letters:
        return default
    seen = set(arabic)
    if seen & _ARABIC_ONLY:
        return "ar"
    if seen & _URDU_ONLY:
        return "ur"
    return "fa" if seen & _PERSIAN else "ar"


def prose_of(tokens: Sequence[Token]) -> str:
    """The words of a parse as a reader sees them: its inline text, without code, link targets or
    citation markers (whose ids are Latin letters)."""
    return " ".join(c.content for t in tokens if t.type == "inline" for c in t.children or () if c.type == "text")


def render(
    text: str,
    registry: Registry | None = None,
    options: RenderOptions | None = None,
    *,
    title: str | None = None,
    demote: int = 0,
    **kwargs: Any,
) -> Rendered:
    """Render an answer with its citations.

    :param registry: the sources; without one, ids are numbered but not checked.
    :param options: every setting (:class:`citerender.RenderOptions`); keyword arguments
        (``style="hovercard"``, ``theme="report"``, ``standalone=True``, ``families=…`` …) build
        or change one. ``unknown="error"`` raises :class:`UnknownSourceError`.
    :param title: the page title with ``standalone`` (default: the answer's first heading).
    :param demote: the page's own heading levels above the answer: its top heading becomes
        ``h{demote + 1}``, the others keep their distance (1 under a conversation page's ``h1``).
    """
    opts = RenderOptions.build(options, **kwargs)
    th = load_theme(opts.theme)
    p = pipeline(opts)
    parsed = p.parse(text, registry)
    if demote:
        demote_headings(parsed.tokens, demote)
    st = parsed.state
    body = p.html(parsed)
    if views_mode(opts) == VIEWS_PAGE and any(map(has_view, st.references)):
        from .source_view import source_views  # loaded for a page that has a view
        from .source_view_html import views_section

        body += views_section(source_views(st.references), st.id_prefix)  # after the bibliography
    body, removed = clean_html(body)  # safety net: the rules above should leave nothing
    if removed:
        st.report("CR109", "marker residue removed from the output", None)
    release(st)  # the document is done: its state need not outlive this call
    diagnostics = sorted(st.diagnostics, key=sort_key)
    if opts.unknown == "error" and st.unknown_ids:
        raise UnknownSourceError(st.unknown_ids, diagnostics)
    # only a right-to-left script makes a page's language another: the words are read only then
    lang = answer_lang(prose_of(parsed.tokens)) if has_rtl(text) else "en"
    page = body
    if opts.standalone:
        from ..syntax.headings import first_heading  # a standalone page's title only

        title = title or (first_heading(text) or "Answer")[:200]
        page = clean_html(th.render_page(body, title=title, css=th.css, lang=lang))[0]
    return Rendered(page, body, th.css, diagnostics, list(st.references), lang)
