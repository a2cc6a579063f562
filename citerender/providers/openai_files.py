"""Files in OpenAI answers (Responses and Assistants): those a file search cites, and those the
code interpreter wrote, each a source named after the file (else its id) under the provider's file
id. An answer links an output file as ``[label](sandbox:/mnt/data/…)``, which only works inside
ChatGPT: the label stays as text, cited to the file, reported as one the page cannot link (CR513)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..syntax.escapes import printable
from .common import Builder, whole
from .offsets import SpanReader, Spans, after_last_word

__all__ = [
    "SANDBOX_LINK",
    "cited_name",
    "file_source",
    "loose_sandbox_links",
    "named_file",
    "output_file",
    "output_file_marker",
    "unlinked",
]

#: a Markdown link (or image) to a code interpreter's file: ``[label](sandbox:/mnt/data/x.csv)``
SANDBOX_LINK = re.compile(r"!?\[((?:[^\[\]\\\n]|\\.){0,1000})\]\([ \t]*<?(sandbox:[^()\s<>]{0,2048})>?[ \t]*\)")
#: the file name an Assistants file search marker carries: ``【4:0†handbook.pdf】``
_SLUG = re.compile(r"[^A-Za-z0-9_-]+")
_MARKER_NAME = re.compile(r"\u3010[^\u3010\u3011\u2020]{0,40}\u2020([^\u3010\u3011\u2020]{1,400})[\u2020\u3011]")


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def cited_name(marker: Any) -> str | None:
    """The file name in an Assistants file search marker (``【4:0†handbook.pdf】``); None for the
    placeholder ``source`` or a text that is no such marker."""
    m = _MARKER_NAME.search(marker) if isinstance(marker, str) else None
    name = m.group(1).strip() if m else ""
    return name if name and name.lower() != "source" else None


def named_file(b: Builder, file_id: Any, name: Any, **meta: Any) -> str:
    """The source of one file, titled by its name, else its id; listed under the provider's file id
    (else its name, slugged) when that is a valid, unused source id, else under the builder's own."""
    fid, title = _text(file_id), _text(name)
    key = f"file:{fid}" if fid else f"name:{title}"
    own = fid or _SLUG.sub("-", title or "").strip("-")[:80]
    free = own and key not in b.by_key and own not in b.sources and (b.given is None or b.given.get(own) is None)
    if own and free and b.fmt.id_re.match(own):
        b.by_key[key] = own
        b.sources[own] = {"id": own}
    extra = {k: v for k, v in meta.items() if v is not None}
    return b.source(key, "file", title=title or fid, meta={"file_id": fid, **extra} if fid else extra or None)


def file_source(a: Mapping[str, Any], b: Builder) -> str:
    """The source of a Responses ``file_citation`` annotation (``file_id``, ``filename``)."""
    return named_file(b, a.get("file_id"), a.get("filename"))


def unlinked(b: Builder, sid: str, what: str) -> None:
    """Say once that a file the answer names has no address a reader can open (CR513)."""
    title = str(b.sources[sid].get("title") or sid)
    note = (
        "CR513",
        f"{printable(title, 120)} ({what[:160]}) has no address a reader can open: named in Sources, not linked",
    )
    if note not in b.notes:
        b.note(note)


def _link_at(text: str, start: int | None, end: int | None, index: int | None) -> re.Match[str] | None:
    """The ``sandbox:`` link an output file's span (or point) falls in, if any."""
    for m in SANDBOX_LINK.finditer(text) if "sandbox:" in text else ():
        if start is not None and (
            m.start() <= start < m.end() or (start <= m.start() and end is not None and m.end() <= end)
        ):
            return m
        if start is None and index is not None and m.start() <= index <= m.end():
            return m
    return None


def output_file(text: str, a: Mapping[str, Any], b: Builder, reader: SpanReader) -> list[tuple[int, int, str]]:
    """The edits citing a file the code interpreter wrote: the ``sandbox:`` link (or bare path) it
    names becomes its label (or the file's name), cited after it; else the citation goes after its
    span (or at its index)."""
    fp = a.get("file_path")
    file_id = a.get("file_id") or (fp.get("file_id") if isinstance(fp, Mapping) else None)
    start, end, index = whole(a.get("start_index")), whole(a.get("end_index")), whole(a.get("index"))
    link = _link_at(text, start, end, index)
    path = _text(a.get("text")) or (link.group(2) if link else "")
    name = _text(a.get("filename")) or (path.rsplit("/", 1)[-1] if path.startswith("sandbox:") else None)
    sid = named_file(b, file_id, name, container_id=a.get("container_id"))
    unlinked(b, sid, f"a code interpreter's file{', ' + path[:120] if path else ''}")
    # a file named by neither id nor name has no title (it is never shown as a label then)
    marker, title = b.marker(sid), str(b.sources[sid].get("title") or sid)
    if link is not None:
        return _labelled(text, link.start(), link.end(), link.group(1) or title, marker)
    bare = text[start:end] if start is not None and end is not None and 0 <= start < end <= len(text) else ""
    if start is not None and end is not None and bare.startswith("sandbox:"):
        return _labelled(text, start, end, title, marker)  # a bare sandbox path: its name
    if start is None and end is None and index is not None:
        at = min(max(index, 0), len(text))
    else:
        at = b.place(reader, start, end)
    return [(at, at, marker)]


def _labelled(text: str, start: int, end: int, label: str, marker: str) -> list[tuple[int, int, str]]:
    """``text[start:end]`` shown as ``label``, cited after it (and its sentence's closing punctuation)."""
    at = after_last_word(text, end)
    return [(start, end, label), (at, at, marker)]


def output_file_marker(a: Mapping[str, Any], b: Builder) -> str | None:
    """The marker of an output file (``container_file_citation``, ``file_path``), or None for another type."""
    if a.get("type") not in ("container_file_citation", "file_path"):
        return None
    return output_file("", {**a, "start_index": None, "end_index": None, "index": None}, b, SpanReader(""))[-1][2]


def loose_sandbox_links(text: str, edits: list[tuple[int, int, str]], b: Builder) -> list[tuple[int, int, str]]:
    """Edits for the ``sandbox:`` links no annotation covers: each its label, citing its file."""
    if "sandbox:" not in text:
        return []
    taken = Spans([(s, e) for s, e, _ in edits if s < e])
    out: list[tuple[int, int, str]] = []
    for m in SANDBOX_LINK.finditer(text):
        if taken.overlaps(m.start(), m.end()):
            continue
        path = m.group(2)
        name = path.rsplit("/", 1)[-1] or path
        sid = named_file(b, None, name, path=path)
        unlinked(b, sid, f"a code interpreter's file, {path[:120]}, that no annotation names")
        out += _labelled(text, m.start(), m.end(), m.group(1) or name, b.marker(sid))
    return out
