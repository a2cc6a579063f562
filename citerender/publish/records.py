"""One answer record in, one page record out: what an engine that spreads work over machines (Dask,
Ray, Spark, a queue) maps over an archive of answers. Plain, picklable data in and out, no state
kept between calls, and a bad record is reported in its result, never raised (a million-record job
must not stop at one). See ``docs/scale.md``; checking records is :mod:`citerender.evaluate.records`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import CiterenderError, failure_of
from ..options import RenderOptions
from ..rendering.html import render
from ..sources.model import registry_from_data

__all__ = ["render_record"]


def render_record(record: Mapping[str, Any], options: RenderOptions | None = None, **kwargs: Any) -> dict[str, Any]:
    """Render one record ``{"id", "answer", "sources"?, "title"?}`` (``sources`` as in a sources file;
    ``options`` or keyword arguments as for :func:`citerender.render`). Returns ``{"id", "html",
    "css", "errors", "warnings", "diagnostics", "failure"}``, ``failure`` ``None`` or why the record
    could not be rendered (``html`` is then empty)."""
    opts = RenderOptions.build(options, **kwargs)  # a wrong option is the caller's bug: raised, not recorded
    rid = record.get("id") if isinstance(record, Mapping) else None
    out: dict[str, Any] = {
        "id": rid,
        "html": "",
        "css": "",
        "errors": 0,
        "warnings": 0,
        "diagnostics": [],
        "failure": None,
    }
    try:
        if not isinstance(record, Mapping):
            raise CiterenderError(f"a record must be an object, not {type(record).__name__}")
        answer = record.get("answer")
        if not isinstance(answer, str):
            raise CiterenderError("the record has no 'answer' text", hint='give {"id": …, "answer": "…"}')
        data = record.get("sources")
        registry = None if data is None else registry_from_data(data, path=f"record {rid}")
        title = record.get("title")
        r = render(answer, registry, opts, title=title if isinstance(title, str) else None)
    except Exception as e:  # the record's problem, or a bug of ours: the rest of the archive is rendered
        out["failure"] = failure_of(e)
        return out
    out["html"], out["css"] = r.html, r.css
    out["diagnostics"] = [d.to_dict() for d in r.diagnostics]
    out["errors"] = sum(1 for d in r.diagnostics if d.severity.value == "error")
    out["warnings"] = sum(1 for d in r.diagnostics if d.severity.value == "warning")
    return out
