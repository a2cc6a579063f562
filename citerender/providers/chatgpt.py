"""A ChatGPT data export's conversations (``mapping`` of message nodes, walked by :mod:`.threads`)
as turns, each answer with canonical markers and a registry of the pages it cites
(:mod:`.content_refs`). A reader sees what the chat shows: no system or tool messages, tool calls,
hidden messages or thinking; an answer whose ``finish_details`` say it stopped early is reported
as cut off (CR514)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..sources.model import registry_from_data
from .archive import head, is_zipped_export
from .common import as_map
from .content_refs import SearchSources, edits_for, md_text, unknown_ids, unresolved_tether
from .stops import stopped
from .threads import Conversation, Turn, assembled, entered, shown_title, timestamp

__all__ = ["conversation", "is_chatgpt_export"]

_SHOWN_TYPES = frozenset({"text", "multimodal_text", "code"})
_GROUP_END = "\ue206"  # older gpt-4o answers end citation groups with it: it stands for nothing
_FENCE_RUN = re.compile(r"^ {0,3}(~{3,})", re.M)  # tilde fences inside a code message


def is_chatgpt_export(path: str | Path) -> bool:
    """Does the file (or zip) look like a ChatGPT export: a list of objects with ``mapping``?"""
    text = head(path)
    return (text.startswith("[") and '"mapping"' in text) or ('"chat_messages"' not in text and is_zipped_export(path))


def conversation(data: Mapping[str, Any], k: int = 0) -> Conversation:
    """One conversation of the export, on its current branch; a :class:`BrokenGraph` if its
    message graph cannot be walked."""
    data, digest, notes = entered(data)
    cid = str(data.get("conversation_id") or data.get("id") or f"conversation-{k + 1}")
    title = shown_title(data.get("title"))
    model = data.get("default_model_slug") if isinstance(data.get("default_model_slug"), str) else None
    created, updated = timestamp(data.get("create_time")), timestamp(data.get("update_time"))
    head = Conversation(cid, title, created, updated, model, [], digest, notes, [], "ChatGPT")
    return assembled(head, lambda: data, _turn, "mapping must be a tree of message nodes")


def _shown(message: Mapping[str, Any]) -> bool:
    author = as_map(message.get("author"))
    meta = as_map(message.get("metadata"))
    content = as_map(message.get("content"))
    return (
        author.get("role") in ("user", "assistant")
        and message.get("recipient", "all") in ("all", None)
        and not meta.get("is_visually_hidden_from_conversation")
        and content.get("content_type") in _SHOWN_TYPES
        and message.get("channel") in (None, "final")
    )


def _parts_text(content: Mapping[str, Any]) -> str:
    """A message's text: its string parts; an image or file part as ``[image]``; code fenced."""
    if content.get("content_type") == "code":
        code = str(content.get("text") or "")
        fence = "~" * max(3, max(map(len, _FENCE_RUN.findall(code)), default=0) + 1)  # longer than any inside
        return f"{fence}{md_text(str(content.get('language') or ''))}\n{code}\n{fence}"
    out: list[str] = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, Mapping):
            kind = str(part.get("content_type") or "attachment")
            out.append("[image]" if "image" in kind else f"[{md_text(kind.replace('_', ' '))}]")
    return "\n\n".join(p for p in out if p)


def _turn(message: Mapping[str, Any]) -> Turn | None:
    if not _shown(message):
        return None
    content = as_map(message.get("content"))
    role = as_map(message.get("author")).get("role")
    meta = as_map(message.get("metadata"))
    text = _parts_text(content)
    created = timestamp(message.get("create_time"))
    model = meta.get("model_slug") if isinstance(meta.get("model_slug"), str) else None
    if not text.strip():
        return None
    if role == "user":  # the user's words, shown as written (Markdown is theirs to write)
        return Turn("user", text, created)
    sources = SearchSources()
    sources.add_groups(meta.get("search_result_groups"))
    edits = edits_for(text, meta.get("content_references"), sources, meta.get("citations"))
    notes = [note for *_, note in edits if note is not None]
    out, pos = [], 0
    for start, end, replacement, _ in sorted((e for e in edits if e[3] is None or e[1] > e[0]), key=lambda e: e[:2]):
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    answer, unresolved = unresolved_tether("".join(out).replace(_GROUP_END, ""), sources)
    answer, lost = unknown_ids(answer, sources)
    notes += unresolved + lost
    finish = as_map(meta.get("finish_details")).get("type")  # the export's record of how the answer ended
    notes += [n for n in [stopped("metadata.finish_details.type", finish, {"max_tokens", "interrupted"})] if n]
    registry = registry_from_data(list(sources.sources.values()))
    return Turn("assistant", answer, created, registry, notes, model)
