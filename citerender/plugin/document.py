"""The document table: what the plugin decided about one answer, as plain data in
``env["citerender"]`` (``json.dumps`` takes it as it stands).

The last rule of the chain writes it from the working :class:`~.state.CitationState`
(:func:`write_table`, appending what is new: a stream parses its blocks into one document);
:func:`read_table` builds the state back from it. Everything is addressed by number, id or index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..codes.kinds import Severity
from ..diagnostics import Diagnostic
from ..sources.model import Source
from ..syntax.escapes import OffsetMap
from ..syntax.types import Citation, LineRange, Mark, MarkKind
from .references import CitingPlace, Reference

if TYPE_CHECKING:
    from ..evidence.claims import Claim

__all__ = ["read_table", "write_table"]

#: the table's shape; bumped when it changes
VERSION = 1


def write_table(st: Any, table: dict[str, Any]) -> None:
    """Bring ``table`` up to date with ``st``: what only grows is appended, the rest rewritten."""
    table["version"] = VERSION
    sources: dict[str, dict[str, Any]] = table.setdefault("sources", {})
    table["references"] = _refs(st.references, table.get("references") or [], sources)
    table["consulted"] = _refs(st.consulted, table.get("consulted") or [], sources)
    marks: list[tuple[Any, ...]] = table.setdefault("marks", [])
    marks.extend(_mark_row(m) for m in st.mark_table[len(marks) :])
    diags: list[dict[str, Any]] = table.setdefault("diagnostics", [])
    diags.extend(_diagnostic_row(d) for d in st.diagnostics[len(diags) :])
    table["claims"] = [c.to_dict() for c in st.claims]
    table.update(
        places=st.places,
        mark_count=st.marks,
        whole_document=st.whole_document,
        unknown_ids=st.unknown_ids,
        id_prefix=st.id_prefix,
        without_sources_reported=st.without_sources_reported,
        original=st.original,
        offsets=[list(st.offsets.breaks), list(st.offsets.shifts)],
        spans=st.spans,
        code=st.code,
        blocks=st.blocks,
    )


def read_table(st: Any, table: Mapping[str, Any]) -> None:
    """Fill a new working state (:class:`~.state.CitationState`) from ``table``."""
    rows = table.get("sources") or {}
    known: dict[str, Source] = {}

    def source(sid: str) -> Source:
        found = known.get(sid)
        if found is None:
            found = known[sid] = _source(rows.get(sid) or {"id": sid})
        return found

    st.references = [_reference(r, source) for r in table.get("references") or ()]
    st.consulted = [_reference(r, source) for r in table.get("consulted") or ()]
    for ref in st.references:
        for s in (ref.source, *ref.merged):
            st.by_id[s.id] = ref
            if s.url:
                st.by_url.setdefault(s.url, ref)
    st.mark_table = [_mark(r) for r in table.get("marks") or ()]
    st.diagnostics = [_diagnostic(r) for r in table.get("diagnostics") or ()]
    st.claims = [_claim(r) for r in table.get("claims") or ()]
    breaks, shifts = table.get("offsets") or ([], [])
    st.begin(table.get("original", ""), OffsetMap(tuple(breaks), tuple(shifts)))
    st.places, st.marks = table.get("places", 0), table.get("mark_count", 0)
    st.whole_document = table.get("whole_document", True)
    st.unknown_ids = list(table.get("unknown_ids") or ())
    st.id_prefix = table.get("id_prefix", "")
    st.without_sources_reported = table.get("without_sources_reported", False)
    st.spans = table.get("spans")
    st.code = list(table.get("code") or ())
    st.blocks = [tuple(b) for b in table.get("blocks") or ()]


# ---------------------------------------------------------------------- rows and back


def _refs(
    refs: list[Reference], rows: list[dict[str, Any]], sources: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """The rows of ``refs``: an existing row keeps its places and gets the new ones."""
    out = rows[: len(refs)]
    for i, ref in enumerate(refs):
        for s in (ref.source, *ref.merged):
            if s.id not in sources:
                sources[s.id] = _source_row(s)
        if i == len(out):
            out.append({"number": ref.number, "places": []})
        row = out[i]
        places: list[Any] = row["places"]
        own = ref.source.id
        if ref.merged:  # a place citing a source merged into the reference says which
            places.extend(_place_row(p, own) for p in ref.places[len(places) :])
        else:
            places.extend([p.anchor, _lines(p.lines)] for p in ref.places[len(places) :])
        row.update(
            source=own,
            known=ref.known,
            merged=[s.id for s in ref.merged],
            prefix=ref.prefix,
            unverified=ref.unverified,
            views=ref.views,
        )
    return out


def _place_row(p: CitingPlace, own: str) -> list[Any]:
    """A place's row: ``[anchor, lines]``, and the id of a merged source it cites."""
    row = [p.anchor, _lines(p.lines)]
    if p.source and p.source != own:
        row.append(p.source)
    return row


def _reference(row: Mapping[str, Any], source: Any) -> Reference:
    own = row["source"]
    places = [
        CitingPlace(p[0], LineRange(*p[1]) if p[1] else None, p[2] if len(p) > 2 else own)
        for p in row.get("places") or ()
    ]
    return Reference(
        row["number"],
        source(own),
        row.get("known", True),
        [source(s) for s in row.get("merged") or ()],
        places,
        row.get("prefix", ""),
        row.get("unverified", "not in the sources"),
        row.get("views", "off"),
    )


def _lines(lines: LineRange | None) -> list[int] | None:
    return [lines.first, lines.last] if lines is not None else None


def _source_row(s: Source) -> dict[str, Any]:
    """A source's row (written every render: a literal, not a walk over field names)."""
    return {
        "id": s.id,
        "title": s.title,
        "url": s.url,
        "updated": s.updated,
        "lines": s.lines,  # a tuple of strings (JSON writes it as a list): shared, not copied
        "text": s.text,
        "meta": dict(s.meta),
        "line_anchors": s.line_anchors,
        "cleaned": list(s.cleaned),
    }


def _source(row: Mapping[str, Any]) -> Source:
    lines = row.get("lines")
    return Source(
        id=row["id"],
        title=row.get("title"),
        url=row.get("url"),
        updated=row.get("updated"),
        lines=tuple(lines) if lines is not None else None,
        text=row.get("text"),
        meta=dict(row.get("meta") or {}),
        line_anchors=bool(row.get("line_anchors")),
        cleaned=tuple(row.get("cleaned") or ()),
    )


#: a kind's value, a plain string (``.value`` is a property call per mark)
_KIND_VALUE = {kind: kind.value for kind in MarkKind}


def _mark_row(m: Mark) -> tuple[Any, ...]:
    """A mark's fields in order, its citation's as a tuple too (a row per marker: the cheapest)."""
    c = m.citation
    cit = None
    if c is not None:
        lines = (c.lines.first, c.lines.last) if c.lines is not None else None
        cit = (c.raw, c.family, c.source_ids, c.locator, c.start, c.end, lines, c.dialect, c.title)
    return (_KIND_VALUE[m.kind], m.start, m.end, m.raw, cit, m.text, m.notes)


def _mark(row: Sequence[Any]) -> Mark:
    kind, start, end, raw, c, text, notes = row
    cit = None
    if c is not None:
        craw, family, ids, locator, cstart, cend, lines, dialect, title = c
        rng = LineRange(*lines) if lines else None
        cit = Citation(craw, family, tuple(ids), locator, cstart, cend, rng, dialect, title)
    return Mark(MarkKind(kind), start, end, raw, cit, text, tuple((a, b) for a, b in notes))


def _diagnostic_row(d: Diagnostic) -> dict[str, Any]:
    return {
        "code": d.code,
        "severity": str(d.severity),
        "message": d.message,
        "line": d.line,
        "column": d.column,
        "hint": d.hint,
    }


def _diagnostic(row: Mapping[str, Any]) -> Diagnostic:
    return Diagnostic(row["code"], Severity(row["severity"]), row["message"], row["line"], row["column"], row["hint"])


def _claim(row: Mapping[str, Any]) -> Claim:
    from ..evidence.claims import Claim, Evidence  # only a document checked with evidence has claims

    evidence = [
        Evidence(e["source"], e["number"], tuple(e["lines"]) if e.get("lines") else None, e.get("text", ""))
        for e in row.get("evidence") or ()
    ]
    return Claim(
        row["claim"],
        row["line"],
        row["column"],
        row["anchor"],
        evidence,
        row.get("verdict", "unchecked"),
        list(row.get("reasons") or ()),
        list(row.get("codes") or ()),
        row.get("score"),
    )
