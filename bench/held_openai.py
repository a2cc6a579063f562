"""What OpenAI-shaped recordings hold, read from their documented fields (see
:mod:`bench.corpus_held`): Responses (and xAI's, Azure's, Perplexity's Agent API, the Agents SDK
histories that keep Responses items), Chat Completions (OpenRouter's, Perplexity's numbered
citations, Mistral's reference chunks) and Assistants messages, each whole or as its stream."""

from __future__ import annotations

import re
from typing import Any

from bench.corpus_held import Held

_NUM = re.compile(r"\[(\d{1,3})\]")
_RUN = re.compile(r"(?:\[\d{1,3}\])+")


# --- Responses --------------------------------------------------------------------------------


def _final_response(events: list[Any]) -> dict[str, Any] | None:
    for e in reversed(events):
        r = e.get("response") if isinstance(e, dict) else None
        if isinstance(r, dict) and r.get("output"):
            return r
    return None


def _fold_stream(events: list[Any]) -> dict[str, Any]:
    """A stream without its final response: the items it completed, else its deltas."""
    done = [
        e["item"] for e in events if e.get("type") == "response.output_item.done" and isinstance(e.get("item"), dict)
    ]
    if any(i.get("type") == "message" for i in done):
        return {"output": done}
    text: dict[Any, str] = {}
    notes: dict[Any, list[Any]] = {}
    for e in events:
        key = (e.get("item_id"), e.get("content_index"))
        if e.get("type") == "response.output_text.delta":
            text[key] = text.get(key, "") + str(e.get("delta") or "")
        elif e.get("type") == "response.output_text.annotation.added":
            notes.setdefault(key, []).append(e.get("annotation"))
    parts = [{"type": "output_text", "text": t, "annotations": notes.get(k, [])} for k, t in text.items()]
    return {"output": [{"type": "message", "role": "assistant", "content": parts}]}


def responses(data: Any) -> Held:
    if isinstance(data, list):
        data = _final_response(data) or _fold_stream(data)
    h = Held("openai-responses")
    results = {}
    for item in data.get("output") or []:
        if item.get("type") == "search_results":  # Perplexity's Agent API: [n] names a result's id
            results.update({str(r.get("id")): r for r in item.get("results") or []})
    texts = []
    for item in data.get("output") or []:
        if item.get("type") != "message" or item.get("role", "assistant") != "assistant":
            continue
        texts.append(_message(item.get("content") or [], h, results))
    h.text = "\n\n".join(t for t in texts if t)
    return h


def _message(content: list[Any], h: Held, results: dict[str, Any]) -> str:
    out = []
    for part in content:
        if not isinstance(part, dict) or part.get("type") not in ("output_text", "text"):
            continue
        text = str(part.get("text") or "")
        notes = part.get("annotations") or (part.get("providerData") or {}).get("annotations") or []
        annotations(notes, h, len(out))
        text = without_link_spans(text, notes)
        if results:
            text = numbers(text, h, lambda n: results.get(n), len(out))
        out.append(text)
    return "\n\n".join(out)


_LINK = re.compile(r"\s*\(?\[{1,2}[^\]]*\]{1,2}\([^)\s]*\)\)?\s*")


def without_link_spans(text: str, notes: list[Any]) -> str:
    """The text without the links a citation's span covers (``([site](url))``, xAI's
    ``[[1]](url)``): they are the provider's own way of showing the citation."""
    spans = []
    for a in notes:
        inner = {**a, **a[a["type"]]} if isinstance(a.get(a.get("type")), dict) else a
        s, e = inner.get("start_index"), inner.get("end_index")
        if isinstance(s, int) and isinstance(e, int) and _LINK.fullmatch(text[s:e]):
            spans.append((s, e))
    for s, e in sorted(set(spans), reverse=True):
        text = text[:s] + " " + text[e:]
    return text


def _flat(a: dict[str, Any]) -> dict[str, Any]:
    kind = a.get("type")
    return {**a, **a[kind]} if isinstance(a.get(kind), dict) else a  # Chat's {"url_citation": {...}}


def annotations(notes: list[Any], h: Held, part: int) -> None:
    """Each annotation at the place its span ends; one starting where another ends (markers
    side by side, ``【4:2†a】【4:0†b】``) shares that one's place."""
    last: tuple[Any, Any] = (None, None)  # (end, place)
    for a in sorted(notes, key=lambda a: (_flat(a).get("start_index") or 0, _flat(a).get("end_index") or 0)):
        f = _flat(a)
        end = f.get("end_index", f.get("index"))
        place = last[1] if f.get("start_index") is not None and f.get("start_index") == last[0] else end
        annotation(a, h, part, place)
        last = (end, place)


def annotation(a: dict[str, Any], h: Held, part: int, place: Any = None) -> None:
    kind = a.get("type")
    inner = _flat(a)
    start, end = inner.get("start_index"), inner.get("end_index", inner.get("index"))
    placed = end is not None and not (end == 0 and not start)
    where = (part, end if place is None else place)
    if kind == "url_citation":
        h.cite(where, inner.get("url"), placed)
        h.url(inner.get("url"))
    elif kind in ("file_citation", "container_file_citation", "file_path"):
        name = inner.get("filename") or _marker_name(inner.get("text")) or _sandbox_name(inner.get("text"))
        name = name or inner.get("file_id")
        h.cite(where, name, placed)
        h.file(name)
    else:
        h.cite(where, str(a), placed)


def _sandbox_name(text: Any) -> str | None:
    """The file a code interpreter's ``sandbox:/mnt/data/NAME`` path names."""
    t = str(text or "")
    return t.rsplit("/", 1)[-1] or None if t.startswith("sandbox:") else None


def _marker_name(text: Any) -> str | None:
    """The file an Assistants marker names: 【4:0†handbook.pdf】 (never the word "source")."""
    m = re.fullmatch(r"【[^】†]*†([^】]+)】", str(text or ""))
    return m.group(1) if m and m.group(1) != "source" else None


def numbers(text: str, h: Held, lookup: Any, part: int) -> str:
    """``[n]`` in the text (a run of them, ``[2][1]``, is one place): a citation when
    ``lookup(n)`` gives its source; taken out of the text."""

    def run(m: re.Match[str]) -> str:
        kept = ""
        for n in _NUM.finditer(m.group(0)):
            src = lookup(n.group(1))
            if src is None:
                kept += n.group(0)
                continue
            h.cite((part, m.start()), n.group(1))
            h.url(src if isinstance(src, str) else src.get("url"))
        return kept

    return _RUN.sub(run, text)


# --- Chat Completions -------------------------------------------------------------------------


def chat(data: Any) -> Held:
    h = Held("openai-chat")
    text, notes, top = "", [], {}
    for c in data if isinstance(data, list) else [data]:
        top.update({k: c[k] for k in ("citations", "search_results") if c.get(k)})
        for choice in (c.get("choices") or [])[:1]:
            msg = choice.get("message") or choice.get("delta") or {}
            text = _chat_content(msg.get("content"), h, text)
            notes.extend(msg.get("annotations") or [])
            top.setdefault("docs", []).extend((msg.get("context") or {}).get("citations") or [])  # Azure
    annotations(notes, h, 0)
    text = without_link_spans(text, notes)
    listed = top.get("search_results") or top.get("citations")
    if listed:
        text = numbers(text, h, lambda n: _nth(listed, n), 0)
    if top.get("docs"):
        text = re.sub(r"\[doc(\d+)\]", lambda m: _doc(m, h, top["docs"]), text)
    h.text = text
    return h


def _chat_content(content: Any, h: Held, text: str) -> str:
    """The text so far with this message's (or delta's) content: a string, or Mistral's chunks
    (text, and references that cite where they stand)."""
    if isinstance(content, str):
        return text + content
    for chunk in content if isinstance(content, list) else []:
        if chunk.get("type") == "reference":
            h.cite(("ref", len(text)), chunk.get("reference_ids"))
        else:
            text += str(chunk.get("text") or "")
    return text


def _nth(items: list[Any], n: str) -> Any:
    i = int(n) - 1
    return items[i] if 0 <= i < len(items) else None


def _doc(m: re.Match[str], h: Held, docs: list[Any]) -> str:
    d = _nth(docs, m.group(1))
    if d is None:
        return m.group(0)
    h.cite(("doc", m.start()), m.group(1))
    h.url(d.get("url"))
    h.file(d.get("filepath") if not d.get("url") else None)
    return ""


# --- Assistants -------------------------------------------------------------------------------


def _file_names(data: Any, out: dict[str, str]) -> dict[str, str]:
    """file id -> file name, wherever the data pairs them (a run's file search results)."""
    if isinstance(data, dict):
        if isinstance(data.get("file_id"), str) and isinstance(data.get("file_name"), str):
            out[data["file_id"]] = data["file_name"]
        for v in data.values():
            _file_names(v, out)
    elif isinstance(data, list):
        for v in data:
            _file_names(v, out)
    return out


def assistants(data: Any) -> Held:
    names = _file_names(data, {})
    if isinstance(data, list):  # a run's events: the last completed message, else the deltas
        data = _assistants_stream(data)
    if data.get("object") == "list":
        msgs = [m for m in data.get("data") or [] if m.get("role") == "assistant"]
        data = msgs[0] if msgs else {}
    h = Held("openai-assistants")
    parts = [p.get("text") or {} for p in data.get("content") or [] if p.get("type") == "text"]
    h.text = "\n\n".join(_assistant_text(t, h, names, n) for n, t in enumerate(parts))
    return h


def _assistant_text(t: dict[str, Any], h: Held, names: dict[str, str], n: int) -> str:
    """A text part's annotations counted (a file named by its marker, else by the run's search
    results, else its id); its text without the markers its file citations replace."""
    value = str(t.get("value") or "")
    notes = []
    for a in t.get("annotations") or []:
        fc = a.get("file_citation") if isinstance(a.get("file_citation"), dict) else {}
        if fc.get("file_id") in names and not _marker_name(a.get("text")):
            a = {**a, "text": f"【†{names[fc['file_id']]}】"}
        notes.append(a)
    annotations(notes, h, n)
    for a in sorted(notes, key=lambda a: -(a.get("start_index") or 0)):
        if a.get("type") == "file_citation" and a.get("start_index") is not None:
            value = value[: a["start_index"]] + value[a["end_index"] :]
    return value


def _assistants_stream(events: list[Any]) -> dict[str, Any]:
    def payload(e: dict[str, Any]) -> tuple[str, Any]:
        if "event" in e and "data" in e:
            return str(e["event"]), e["data"]
        return str(e.get("object")), e

    done = [
        d
        for k, d in map(payload, events)
        if k in ("thread.message.completed", "thread.message") and d.get("status") == "completed"
    ]
    if done:
        return dict(done[-1])
    parts: dict[int, dict[str, Any]] = {}
    for k, d in map(payload, events):
        if k not in ("thread.message.delta",):
            continue
        for c in (d.get("delta") or {}).get("content") or []:
            p = parts.setdefault(c.get("index", 0), {"type": "text", "text": {"value": "", "annotations": []}})
            t = c.get("text") or {}
            p["text"]["value"] += str(t.get("value") or "")
            p["text"]["annotations"] += t.get("annotations") or []
    return {"content": [parts[i] for i in sorted(parts)]}


# --- Agents SDK histories: the last assistant message's Responses items -------------------------


def agents(data: Any) -> Held:
    items = data
    if isinstance(data, dict):  # a JS RunState: the generated items' raw items
        items = [g.get("rawItem") or g for g in data.get("generatedItems") or []]
    msgs = [
        i
        for i in items
        if isinstance(i, dict) and i.get("role") == "assistant" and i.get("type", "message") == "message"
    ]
    h = Held("openai-agents")
    h.text = _message(msgs[-1].get("content") or [], h, {}) if msgs else ""
    return h


READERS = {
    "openai-responses": responses,
    "openai-chat": chat,
    "openai-assistants": assistants,
    "openai-agents": agents,
}
