"""The agent formats of :data:`citerender.formats.FORMATS`, their entries and shape tests: the
OpenAI Agents SDK's histories and run states, and Perplexity's Agent API (a response and its
stream). The table lists each entry where it is detected (Perplexity's before OpenAI Responses,
whose shape it shares)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .entry import Events, Format

__all__ = [
    "AGENTS_HISTORY",
    "OPENAI_AGENTS",
    "PERPLEXITY_AGENT",
    "agents_history",
    "agents_state",
    "perplexity_agent",
    "perplexity_agent_events",
]

_P = "citerender.providers."

#: the ``object`` of an Agents SDK history folded into one response (its items under ``items``)
AGENTS_HISTORY = "openai-agents.history"


def _assistant_output(item: Mapping[str, Any]) -> bool:
    """An assistant message of the Responses input shape: ``output_text`` parts in ``content``."""
    content = item.get("content")
    return (
        item.get("role") == "assistant"
        and item.get("type", "message") == "message"
        and isinstance(content, list)
        and any(isinstance(p, Mapping) and p.get("type") == "output_text" for p in content)
    )


def agents_history(ev: Events) -> bool:
    """A list of Responses input items (the Python SDK's ``RunResult.to_input_list()``, the JS
    SDK's ``result.history`` or a session's items): an assistant message with ``output_text`` parts
    at the top level (a stream's events carry their items inside, a transcript whole responses)."""
    return not any(t.startswith("response.") for t in ev.types) and any(_assistant_output(e) for e in ev.items)


def agents_state(data: Mapping[str, Any]) -> bool:
    """A serialised ``RunState`` (``$schemaVersion`` with generated items; JS camelCase, Python
    snake_case), or a history folded by its reader."""
    if data.get("object") == AGENTS_HISTORY:
        return True
    items = data.get("generatedItems", data.get("generated_items"))
    return "$schemaVersion" in data and isinstance(items, list)


def perplexity_agent(data: Mapping[str, Any]) -> bool:
    """A Perplexity Agent API response: Responses-shaped ``output`` holding a ``search_results`` item."""
    output = data.get("output")
    return isinstance(output, list) and any(
        isinstance(i, Mapping) and i.get("type") in ("search_results", "fetch_url_results") for i in output[:100]
    )


def perplexity_agent_events(ev: Events) -> bool:
    """Its stream: the ``response.reasoning.*`` events only Perplexity sends (OpenAI's reasoning
    events are ``response.reasoning_text…`` and ``response.reasoning_summary…``)."""
    return any(t.startswith("response.reasoning.") for t in ev.types)


#: Perplexity's Agent API (a response, or its stream)
PERPLEXITY_AGENT = Format(
    "perplexity-agent",
    "response",
    summary=(
        "Perplexity's Agent API (`/v1/agent`, `/v1/responses`): the Responses shape with a `search_results` "
        "item; the text's `[n]` cites the result whose `id` is n (`url`, `title`, `snippet`, `date`); "
        "`fetch_url_results` pages consulted; its stream (`response.reasoning.search_results` events)"
    ),
    positions="numbers in the text (result ids)",
    detect=perplexity_agent,
    stream=perplexity_agent_events,
    keys=frozenset({"output", "search_results", "results", "snippet", "queries"}),
    adapter=_P + "perplexity:agent",
    collect=_P + "perplexity:collect_agent_events",
)


#: the OpenAI Agents SDK's histories and run states
OPENAI_AGENTS = Format(
    "openai-agents",
    "response",
    summary=(
        "the OpenAI Agents SDK's history: Python's `RunResult.to_input_list()`, the JS SDK's `result.history`"
        " or session items (annotations under `content[].providerData.annotations`), or a serialised "
        "`RunState`: the last answer's `url_citation`s placed, its `web_search_call` pages consulted, "
        "earlier turns counted (CR512)"
    ),
    positions="code points",
    detect=agents_state,
    stream=agents_history,
    keys=frozenset({"role", "output_text", "annotations", "providerData", "generatedItems", "$schemaVersion"}),
    adapter=_P + "agents:history",
    collect=_P + "agents:collect_items",
)
