"""Chat exports, whoever made them: which one a file is, and its conversations as
:class:`~.threads.Conversation` s (ChatGPT's ``conversations.json`` by :mod:`.chatgpt`, Claude's
by :mod:`.claude`), read as a stream."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..formats import FORMATS
from . import chatgpt, claude
from .archive import export_notes, head, is_zipped_export, read_raw
from .shards import Noted
from .threads import BrokenGraph, Conversation, shown_title

__all__ = ["conversation", "export_kind", "find_conversation", "is_export", "read_conversations"]


def export_kind(path: str | Path) -> str | None:
    """``chatgpt`` or ``claude`` when the file (or zip) is that chat export, judged from its first
    bytes, else ``None``."""
    text = head(path)
    for f in FORMATS:
        if f.kind == "export" and text.startswith("[") and any(p in text for p in f.probes):
            return f.name.removesuffix("-export")
    if is_zipped_export(path):  # its start unreadable (a zip bomb, a damaged or lying zip): reading it says why
        return "chatgpt"
    return None


def is_export(path: str | Path) -> bool:
    return export_kind(path) is not None


def conversation(data: Any, k: int = 0) -> Conversation:
    """One conversation of either export, by its shape (a :class:`~.threads.BrokenGraph` if it
    cannot be walked), with the export's notes its data carries (:class:`~.shards.Noted`)."""
    if not isinstance(data, Mapping):
        raise BrokenGraph(f"CR506 item {k + 1} of the export was skipped: it is a {_kind(data)}, not a conversation")
    read = claude.conversation if "mapping" not in data and "chat_messages" in data else chatgpt.conversation
    return _with_notes(read(data, k), data.notes if isinstance(data, Noted) else ())


def _with_notes(conv: Conversation, notes: Sequence[tuple[str, str]]) -> Conversation:
    """``conv`` with the export's notes it does not hold yet, its digest changed with them."""
    new = [n for n in notes if n not in conv.notes]
    if new:
        conv.notes.extend(new)
        conv.digest = hashlib.sha256(json.dumps([conv.digest, new]).encode("utf-8")).hexdigest()
    return conv


def read_conversations(path: str | Path) -> Iterator[Conversation]:
    """Every conversation of the export, in file order, read as a stream."""
    for k, data in read_raw(path):
        yield conversation(data, k)


def _kind(data: Any) -> str:
    return {list: "list", str: "string", type(None): "null", bool: "boolean"}.get(type(data), "number")


def _id(data: Mapping[str, Any], k: int) -> str:
    return str(data.get("conversation_id") or data.get("id") or data.get("uuid") or f"conversation-{k + 1}")


def find_conversation(path: str | Path, key: str) -> Conversation:
    """The conversation whose id is ``key``, else the first whose title is ``key`` (case-insensitive);
    only that one is built."""
    by_title: tuple[int, Mapping[str, Any]] | None = None
    notes = export_notes(path)  # a shard missing…: said with whichever conversation is shown
    for k, data in read_raw(path):
        if not isinstance(data, Mapping):
            continue
        if _id(data, k) == key:
            return _with_notes(conversation(data, k), notes)
        title = shown_title(data.get("title") if "title" in data else data.get("name"))
        if by_title is None and title.casefold() == key.casefold():
            by_title = (k, data)
    if by_title is None:
        lost = "".join(f"; {message}" for _, message in notes)  # it may be in what the export lacks
        raise CiterenderError(
            f"no conversation with id or title {key!r}{lost}", path=str(path), hint="see the index page"
        )
    return _with_notes(conversation(by_title[1], by_title[0]), notes)
