"""Google Gemini's Interactions API (``/v1beta/interactions``, reference of 2026-05): ``steps[]``
(``outputs[]`` in the first beta) whose ``model_output`` text items carry ``url_citation``,
``file_citation`` and ``place_citation`` annotations (UTF-8 offsets; another type: CR507). Search
and URL-context results are consulted (one not read: CR511), their Search Suggestions shown after
the answer; a stream folds into the interaction, an unfinished ``status`` is CR514."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .common import Builder, as_list, insert_edits, no_span, unknown_annotation, web_url
from .offsets import SpanReader
from .search_suggestions import after_answer, paragraph
from .stops import cut_off

__all__ = ["collect_events", "interaction"]

#: an interaction's ``status`` that leaves its answer unfinished (``incomplete``: the token limit)
_UNFINISHED = frozenset({"incomplete", "budget_exceeded", "failed", "cancelled", "in_progress"})


def _steps(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    steps = data.get("steps") if isinstance(data.get("steps"), list) else data.get("outputs")
    return [s for s in steps or [] if isinstance(s, Mapping)]


def _texts(step: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A step's text items (the first beta's ``outputs`` listed them bare)."""
    if step.get("type") == "text":
        return [step]
    if step.get("type") != "model_output":
        return []
    return [c for c in step.get("content") or [] if isinstance(c, Mapping) and c.get("type") == "text"]


def _page(a: Mapping[str, Any], b: Builder) -> str | None:
    """A web page (its title is the site's domain when it looks like one)."""
    title, url = a.get("title"), a.get("url")
    if not isinstance(url, str):
        return None
    meta = {"domain": title.strip()} if isinstance(title, str) and "." in title and " " not in title else {}
    return b.source(f"url:{url}", "search", title=title, url=url, meta=meta)


def _file(a: Mapping[str, Any], b: Builder) -> str:
    """A File Search document, its page kept for the card's "page N" and the ``#page=N`` link."""
    uri, name = a.get("document_uri"), a.get("file_name")
    key = f"file:{uri or name or a.get('media_id') or a.get('source')}"
    meta = {k: a[k] for k in ("page_number", "media_id", "custom_metadata") if a.get(k) is not None}
    if isinstance(a.get("page_number"), int):
        meta["page"] = a["page_number"]
    return b.source(key, "file", title=name or uri, url=web_url(uri), meta=meta)


def _place(a: Mapping[str, Any], b: Builder) -> str:
    """A Google Maps place, its review snippets as its text."""
    reviews = [r.get("text") or r.get("review") for r in a.get("review_snippets") or [] if isinstance(r, Mapping)]
    snippet = " ".join(r for r in reviews if isinstance(r, str)) or None
    key = f"place:{a.get('place_id') or a.get('url') or a.get('name')}"
    return b.source(key, "search", title=a.get("name"), url=a.get("url"), text=snippet, meta={"kind": "place"})


#: the annotation types read here, by their reader (the rest: CR507)
_READ: dict[str, Callable[[Mapping[str, Any], Builder], str | None]] = {
    "url_citation": _page,
    "file_citation": _file,
    "place_citation": _place,
}


def interaction(data: Mapping[str, Any], b: Builder) -> list[str]:
    parts: list[str] = []
    for step in _steps(data):
        for item in _texts(step):
            text = str(item.get("text") or "")
            reader = SpanReader(text, "utf8")
            edits: list[tuple[int, int, str]] = []
            for a in item.get("annotations") or []:
                if not isinstance(a, Mapping):
                    continue
                read = _READ.get(str(a.get("type")))
                sid = read(a, b) if read else None
                marker = b.marker(sid) if sid else unknown_annotation(str(a.get("type")), a, b)
                if marker is None:
                    continue
                start, end = a.get("start_index"), a.get("end_index")
                if no_span(start, end):
                    if sid:
                        b.unplaced(sid)
                    continue
                at = b.place(reader, start, end)
                edits.append((at, at, marker))
            parts.append(insert_edits(text, edits))
    for step in _steps(data):
        _consulted(step, b)
    answer = "".join(parts)
    shown = _suggestions(data, b)
    cut_off(b, "status", data.get("status"), _UNFINISHED)
    return [answer + after_answer(answer, shown)] if parts or shown else []


def _suggestions(data: Mapping[str, Any], b: Builder) -> str:
    """The Search Suggestions the search results carry, their calls' queries for a widget without chips."""
    snippets: list[str] = []
    queries: list[Any] = []
    for step in _steps(data):
        if step.get("type") == "google_search_call" and isinstance(step.get("arguments"), Mapping):
            queries.extend(as_list(step["arguments"].get("queries")))
        for r in _results(step) if step.get("type") == "google_search_result" else []:
            html = r.get("search_suggestions")
            if isinstance(html, str) and html.strip():
                snippets.append(html)
    return paragraph(list(dict.fromkeys(snippets)), queries, b) if snippets else ""


def _results(step: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A result step's results (one, or a list)."""
    results = step.get("result")
    return [r for r in as_list(results) or [results] if isinstance(r, Mapping)]


def _consulted(step: Mapping[str, Any], b: Builder) -> None:
    """The pages a search or URL-context step returned, as sources; a page not retrieved, CR511."""
    kind = step.get("type")
    if kind not in ("google_search_result", "url_context_result"):
        return
    for r in _results(step):
        if not isinstance(r.get("url"), str):
            continue  # the search widget's HTML (search_suggestions): shown after the answer, not a source
        status = str(r.get("status") or "success").lower()
        if kind == "url_context_result" and status != "success":
            b.note(("CR511", f"URL context could not read {r['url'][:200]} ({status[:40]})"))
            continue
        b.source(f"url:{r['url']}", "search", title=r.get("title"), url=r["url"])


def collect_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold a stream of interaction events into the interaction."""
    steps: dict[int, dict[str, Any]] = {}
    out: dict[str, Any] = {"object": "interaction"}
    for e in events:
        kind = e.get("event_type")
        raw = e.get("index")
        index = raw if isinstance(raw, int) else -1
        if kind in ("interaction.created", "interaction.completed") and isinstance(e.get("interaction"), Mapping):
            out.update({k: v for k, v in e["interaction"].items() if k != "steps"})
        elif kind == "interaction.status_update" and isinstance(e.get("status"), str):
            out["status"] = e["status"]  # how it stands (``incomplete`` when the token limit cut it)
        elif kind == "step.start" and isinstance(e.get("step"), Mapping):
            steps[index] = dict(e["step"])
        elif kind == "step.delta" and isinstance(e.get("delta"), Mapping):
            _apply(steps.setdefault(index, {"type": "model_output"}), e["delta"])
    out["steps"] = [steps[k] for k in sorted(steps)]
    return out


def _apply(step: dict[str, Any], delta: Mapping[str, Any]) -> None:
    kind = delta.get("type")
    if kind in ("text", "text_annotation_delta", "text_annotation"):
        content = step.setdefault("content", [])
        if not content or content[-1].get("type") != "text":
            content.append({"type": "text", "text": "", "annotations": []})
        item = content[-1]
        item["text"] += str(delta.get("text") or "")
        item.setdefault("annotations", []).extend(a for a in delta.get("annotations") or [] if isinstance(a, Mapping))
    elif kind in ("google_search_result", "url_context_result"):
        step["type"] = kind
        step["result"] = delta.get("result")
