"""Any transcript as a conversation: a JSON list of turns (or ``{"title": …, "turns": [...]}``),
a user turn a message (``{"role": "user", "content": …}``), an assistant turn a saved provider
response, each answer with its own registry and numbering."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..formats import Events
from ..formats.agents import agents_history
from ..sources.clean import clean_data
from ..sources.files import MAX_INPUT_BYTES, read_text_file
from .pydantic_ai import is_message, user_prompt
from .responses import adapt, detect_provider, parse_json
from .threads import Conversation, Turn

__all__ = ["is_transcript", "read_transcript", "transcript", "transcript_titled"]


def _user_text(item: Mapping[str, Any]) -> str | None:
    if is_message(item):  # Pydantic AI's history
        return user_prompt(item)
    if item.get("role") != "user":
        return None
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, Mapping) and isinstance(b.get("text"), str)]
        return "\n\n".join(t for t in texts if t)
    return None


def _agent_step(item: Mapping[str, Any]) -> bool:
    """A step of an agent's loop that is no turn: a Pydantic AI request of tool results only, or a
    response of tool calls only."""
    if not is_message(item):
        return False
    if item.get("kind") == "request":
        return user_prompt(item) is None
    return not any(isinstance(p, Mapping) and p.get("part_kind") == "text" for p in item["parts"])


def _turns(data: Any) -> list[Any] | None:
    if isinstance(data, Mapping) and isinstance(data.get("turns"), list):
        return list(data["turns"])
    return data if isinstance(data, list) else None


def is_transcript(data: Any) -> bool:
    """A list of turns holding at least one saved response (not one response's stream of events)."""
    turns = _turns(data)
    if not turns or not all(isinstance(t, Mapping) for t in turns):
        return False
    if any(str(t.get("type", "")).startswith(("response.", "message_", "content_block")) for t in turns):
        return False  # a stream of events: one response
    if agents_history(Events.of(turns)):
        return False  # an agent's history (Responses input items): one answer, read by its own reader
    if all(t.get("object") == "thread.message" for t in turns):
        return False  # an Assistants thread's messages (a page's data): its newest answer, by its reader
    responses = 0
    for t in turns:
        if _agent_step(t):
            continue
        if _user_text(t) is None:
            try:
                detect_provider(t)
            except CiterenderError:
                return False
            responses += 1
    return responses > 0


def transcript(data: Any, provider: str | None = None, *, title: str = "Transcript") -> Conversation:
    """The conversation a transcript holds (``provider`` names the responses' format, else each is recognised)."""
    data = clean_data(data, [])  # its depth bounded, user turns' lone surrogates replaced, as responses' are
    turns = _turns(data)
    if turns is None:
        raise CiterenderError("a transcript is a JSON list of turns", hint='or {"title": …, "turns": [...]}')
    if isinstance(data, Mapping) and isinstance(data.get("title"), str):
        title = data["title"]
    out: list[Turn] = []
    for n, item in enumerate(turns, start=1):
        if isinstance(item, Mapping) and _agent_step(item):
            continue
        user = _user_text(item) if isinstance(item, Mapping) else None
        if user is not None:
            out.append(Turn("user", user))
            continue
        try:
            adapted = adapt(item, provider)
        except CiterenderError as e:
            raise CiterenderError(f"turn {n}: {e.message}", hint=e.hint) from None
        out.append(Turn("assistant", adapted.text, registry=adapted.registry))
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode("utf-8")).hexdigest()
    return Conversation(digest[:12], title, None, None, None, out, digest)


def read_transcript(path: str | Path, provider: str | None = None) -> Conversation:
    """A transcript file as a conversation titled after the file (or its ``title``)."""
    raw = read_text_file(path, limit=MAX_INPUT_BYTES, what="transcript")
    return transcript_titled(parse_json(raw, str(path)), path, provider)


def transcript_titled(data: Any, path: str | Path, provider: str | None = None) -> Conversation:
    """The transcript ``data`` read from ``path``, titled after the file unless it has a ``title``."""
    try:
        return transcript(
            data, provider, title=Path(path).stem.replace("-", " ").replace("_", " ").strip() or "Transcript"
        )
    except CiterenderError as e:
        raise CiterenderError(e.message, path=str(path), hint=e.hint) from None
