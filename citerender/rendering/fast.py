"""``engine="fast"``: comrak (Rust, CommonMark with tables and strikethrough) parses the answer;
citations are spliced back into its HTML.

Markers are private-use characters, so each mark is swapped for an inert placeholder before
parsing (private-use characters too, which Markdown treats like letters, as it does markers) and
replaced after it. What the placement checks need from Markdown (inside code, emphasis or link
text; the paragraph and line a citation stands in) is read from where each placeholder lands in
the HTML. Numbering, references, labels, cards and the bibliography are the plugin's own
functions, so both engines agree on them; ``docs/fast-engine.md`` lists where the HTML differs.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..errors import CiterenderError
from ..plugin.core import LONG_ANSWER
from ..plugin.numbering import report_uncited
from ..plugin.options import PluginOptions
from ..plugin.placement import (
    check_grouped_at_end,
)
from ..plugin.rules import MAX_MARKERS, in_destination
from ..plugin.state import BibliographyMeta, CitationState
from ..syntax.escapes import normalize_escapes, printable
from ..syntax.scanner import Scanner, may_hold_copy_paste
from ..syntax.types import Mark, MarkKind
from .seams import drop_empty
from .splice import Splice, placeholder, report_notes

# a placeholder's opening character percent-encoded (in a URL), in either case
_PCT_OPEN = re.compile("%[eE][eE]%83%[bB]0")
# a character reference to a placeholder character (U+E0E0-U+E0FF), which the parser decodes
_ENTITY = re.compile(r"&#(?:[xX]0*[eE]0[eEfF][0-9a-fA-F]|0*575(?:6[89]|[78][0-9]|9[01]));")


def holds_placeholder(text: str) -> bool:
    """Could ``text`` hold what the splice pass reads as a placeholder (U+E0F0 raw, as a
    character reference, or percent-encoded in a URL)? Such an answer is rendered by markdown-it.
    Substring tests first: a character class tried at every position cost 2 ms on 200 KB."""
    return (
        "\ue0f0" in text
        or ("%" in text and _PCT_OPEN.search(text) is not None)
        or ("&#" in text and _ENTITY.search(text) is not None)
    )


_NEWLINES = re.compile(r"\r\n?")


def available() -> bool:
    """Is comrak installed (``pip install 'citerender[fast]'``)?"""
    try:
        import comrak  # noqa: F401
    except ImportError:
        return False
    return True


def _marks(norm: str, plugin: PluginOptions) -> list[Mark]:
    """Every mark of ``norm``. When all are well-formed markers (the usual answer), they are
    found by one literal-prefix search and each distinct one parsed once; otherwise the scanner
    reads every dialect. (A character-class search for every trigger cost 60 ms on 1 MB.)"""
    canonical = plugin.canonical
    scanner = Scanner(norm, plugin.fmt)
    rest = canonical.sub("", norm) if plugin.fmt.start in norm else norm
    if any(ch in rest for ch in plugin.triggers) or may_hold_copy_paste(rest, plugin.fmt):
        return scanner.scan()
    parsed: dict[str, Mark] = {}
    marks = []
    for m in canonical.finditer(norm):
        raw, start = m.group(0), m.start()
        first = parsed.get(raw)
        if first is None:
            first = parsed[raw] = scanner.at(start) or Mark(MarkKind.DROPPED, start, m.end(), raw)
            marks.append(first)
        else:  # the same parse at this occurrence's offsets
            marks.append(Mark(first.kind, start, m.end(), raw, first.citation, first.text, first.notes))
    return marks


# ``&#xE200;``, ``&#x0E200;``, ``&#57856;``: decoded (or not) by each parser in its own places
_RESERVED_ENTITY = re.compile(r"&#(?:[xX]0*[eE]20[0-6]|0*5785[6-9]|0*5786[0-2]);")


def render_fast(text: str, st: CitationState, md: MarkdownIt, plugin: PluginOptions) -> str | None:
    """The HTML body of ``text`` (citations, bibliography) with comrak as the parser; ``st``
    collects diagnostics and references as the plugin's state does, ``md`` (the default engine's
    parser) lends its render rules, so labels, cards and the bibliography are the same. None
    when only Markdown can tell where a mark ends (a backtick inside it): ``md`` renders then."""
    try:
        import comrak
    except ImportError as e:  # pragma: no cover - the extra is installed in the test environment
        raise CiterenderError(
            "engine='fast' needs comrak", hint="pip install 'citerender[fast]', or use the default engine"
        ) from e
    src = _NEWLINES.sub("\n", text).replace("\x00", "\ufffd")
    norm, omap = normalize_escapes(src)
    st.begin(src, omap)
    st.original = src
    if plugin.options.id_prefix:
        st.id_prefix = plugin.options.id_prefix + "-"
    if _RESERVED_ENTITY.search(src):
        return None  # a character reference to a marker character: where it decodes is markdown-it's to say
    marks = _marks(norm, plugin)
    if any("`" in mk.raw for mk in marks):
        return None  # a code span's backtick inside a marker: Markdown decides first (markdown-it)
    if len(marks) > MAX_MARKERS:
        raise CiterenderError(f"answer has more than {MAX_MARKERS:,} markers", hint="split the answer")
    pieces: list[str] = []
    pos = 0
    skipped: set[int] = set()
    triggers = plugin.triggers  # what markdown-it's inline rule reads (copy-paste forms are text there)
    for i, mk in enumerate(marks):
        a, b = omap(mk.start), omap(mk.end)
        if mk.raw[0] in triggers and in_destination(norm, mk.start) and mk.kind is MarkKind.DROPPED:
            skipped.add(i)  # removed from the URL before parsing, as markdown-it does
            report_notes(st, mk, a, src)
            pieces.append(src[pos:a])
            pos = b
            continue
        if mk.kind is not MarkKind.DROPPED and mk.raw[0] in triggers and in_destination(norm, mk.start):
            # as markdown-it refuses the link (its URL would need cleaning): the marker goes and
            # the link stays text, its ``(`` escaped so that comrak does not link it either
            skipped.add(i)
            detail = f"marker {printable(mk.raw)} removed from a link destination; the link is shown as text"
            st.report("CR311", detail, a)
            paren = omap(norm.rfind("](", 0, mk.start)) + 1
            if paren >= pos:
                pieces.append(src[pos:paren] + "\\")
                pos = paren
            pieces.append(src[pos:a])
            pos = b
            continue
        pieces.append(src[pos:a])
        pieces.append(placeholder(i))
        pos = b
    pieces.append(src[pos:])
    ext = comrak.ExtensionOptions()
    ext.table = True
    ext.strikethrough = True
    ren = comrak.RenderOptions()
    ren.escape = not plugin.options.html
    ren.unsafe_ = plugin.options.html
    markup = comrak.render_markdown("".join(pieces), extension_options=ext, render_options=ren)
    if ' href=""' in markup or ' src=""' in markup:
        return None  # a refused or empty URL: markdown-it shows the first as written, keeps the second
    # strikethrough as markdown-it writes it, once for the page (stretches are copied as they are)
    markup = markup.replace("<del>", "<s>").replace("</del>", "</s>")
    splice = Splice(st, marks, src, plugin, skipped)
    out = drop_empty(splice.run(markup))
    check_grouped_at_end(splice.text_blocks(), st)
    report_uncited(st, list_all=plugin.list_all)
    rules = md.renderer.rules  # type: ignore[attr-defined]
    env = {"citerender": st}
    body = "".join(x if isinstance(x, str) else rules["citation"]([x], 0, md.options, env) for x in out)
    if plugin.bibliography and st.references:
        tok = Token("citerender_bibliography", "", 0)
        tok.meta = BibliographyMeta(references=st.references, long=len(src) > LONG_ANSWER)  # type: ignore[assignment]
        body += rules["citerender_bibliography"]([tok], 0, md.options, env)
    return body
