"""What a path or standard input holds (an answer, a saved provider response, a transcript of
responses, or a chat export), decided from its first bytes and read once: whole and bounded, but
for a chat export, which is only recognised here (it is read later, as a stream)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import CiterenderError
from ..sources.files import MAX_INPUT_BYTES, decode_text, read_bytes, regular_file

__all__ = ["Input", "InputKind", "read_input"]
_HEAD = 65536  # enough of a JSON export to see its first conversation's "mapping"

InputKind = Literal["answer", "response", "transcript", "export"]


@dataclass
class Input:
    """One input as read: ``text`` for an answer, ``data`` (the JSON value) for a response or a
    transcript, only its path for an export."""

    kind: InputKind
    path: str  # as given ("-" for stdin)
    text: str = ""
    data: Any = None

    @property
    def name(self) -> str:
        return "<stdin>" if self.path == "-" else self.path


def read_input(path: str, provider: str | None = None) -> Input:
    """Read ``path`` (``-`` for stdin) once and say what it holds. ``provider`` (``--from``) names
    a response's or an export's format; without it a ``.json``, ``.jsonl`` or ``.sse`` file, or
    one that reads whole as an event stream, is a response (or a transcript); any other an answer."""
    if _is_export(path, provider):
        return Input("export", path)
    name = "<stdin>" if path == "-" else path
    is_json = provider is not None or (path != "-" and path.lower().endswith((".json", ".jsonl", ".sse")))
    what = "response" if is_json else "answer"
    data = _stdin(what) if path == "-" else read_bytes(path, limit=MAX_INPUT_BYTES, what=what)
    if data[:1] in (b"\0", b"\1"):  # an event-stream prelude opens with its length (<= 16 MB): never text
        from .eventstream import looks_like_eventstream, parse_eventstream

        if looks_like_eventstream(data):  # a Bedrock stream's binary body, whatever the file is called
            return Input("response", path, data=parse_eventstream(data, name))
    text = decode_text(data, name, what)
    if not is_json:
        events = _event_stream(text, name) or _json_lines(text, name)
        if events is None:
            return Input("answer", path, text=text)
        return Input("response", path, text=text, data=events)  # read once, as a stream of events
    from .responses import read_json
    from .transcripts import is_transcript

    value, lines = read_json(text, name)
    transcript = provider is None and not lines and is_transcript(value)  # JSON Lines are one response's events
    return Input("transcript" if transcript else "response", path, text=text, data=value)


def _event_stream(text: str, name: str) -> list[Any] | None:
    """The events of an answer file that is in fact a saved event stream (every line one of the
    format's, every payload JSON), else None."""
    if "data:" not in text:  # no event without data (the reader is loaded only when one may be)
        return None
    from .sse import looks_like_sse, parse_sse

    if not looks_like_sse(text):
        return None
    try:
        return parse_sse(text, name) or None
    except CiterenderError:
        return None


def _json_lines(text: str, name: str) -> list[Any] | None:
    """The events of an answer file that is in fact a stream saved as JSON Lines (the AI SDK's
    ``*.chunks.txt``): every line a JSON object, the events of a format citerender reads; else None."""
    body = text.strip()
    if not body.startswith("{") or not body.endswith("}") or "\n" not in body:
        return None
    from ..formats import detect
    from .responses import read_json

    try:
        value, lines = read_json(body, name)
    except CiterenderError:
        return None
    events = value if lines and isinstance(value, list) and all(isinstance(e, dict) for e in value) else None
    return events if events and detect(events) is not None else None


def _stdin(what: str) -> bytes:
    data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise CiterenderError(f"{what} is over the limit of {MAX_INPUT_BYTES:,} bytes", path="<stdin>")
    return data


def _is_export(path: str, provider: str | None) -> bool:
    """Does ``path`` hold a chat export (or does ``provider`` say so)? A regular file that is a zip,
    or a JSON list whose first item has an export entry's probe, told from its first bytes."""
    if provider is not None:
        from ..formats import names

        return provider in names("export")
    if path == "-":
        return False
    try:
        with regular_file(path) as f:
            if f is None:
                return False
            head = f.read(_HEAD)
    except OSError:
        return False
    if head.startswith(b"PK\x03\x04"):
        from .exports import is_export as export_file

        return export_file(Path(path))
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if not text.startswith("["):  # (the formats' table loads for a JSON list only)
        return False
    from ..formats import FORMATS

    return any(p in text for f in FORMATS if f.kind == "export" for p in f.probes)
