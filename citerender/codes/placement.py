"""Codes CR3xx: where a citation stands, from the guide's prompt rules."""

from __future__ import annotations

from .kinds import Code, Severity

ROWS = [
    Code(
        "CR301",
        "in-emphasis",
        Severity.WARNING,
        "a citation sits inside bold or italics",
        "move the citation after the emphasised text",
    ),
    Code(
        "CR302",
        "in-code",
        Severity.WARNING,
        "invisible marker characters inside a code span or code block were removed; the visible code is kept",
        "place citations outside code",
    ),
    Code(
        "CR303",
        "before-punctuation",
        Severity.WARNING,
        "a citation comes before punctuation",
        "put the citation after the punctuation mark",
    ),
    Code(
        "CR304",
        "on-fence-line",
        Severity.WARNING,
        "a citation is on the same line as a code fence",
        "put the citation on a line of its own text after the fence",
    ),
    Code(
        "CR305",
        "grouped-at-end",
        Severity.WARNING,
        "all citations are grouped at the end of the answer",
        "cite each claim where it is made",
    ),
    Code(
        "CR306",
        "citation-only-block",
        Severity.WARNING,
        "a line or paragraph holds nothing but citations",
        "attach citations to the sentence they support",
    ),
    Code(
        "CR307",
        "verbatim-id",
        Severity.WARNING,
        "a source id is written verbatim outside a marker",
        "wrap the id in a marker or remove it",
    ),
    Code(
        "CR308",
        "uncited-source",
        Severity.INFO,
        "a source in the registry is never cited",
        "no fix needed unless the source should support a claim",
    ),
    Code(
        "CR309",
        "in-link",
        Severity.WARNING,
        "a citation sits inside link text and is shown without its own link",
        "move the citation after the link",
    ),
    Code(
        "CR310",
        "shared-url",
        Severity.INFO,
        "two cited sources share a URL and were merged into one reference",
        "no fix needed",
    ),
    Code(
        "CR311",
        "in-raw-html",
        Severity.WARNING,
        "a marker inside raw HTML or a link destination was removed",
        "place citations in text",
    ),
    Code(
        "CR312",
        "bidi-control-open",
        Severity.WARNING,
        "the text before a citation left a bidirectional embedding, override or isolate (U+202A-U+202E, U+2066-U+2068) open: it was closed before the citation and opened again after it, so it cannot move the citation",
        "close each control in the sentence that opens it (U+202C, U+2069), or remove it",
    ),
]
