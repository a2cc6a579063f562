"""OpenAI's Assistants API (and Azure's): a ``thread.message``, a page of a thread's messages
(``{"object": "list", "data": […], "has_more"}``, newest first), or a run's stream of events folded
into such a page (:func:`collect_events`). A text part's annotations name the words they replace: a
file search's ``【4:0†handbook.pdf】`` (``file_citation``), a web search's ``【3:0†source】``
(``url_citation``), a code interpreter's ``sandbox:`` link (``file_path``, :mod:`.openai_files`);
those words are removed and the citation put after the sentence's closing punctuation.
(`Messages <https://platform.openai.com/docs/api-reference/messages>`_, `streaming events
<https://platform.openai.com/docs/api-reference/assistants-streaming/events>`_.)"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from ..syntax.escapes import printable
from .common import Builder, as_list, as_map, insert_edits, unknown_annotation, url_source, web_url, whole
from .offsets import SpanReader, Spans, after_last_word
from .openai_files import cited_name, loose_sandbox_links, named_file, output_file, unlinked

__all__ = ["collect_events", "message"]

Edit = tuple[int, int, str]
#: an Assistants file search marker: ``【4:0†handbook.pdf】``, the older ``【8†source】``
_MARKER = re.compile(r"\u3010\d{1,4}(?::\d{1,4}\u2020[^\u3010\u3011\u2020\n]{1,400}|\u2020source)\u3011")
_UNFINISHED = ("failed", "cancelled", "expired", "incomplete", "requires_action")


def message(data: Mapping[str, Any], b: Builder) -> list[str]:
    """The text parts of a message, or of the newest answer on a page of a thread's messages."""
    names = _run_steps(as_list(data.get("run_steps")), b)
    for run in as_list(data.get("runs")):
        _unfinished(as_map(run), "run", b)
    page = data.get("object") != "thread.message" and isinstance(data.get("data"), list)
    parts: list[str] = []
    for msg in _answer(data, b) if page else [data]:
        _unfinished(msg, "message", b)
        parts += [_part(p, b, names) for p in as_list(msg.get("content")) if isinstance(p, Mapping)]
    return [p for p in parts if p]


def _answer(page: Mapping[str, Any], b: Builder) -> list[Mapping[str, Any]]:
    """The newest answer on a page (the assistant's messages after the newest user message, or the
    newest run of them), oldest first; the rest is counted (CR512)."""
    data = [m for m in page["data"] if isinstance(m, Mapping)]
    msgs = _chronological(data)
    users = [i for i, m in enumerate(msgs) if m.get("role") == "user"]
    answer = [m for m in msgs[users[-1] + 1 if users else 0 :] if m.get("role") != "user"]
    if not answer:  # the newest message is a question: the answer before it
        last = max((i for i, m in enumerate(msgs) if m.get("role") != "user"), default=-1)
        first = last
        while first > 0 and msgs[first - 1].get("role") != "user":
            first -= 1
        answer = msgs[first : last + 1] if last >= 0 else []
    left = len(msgs) - len(answer)
    if left:
        b.note(("CR512", f"the page of thread messages holds {left} other message(s) (earlier turns): only its newest "
                         "answer is shown"))  # fmt: skip
    ascending = bool(data) and len(msgs) > 1 and data[0] is msgs[0]  # listed oldest first (order=asc)
    if page.get("has_more") is True and ascending:
        b.note(("CR512", "the page of thread messages has more after it (has_more, oldest first): newer messages "
                         "than those shown may exist"))  # fmt: skip
    return answer


def _chronological(msgs: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The messages oldest first: a page is newest first unless its ``created_at`` say otherwise."""
    times = [whole(m.get("created_at")) for m in msgs]
    if None in times or len(msgs) < 2:
        return msgs[::-1]
    known = [t for t in times if t is not None]
    if all(x <= y for x, y in pairwise(known)) and known[0] != known[-1]:
        return msgs
    order = sorted(range(len(msgs)), key=lambda i: (known[i], -i))  # equal times: the page's newest-first order
    return [msgs[i] for i in order]


def _unfinished(obj: Mapping[str, Any], what: str, b: Builder) -> None:
    """A message or run that did not finish: its text is shown as far as it came (CR514)."""
    status = obj.get("status")
    if status not in (*_UNFINISHED, "in_progress"):
        return
    why = as_map(obj.get("last_error")).get("message") or as_map(obj.get("incomplete_details")).get("reason") or ""
    ident = str(obj.get("id") or "")[:80]
    how = "the stream ends before it completed" if status == "in_progress" else f"it is {status}"
    b.note(("CR514", f"{what} {ident} was not finished ({how}{': ' + str(why)[:160] if why else ''}): "
                     "shown as far as it came"))  # fmt: skip


def _run_steps(steps: Sequence[Any], b: Builder) -> dict[str, str]:
    """The names, by file id, of the files a run's file searches found, each a source (consulted
    unless cited)."""
    names: dict[str, str] = {}
    for step in steps:
        for call in as_list(as_map(as_map(step).get("step_details")).get("tool_calls")):
            for result in as_list(as_map(as_map(call).get("file_search")).get("results")):
                fid, name = as_map(result).get("file_id"), as_map(result).get("file_name")
                if isinstance(fid, str) and isinstance(name, str) and name.strip():
                    names.setdefault(fid, name.strip())
                if isinstance(fid, str):
                    named_file(b, fid, name)
    return names


def _part(part: Mapping[str, Any], b: Builder, names: Mapping[str, str]) -> str:
    """One content part as Markdown with markers (an image the page cannot show: ``[image]``, cited)."""
    kind = part.get("type")
    if kind == "text":
        t = part.get("text")
        return _text(t, b, names) if isinstance(t, Mapping) else str(t or "")
    if kind == "refusal":
        return str(part.get("refusal") or "")
    if kind == "image_file":
        fid = as_map(part.get("image_file")).get("file_id")
        sid = named_file(b, fid, None, kind="image")
        unlinked(b, sid, "an image the assistant made")
        return "[image]" + b.marker(sid)
    if kind == "image_url" and (url := web_url(as_map(part.get("image_url")).get("url"))):
        return "[image]" + b.marker(url_source({"url": url}, b))
    b.note(("CR507", f"a message part of type {printable(str(kind), 60)} is not read by citerender: not shown"))
    return ""


def _text(t: Mapping[str, Any], b: Builder, names: Mapping[str, str]) -> str:
    """A text part: each annotation's words replaced by its citation (or a file's label)."""
    text = str(t.get("value") or "")
    reader = SpanReader(text)
    cites: list[Edit] = []  # (start, end, marker): words a citation replaces
    edits: list[Edit] = []
    for a in as_list(t.get("annotations")):
        if not isinstance(a, Mapping):
            continue
        kind = a.get("type") or ("url_citation" if isinstance(a.get("url_citation"), Mapping) else "untyped")
        if kind in ("file_path", "container_file_citation"):
            edits += output_file(text, a, b, reader)
            continue
        if kind == "file_citation":
            marker = _file_citation(a, b, names)
        elif kind == "url_citation":
            marker = _url_citation(a, b)
        else:
            marker = unknown_annotation(str(kind), a, b) or ""
        span = _span(text, a, b)
        if span is not None:
            cites.append((*span, marker))
        elif marker:
            at = b.place(reader, a.get("start_index"), a.get("end_index"))
            edits.append((at, at, marker))
    edits += _replaced(text, cites + _unannotated(text, cites, b))
    return insert_edits(text, edits + loose_sandbox_links(text, edits, b))


def _unannotated(text: str, cites: list[Edit], b: Builder) -> list[Edit]:
    """File search markers no annotation names, each reported: one naming a file cites it, a
    ``source`` one is removed."""
    out: list[Edit] = []
    annotated = Spans([(s, e) for s, e, _ in cites])
    for m in _MARKER.finditer(text) if "\u3010" in text else ():
        if annotated.overlaps(m.start(), m.end()):
            continue
        name = cited_name(m.group(0))
        marker = b.marker(named_file(b, None, name)) if name else ""
        how = f"cited as the file {printable(name, 80)}" if name else "removed: it names no file"
        b.note(("CR505", f"the file search marker {printable(m.group(0), 60)} has no annotation: {how}"))
        out.append((m.start(), m.end(), marker))
    return out


def _file_citation(a: Mapping[str, Any], b: Builder, names: Mapping[str, str]) -> str:
    """The citation of a file search's file, named by the annotation, its marker or the run's results."""
    fc = as_map(a.get("file_citation"))
    fid = fc.get("file_id") if isinstance(fc.get("file_id"), str) and fc["file_id"].strip() else None
    given = next((v for k in ("file_name", "filename") if isinstance(v := fc.get(k), str) and v.strip()), None)
    name = given or cited_name(a.get("text")) or (names.get(fid) if fid else None)
    if fid is None and name is None:
        b.note(("CR505", "a file_citation names no file (no file_id, no file name): its marker was removed"))
        return ""
    sid = named_file(b, fid, name)
    quote = fc.get("quote")
    return b.marker(sid, b.add_line(sid, quote) if isinstance(quote, str) and quote.strip() else None)


def _url_citation(a: Mapping[str, Any], b: Builder) -> str:
    """The citation of a web page (Azure's Bing grounding: ``url_citation`` with ``url``, ``title``)."""
    uc = as_map(a.get("url_citation"))
    if not web_url(uc.get("url")):
        b.note(("CR505", "a url_citation without a web URL: its marker was removed"))
        return ""
    return b.marker(url_source(uc, b))


def _span(text: str, a: Mapping[str, Any], b: Builder) -> tuple[int, int] | None:
    """The words an annotation replaces: its span when it reads as its ``text`` (or has none), else
    where that text is (CR503)."""
    start, end, want = whole(a.get("start_index")), whole(a.get("end_index")), a.get("text")
    want = want if isinstance(want, str) else ""
    if start is not None and end is not None and 0 <= start < end <= len(text):
        if not want or text[start:end] == want:
            return start, end
    elif not want:
        return None
    near = text.find(want, max(0, (start or 0) - 2 * len(want)))
    found = near if near != -1 else text.find(want)
    if found == -1:
        return None
    b.note(("CR503", f"span {start}–{end} did not read as its text {printable(want, 40)}: placed where that text is"))
    return found, found + len(want)


def _replaced(text: str, cites: list[Edit]) -> list[Edit]:
    """Edits removing each run of adjacent markers (and the spaces before it), their citations put
    after its closing punctuation (``week【4:0†a.pdf】,`` → ``week,[1]``)."""
    runs: list[tuple[int, int, list[str]]] = []
    for s, e, marker in sorted(cites):
        if runs and (s <= runs[-1][1] or not text[runs[-1][1] : s].strip()):
            runs[-1] = (runs[-1][0], max(runs[-1][1], e), [*runs[-1][2], marker])
        else:
            runs.append((s, e, [marker]))
    edits: list[Edit] = []
    for s, e, markers in runs:
        start = s
        while start > 0 and text[start - 1] in " \t":
            start -= 1
        at = after_last_word(text, e)
        edits.append((start, e, ""))
        if any(markers):
            edits.append((at, at, "".join(dict.fromkeys(m for m in markers if m))))
    return edits


def collect_events(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fold a run's events (or the SDKs' ``{"event", "data"}``) into a page of the messages it made,
    newest first, with its runs and run steps (a message that never completed: its deltas joined)."""
    msgs: dict[str, dict[str, Any]] = {}
    folds: dict[str, _Fold] = {}  # the messages deltas are building
    steps: dict[str, Any] = {}
    runs: dict[str, Any] = {}
    for n, item in enumerate(events):
        e = item["data"] if isinstance(item.get("data"), Mapping) and isinstance(item.get("event"), str) else item
        obj, ident = e.get("object"), str(e.get("id") or f"#{n}")
        if obj == "thread.message":
            new = dict(e)
            if not new.get("content") and ident in msgs:  # created / in progress: keep the deltas so far
                new["content"] = msgs[ident].get("content", [])
            else:
                folds.pop(ident, None)  # its content as this event gives it
            msgs[ident] = new
        elif obj == "thread.message.delta":
            msg = msgs.setdefault(ident, {"id": ident, "object": "thread.message", "role": "assistant",
                                          "status": "in_progress", "content": []})  # fmt: skip
            fold = folds.get(ident) or folds.setdefault(ident, _Fold(as_list(msg.get("content"))))
            fold.add(as_map(e.get("delta")))
        elif obj == "thread.run.step":
            steps[ident] = e
        elif obj == "thread.run":
            runs[ident] = e
    for ident, fold in folds.items():
        msgs[ident]["content"] = fold.content()
    for msg in msgs.values():  # parts no delta filled (an index skipped) are left out
        msg["content"] = [p for p in as_list(msg.get("content")) if p]
    return {"object": "list", "data": list(msgs.values())[::-1], "has_more": False,
            "run_steps": list(steps.values()), "runs": list(runs.values())}  # fmt: skip


class _Fold:
    """A message's content as its deltas build it: parts by ``index``, a text part's value in
    pieces and its annotations by their ``index``, joined once at the end (linear time)."""

    def __init__(self, content: list[Any]) -> None:
        self.parts: dict[int, Any] = {}
        self.pieces: dict[int, list[str]] = {}
        self.anns: dict[int, dict[Any, dict[str, Any]]] = {}
        for i, part in enumerate(content):
            self.parts[i] = dict(part) if isinstance(part, Mapping) else part
            text = as_map(part.get("text")) if isinstance(part, Mapping) and part.get("type") == "text" else None
            if text is not None:
                self.pieces[i] = [str(text.get("value") or "")]
                anns = [dict(x) for x in as_list(text.get("annotations")) if isinstance(x, Mapping)]
                self.anns[i] = {("given", j): x for j, x in enumerate(anns)}
        self.next = len(content)

    def add(self, delta: Mapping[str, Any]) -> None:
        """One delta's parts: text added, annotations merged, other fields updated."""
        for c in as_list(delta.get("content")):
            if not isinstance(c, Mapping):
                continue
            i = whole(c.get("index"))
            i = self.next if i is None or not 0 <= i <= self.next + 1000 else i
            self.next = max(self.next, i + 1)
            part = self.parts.get(i)
            part = self.parts[i] = part if isinstance(part, dict) else {}
            part["type"] = c.get("type") or part.get("type")
            if part["type"] != "text":
                part.update({k: v for k, v in c.items() if k not in ("index", "type")})
                continue
            new = as_map(c.get("text"))
            self.pieces.setdefault(i, []).append(str(new.get("value") or ""))
            anns = self.anns.setdefault(i, {})
            for ann in as_list(new.get("annotations")):
                if isinstance(ann, Mapping):
                    k = whole(ann.get("index"))
                    fields = {key: v for key, v in ann.items() if key != "index" and v is not None}
                    key = k if k is not None else ("unnumbered", len(anns))
                    anns.setdefault(key, {"#": k} if k is not None else {}).update(fields)

    def content(self) -> list[Any]:
        """The parts in index order, each text part's value and annotations joined."""
        out = []
        for i in sorted(self.parts):
            part = self.parts[i]
            if isinstance(part, dict) and part.get("type") == "text":
                value = "".join(self.pieces.get(i, []))
                part["text"] = {"value": value, "annotations": list(self.anns.get(i, {}).values())}
            out.append(part)
        return out
