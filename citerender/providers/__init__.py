"""Adapters: providers' structured citations → a registry plus an answer with markers.

Not every model writes markers; APIs also return citations as data. Each adapter turns a saved
response into ``(answer_text_with_markers, Registry)`` so the same renderers, checks and exports
apply. Built from the providers' published formats:

* OpenAI Responses: ``output_text`` parts with ``url_citation`` (``start_index``, ``end_index``,
  ``url``, ``title``) and ``file_citation`` (``file_id``, ``filename``, ``index``) annotations;
* OpenAI Chat Completions (web search): ``message.annotations`` of type ``url_citation``;
* Anthropic Messages: ``citations`` on text blocks (``char_location``, ``page_location``,
  ``content_block_location``, ``web_search_result_location``, each with ``cited_text``);
* OpenAI Assistants: ``【4:0†source】`` text backed by ``file_citation`` annotations;
* Google Gemini / Vertex AI grounding and the Interactions API, Vertex AI Search answers, Cohere v2,
  Perplexity, Mistral, Amazon Bedrock (Converse, Knowledge Bases and Agents), Azure On Your Data,
  LangChain v1 content blocks, the Vercel AI SDK's ``UIMessage``, LiteLLM's provider fields,
  LlamaIndex responses and Haystack answers — one module each, their documentation's version in
  its docstring.

Where the text numbers its citations itself (``[doc1]``, ``[1]``), the adapter leaves it as written
and says what each number names (``Registry.dialect`` and ``numbered``): the plugin reads the numbers
where it reads inline Markdown (:mod:`citerender.plugin.dialects`), so code keeps them.

Every provider's text positions go through :mod:`.offsets` (one unit, checked against the cited
text, placed after the last word); what had to be repaired is reported in ``Adapted.notes``. Every
citation then lands where the one placement rule of :mod:`.zones` lets it, whatever the offsets:
never inside inline code, a link, a URL or a code block (``insert_edits``, and the live stream).

Streaming event sequences (OpenAI Responses events, Anthropic message events) are folded into
the final response first (:func:`collect_events`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .common import Adapted
    from .responses import PROVIDERS, adapt, collect_events, detect_provider, load_response, resembles

__all__ = ["PROVIDERS", "Adapted", "adapt", "collect_events", "detect_provider", "load_response", "resembles"]


def __getattr__(name: str) -> Any:
    """The adapters load on first use: reading an answer (``citerender render answer.md``) goes
    through :mod:`.inputs` and needs none of them."""
    if name == "Adapted":
        from .common import Adapted

        return Adapted
    if name in __all__:
        from . import responses

        return getattr(responses, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
