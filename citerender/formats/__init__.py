"""Every ``--from`` name, once: the saved provider responses, the chat exports and the RAG
frameworks' numbering dialects, each a :class:`Format` entry of :data:`FORMATS` (its fields:
:class:`Format`). The command line's choices, the detection order (the table's order), the hints,
the options' validation and the documentation's provider table are all read from here: adding a
provider is its module plus one entry. Readers are named as ``"module:function"``, imported only
when their format is met."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .agents import OPENAI_AGENTS, PERPLEXITY_AGENT
from .entry import Events, Format, Kind
from .shapes import (
    agent_response,
    ai_sdk_events,
    assistants_events,
    assistants_page,
    at,
    deepseek_message,
    kb_events,
    langchain_message,
    ragflow_completion,
    vertex_answer,
)

__all__ = ["FORMATS", "Events", "Format", "Kind", "detect", "find", "names", "provider_table"]

_NUMBERS = r"\d{1,4}(?:\s*[,\u2013-]\s*\d{1,4}){0,31}"
_P = "citerender.providers."

#: every ``--from`` name; responses in the order they are detected in (the first whose test holds)
FORMATS: tuple[Format, ...] = (
    Format(
        "gemini-interactions",
        "response",
        summary=(
            "the Interactions API's `steps[]` (or the first beta's `outputs[]`): `model_output` text "
            "`annotations` (`url_citation`, `file_citation` with page, `place_citation` with review snippets), "
            "`google_search_result` / `url_context_result` pages as consulted, the results' Search Suggestions "
            "widget shown after the answer (each chip a link); its `step.*` event stream"
        ),
        positions="**UTF-8 bytes** per text item",
        detect=lambda d: d.get("object") == "interaction" or isinstance(d.get("steps"), list),
        stream=lambda ev: any(str(e.get("event_type", "")).startswith(("step.", "interaction.")) for e in ev.items),
        keys=frozenset({"steps", "model_output", "event_type", "annotations", "url_citation"}),
        adapter=_P + "interactions:interaction",
        collect=_P + "interactions:collect_events",
    ),
    PERPLEXITY_AGENT,  # before openai-responses: its shape too, with a search_results item
    Format(
        "openai-responses",
        "response",
        summary=(
            "`output_text` annotations: `url_citation` (a `([site](url))` span becomes the citation), "
            "`file_citation`, `container_file_citation`, `file_path`; `web_search_call.action.sources` and the "
            "pages its `open_page`/`find_in_page` actions read as consulted. **xAI**'s Responses API is this "
            "shape: its `[[1]](url)` links become the citation of their `url_citation` (or of their URL), cited "
            "once where they stand; spanless `url_citation`s no link names are listed in Sources; its "
            "`citations` URLs no link uses are consulted"
        ),
        positions="code points; xAI: none",
        detect=lambda d: d.get("object") == "response" or isinstance(d.get("output"), list),
        stream=lambda ev: any(t.startswith("response.") for t in ev.types),
        keys=frozenset({"output", "object", "output_text", "annotations", "url_citation"}),
        adapter=_P + "openai:responses",
        collect=_P + "openai:collect_events",
    ),
    OPENAI_AGENTS,
    Format(
        "deepseek-web",
        "response",
        summary=(
            "DeepSeek's web chat with search (no public API document: the shape its exporters read): `fragments` "
            "(`SEARCH` results, `RESPONSE` text citing `[citation:N]` / `[reference:N]`, N a result's "
            "`cite_index`; `THINK` left out), or a whole chat's last answer"
        ),
        positions="numbers in the text (`cite_index`)",
        detect=deepseek_message,
        keys=frozenset({"fragments", "results", "cite_index", "search_results", "biz_data"}),
        adapter=_P + "deepseek:message",
    ),
    Format(
        "ragflow-api",
        "response",
        summary=(
            "RAGFlow's chat or agent completion (`data.answer` with `[ID:0]` or `##0$$` over "
            "`data.reference.chunks`, a list or the agent API's mapping keyed by number; `doc_aggs` consulted); a"
            " stream must be saved as its last event"
        ),
        positions="numbers in the text, 0-based",
        detect=ragflow_completion,
        keys=frozenset({"data", "answer", "reference", "chunks", "doc_aggs", "docnm_kwd"}),
        adapter=_P + "ragflow:completion",
    ),
    Format(
        "pydantic-ai",
        "response",
        summary=(
            'a `ModelResponse` as its history serialises it (`kind: "response"`, `parts`): `text` parts, the '
            "provider's own tools' pages (`builtin-tool-return`) consulted; a whole history renders as a "
            "conversation (user prompts and answers, the agent's tool steps left out)"
        ),
        positions="none given (Pydantic AI keeps no citation positions)",
        detect=lambda d: d.get("kind") == "response" and isinstance(d.get("parts"), list),
        keys=frozenset({"kind", "parts", "part_kind", "tool_name", "provider_name"}),
        adapter=_P + "pydantic_ai:response",
    ),
    Format(
        "vertex-ai-search",
        "response",
        summary=(
            "Vertex AI Search `answer`: `answerText`, `citations[{startIndex, endIndex, sources[{referenceId}]}]`"
            " over `references` (`chunkInfo`, `unstructuredDocumentInfo`, `structuredDocumentInfo`); chunks of "
            "one page are one source"
        ),
        positions="**UTF-8 bytes**, end exclusive (int64 strings)",
        detect=vertex_answer,
        keys=frozenset({"answer", "answerText", "citations", "references", "referenceId", "chunkInfo"}),
        adapter=_P + "vertex_search:answer",
    ),
    Format(
        "bedrock-agent",
        "response",
        summary=(
            "Bedrock Agents `InvokeAgent` events (or boto3's response with `completion` saved as a list): "
            "`chunk.bytes` (base64 or text) and `attribution.citations`; the trace's knowledge-base lookups as "
            "consulted"
        ),
        positions="code points, end inclusive, checked against the cited text",
        detect=agent_response,
        stream=lambda ev: "chunk" in ev.kinds and ev.kinds <= {"chunk", "trace", "returnControl", "files"},
        keys=frozenset({"chunk", "attribution", "citations", "trace", "completion"}),
        adapter=_P + "bedrock_agents:agent",
        collect=_P + "bedrock_agents:collect_agent_events",
    ),
    Format(
        "llamaindex",
        "response",
        summary=(
            'a query engine\'s response saved as `{"response", "source_nodes": [NodeWithScore.model_dump()]}`: the'
            " `CitationQueryEngine`'s `[1]` over its `Source 1:` chunks (chunks of one file are one source, each "
            "chunk quoted)"
        ),
        positions="numbers in the text",
        detect=lambda d: isinstance(d.get("source_nodes"), list) and "response" in d,
        keys=frozenset({"response", "source_nodes", "node", "metadata"}),
        adapter=_P + "llamaindex:response",
    ),
    Format(
        "haystack",
        "response",
        summary=(
            "a `GeneratedAnswer` (`to_dict()` or bare): `[1]` over its `documents`, numbered by the "
            "`AnswerBuilder`'s `meta.source_index`; unreferenced documents consulted"
        ),
        positions="numbers in the text",
        detect=lambda d: str(d.get("type", "")).startswith("haystack.") or {"data", "query", "documents"} <= d.keys(),
        keys=frozenset({"data", "query", "documents", "init_parameters"}),
        adapter=_P + "haystack:answer",
    ),
    Format(
        "bedrock-converse",
        "response",
        summary=(
            "`citationsContent` (document char/page/chunk, web, search-result locations; `sourceContent` as lines)"
        ),
        positions="per block",
        detect=lambda d: isinstance(d.get("output"), Mapping) and "message" in d["output"],
        stream=lambda ev: bool(ev.kinds & {"contentBlockDelta", "messageStart", "messageStop"}),
        keys=frozenset({"output", "citationsContent", "stopReason"}),
        adapter=_P + "bedrock:converse",
        collect=_P + "bedrock:collect_events",
    ),
    Format(
        "bedrock-kb",
        "response",
        summary=(
            "RetrieveAndGenerate `citations` (`textResponsePart.span`, `retrievedReferences`: passages of one "
            "document as its lines, its page numbers kept)"
        ),
        positions="code points, end inclusive",
        detect=lambda d: isinstance(d.get("output"), Mapping) and "message" not in d["output"],
        stream=kb_events,
        keys=frozenset({"output", "citations", "retrievedReferences"}),
        adapter=_P + "bedrock:knowledge_base",
        collect=_P + "bedrock:collect_kb_events",
    ),
    Format(
        "gemini",
        "response",
        summary=(
            "`groundingMetadata`: `groundingChunks` (web, retrievedContext — file search chunks named by their "
            "title, else the caller's `customMetadata` `title`/`url`, else their store —, maps, image: the page "
            "its `sourceUri` names, never the image; every chunk a source, the uncited ones consulted, one that "
            "cannot be linked reported) and `groundingSupports` (segments, chunk indices); "
            "`urlContextMetadata` (pages read: consulted; not retrieved: CR511); `citationMetadata` "
            "(`citationSources`, Vertex AI's `citations`: each `uri` linked after the word its span ends in; a "
            "span past the answer listed without a place, CR504); `searchEntryPoint`'s Search Suggestions shown "
            "after the answer, each chip a link (CR515 when it has none)"
        ),
        positions="**UTF-8 bytes** per part",
        detect=lambda d: isinstance(d.get("candidates"), list),
        keys=frozenset({"candidates", "groundingMetadata", "groundingSupports", "groundingChunks", "citationMetadata"}),
        adapter=_P + "gemini:generate_content",
        collect=_P + "gemini:collect_chunks",
    ),
    Format(
        "perplexity",
        "response",
        summary=(
            "Sonar: `[1]` numbers in the text over `search_results` (titled, dated) / the deprecated `citations`"
            " (the `numbered` dialect); xAI's chat API: its `[[1]](url)` links cited where they stand, the "
            "`citations` no link uses consulted"
        ),
        positions="numbers in the text",
        detect=lambda d: "search_results" in d or (isinstance(d.get("citations"), list) and "choices" in d),
        keys=frozenset({"citations", "search_results", "choices"}),
        adapter=_P + "perplexity:chat",
        collect=_P + "perplexity:collect_chunks",
    ),
    Format(
        "mistral",
        "response",
        summary=(
            "`reference` chunks (ids into your tool results: `--sources` with ids `ref0`, `ref1`…) and agents' "
            "`tool_reference`"
        ),
        positions="—",
        detect=lambda d: (
            isinstance(at(d, "choices", 0, "message", "content"), list) or isinstance(d.get("outputs"), list)
        ),
        # chat chunks whose deltas carry reference chunks
        stream=lambda ev: any(isinstance(at(e, "choices", 0, "delta", "content"), list) for e in ev.items),
        keys=frozenset({"choices", "reference_ids", "outputs"}),
        adapter=_P + "mistral:chat",
        collect=_P + "mistral:collect_chunks",
    ),
    Format(
        "openai-chat",
        "response",
        summary=(
            "`message.annotations` (`url_citation`; OpenRouter's empty spans at 0 are listed, not placed). "
            "**LiteLLM**'s `provider_specific_fields`: Anthropic citations placed after their block's "
            "`supported_text` (listed, CR510, when it is gone), URL lists and `search_results` consulted. **Azure"
            " OpenAI On Your Data**: the text's `[doc1]` over `message.context.citations` (`content, title, url, "
            "filepath, chunk_id`; chunks of one document are one source, each chunk quoted in its card), "
            "`all_retrieved_documents` as consulted, the 2023 API's tool-message JSON and streamed "
            "`delta.context` too"
        ),
        positions="code points; Azure: numbers in the text (`azure` dialect)",
        detect=lambda d: d.get("object") == "chat.completion" or "choices" in d,
        keys=frozenset({"choices", "message", "annotations"}),
        adapter=_P + "openai:chat",
        collect=_P + "openai:collect_chat_chunks",
    ),
    Format(
        "openai-assistants",
        "response",
        summary=(
            "a `thread.message`, a page of a thread's messages (`GET /v1/threads/{id}/messages`, newest first: its"
            " newest answer, the earlier turns counted) or a run's event stream (`thread.message.delta`, "
            "`thread.run.step` file search results): the `【4:0†handbook.pdf】` markers `file_citation` annotations"
            " replace, each file named by its marker, the annotation or the run's results (else its file id), "
            "with its quote; Azure's `url_citation`; `file_path` / `image_file` output files named, not linked"
        ),
        positions="code points (the marker's words)",
        detect=lambda d: d.get("object") == "thread.message" or assistants_page(d),
        stream=assistants_events,
        keys=frozenset({"thread_id", "assistant_id", "run_id", "first_id", "has_more", "file_citation"}),
        adapter=_P + "assistants:message",
        collect=_P + "assistants:collect_events",
    ),
    Format(
        "anthropic",
        "response",
        summary=(
            "`citations` on text blocks: char, page, content-block and web-search locations; `cited_text` becomes"
            " a cited line; a document location on a page the `web_fetch` tool read links that page (one source "
            "with the fetch); a `search_result_location` links its `source` URL, or shows its id beside the title"
        ),
        positions="per block",
        detect=lambda d: d.get("type") == "message" and isinstance(d.get("content"), list),
        stream=lambda ev: "message_start" in ev.types or "content_block_delta" in ev.types,
        keys=frozenset({"content", "citations", "cited_text", "stop_reason"}),
        adapter=_P + "anthropic:messages",
        collect=_P + "anthropic:collect_events",
        documents=True,
    ),
    Format(
        "cohere",
        "response",
        summary=("v2 `message.citations` (`document` and `tool` sources)"),
        positions="code points, checked against `text`",
        detect=lambda d: (
            isinstance(d.get("message"), Mapping) and ("finish_reason" in d or "citations" in d["message"])
        ),
        stream=lambda ev: bool(ev.types & {"message-start", "content-delta", "citation-start"}),
        keys=frozenset({"message", "citations", "finish_reason", "sources"}),
        adapter=_P + "cohere:chat",
        collect=_P + "cohere:collect_events",
    ),
    Format(
        "langchain",
        "response",
        summary=(
            "v1 content blocks, `citation` annotations (`cited_text` as lines; LangChain.js's "
            "`startIndex`/`endIndex`/`citedText` too), other annotation types (`non_standard_annotation`) "
            "reported with their URL kept; serialised messages; a message whose `content` keeps the provider's "
            "own blocks read by that provider's reader (`ChatAnthropic`'s default: Anthropic `citations`; "
            "`ChatOpenAI` on the Responses API: OpenAI's `url_citation`/`file_citation` annotations and "
            "`web_search_call` sources)"
        ),
        positions="code points; LangChain.js: UTF-16 units; Anthropic blocks: per block",
        detect=langchain_message,
        keys=frozenset({"content_blocks", "lc", "kwargs", "annotations"}),
        adapter=_P + "langchain:message",
        collect=_P + "langchain:collect_chunks",
    ),
    Format(
        "ai-sdk",
        "response",
        summary=(
            "`UIMessage.parts`: `source-url`, `source-document` after the text they support; a source part with "
            "`startIndex`/`endIndex` (on the part or in its `providerMetadata`, with `citedText`, as the SDK's "
            "LangChain adapter writes them) after the words it names; `generateText`'s `content` (`text` and "
            "`source` parts, `sourceType` `url`/`document`), a text part's passed-through `url_citation` spans "
            "(`providerMetadata.openai.annotations`) placing its sources; a tool's result naming web pages (a "
            "provider's web search: its `sources`, an `openPage`/`findInPage` action's page) as consulted"
        ),
        positions="UTF-16 code units, checked against the cited text; passed-through spans: the provider's (code points for OpenAI)",
        detect=lambda d: isinstance(d.get("parts"), list) and d.get("role") == "assistant",
        stream=ai_sdk_events,
        keys=frozenset({"parts", "role", "sourceId"}),
        adapter=_P + "aisdk:ui_message",
        collect=_P + "aisdk:collect_stream",
    ),
    Format("chatgpt-export", "export", "ChatGPT's conversations.json (or its .zip)", probes=('"mapping"',)),
    Format("claude-export", "export", "Claude's conversations.json (or its .zip)", probes=('"chat_messages"',)),
    Format(
        "azure",
        "dialect",
        "[doc1]",
        form=re.compile(r"\[(?:doc|Doc|DOC)(\d{1,4})\]"),  # the cases its probes look for
        probes=("[doc", "[Doc", "[DOC"),
        label="doc{}",
    ),
    Format(
        "deepseek",
        "dialect",
        "[citation:1]",
        form=re.compile(rf"[\[\u3010]\u200b?(?:citation|reference):\s*({_NUMBERS})\s*\u200b?[\]\u3011]"),
        probes=("citation:", "reference:"),
        label="citation:{}",
        first="[\u3010",
    ),
    Format(
        "ragflow",
        "dialect",
        "[ID:0]",
        form=re.compile(r"\[ID:\s*(\d{1,4})\]|##(\d{1,4})\$\$"),
        probes=("[ID:", "$$"),
        label="ID:{}",
        first="[#",
        base=0,
    ),
    Format(
        "numbered-links",
        "dialect",
        "[[1]](url)",
        form=re.compile(r"\[\[?(\d{1,4})\]?\]\(\s*<?(?P<url>[^()\s<>]+)>?\s*\)"),
        probes=("](",),
    ),
    Format("numbered", "dialect", "[1]", form=re.compile(rf"\[({_NUMBERS})\](?!\()"), probes=("[",)),
)


def names(*kinds: Kind) -> tuple[str, ...]:
    """The names of the formats of these kinds (every kind when none is given), in table order."""
    return tuple(f.name for f in FORMATS if not kinds or f.kind in kinds)


def find(name: str) -> Format | None:
    """The entry named ``name``, if any."""
    return next((f for f in FORMATS if f.name == name), None)


def detect(data: Any) -> str | None:
    """The response format ``data`` is (a JSON object, or a list of streaming events or chunks):
    the first entry whose test holds; a list no event test claims is the one format all its items
    are shaped as (Gemini, Perplexity and LangChain stream whole responses)."""
    responses = [f for f in FORMATS if f.kind == "response"]
    if isinstance(data, Mapping):
        return next((f.name for f in responses if f.detect is not None and f.detect(data)), None)
    if not isinstance(data, list):
        return None
    events = Events.of(data)
    found = next((f.name for f in responses if f.stream is not None and f.stream(events)), None)
    if found is None:
        shapes = {detect(e) for e in events.items} - {None}
        found = shapes.pop() if len(shapes) == 1 else None
    return found


def provider_table() -> str:
    """The documentation's table of response formats (``docs/providers.md``), one row per entry."""
    rows = [f"| `{f.name}` | {f.summary} | {f.positions} |" for f in FORMATS if f.kind == "response"]
    return "\n".join(["| `--from` | reads | positions |", "|---|---|---|", *rows]) + "\n"
