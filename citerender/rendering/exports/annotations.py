"""W3C Web Annotations (JSON-LD, https://www.w3.org/TR/annotation-model/): one annotation per
citation, linking its claim to the passages it cites, for annotation tools and review pipelines.

The **target** is the claim: a quote of it and its place (in code points) in the answer's plain
text, exactly what ``--to text`` writes, declared once in the file. Each **body** is a cited
passage: the source's URL (or ``urn:citerender:source:ID``), the cited lines as a quote and as a
line fragment (``L8-L13``). Claims are the words the plugin's claim rule gives each citation, placed
by rendering the tokens with three noncharacters around every citation and its claim.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any
from urllib.parse import quote

from markdown_it.token import Token

from ...errors import CiterenderError
from ...plugin.claim_spans import wrap_claims
from ...plugin.state import RefUse
from ...sources.model import Source
from ...sources.urls import safe_url
from ...syntax.residue import remove_residue
from ...syntax.types import line_locator
from .parsed import Parsed, finish
from .text import to_text

__all__ = ["ANNO_CONTEXT", "SOURCE_IRI", "Placed", "placed", "to_annotations", "to_annotations_data"]

#: the W3C Web Annotation JSON-LD context (a copy with its origin: ``tests/fixtures/annotations/``)
ANNO_CONTEXT = "http://www.w3.org/ns/anno.jsonld"
#: a source without a URL is named by this IRI and its id
SOURCE_IRI = "urn:citerender:source:"
#: RFC 5147 fragments of ``text/plain`` (``line=7,13``: lines 8 to 13)
RFC5147 = "http://tools.ietf.org/rfc/rfc5147"
#: code points of context a quote keeps on each side (Hypothesis keeps 32)
CONTEXT_CHARS = 32
#: the key of :func:`_single_lines` in ``Source.memo``
_SINGLE_LINES = "annotations.single_lines"
#: the W3C motivation: the annotation links a claim to the passage cited for it
MOTIVATION = "linking"

#: Unicode noncharacters; three absent from the answer mark a claim's start, a citation's label
#: and its end in the rendered text (U+FDD0 marks cut URLs: left out)
_NONCHARACTERS = [chr(c) for c in range(0xFDD1, 0xFDF0)] + [
    chr(p << 16 | e) for p in range(17) for e in (0xFFFE, 0xFFFF)
]
#: what a claim's quote does not start with: the space and clause punctuation after the previous citation
_LEAD = " \t\n,;:"
#: the ASCII characters an IRI holds as they are: in an id after :data:`SOURCE_IRI`, and in a URL
_ID_ASCII = frozenset(string.ascii_letters + string.digits + "-._~!$&'()*+,;=:@/")
_URL_ASCII = _ID_ASCII | frozenset("?#[]%")


@dataclass(frozen=True, slots=True)
class Placed:
    """One citation in the plain text: its group token, its claim (``start``, ``end``; ``None``
    when it closes no words) and its label (``[1]``: ``label_start``, ``label_end``)."""

    group: Token
    claim: tuple[int, int] | None
    label_start: int
    label_end: int


def placed(p: Parsed) -> tuple[str, list[Placed]]:
    """The answer's plain text (as ``--to text`` writes it) and every citation placed in it, in
    the order of the text."""
    marks = _free_marks(p)
    order: list[Token] = []
    tokens = [
        t.copy(children=_marked(t.children, marks, order)) if t.type == "inline" and t.children else t for t in p.tokens
    ]
    rendered = to_text(replace(p, tokens=tokens), marks=marks)
    text, spots = _unmark(rendered, marks)
    if len(spots) != len(order):  # a mark went missing or an extra one came: the text held one
        raise CiterenderError("could not place every citation in the plain text", hint="report this answer as a bug")
    return text, [Placed(g, _claim(text, a, c), c, e) for g, (a, c, e) in zip(order, spots, strict=True)]


def _free_marks(p: Parsed) -> str:
    """Three noncharacters found nowhere in the answer nor in the metadata its text export shows."""
    seen = [p.state.original]
    for ref in (*p.references, *p.state.consulted):
        for s in (ref.source, *ref.merged):
            seen.extend(x for x in (s.id, s.title, s.url, s.updated, s.domain, s.pages) if x)
    free = "".join(islice((c for c in _NONCHARACTERS if not any(c in x for x in seen)), 3))
    if len(free) < 3:
        raise CiterenderError(
            "the answer holds too many Unicode noncharacters to mark its citations' places",
            hint="remove the noncharacters (U+FDD0–U+FDEF, U+FFFE, U+FFFF) from the answer",
        )
    return free


def _marked(children: Sequence[Token], marks: str, order: list[Token]) -> list[Token]:
    """Copies of ``children`` with their claims wrapped as the card styles wrap them, each claim's
    start and each citation's label bracketed by ``marks`` (order: claim, label, end)."""
    opened, label, end = marks[0], marks[1], marks[2]
    out: list[Token] = []
    for tok in wrap_claims([_unlinked(c) for c in children]):
        if tok.type == "citation_claim_open":
            out.append(_text(opened))
        elif tok.type == "citation_claim_close":
            continue
        elif tok.type == "citation" and tok.meta.get("uses"):
            order.append(tok)
            out.extend((_text(label), tok, _text(end)))
        elif tok.children:  # an image's alternative text (the plugin puts its citations after it)
            out.append(tok.copy(children=_marked(tok.children, marks, order)))
        else:
            out.append(tok)
    return out


def _unlinked(tok: Token) -> Token:
    """A copy of ``tok``; a citation in link text as if it were not: the card styles leave its
    claim unwrapped (a span would cut the link), but the link's words are its claim."""
    if tok.type == "citation" and tok.meta.get("in_link"):
        return tok.copy(meta={**tok.meta, "in_link": False})
    return tok.copy()


def _text(content: str) -> Token:
    return Token("text", "", 0, content=content)


def _unmark(rendered: str, marks: str) -> tuple[str, list[tuple[int, int, int]]]:
    """``rendered`` without ``marks``, and for each citation: (claim start, or -1; label start;
    label end), in offsets of the text without them."""
    opened, label = marks[0], marks[1]
    spots: list[tuple[int, int, int]] = []
    start = at_label = -1
    for removed, m in enumerate(re.finditer(f"[{re.escape(marks)}]", rendered)):
        at = m.start() - removed
        if m.group() == opened:
            start = at
        elif m.group() == label:
            at_label = at
        else:
            spots.append((start, at_label, at))
            start = at_label = -1
    return re.sub(f"[{re.escape(marks)}]", "", rendered), spots


def _claim(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The claim's words between ``start`` and its label, without the blanks around them or the
    clause punctuation a previous citation left before them."""
    if start < 0:
        return None
    while start < end and text[start] in _LEAD:
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _quotes(text: str, places: Sequence[Placed]) -> list[tuple[int, int]]:
    """What each annotation quotes: its claim; for a citation right after another on its line
    (nothing but spaces between), the same claim; for one that closes no words (it opens its
    paragraph, cell or item), its own label, the one thing it stands beside."""
    out: list[tuple[int, int]] = []
    for k, pl in enumerate(places):
        at = pl.claim
        if at is None and k and not text[places[k - 1].label_end : pl.label_start].strip(" \t"):
            at = out[-1]
        out.append(at or (pl.label_start, pl.label_end))
    return out


def _text_selectors(text: str, start: int, end: int) -> list[dict[str, Any]]:
    return [
        {
            "type": "TextQuoteSelector",
            "exact": text[start:end],
            "prefix": text[max(0, start - CONTEXT_CHARS) : start],
            "suffix": text[end : end + CONTEXT_CHARS],
        },
        {"type": "TextPositionSelector", "start": start, "end": end},
    ]


def _bodies(uses: Sequence[RefUse]) -> list[dict[str, Any]]:
    """One body per passage cited (a source cited twice with the same lines counts once)."""
    out: list[dict[str, Any]] = []
    for use in uses:
        body = _body(use)
        if body not in out:
            out.append(body)
    return out


def _body(use: RefUse) -> dict[str, Any]:
    s = use.source
    url = _absolute_url(s.url)
    body: dict[str, Any] = {"type": "SpecificResource", "source": url or SOURCE_IRI + _iri_part(s.id)}
    if s.title and (title := remove_residue(s.title).strip()):
        body["label"] = title
    selectors = list(_line_selectors(s, use, rfc5147=url is None)) if use.reference.known else []
    if selectors:
        body["selector"] = selectors[0] if len(selectors) == 1 else selectors
    return body


def _line_selectors(s: Source, use: RefUse, *, rfc5147: bool) -> Iterator[dict[str, Any]]:
    """The cited lines as a quote (white space collapsed, the lines around as its prefix and
    suffix) and as fragments: ``L8-L13``, and RFC 5147's ``line=7,13`` for a source named by its
    id. Nothing for a locator the source does not have (CR102): never clamped to the last line."""
    if use.lines is None or not use.lines_valid or s.lines is None or not s.has_lines(use.lines):
        return
    low, high = use.lines.low, use.lines.high
    exact = _collapsed(s.lines[low - 1 : high])
    if exact:
        quote_selector = {"type": "TextQuoteSelector", "exact": exact}
        before, after = _collapsed(s.lines[max(0, low - 2) : low - 1]), _collapsed(s.lines[high : high + 1])
        if before:
            quote_selector["prefix"] = before[-CONTEXT_CHARS:] + " "
        if after:
            quote_selector["suffix"] = " " + after[:CONTEXT_CHARS]
        yield quote_selector
    yield {"type": "FragmentSelector", "value": line_locator(low, high)}
    if rfc5147 and high <= _single_lines(s):
        yield {"type": "FragmentSelector", "conformsTo": RFC5147, "value": f"line={low - 1},{high}"}


def _single_lines(s: Source) -> int:
    """How many of the source's first lines hold no line break (one would shift RFC 5147's line
    numbers after it); worked out once per source."""
    found = s.memo.get(_SINGLE_LINES)
    if found is None:
        assert s.lines is not None
        found = s.memo[_SINGLE_LINES] = next((k for k, line in enumerate(s.lines) if "\n" in line), len(s.lines))
    return int(found)


def _collapsed(lines: Sequence[str]) -> str:
    """Lines as one run of words: white space collapsed, marker forms removed."""
    return " ".join(remove_residue(" ".join(lines)).split())


def _absolute_url(url: str | None) -> str | None:
    """The source's URL as an absolute IRI, when the allow-list takes it (a relative or refused
    URL names nothing outside the page: the source is named by its id instead)."""
    safe = safe_url(url)
    if not safe or not safe.lower().startswith(("http://", "https://", "mailto:")):
        return None
    return _iri(safe, _URL_ASCII)


def _iri_part(value: str) -> str:
    """``value`` (an id) inside an IRI: as it is, but for what an IRI's path may not hold."""
    return _iri(remove_residue(value), _ID_ASCII) or "_"


def _iri(value: str, allowed: frozenset[str]) -> str:
    """``value`` with every character an IRI may not hold percent-encoded (UTF-8): spaces,
    controls, quotes, angle and curly brackets; letters of any script stay (an IRI, not a URI)."""
    return "".join(c if c in allowed or (c > "\x7f" and c.isprintable()) else quote(c, safe="") for c in value)


def _unique(iri: str, taken: set[str]) -> str:
    out, k = iri, 1
    while out in taken:
        k += 1
        out = f"{iri}-{k}"
    taken.add(out)
    return out


def to_annotations_data(p: Parsed) -> dict[str, Any]:
    """The collection: a JSON-LD document against :data:`ANNO_CONTEXT`, one annotation per citation
    in the order of the text; the first declares the answer's plain text, the rest name it."""
    text, places = placed(p)
    bodies = [_bodies(p.state.uses(pl.group)) for pl in places]
    digest = hashlib.sha256(json.dumps([text, bodies], ensure_ascii=False).encode()).hexdigest()[:32]
    answer = f"urn:citerender:answer:{digest}"
    collection = f"{answer}:annotations"
    declared: dict[str, Any] = {"id": answer, "type": "Text", "format": "text/plain", "value": text}
    taken: set[str] = set()
    items = [
        {
            "id": _unique(f"{collection}:{_iri_part(pl.group.meta.get('anchor') or 'cite')}", taken),
            "type": "Annotation",
            "motivation": MOTIVATION,
            "body": body[0] if len(body) == 1 else body,
            "target": {
                "type": "SpecificResource",
                "source": declared if k == 0 else answer,
                "selector": _text_selectors(text, *at),
            },
        }
        for k, (pl, body, at) in enumerate(zip(places, bodies, _quotes(text, places), strict=True))
    ]
    first = {"id": f"{collection}:page-1", "type": "AnnotationPage", "partOf": collection, "startIndex": 0}
    return {
        "@context": ANNO_CONTEXT,
        "id": collection,
        "type": "AnnotationCollection",
        "label": "Claims of an answer and the passages they cite",
        "generator": {"type": "Software", "name": "citerender"},
        "total": len(items),
        "first": {**first, "items": items},
    }


def to_annotations(p: Parsed) -> str:
    """The collection as JSON-LD text (``--to annotations``)."""
    return finish(p, json.dumps(to_annotations_data(p), ensure_ascii=False, indent=2) + "\n")
