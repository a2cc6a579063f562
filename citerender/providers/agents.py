"""The OpenAI Agents SDK's histories (Python and JS, 2026-08): Responses input items, or a
serialised ``RunState`` (original input and generated items' raw items). The last answer (the
assistant messages after the last user turn, JS keeping annotations under ``providerData``) is read
as a Responses output, its web searches consulted; earlier answers are counted (CR512)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..formats.agents import AGENTS_HISTORY
from .common import Builder, as_map
from .openai import responses

__all__ = ["collect_items", "history"]


def collect_items(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A history (a list of items) as one response: the items kept as they are."""
    return {"object": AGENTS_HISTORY, "items": [e for e in events if isinstance(e, Mapping)]}


def _state_items(state: Mapping[str, Any]) -> list[Any]:
    """A run state's history: its original input, then every generated item's raw item."""
    original = state.get("originalInput", state.get("original_input"))
    items: list[Any] = [{"role": "user", "content": original}] if isinstance(original, str) else list(original or [])
    generated = state.get("generatedItems", state.get("generated_items")) or []
    items.extend(r.get("rawItem", r.get("raw_item")) for r in generated if isinstance(r, Mapping))
    return items


def _turns(items: Sequence[Any]) -> list[list[Mapping[str, Any]]]:
    """The items after each user message (what the agent did and said), in order."""
    turns: list[list[Mapping[str, Any]]] = [[]]
    for item in items:
        if not isinstance(item, Mapping):
            continue
        if _role(item) == "user":
            turns.append([])
        else:
            turns[-1].append(item)
    return [t for t in turns if any(_role(i) == "assistant" for i in t)]


def _role(item: Mapping[str, Any]) -> Any:
    """Who wrote a message item (None for any other item)."""
    return item.get("role") if item.get("type", "message") == "message" else None


def _part(part: Any) -> Mapping[str, Any] | None:
    """An ``output_text`` part with its annotations where the SDK keeps them; a refusal as its words."""
    if not isinstance(part, Mapping):
        return None
    if part.get("type") == "refusal":
        return {"type": "output_text", "text": str(part.get("refusal") or ""), "annotations": []}
    if part.get("type") != "output_text":
        return None
    anns = part.get("annotations") or as_map(part.get("providerData")).get("annotations")
    anns = anns or as_map(part.get("provider_data")).get("annotations")
    text = str(part.get("text") or "")
    return {"type": "output_text", "text": text, "annotations": anns if isinstance(anns, list) else []}


def _output_item(item: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """An item of the answer's turn as a Responses output item (None for an agent's step)."""
    if _role(item) == "assistant":
        parts = [p for p in map(_part, item.get("content") or []) if p is not None]
        return {"type": "message", "role": "assistant", "content": parts, "status": item.get("status")}
    if item.get("type") == "web_search_call":
        return item
    call = item.get("providerData")
    if item.get("type") == "hosted_tool_call" and isinstance(call, Mapping) and call.get("type") == "web_search_call":
        return {**call, "status": item.get("status", call.get("status"))}
    return None


def history(data: Mapping[str, Any], b: Builder) -> list[str]:
    """The last answer of an Agents SDK history (or run state), its url_citations placed."""
    items = data.get("items") if data.get("object") == AGENTS_HISTORY else _state_items(data)
    turns = _turns(items if isinstance(items, list) else [])
    if not turns:
        return []
    if len(turns) > 1:
        left = f"the last is shown, {len(turns) - 1} earlier left out"
        b.note(("CR512", f"the history holds {len(turns)} answers: {left}"))
    output = [o for o in map(_output_item, turns[-1]) if o is not None]
    return responses({"output": output}, b)
