"""The parsed answer as JSON for front ends (``schemas/answer.schema.json``), UTF-16 offsets included."""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ...plugin.bidi_guard import guarded
from ...plugin.state import Reference
from ...sources.pages import range_label
from ...sources.urls import safe_url
from ...syntax.marks import URL_CUT
from ...syntax.residue import remove_residue
from .markdown import guard_markdown
from .parsed import Parsed, finish, rewrite

__all__ = ["SCHEMA_PATH", "to_json", "to_json_data"]

SCHEMA_PATH = Path(__file__).resolve().parent.parent.parent / "schemas" / "answer.schema.json"


def _shifted(points: list[int], sign: int = 1) -> Callable[[int], int]:
    """Offsets moved by one for each of the sorted ``points`` before them (``sign``: on or back)."""
    return lambda x: x + sign * bisect_left(points, x)


def _utf16(text: str) -> Callable[[int], int]:
    """Code-point offsets to UTF-16 offsets (astral characters count twice)."""
    return _shifted([] if text.isascii() else [i for i, c in enumerate(text) if ord(c) > 0xFFFF])


def _input_offsets(raw: str) -> Callable[[int], int]:
    """Offsets in markdown-it's normalised text (CRLF as LF) back to the input as given."""
    return _shifted([m.start() - removed for removed, m in enumerate(re.finditer("\r\n", raw))])


def _drop_cuts(text: str) -> tuple[str, Callable[[int], int]]:
    """``text`` without the marks of cut URLs (``URL_CUT``), and offsets moved onto it."""
    cuts = [i for i, c in enumerate(text) if c == URL_CUT] if URL_CUT in text else []
    return text.replace(URL_CUT, ""), _shifted(cuts, -1)


def _through_escapes(before: str, after: str) -> Callable[[int], int]:
    """Offsets in ``before`` moved onto ``after``: ``before`` with the guard's backslashes inserted
    (an escaped link opener, bracket or bare scheme's colon). A citation stays before the escape
    of the character that follows it."""
    inserted: list[int] = []  # for each inserted character: the offset in ``before`` it precedes
    i, n = 0, len(before)
    if before == after:
        return _shifted(inserted)
    for ch in after:
        if i < n and before[i] == ch:
            i += 1
        else:
            inserted.append(i)
    return _shifted(inserted)


def _bibliography_json(refs: Sequence[Reference]) -> list[dict[str, Any]]:
    return [
        {
            "number": r.number,
            "id": r.source.id,
            "title": remove_residue(r.source.title) if r.source.title else r.source.title,
            "url": safe_url(r.source.url),
            "domain": r.source.domain,
            "updated": r.source.updated,
            "pages": r.source.pages,
            "verified": r.known,
            "also": [m.id for m in r.merged],
            "lines": [range_label(r.source, p.lines) for p in r.places if p.lines is not None],
        }
        for r in refs
    ]


def to_json_data(p: Parsed) -> dict[str, Any]:
    """The parsed answer for front ends (see ``schemas/answer.schema.json``)."""
    positions: dict[int, int] = {}
    # a citation in a block holding bidi controls: the text keeps its closers and marks, and the
    # citation's offset lies between them (where a front end puts it, nothing the model left open moves it)
    clean = finish(p, rewrite(p, lambda g: "".join(guarded(p.state, g)), positions=positions))
    escaped = guard_markdown(clean, allow_html=p.allow_html, keep_cuts=True)  # front ends render it as Markdown
    through = _through_escapes(clean, escaped)
    clean, uncut = _drop_cuts(escaped)

    def moved(at: int) -> int:
        return uncut(through(at))

    to_input = _input_offsets(p.input)
    u_in, u_clean = _utf16(p.input), _utf16(clean)
    citations = []
    for g in sorted(p.groups, key=lambda g: g.meta["spans"][0][0]):
        at = positions.get(id(g))
        if at is None:  # overlapped another mark: not placed, so not reported
            continue
        at += len(guarded(p.state, g)[0])
        start = to_input(g.meta["spans"][0][0])
        end = to_input(g.meta["spans"][-1][1])
        sources = [
            {
                "id": u.source.id,
                "number": u.reference.number,
                "locator": str(u.lines) if u.lines is not None else None,
                "lines": [u.lines.low, u.lines.high] if u.lines is not None and u.lines_valid else None,
                "verified": u.reference.known,
            }
            for u in p.state.uses(g)
        ]
        citations.append(
            {
                "anchor": g.meta["anchor"],
                "sources": sources,
                "input": {"start": start, "end": end, "start_utf16": u_in(start), "end_utf16": u_in(end)},
                "clean": {"offset": moved(at), "offset_utf16": u_clean(moved(at))},
                "markers": [{"start": to_input(a), "end": to_input(b)} for a, b in g.meta["spans"]],
                "dialects": sorted({m.citation.dialect for m in p.state.group_marks(g) if m.citation is not None}),
            }
        )
    data: dict[str, Any] = {
        "version": 1,
        "text": clean,
        "citations": citations,
        "bibliography": _bibliography_json(p.references),
        "consulted": _bibliography_json(p.state.consulted),
        "diagnostics": [d.to_dict() for d in p.diagnostics],
    }
    if p.evidence:
        data["claims"] = [c.to_dict() for c in p.state.claims]
    return data


def to_json(p: Parsed) -> str:
    return finish(p, json.dumps(to_json_data(p), ensure_ascii=False, indent=2) + "\n")  # JSON: no raw character
