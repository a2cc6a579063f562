"""A streamed response saved as it came over the wire: server-sent events (``curl -N`` output),
each event's ``data:`` one JSON value. Read per the WHATWG rules (a blank line ends an event, its
``data:`` lines joined by newlines; comments and other fields ignored), OpenAI's ``[DONE]`` skipped."""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import CiterenderError

__all__ = ["looks_like_sse", "parse_sse"]

_FIELD = re.compile(r"(data|event|id|retry)(?::|$)")
_LINE_END = re.compile(r"\r\n|\r|\n")  # the format's only line ends (JSON may hold a raw U+2028)
_DONE = "[DONE]"


def looks_like_sse(text: str) -> bool:
    """Does the text open as an event stream (its first non-blank line a field or a comment, and a
    ``data:`` line somewhere)?"""
    head = text.lstrip("\ufeff\r\n")
    return bool(head) and (head[0] == ":" or _FIELD.match(head) is not None) and "data:" in text


def parse_sse(text: str, name: str) -> list[Any]:
    """The JSON value of each event's data, in order; a payload that is not JSON, or a line that is
    no field of the format, is an error naming its line."""
    events: list[Any] = []
    data: list[str] = []
    start = 0

    def dispatch() -> None:
        payload = "\n".join(data)
        data.clear()
        if not payload.strip() or payload.strip() == _DONE:
            return
        try:
            events.append(json.loads(payload))
        except (json.JSONDecodeError, RecursionError) as e:
            raise CiterenderError(
                f"event data is not JSON: {getattr(e, 'msg', 'nested too deeply')}", path=name, line=start
            ) from None

    for number, line in enumerate(_LINE_END.split(text.lstrip("\ufeff")), 1):
        if not line:
            dispatch()
            continue
        if line[0] == ":":
            continue
        field, _, value = line.partition(":")
        if field not in ("data", "event", "id", "retry"):
            raise CiterenderError(
                f"not a server-sent event line: {line[:60]!r}",
                path=name,
                line=number,
                hint="each line is 'data: …', 'event: …', 'id: …', 'retry: …', ': comment' or blank",
            )
        if field == "data":
            if not data:
                start = number
            data.append(value[1:] if value.startswith(" ") else value)
    dispatch()
    return events
