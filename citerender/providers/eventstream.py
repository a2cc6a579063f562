"""A Bedrock stream saved as it came over the wire: AWS's binary event stream (the body of
``ConverseStream``, ``InvokeAgent`` …). Each message (a prelude, typed headers, a JSON payload,
CRC32s) becomes what boto3 yields, ``{":event-type": payload}``; a damaged message is an error
naming its offset, an ``exception`` message the error AWS sent."""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

from ..errors import CiterenderError

__all__ = ["looks_like_eventstream", "parse_eventstream"]

_PRELUDE = struct.Struct(">III")  # total length, headers length, prelude CRC
_MIN = 16  # a prelude and the message CRC, nothing else
_MAX_MESSAGE = 16 * 1024 * 1024  # AWS's limit for one message
# header value types: their fixed sizes (strings and byte arrays carry a 2-byte length instead)
_FIXED = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}


def looks_like_eventstream(data: bytes) -> bool:
    """Does ``data`` open with an event-stream prelude whose CRC is right (and its lengths sane)?"""
    return len(data) >= _MIN and _sane(data, 0)


def _sane(data: bytes, at: int) -> bool:
    total, headers, crc = _PRELUDE.unpack_from(data, at)
    return bool(zlib.crc32(data[at : at + 8]) == crc and _MIN <= total <= _MAX_MESSAGE and headers <= total - _MIN)


def _headers(raw: bytes, name: str, at: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    i = 0
    try:
        while i < len(raw):
            size = raw[i]
            key = raw[i + 1 : i + 1 + size].decode("utf-8")
            i += 1 + size
            kind = raw[i]
            i += 1
            if kind in (6, 7):  # bytes, string: a 2-byte length first
                (length,) = struct.unpack_from(">H", raw, i)
                value: Any = raw[i + 2 : i + 2 + length]
                out[key] = value.decode("utf-8", "replace") if kind == 7 else value
                i += 2 + length
            elif kind in _FIXED:
                i += _FIXED[kind]
            else:
                raise ValueError(f"header type {kind}")
    except (IndexError, struct.error, UnicodeDecodeError, ValueError) as e:
        raise CiterenderError(f"event stream message at byte {at}: unreadable headers ({e})", path=name) from None
    return out


def parse_eventstream(data: bytes, name: str) -> list[Any]:
    """Each event as ``{event type: payload}``, in order (see the module docstring)."""
    events: list[Any] = []
    at = 0
    while at < len(data):
        if len(data) - at < _MIN:
            raise CiterenderError(f"event stream cut short at byte {at}", path=name, hint="save the whole body")
        if not _sane(data, at):
            raise CiterenderError(
                f"event stream message at byte {at} is damaged (its prelude does not add up)", path=name
            )
        total, head, _ = _PRELUDE.unpack_from(data, at)
        end = at + total
        if end > len(data):
            raise CiterenderError(f"event stream cut short at byte {len(data)}", path=name, hint="save the whole body")
        (message_crc,) = struct.unpack_from(">I", data, end - 4)
        if zlib.crc32(data[at : end - 4]) != message_crc:
            raise CiterenderError(f"event stream message at byte {at} is damaged (its CRC does not match)", path=name)
        headers = _headers(data[at + 12 : at + 12 + head], name, at)
        payload = data[at + 12 + head : end - 4]
        kind = headers.get(":message-type", "event")
        if kind != "event":
            detail = headers.get(":exception-type") or headers.get(":error-code") or kind
            raise CiterenderError(
                f"the stream holds an error from AWS: {str(detail)[:80]}: {payload[:200].decode('utf-8', 'replace')}",
                path=name,
            )
        try:
            body = json.loads(payload) if payload else {}
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
            what = "nested too deeply" if isinstance(e, RecursionError) else "not JSON"
            raise CiterenderError(f"event stream message at byte {at}: its payload is {what}", path=name) from None
        events.append({str(headers.get(":event-type", "event")): body})
        at = end
    return events
