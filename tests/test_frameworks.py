"""Frameworks and gateways people call providers through, and the newer provider shapes (issue 28,
items 4 and 5): the AI SDK's source parts with spans, LlamaIndex responses, Haystack answers,
Bedrock Agents streams and Vertex AI Search answers."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES

from citerender import adapt, render
from citerender.cli import main
from citerender.providers.offsets import from_codepoints

DOCUMENTED = FIXTURES / "providers" / "documented"


def _cards(html: str) -> list[str]:
    return [c.get_text(" ") for c in BeautifulSoup(html, "html.parser").select(".citerender-card")]


def _pieces(html: str) -> list[str]:
    """The first paragraph's text cut at each citation, as a reader reads it."""
    soup = BeautifulSoup(html, "html.parser")
    for cite in soup.select(".citerender-cite"):
        cite.replace_with("|")
    paragraph = soup.find("p")
    assert paragraph is not None
    return [piece.rstrip(" ") for piece in paragraph.get_text().replace("\u2060", "").split("|")]


# -- Vercel AI SDK: source parts that carry a span -----------------------------------------------


def _ui_message(text: str, sources: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "m1", "role": "assistant", "parts": [{"type": "text", "text": text}, *sources]}


def test_ai_sdk_source_parts_with_spans_are_placed_inline() -> None:
    text = "Remote work is allowed two days a week 🏠. Travel needs approval first. Pay is monthly."
    first, second = "Remote work is allowed two days a week 🏠.", "Travel needs approval first."
    s2 = text.index(second)
    sources = [  # the LangChain adapter's shape: the span and the cited text in providerMetadata
        {
            "type": "source-url",
            "sourceId": "https://hr.example/remote",
            "url": "https://hr.example/remote",
            "title": "Remote work",
            "providerMetadata": {"langchain": {"citedText": first, "startIndex": 0, "endIndex": from_codepoints(text, len(first), "utf16")}},
        },
        {
            "type": "source-document",
            "sourceId": "doc-travel",
            "mediaType": "text/plain",
            "title": "Travel policy",
            "providerMetadata": {"langchain": {"startIndex": from_codepoints(text, s2, "utf16"), "endIndex": from_codepoints(text, s2 + len(second), "utf16")}},
        },
        {"type": "source-url", "sourceId": "https://hr.example/pay", "url": "https://hr.example/pay", "title": "Pay"},
    ]  # fmt: skip
    adapted = adapt(_ui_message(text, sources), "ai-sdk")
    assert adapted.notes == []  # UTF-16 spans over an emoji: no repair needed
    r = render(adapted.text, registry=adapted.registry, style="hovercard")
    assert _pieces(r.html) == [
        "Remote work is allowed two days a week 🏠.",
        " Travel needs approval first.",
        " Pay is monthly.",
        "",
    ]
    assert first in _cards(r.html)[0]  # the cited text quoted in its card


def test_ai_sdk_top_level_span_and_one_outside_the_text() -> None:
    text = "Short answer."
    sources = [
        {"type": "source-url", "sourceId": "a", "url": "https://a.example/", "startIndex": 0, "endIndex": 5},
        {"type": "source-url", "sourceId": "b", "url": "https://b.example/", "startIndex": 0, "endIndex": 90},
    ]
    adapted = adapt(_ui_message(text, sources), "ai-sdk")
    assert [code for code, _ in adapted.notes] == ["CR504"]  # clamped and said, never dropped
    r = render(adapted.text, registry=adapted.registry)
    assert len(BeautifulSoup(r.html, "html.parser").select(".citerender-references li")) == 2


# -- LlamaIndex: the CitationQueryEngine's "Source N:" chunks and [N] ----------------------------


def test_llamaindex_citation_query_engine_documented_example(tmp_path: Path) -> None:
    path = DOCUMENTED / "llamaindex-citation-query-engine.json"
    out = tmp_path / "answer.html"
    assert main(["render", str(path), "--style", "hovercard", "-o", str(out)]) == 0  # detected: no --from
    html = out.read_text(encoding="utf-8")
    pieces = _pieces(html)
    assert pieces[0].endswith("an early version of Fortran") and pieces[1].endswith("and a word processor")
    cards = _cards(html)
    assert "IBM 1401" in cards[0] and "Source 1:" not in cards[0]  # the chunk quoted, its label not
    assert "TRS-80" in cards[1] and "IBM 1401" not in cards[1]  # each citation quotes its own chunk
    soup = BeautifulSoup(html, "html.parser")
    assert len(soup.select(".citerender-bibliography li")) == 1  # two chunks of one essay: one source
    assert "paul_graham_essay.txt" in soup.select_one(".citerender-bibliography li").get_text()


def test_llamaindex_plain_source_nodes_number_by_position_and_keep_code() -> None:
    resp = {
        "response": "Use `items[1]` to read it [2].\n\n```py\nx = y[1]\n```\nAlso [1].",
        "source_nodes": [
            {"node": {"id_": "a", "text": "Lists are zero-based.", "metadata": {"url": "https://docs.example/lists", "title": "Lists"}}, "score": 0.9},
            {"node": {"id_": "b", "text": "Indexing reads one item.", "metadata": {"url": "https://docs.example/index", "title": "Indexing"}}, "score": 0.8},
        ],
    }  # fmt: skip
    adapted = adapt(resp)
    r = render(adapted.text, registry=adapted.registry)
    soup = BeautifulSoup(r.html, "html.parser")
    assert [c.get_text() for c in soup.find_all("code")] == ["items[1]", "x = y[1]\n"]
    assert [a["href"] for a in soup.select(".citerender-references a.citerender-ref-title")] == [
        "https://docs.example/index",
        "https://docs.example/lists",
    ]


# -- Haystack: GeneratedAnswer with the AnswerBuilder's referenced documents -----------------------


def _haystack_document(i: int, content: str, **meta: Any) -> dict[str, Any]:
    return {
        "id": f"doc{i}",
        "content": content,
        "blob": None,
        "score": 0.5,
        "embedding": None,
        "sparse_embedding": None,
        **meta,
    }


def test_haystack_generated_answer_numbers_by_source_index() -> None:
    documents = [  # AnswerBuilder(reference_pattern=r"\[(\d+)\]") keeps the referenced ones, numbered as in the prompt
        _haystack_document(2, "Berlin is the capital of Germany.", url="https://wiki.example/berlin", title="Berlin", source_index=2, referenced=True),
        _haystack_document(3, "Paris is the capital of France. 🇫🇷", url="https://wiki.example/paris", title="Paris", source_index=3, referenced=True),
        _haystack_document(1, "Rome is in Italy.", url="https://wiki.example/rome", title="Rome", source_index=1, referenced=False),
    ]  # fmt: skip
    answer = {
        "type": "haystack.dataclasses.answer.GeneratedAnswer",
        "init_parameters": {"data": "Paris is France's capital [3]; Berlin is Germany's [2].", "query": "capitals?", "documents": documents, "meta": {}},
    }  # fmt: skip
    adapted = adapt(answer)
    r = render(adapted.text, registry=adapted.registry, style="hovercard", consulted=True)
    assert _pieces(r.html) == ["Paris is France's capital", "; Berlin is Germany's", "."]
    cards = _cards(r.html)
    assert "Paris is the capital of France. 🇫🇷" in cards[0] and "Berlin is the capital" in cards[1]
    soup = BeautifulSoup(r.html, "html.parser")
    assert [a["href"] for a in soup.select(".citerender-consulted a[href^='https://']")] == [
        "https://wiki.example/rome"
    ]


# -- Bedrock Agents: InvokeAgent chunk events with attribution -----------------------------------


def test_bedrock_agent_invoke_stream() -> None:
    text = "Employees may work remotely two days a week. Über 90 % approve."
    cited = "Employees may work remotely two days a week."
    ref = {
        "content": {"text": "Remote work: two days a week."},
        "location": {"type": "S3", "s3Location": {"uri": "s3://hr/handbook.pdf"}},
        "metadata": {"title": "Handbook"},
    }
    web = {
        "content": {"text": "Survey results."},
        "location": {"type": "WEB", "webLocation": {"url": "https://hr.example/survey"}},
    }
    events = [
        {"trace": {"trace": {"orchestrationTrace": {"observation": {"knowledgeBaseLookupOutput": {"retrievedReferences": [ref, web]}}}}}},
        {"chunk": {"bytes": base64.b64encode(text.encode()).decode(), "attribution": {"citations": [
            {"generatedResponsePart": {"textResponsePart": {"text": cited, "span": {"start": 0, "end": len(cited) - 1}}}, "retrievedReferences": [ref]},
        ]}}},
    ]  # fmt: skip
    for data in (events, {"completion": events, "contentType": "application/json", "sessionId": "s1"}):
        adapted = adapt(data)
        assert adapted.notes == []
        r = render(adapted.text, registry=adapted.registry, style="hovercard", consulted=True)
        assert _pieces(r.html) == [cited, " Über 90 % approve."]
        assert "Remote work: two days a week." in _cards(r.html)[0]
        soup = BeautifulSoup(r.html, "html.parser")
        assert [a["href"] for a in soup.select(".citerender-consulted a[href^='https://']")] == [
            "https://hr.example/survey"
        ]


def test_bedrock_agent_plain_text_bytes() -> None:
    events = [{"chunk": {"bytes": "Plain text, decoded by the caller."}}]
    assert adapt(events).text == "Plain text, decoded by the caller."


# -- Vertex AI Search answers (Google Cloud's documented example) ---------------------------------


def _vertex() -> dict[str, Any]:
    return json.loads((DOCUMENTED / "vertex-ai-search-answer.json").read_text(encoding="utf-8"))


def _span_ends(answer: dict[str, Any]) -> list[str]:
    """The text each citation's byte span names, as the provider means it."""
    raw = answer["answerText"].encode("utf-8")
    return [raw[int(c.get("startIndex", 0)) : int(c["endIndex"])].decode("utf-8").strip() for c in answer["citations"]]


def test_vertex_ai_search_documented_answer(tmp_path: Path) -> None:
    data = _vertex()
    out = tmp_path / "answer.html"
    assert (
        main(["render", str(DOCUMENTED / "vertex-ai-search-answer.json"), "--style", "hovercard", "-o", str(out)]) == 0
    )
    html = out.read_text(encoding="utf-8")
    pieces = _pieces(html)
    spans = _span_ends(data["answer"])
    assert len(pieces) == len(spans) + 1
    for piece, span in zip(pieces, spans, strict=False):  # each citation right after the words it names
        assert piece.endswith(span[-30:])
    links = {
        a["href"] for a in BeautifulSoup(html, "html.parser").select(".citerender-bibliography a[href^='https://']")
    }
    uris = {r["chunkInfo"]["documentMetadata"]["uri"] for r in data["answer"]["references"]}
    assert links == uris  # every URL linked; four chunks of two pages are two sources
    cards = _cards(html)
    assert "SQL (Structured Query Language) is a programming language" in cards[0]  # the chunk cited, quoted


def test_vertex_ai_search_byte_offsets_over_emoji_and_cjk() -> None:
    data = _vertex()
    answer = data["answer"]
    prefix = "🚀 数据库: "
    shift = len(prefix.encode("utf-8"))
    answer["answerText"] = prefix + answer["answerText"]
    for c in answer["citations"]:
        c["startIndex"] = str(int(c.get("startIndex", 0)) + shift if "startIndex" in c else 0)
        c["endIndex"] = str(int(c["endIndex"]) + shift)
    adapted = adapt(data)
    r = render(adapted.text, registry=adapted.registry)
    pieces = _pieces(r.html)
    assert (
        pieces[0]
        == prefix
        + "SQL stands for Structured Query Language and is a programming language used to manage, query, and retrieve data in a relational database."
    )
    assert pieces[1].endswith("manipulate data in relational database tables.")


def test_vertex_ai_search_unknown_reference_is_reported() -> None:
    data = _vertex()
    data["answer"]["citations"][0]["sources"].append({"referenceId": "9"})
    adapted = adapt(data)
    assert [code for code, _ in adapted.notes] == ["CR505"]


# -- LiteLLM: provider_specific_fields -----------------------------------------------------------


def test_litellm_anthropic_citations_in_provider_specific_fields() -> None:
    # LiteLLM's ModelResponse.model_dump() for Claude with citations: one list per text block,
    # each citation with the block's supported_text (the shape DSPy reads, stanfordnlp/dspy tests)
    content = "The sky is blue during the day. At night it looks black. Ünïcode stays."
    response = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "claude-sonnet-4-5",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": content, "tool_calls": None,
            "provider_specific_fields": {"citations": [
                [{"type": "char_location", "cited_text": "The sky is blue", "document_index": 0, "document_title": "Weather Guide", "start_char_index": 10, "end_char_index": 25, "supported_text": "The sky is blue during the day."}],
                [{"type": "web_search_result_location", "cited_text": "Night skies appear black.", "url": "https://sky.example/night", "title": "Night", "supported_text": "At night it looks black."}],
                [{"type": "TEXT_CONTENT", "start": 0, "end": 3, "text": "The", "sources": [{"type": "document", "id": "d1"}]}],
            ], "search_results": [{"url": "https://sky.example/day", "title": "Day"}]},
        }}],
    }  # fmt: skip
    adapted = adapt(response)
    assert [code for code, _ in adapted.notes] == ["CR507"]  # an unknown shape is said, not dropped
    r = render(adapted.text, registry=adapted.registry, style="hovercard", consulted=True)
    assert _pieces(r.html) == ["The sky is blue during the day.", " At night it looks black.", " Ünïcode stays."]
    cards = _cards(r.html)
    assert "The sky is blue" in cards[0] and "Weather Guide" in cards[0] and "Night skies appear black." in cards[1]
    soup = BeautifulSoup(r.html, "html.parser")
    assert [a["href"] for a in soup.select(".citerender-consulted a[href^='https://']")] == ["https://sky.example/day"]


def test_litellm_citation_whose_words_are_gone_is_listed_not_dropped() -> None:
    msg = {"role": "assistant", "content": "Rewritten answer.", "provider_specific_fields": {"citations": [[
        {"type": "web_search_result_location", "cited_text": "x", "url": "https://a.example/", "title": "A", "supported_text": "Not in the answer."},
    ]]}}  # fmt: skip
    adapted = adapt({"object": "chat.completion", "choices": [{"index": 0, "message": msg}]})
    r = render(adapted.text, registry=adapted.registry)
    assert "CR510" in {d.code for d in r.diagnostics}
    entry = BeautifulSoup(r.html, "html.parser").select_one(".citerender-references li")
    assert entry is not None and entry.select_one("a")["href"] == "https://a.example/"
    assert (
        entry.select_one(".citerender-ref-note").get_text() == "cited without a place in the text"
    )  # said, in the entry


def test_every_documented_fixture_names_its_origin() -> None:
    readme = (DOCUMENTED / "README.md").read_text(encoding="utf-8")
    assert all(f"`{p.name}`" in readme for p in DOCUMENTED.glob("*.json"))


def test_an_entry_no_text_cites_says_so_and_a_titleless_one_names_its_site_once_and_its_page() -> None:
    from citerender import registry_from_data

    registry = registry_from_data(
        [{"id": "a", "url": "https://site.example/page"}, {"id": "b", "title": "B", "url": "https://b.example/"}]
    )
    r = render("Only b.\ue200cite\ue202b\ue201", registry=registry, list_all=True)
    soup = BeautifulSoup(r.html, "html.parser")
    cited, listed = soup.select(".citerender-references li")
    assert cited.select_one(".citerender-ref-note") is None and cited.select_one(".citerender-backlinks") is not None
    assert listed.select_one(".citerender-ref-note").get_text() == "not cited in the text"
    assert listed.select_one(".citerender-ref-domain") is None  # its site is its title: said once
    assert listed.select_one(".citerender-ref-url").get_text() == "site.example/page"  # and which page
    shown = registry_from_data(
        [{"id": "w", "url": "https://en.wikipedia.org/wiki/XAI_%28company%29"}, {"id": "e", "url": "https://a.example/%E2%80%AEfdp"}]
    )  # fmt: skip
    pages = BeautifulSoup(render("Nothing.", registry=shown, list_all=True).html, "html.parser").select(
        ".citerender-ref-url"
    )
    assert [p.get_text() for p in pages] == [
        "en.wikipedia.org/wiki/XAI_(company)",
        "a.example/%E2%80%AEfdp",
    ]  # no bidi trick


# -- Pydantic AI: message history with the provider's own tools -----------------------------------


def _pydantic_history() -> list[dict[str, Any]]:
    """A history as ``ModelMessagesTypeAdapter.dump_python(messages, mode="json")`` writes it (the
    part shapes of pydantic-ai's own serialisation tests), OpenAI's web search as a builtin tool."""
    sources = [
        {"type": "url", "url": "https://zig.example/news", "title": "Zig news"},
        {"type": "url", "url": "https://zig.example/0.14"},
    ]
    return [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "What is new in Zig?", "timestamp": "2026-01-02T03:04:05Z"}]},
        {"kind": "response", "model_name": "gpt-5", "provider_name": "openai", "parts": [
            {"part_kind": "builtin-tool-call", "tool_name": "web_search", "args": {"query": "zig release"}, "tool_call_id": "ws_1", "provider_name": "openai"},
            {"part_kind": "builtin-tool-return", "tool_name": "web_search", "content": {"status": "completed", "sources": sources}, "tool_call_id": "ws_1", "provider_name": "openai", "outcome": "success"},
            {"part_kind": "text", "content": "Zig 0.14 shipped incremental compilation."},
        ]},
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Thanks — and the date?"}]},
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "calendar", "args": {}, "tool_call_id": "c1"}]},
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "calendar", "content": "March 2025", "tool_call_id": "c1"}]},
        {"kind": "response", "parts": [{"part_kind": "text", "content": "It came out in March 2025."}]},
    ]  # fmt: skip


def test_pydantic_ai_response_builtin_tool_pages_are_consulted() -> None:
    response = _pydantic_history()[1]
    adapted = adapt(response)  # detected: kind "response" with parts
    assert adapted.text == "Zig 0.14 shipped incremental compilation."
    r = render(adapted.text, registry=adapted.registry, consulted=True)
    soup = BeautifulSoup(r.html, "html.parser")
    assert [a["href"] for a in soup.select(".citerender-consulted a[href]")] == [
        "https://zig.example/news",
        "https://zig.example/0.14",
    ]


def test_pydantic_ai_history_is_a_conversation(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    path.write_text(json.dumps(_pydantic_history()), encoding="utf-8")
    out = tmp_path / "history.html"
    assert main(["render", str(path), "-o", str(out)]) == 0
    text = BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser").get_text(" ")
    for words in ("What is new in Zig?", "Zig 0.14 shipped", "Thanks — and the date?", "It came out in March 2025."):
        assert words in text
    assert "calendar" not in text  # the agent's own tool steps are no turns of the conversation


def test_a_wrong_from_names_what_the_file_looks_like(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = {
        "vertex-ai-search": (DOCUMENTED / "vertex-ai-search-answer.json", "gemini"),
        "llamaindex": (DOCUMENTED / "llamaindex-citation-query-engine.json", "haystack"),
    }
    for looks, (path, wrong) in cases.items():
        assert main(["render", str(path), "--from", wrong, "-o", str(tmp_path / "x.html")]) == 2
        assert f"it looks like {looks}: pass --from {looks}" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()  # nothing half-written


# -- RAGFlow's HTTP API ---------------------------------------------------------------------------


def test_ragflow_documented_chat_completion(tmp_path: Path) -> None:
    path = DOCUMENTED / "ragflow-chat-completion.json"
    out = tmp_path / "answer.html"
    assert main(["render", str(path), "--style", "hovercard", "-o", str(out)]) == 0  # detected
    html = out.read_text(encoding="utf-8")
    assert "##0$$" not in html
    assert _pieces(html)[0].endswith("summarizing content from a knowledge base")
    assert "1.txt" in _cards(html)[0] and "xxxxxxxx" in _cards(html)[0]


def test_ragflow_agent_chunks_keyed_by_their_number() -> None:
    chunk = {
        "id": "4b89",
        "content": "Termux offers a Neovim package.",
        "document_id": "d1",
        "document_name": "INSTALL.md",
        "url": None,
    }
    other = {
        "id": "77aa",
        "content": "Build from source with make.",
        "document_id": "d1",
        "document_name": "INSTALL.md",
    }
    data = {
        "code": 0,
        "data": {
            "answer": "On Android use Termux [ID:20]; elsewhere build it [ID:3].",
            "reference": {"chunks": {"20": chunk, "3": other}},
        },
    }
    adapted = adapt(data)
    r = render(adapted.text, registry=adapted.registry, style="hovercard")
    assert _pieces(r.html) == ["On Android use Termux", "; elsewhere build it", "."]
    cards = _cards(r.html)
    assert "Termux offers a Neovim package." in cards[0] and "Build from source" in cards[1]
    assert len(BeautifulSoup(r.html, "html.parser").select(".citerender-bibliography li")) == 1  # one document


# -- DeepSeek's web chat with search ----------------------------------------------------------------


def test_deepseek_web_search_numbers_are_cite_indexes() -> None:
    # no public document: the shape open-source exporters of DeepSeek's web API read
    results = [
        {"url": "https://aeo.example/what", "title": "什么是AEO", "snippet": "AEO是答案引擎优化。", "cite_index": 35, "published_at": 1735689600, "site_name": "aeo.example"},
        {"url": "https://aeo.example/how", "title": "How AEO works", "snippet": "Answer engines cite sources.", "cite_index": 36},
        {"url": "https://aeo.example/unused", "title": "Unused", "cite_index": 37},
    ]  # fmt: skip
    chat = {"data": {"biz_data": {"chat_messages": [
        {"role": "USER", "fragments": [{"type": "REQUEST", "content": "AEO?"}]},
        {"role": "ASSISTANT", "fragments": [
            {"type": "SEARCH", "results": results},
            {"type": "THINK", "content": "The user asks about AEO [citation:37]."},
            {"type": "RESPONSE", "content": "AEO是答案引擎优化 [citation:35]。Answer engines cite sources [reference:36]."},
        ]},
    ]}}}  # fmt: skip
    adapted = adapt(chat)
    assert "The user asks" not in adapted.text  # reasoning is not the answer
    r = render(adapted.text, registry=adapted.registry, style="hovercard", consulted=True)
    assert _pieces(r.html) == ["AEO是答案引擎优化", "。Answer engines cite sources", "."]
    soup = BeautifulSoup(r.html, "html.parser")
    assert [a["href"] for a in soup.select(".citerender-references a.citerender-ref-title")] == [
        "https://aeo.example/what",
        "https://aeo.example/how",
    ]
    assert [a["href"] for a in soup.select(".citerender-consulted a[href]")] == ["https://aeo.example/unused"]
    assert "2025-01-01" in r.html  # published_at, as the source's date


# -- Mistral agents' built-in web search (Mistral's documented conversation response) ------------


def test_mistral_documented_web_search_conversation() -> None:
    from citerender.providers import detect_provider, load_response

    path = DOCUMENTED / "mistral-agents-web-search.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert detect_provider(data) == "mistral"
    adapted = load_response(path)
    refs = [c for o in data["outputs"] for c in o.get("content") or [] if c["type"] == "tool_reference"]
    r = render(adapted.text, registry=adapted.registry, style="hovercard")
    soup = BeautifulSoup(r.html, "html.parser")
    cite = soup.select(".citerender-cite")
    assert len(cite) == 1  # three adjacent references: one group, after the words they follow
    before = soup.p.get_text().split("\u2060")[0]
    assert before.endswith("by defeating England 2-1 in the final")
    assert {ref["url"] for ref in refs} <= {a["href"] for a in soup.find_all("a", href=True)}
    titles = [li.select_one(".citerender-ref-title").get_text() for li in soup.select(".citerender-references li")]
    assert titles == [ref["title"] for ref in refs]
    assert [d.code for d in r.diagnostics] == ["CR303"]  # before the final period, as Mistral put it: said


# -- LangChain.js messages and annotations LangChain does not standardise -------------------------


def test_langchain_js_citations_use_utf16_offsets_and_other_annotations_are_reported() -> None:
    from citerender.providers import adapt as adapt_response

    text = "Rocket 🚀🚀🚀 launch on Friday. Weather is clear."
    end = len("Rocket 🚀🚀🚀 launch on Friday.".encode("utf-16-le")) // 2  # JavaScript string offsets
    message = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain_core", "messages", "AIMessage"],
        "kwargs": {
            "content": [
                {
                    "type": "text",
                    "text": text,
                    "annotations": [
                        {"type": "citation", "url": "https://launch.example/", "title": "Launch", "startIndex": 0,
                         "endIndex": end, "citedText": "The launch is set for Friday."},
                        {"type": "non_standard_annotation", "value": {"type": "url_citation", "url": "https://wx.example/"}},
                    ],
                }
            ]
        },
    }  # fmt: skip
    a = adapt_response(message, "langchain")
    before = a.text.partition("\ue200")[0]
    assert before == "Rocket 🚀🚀🚀 launch on Friday."  # read as code points it would end inside "Weather"
    assert [c for c, _ in a.notes] == ["CR507"] and "non_standard_annotation" in a.notes[0][1]
    html = render(a.text, registry=a.registry, style="hovercard").html
    links = {x["href"] for x in BeautifulSoup(html, "html.parser").find_all("a", href=True)}
    assert {"https://launch.example/", "https://wx.example/"} <= links  # the unknown type's URL kept
    assert "The launch is set for Friday." in html  # LangChain.js's citedText quoted in the card


def test_a_mistral_reference_after_a_space_moves_before_it_in_any_marker_format() -> None:
    from citerender.providers import adapt as adapt_response
    from citerender.syntax.format import CitationFormat

    fmt = CitationFormat(start="\u27e6", stop="\u27e7", delimiter="\u2016")
    resp = {
        "object": "chat.completion",
        "choices": [{"message": {"role": "assistant", "content": [
            {"type": "text", "text": "Renewals need approval. "},
            {"type": "reference", "reference_ids": [0]},
            {"type": "text", "text": "Then they are filed."},
        ]}}],
    }  # fmt: skip
    for f in (None, fmt):
        a = adapt_response(resp, "mistral", fmt=f) if f else adapt_response(resp, "mistral")
        start = (f or CitationFormat()).start
        assert a.text.startswith(f"Renewals need approval.{start}"), a.text  # ``week.[1] ``, not ``week. [1]``
        assert a.text.endswith(" Then they are filed.")


def test_langchain_message_with_anthropic_citations_documented_example(tmp_path: Path) -> None:
    """``ChatAnthropic``'s default output keeps Anthropic's own blocks in ``AIMessage.content``:
    text blocks with ``citations`` (here ``char_location``). They used to vanish without a word;
    each now sits after its block's words, its cited text quoted in the card."""
    path = DOCUMENTED / "langchain-anthropic-citations.json"
    assert main(["render", str(path), "--style", "hovercard", "-o", str(tmp_path / "p.html")]) == 0
    html = (tmp_path / "p.html").read_text(encoding="utf-8")
    # after the block's words and the punctuation the next block opens with, as for Anthropic itself
    assert _pieces(html) == ["Based on the document, the grass is green,", " and the sky is blue.", ""]
    cards = _cards(html)
    assert "The grass is green." in cards[0] and "The sky is blue." in cards[1]
    assert all("My Document" in c for c in cards)


def test_langchain_message_with_anthropic_content_block_citation_documented_example() -> None:
    """The same notebook's custom-content document: a ``content_block_location`` citation on one
    block of two paragraphs goes after the block's last word, its passage quoted."""
    from citerender.providers import load_response

    a = load_response(DOCUMENTED / "langchain-anthropic-content-blocks.json")
    assert a.text.endswith("the best place to get started with LangChain.\ue200cite\ue202turn0file0\ue202L1\ue201")
    (sid,) = list(a.registry)
    assert a.registry[sid].lines is not None
    assert a.registry[sid].lines[0].startswith("[Tutorials](https://python.langchain.com/docs/tutorials/)")
    assert a.registry[sid].meta["locations"] == ["blocks 243–247"]  # end_block_index 248 is exclusive


def test_langchain_message_with_openai_responses_annotations_documented_example(tmp_path: Path) -> None:
    """``ChatOpenAI`` on the Responses API keeps OpenAI's own blocks in ``AIMessage.content``: a
    ``web_search_call`` and a text block whose ``url_citation`` annotations span the inline
    ``([site](url))`` links. Each link becomes the citation after its sentence (not cited twice),
    its URL linked without ``utm_source=openai``; nothing is reported as an unknown type."""
    from citerender.providers import load_response

    path = DOCUMENTED / "langchain-openai-web-search.json"
    a = load_response(path)
    assert a.notes == []  # no type left unknown, nothing dropped
    assert "](https://" not in a.text and "utm_source" not in a.text
    assert [s.url for s in a.registry.values()] == [
        "https://www.straitstimes.com/world/while-you-were-sleeping-5-stories-you-might-have-missed-june-26-2025",
        "https://conservationoptimism.org/7-stories-of-optimism-this-week-17-06-25-23-06-25/",
    ]
    assert main(["render", str(path), "--style", "hovercard", "-o", str(tmp_path / "p.html")]) == 0
    html = (tmp_path / "p.html").read_text(encoding="utf-8")
    soup = BeautifulSoup(html, "html.parser")
    for cite in soup.select(".citerender-cite"):
        cite.replace_with("|")
    paragraphs = [p.get_text().replace("\u2060", "") for p in soup.find_all("p")]
    assert paragraphs[0].endswith("expanding our understanding of distant worlds.|")  # the link's space went with it
    assert paragraphs[1].endswith("safeguard the future of the white rhino species.|")
    assert "|" not in paragraphs[2]
    assert "conservationoptimism.org" in _cards(html)[1]
    bib = soup.select_one(".citerender-bibliography")
    assert bib is not None
    hrefs = [x["href"] for x in bib.select("a.citerender-ref-title")]
    assert hrefs == [s.url for s in a.registry.values()]


def test_ai_sdk_ui_message_stream_documented_example(tmp_path: Path) -> None:
    """The AI SDK's UI message stream as its stream-protocol page gives each part: text parts, then
    a ``source-url`` and a ``source-document`` part (the same ``sourceId``: two sources, not one).
    Detected from the ``.sse`` file; both cited after the text, the URL linked, the title shown."""
    from citerender.providers import load_response

    path = DOCUMENTED / "ai-sdk-ui-message-stream.sse"
    a = load_response(path)
    assert a.notes == []
    assert a.text == "Hello\ue200cite\ue202turn0search0\ue202turn0file0\ue201"
    assert [(s.url, s.title) for s in a.registry.values()] == [("https://example.com", None), (None, "Title")]
    assert main(["render", str(path), "-o", str(tmp_path / "p.html")]) == 0
    soup = BeautifulSoup((tmp_path / "p.html").read_text(encoding="utf-8"), "html.parser")
    entries = soup.select(".citerender-bibliography li")
    assert [e.select_one(".citerender-ref-title").get_text() for e in entries] == ["example.com", "Title"]
    assert entries[0].select_one("a.citerender-ref-title")["href"] == "https://example.com"


def test_ai_sdk_tool_results_name_the_pages_a_web_search_read() -> None:
    """A provider-executed web search streamed as UI message chunks: its ``tool-output-available``
    output lists the pages searched and an ``openPage`` action names the page read. Built in the
    SDK's documented chunk shapes (its stream-protocol page shows a tool output, not a web
    search's): every page is a source, consulted (listed with the option) unless cited."""
    chunks = [
        {"type": "text-start", "id": "t"},
        {"type": "text-delta", "id": "t", "delta": "Zig 0.14 shipped."},
        {"type": "text-end", "id": "t"},
        {"type": "source-url", "sourceId": "s1", "url": "https://zig.example/0.14", "title": "Zig 0.14"},
        {"type": "tool-input-start", "toolCallId": "ws_1", "toolName": "web_search", "providerExecuted": True},
        {
            "type": "tool-output-available",
            "toolCallId": "ws_1",
            "providerExecuted": True,
            "output": {
                "action": {"type": "search", "query": "zig"},
                "sources": [
                    {"type": "url", "url": "https://zig.example/0.14"},
                    {"type": "url", "url": "https://zig.example/news"},
                ],
            },
        },
        {
            "type": "tool-output-available",
            "toolCallId": "ws_2",
            "output": {"action": {"type": "openPage", "url": "https://blog.example/zig"}},
        },
        {
            "type": "tool-output-available",
            "toolCallId": "t3",
            "output": {"action": {"type": "openPage", "url": "javascript:alert(1)"}},
        },
    ]
    a = adapt(chunks)
    assert a.text == "Zig 0.14 shipped.\ue200cite\ue202turn0search0\ue201"
    assert [s.url for s in a.registry.values()] == [
        "https://zig.example/0.14",
        "https://zig.example/news",
        "https://blog.example/zig",
    ]
    soup = BeautifulSoup(render(a.text, a.registry, consulted=True).html, "html.parser")
    assert [x["href"] for x in soup.select(".citerender-consulted a[href]")] == [
        "https://zig.example/news",
        "https://blog.example/zig",
    ]


def test_an_openai_web_search_call_that_opened_a_page_names_it_consulted() -> None:
    """``open_page`` and ``find_in_page`` actions name the page they read (OpenAI's documented
    ``web_search_call`` action shapes): consulted, once, beside the searched sources."""
    response = {
        "object": "response",
        "output": [
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {
                    "type": "search",
                    "query": "zig",
                    "sources": [{"type": "url", "url": "https://zig.example/news"}],
                },
            },
            {
                "type": "web_search_call",
                "id": "ws_2",
                "status": "completed",
                "action": {"type": "open_page", "url": "https://blog.example/zig"},
            },
            {
                "type": "web_search_call",
                "id": "ws_3",
                "status": "completed",
                "action": {"type": "find_in_page", "url": "https://blog.example/zig", "pattern": "0.14"},
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Zig 0.14 shipped.", "annotations": []}],
            },
        ],
    }
    a = adapt(response)
    assert [s.url for s in a.registry.values()] == ["https://zig.example/news", "https://blog.example/zig"]


def test_an_openai_web_search_call_that_failed_is_reported() -> None:
    """``status: "failed"`` (a documented ``web_search_call`` status): CR511, not silence."""
    response = {
        "object": "response",
        "output": [
            {"type": "web_search_call", "id": "ws_9", "status": "failed", "action": {"type": "search", "query": "zig"}},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "No.", "annotations": []}],
            },
        ],
    }
    (note,) = [n for n in adapt(response).notes if n[0] == "CR511"]
    assert "ws_9" in note[1]
