"""One answer record in, one result out: the per-record check of a dataset, run by
``check-dataset`` or mapped by an engine (Dask, Ray, Spark; see ``docs/scale.md``). Plain,
picklable data in and out; a bad record is never an exception, its result's ``failure`` says why.
Rendering records is :mod:`citerender.publish.records`."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

from ..diagnostics import Diagnostic
from ..errors import CiterenderError, failure_of
from ..options import RenderOptions
from ..rendering.html import render
from ..sources.model import Registry, registry_from_data

__all__ = ["answer_of", "check_line", "check_record", "check_row", "empty_result", "render_checked"]


def check_record(
    record: Mapping[str, Any],
    options: RenderOptions | None = None,
    *,
    id_col: str = "id",
    answer_col: str = "answer",
    sources_col: str = "sources",
    **kwargs: Any,
) -> dict[str, Any]:
    """Check one record: ``{"id", "answer" | a provider response, "sources"?, other columns}``.

    The answer is Markdown with markers, or a saved provider response (an object, events, or their
    JSON text). Returns ``{"id", "columns", "diagnostics", "claims", "metrics", "failure"}``: the
    other columns as given, what ``check`` says of the answer, a row per claim and the answer's
    counts and rates (:mod:`.metrics`). ``options`` (``scorer=`` …) as for :func:`citerender.check`."""
    from ..model.check import check_with_reports
    from .metrics import answer_metrics, claim_rows

    opts = RenderOptions.build(options, **kwargs)
    ok = isinstance(record, Mapping)
    out = empty_result(record.get(id_col) if ok else None)
    if ok:
        out["columns"] = {k: v for k, v in record.items() if k not in (id_col, answer_col, sources_col)}
    try:
        if not ok:
            raise CiterenderError(f"a record must be an object, not {type(record).__name__}")
        text, registry, notes = answer_of(record, answer_col, sources_col, out["id"])
        diagnostics, quality, support = check_with_reports(text, registry, opts)
        found = [*notes, *diagnostics]
        out["diagnostics"] = [d.to_dict() for d in found]
        out["claims"] = claim_rows(text, support.claims, opts.scorer)
        out["metrics"] = answer_metrics(out["claims"], quality.to_dict(), (d.code for d in found))
    except Exception as e:  # a bug of ours must not cost the rest of the dataset its results
        out["failure"] = failure_of(e)
    return out


def check_line(
    line: str | bytes,
    options: RenderOptions | None = None,
    *,
    id_col: str = "id",
    answer_col: str = "answer",
    sources_col: str = "sources",
    **kwargs: Any,
) -> dict[str, Any]:
    """:func:`check_row` of one JSON Lines line, read as ``check-dataset`` reads it; a line that is
    not a JSON object is that record's failure. (A blank line is no record: the caller skips it.)"""
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
        item = json.loads(text.removeprefix("\ufeff").rstrip("\r\n"))  # with or without its line end
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
        return empty_result(None, f"invalid JSON ({str(e)[:80]})")
    if not isinstance(item, dict):
        return empty_result(None, "not an object")
    return check_row(item, options, id_col=id_col, answer_col=answer_col, sources_col=sources_col, **kwargs)


def check_row(
    row: Mapping[str, Any],
    options: RenderOptions | None = None,
    *,
    id_col: str = "id",
    answer_col: str = "answer",
    sources_col: str = "sources",
    **kwargs: Any,
) -> dict[str, Any]:
    """:func:`check_record` of a table's row as ``check-dataset`` reads it (values made
    :func:`~citerender.evaluate.datasets.plain`, the id as text): the result ``check-dataset``
    writes, less its ``row`` number. Spark: ``check_row(row.asDict(recursive=True))``."""
    from .datasets import plain

    try:
        record = plain(row)
    except CiterenderError as e:  # too deep: the id kept when it is plain
        rid = row.get(id_col)
        return empty_result(str(rid) if isinstance(rid, str | int) and not isinstance(rid, bool) else None, e.message)
    result = check_record(record, options, id_col=id_col, answer_col=answer_col, sources_col=sources_col, **kwargs)
    rid = record.get(id_col)
    result["id"] = None if rid is None or rid == "" else str(rid)  # as check-dataset names it
    return result


def empty_result(rid: object, failure: str | None = None) -> dict[str, Any]:
    """A result with nothing checked (yet): a failed record's, with why."""
    return {"id": rid, "columns": {}, "diagnostics": [], "claims": [], "metrics": {}, "failure": failure}


def render_checked(
    record: Mapping[str, Any],
    options: RenderOptions | None = None,
    *,
    id_col: str = "id",
    answer_col: str = "answer",
    sources_col: str = "sources",
    **kwargs: Any,
) -> dict[str, Any]:
    """The page of the very answer :func:`check_record` checked with the same columns (the report's
    worst answers): ``{"id", "html", "css", "failure"}``, never raising for a bad record."""
    opts = RenderOptions.build(options, **kwargs)
    rid = record.get(id_col)
    out: dict[str, Any] = {"id": rid, "html": "", "css": "", "failure": None}
    try:
        text, registry, _ = answer_of(record, answer_col, sources_col, rid)
        title = record.get("title")
        r = render(text, registry, opts, title=title if isinstance(title, str) else None)
    except Exception as e:  # a bug of ours must not cost the report its other pages
        out["failure"] = failure_of(e)
    else:
        out["html"], out["css"] = r.html, r.css
    return out


def answer_of(
    record: Mapping[str, Any], answer_col: str, sources_col: str, rid: object
) -> tuple[str, Registry | None, list[Diagnostic]]:
    """The answer's Markdown, its registry and what the adapter noted: a provider response is
    adapted, its sources column (if any) supplying what its citations name by id."""
    answer = record.get(answer_col)
    data = record.get(sources_col)
    where = f"record {str(rid)[:80]}"
    registry = None if data is None else registry_from_data(_json(data, where), path=where)
    if isinstance(answer, str) and answer.lstrip()[:1] in ("{", "["):
        with contextlib.suppress(ValueError):  # else Markdown that opens with a bracket
            answer = json.loads(answer)  # a response saved as text in a table column
    if isinstance(answer, Mapping | list):
        from ..providers import adapt

        adapted = adapt(answer, sources=registry)
        return adapted.text, adapted.registry, [Diagnostic.make(c, m) for c, m in adapted.notes]
    if not isinstance(answer, str):
        raise CiterenderError(
            f"the record has no {answer_col!r} text or response", hint="name the column with --answer-col"
        )
    return answer, registry, []


def _json(data: Any, where: str) -> Any:
    """Sources as a table column may hold JSON text."""
    if isinstance(data, str):
        try:
            return json.loads(data)
        except ValueError:
            raise CiterenderError("the sources column is not JSON", path=where) from None
    return data
