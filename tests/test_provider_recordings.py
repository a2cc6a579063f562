"""Real provider recordings (``fixtures/providers/recorded``, origins in its README): each is
detected without ``--from``, every citation sits after the words its offsets name, every URL the
data gives is linked (or the reason it is not is reported), and nothing is dropped without a
diagnostic. Plus the rules the recordings call for, on the smallest inputs that show them: a
citation without a span is listed, not stuck before the first word; the consulted list."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES

from citerender import render
from citerender.providers import adapt, detect_provider, load_response
from citerender.providers.common import LINK_SPAN
from citerender.providers.eventstream import looks_like_eventstream, parse_eventstream
from citerender.providers.offsets import after_last_word, to_codepoints
from citerender.providers.responses import parse_json
from citerender.rendering.exports.markdown import to_markdown
from citerender.rendering.exports.parsed import parse_answer
from citerender.syntax.format import DEFAULT_FORMAT

RECORDED = FIXTURES / "providers" / "recorded"
#: recording -> the format it is detected as
SHAPES = {
    "gemini-interactions-google-search.json": "gemini-interactions",
    "gemini-interactions-google-search.chunks.txt": "gemini-interactions",
    "gemini-url-context.json": "gemini",
    "gemini-url-context-mixed.json": "gemini",
    "xai-web-search.json": "openai-responses",
    "xai-web-search.chunks.txt": "openai-responses",
    "xai-x-search.json": "openai-responses",
    "anthropic-web-search.json": "anthropic",
    "anthropic-web-search.chunks.txt": "anthropic",
    "anthropic-web-fetch.json": "anthropic",
    "anthropic-web-fetch-error.json": "anthropic",
    "openai-responses-web-search.json": "openai-responses",
    "openai-responses-web-search.chunks.txt": "openai-responses",
    "openai-responses-file-search.json": "openai-responses",
    "openai-responses-code-interpreter.json": "openai-responses",
    "azure-responses-web-search-preview.json": "openai-responses",
    "perplexity-citations.json": "perplexity",
    "cohere-citations.json": "cohere",
    "gemini-google-search.json": "gemini",
    "gemini-google-search.sse": "gemini",
    "gemini-file-search.json": "gemini",
    "gemini-file-search-metadata.json": "gemini",
    "gemini-thoughts-google-search.json": "gemini",
    "openrouter-web-search.json": "openai-chat",
    "openrouter-web-search.sse": "openai-chat",
    "bedrock-converse-document-char.json": "bedrock-converse",
    "bedrock-converse-document-char.eventstream": "bedrock-converse",
    "bedrock-converse-document-chunk.json": "bedrock-converse",
    "bedrock-converse-document-page.json": "bedrock-converse",
    "ai-sdk-openai-web-search.content.json": "ai-sdk",
    "ai-sdk-openai-file-search.content.json": "ai-sdk",
    "bedrock-kb-retrieve-and-generate.json": "bedrock-kb",
}
MARK = DEFAULT_FORMAT.start


def _data(name: str) -> Any:
    raw = (RECORDED / name).read_bytes()
    if looks_like_eventstream(raw):
        return parse_eventstream(raw, name)
    return parse_json(raw.decode("utf-8"), name)


def _marker_places(text: str) -> tuple[str, list[int]]:
    """The text without markers, and where each marker stood in it."""
    out, places, i = [], [], 0
    length = 0
    while i < len(text):
        if text[i] == MARK:
            end = text.index(DEFAULT_FORMAT.stop, i)
            places.append(length)
            i = end + 1
            continue
        out.append(text[i])
        length += 1
        i += 1
    return "".join(out), places


def _links(html: str) -> set[str]:
    return {a["href"] for a in BeautifulSoup(html, "html.parser").find_all("a", href=True)}


def test_every_recording_has_its_origin_written_down() -> None:
    readme = (RECORDED / "README.md").read_text(encoding="utf-8")
    recordings = {p.name for p in RECORDED.iterdir() if p.name != "README.md"}
    assert recordings == set(SHAPES)
    for name in recordings:
        assert f"`{name}`" in readme, name


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_recording_is_detected_without_from(name: str) -> None:
    assert detect_provider(_data(name)) == SHAPES[name]


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_url_the_recording_gives_is_linked_or_reported(name: str) -> None:
    adapted = load_response(RECORDED / name)
    html = render(adapted.text, adapted.registry, consulted=True).html
    linked = _links(html)
    raw = (RECORDED / name).read_bytes().decode("utf-8", "replace")
    urls = {sid: adapted.registry[sid].url for sid in adapted.registry}
    unread = [m for code, m in adapted.notes if code == "CR511"]
    assert urls or unread  # a page read is a source; one that could not be read is said
    assert all(u in linked for u in urls.values() if u), sorted(set(urls.values()) - linked)
    for m in unread:  # a page URL context could not read is named, not linked
        assert m.split(" could not read ")[1].split(" (")[0][:60] in raw
    if "mixed" in name:
        assert len(unread) == 2 and "https://ai.google.dev" in linked


def _interaction_annotations(data: Any) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for step in data.get("steps") or []:
        for item in step.get("content") or []:
            out.extend((item["text"], a) for a in item.get("annotations") or [])
    return out


def test_interactions_citations_sit_after_the_words_their_byte_offsets_name() -> None:
    data = _data("gemini-interactions-google-search.json")
    annotations = _interaction_annotations(data)
    assert len(annotations) == 18
    text, places = _marker_places(adapt(data).text)
    text, suggested = text.split("\n\nSearch suggestions from Google: ")  # the results' widget, after the answer
    assert text == annotations[0][0] and suggested.count("](<https://") == 2  # nothing but markers added
    for original, a in annotations:
        end = to_codepoints(original, a["end_index"], "utf8")
        assert after_last_word(original, end) in places, original[end - 40 : end]
    assert len(places) == len(annotations)  # each annotation its own citation: none dropped


def test_an_interactions_stream_folds_into_its_steps_and_places_every_annotation() -> None:
    events = _data("gemini-interactions-google-search.chunks.txt")
    deltas = [e["delta"] for e in events if e.get("event_type") == "step.delta"]
    texts = "".join(d.get("text", "") for d in deltas if d.get("type") == "text")
    annotations = [a for d in deltas if d.get("type") == "text_annotation_delta" for a in d["annotations"]]
    assert len(annotations) == 14
    text, places = _marker_places(adapt(events).text)
    assert text.split("\n\nSearch suggestions from Google: ")[0] == texts
    for a in annotations:
        assert after_last_word(texts, to_codepoints(texts, a["end_index"], "utf8")) in places


@pytest.mark.parametrize(
    "unit_text", ["Le café ouvre à 8 h. 東京の支店は9時に開きます。 Renewals 🚀 happen every year."]
)
def test_interactions_offsets_are_utf8_bytes_with_accents_cjk_and_an_emoji(unit_text: str) -> None:
    sentences = ["Le café ouvre à 8 h.", "東京の支店は9時に開きます。", "Renewals 🚀 happen every year."]
    anns = []
    for k, s in enumerate(sentences):
        a = unit_text.index(s)
        start, end = len(unit_text[:a].encode()), len(unit_text[: a + len(s)].encode())
        anns.append({"type": "url_citation", "url": f"https://s{k}.example/", "title": f"s{k}.example",
                     "start_index": start, "end_index": end})  # fmt: skip
    data = {"object": "interaction", "steps": [{"type": "model_output", "content": [
        {"type": "text", "text": unit_text, "annotations": anns}]}]}  # fmt: skip
    adapted = adapt(data)
    assert not adapted.notes
    text, places = _marker_places(adapted.text)
    assert text == unit_text and places == [unit_text.index(s) + len(s) for s in sentences]


def test_interactions_file_and_place_citations_are_sources_and_unknown_types_are_reported() -> None:
    text = "Renewals happen every year. The office is on Main Street."
    data = {"object": "interaction", "steps": [{"type": "model_output", "content": [{"type": "text", "text": text,
        "annotations": [
            {"type": "file_citation", "document_uri": "fileSearchStores/s/documents/d", "file_name": "policy.pdf",
             "page_number": 4, "start_index": 0, "end_index": 27},
            {"type": "place_citation", "name": "Acme HQ", "place_id": "ChIJ", "url": "https://maps.google.com/?cid=1",
             "review_snippets": [{"text": "Easy to find."}], "start_index": 28, "end_index": len(text)},
            {"type": "hologram_citation", "source": "https://future.example/x", "start_index": 0, "end_index": 8},
        ]}]}]}  # fmt: skip
    adapted = adapt(data)
    html = render(adapted.text, adapted.registry, style="hovercard").html
    assert "policy.pdf" in html and "Acme HQ" in html and "Easy to find." in html
    assert "https://maps.google.com/?cid=1" in _links(html) and "https://future.example/x" in _links(html)
    assert [c for c, _ in adapted.notes] == ["CR507"] and "hologram_citation" in adapted.notes[0][1]
    assert adapted.text.replace(MARK, "").count("Renewals") == 1


def test_xai_citations_without_a_span_are_listed_not_stuck_before_the_first_word() -> None:
    adapted = load_response(RECORDED / "xai-web-search.json")
    assert not adapted.text.startswith(MARK) and MARK not in adapted.text  # no place given: none invented
    result = render(adapted.text, adapted.registry)
    soup = BeautifulSoup(result.html, "html.parser")
    listed = [a["href"] for a in soup.select(".citerender-references .citerender-ref-title")]
    assert len(listed) == 5 and "https://x.ai/company" in listed
    assert [d.code for d in result.diagnostics].count("CR510") == 5
    md = to_markdown(parse_answer(adapted.text, adapted.registry))
    assert "with no place in the text" in md and md.count("\n- ") == 5  # the export lists them too


def test_a_numbered_link_to_the_cited_url_becomes_the_citation() -> None:
    # xAI writes [[1]](url) in the text for a url_citation without a span: cited once, there (after its stop)
    text = "xAI was founded in 2023 [[1]](https://x.ai/company). More follows."
    data = {"object": "response", "output": [{"type": "message", "content": [{"type": "output_text", "text": text,
        "annotations": [{"type": "url_citation", "url": "https://x.ai/company"}]}]}]}  # fmt: skip
    adapted = adapt(data)
    stripped, places = _marker_places(adapted.text)
    assert stripped == "xAI was founded in 2023. More follows." and places == [len("xAI was founded in 2023.")]
    assert adapted.registry["turn0search0"].meta.get("listed") is None


def test_an_empty_span_at_the_start_is_listed_but_a_point_inside_the_text_is_placed() -> None:
    # OpenRouter returns url_citation annotations with start_index = end_index = 0
    text = "Paris is the capital of France. It has 2.1 million people."
    anns = [
        {"type": "url_citation", "url_citation": {"url": "https://a.example/", "title": "A", "start_index": 0, "end_index": 0}},
        {"type": "url_citation", "url_citation": {"url": "https://b.example/", "title": "B", "start_index": 31, "end_index": 31}},
    ]  # fmt: skip
    adapted = adapt({"object": "chat.completion", "choices": [{"message": {"content": text, "annotations": anns}}]})
    stripped, places = _marker_places(adapted.text)
    assert stripped == text and places == [len("Paris is the capital of France.")]
    assert adapted.registry["turn0search0"].meta.get("listed") == "cited"


def test_the_consulted_list_holds_every_source_nothing_cites_once_after_the_bibliography() -> None:
    adapted = load_response(RECORDED / "gemini-url-context-mixed.json")
    plain = render(adapted.text, adapted.registry)
    assert "citerender-consulted" not in plain.html  # off by default
    data = _data("xai-web-search.json")
    data["citations"] = ["https://x.ai/company", "https://consulted.example/page"]  # xAI's response.citations
    consulted = adapt(data)
    html = render(consulted.text, consulted.registry, consulted=True).html
    soup = BeautifulSoup(html, "html.parser")
    section = soup.select_one("section.citerender-consulted")
    assert section is not None and section.find_previous("section", class_="citerender-bibliography")
    in_consulted = [a["href"] for a in section.select("a")]
    in_sources = [a["href"] for a in soup.select(".citerender-references a.citerender-ref-title")]
    assert in_consulted == ["https://consulted.example/page"]  # x.ai/company is cited (listed): not twice
    assert "https://x.ai/company" in in_sources
    md = to_markdown(parse_answer(consulted.text, consulted.registry, consulted=True))
    assert "Consulted, not cited:\n\n- consulted.example, <https://consulted.example/page>" in md


def test_openai_web_search_sources_are_consulted() -> None:
    data = json.loads((FIXTURES / "providers" / "openai-responses.json").read_text(encoding="utf-8"))
    data["output"].insert(0, {"type": "web_search_call", "status": "completed", "action": {
        "type": "search", "query": "q", "sources": [{"type": "url", "url": "https://looked.example/at"}]}})  # fmt: skip
    adapted = adapt(data)
    html = render(adapted.text, adapted.registry, consulted=True).html
    assert "https://looked.example/at" in _links(html)
    soup = BeautifulSoup(html, "html.parser")
    assert [a["href"] for a in soup.select("section.citerender-consulted a")] == ["https://looked.example/at"]


# -- the recordings of the older shapes (vercel/ai's provider fixtures) ---------------------------


def _before(text: str, at: int) -> str:
    """The words a citation at ``at`` follows (its last 24 characters, spaces trimmed)."""
    return text[:at].rstrip()[-24:]


def _gemini_whole(data: Any) -> tuple[str, dict[str, Any]]:
    """A Gemini answer's text (a stream's parts added up) and the grounding metadata that has supports."""
    responses = data if isinstance(data, list) else [data]
    cands = [r["candidates"][0] for r in responses]
    text = "".join(p.get("text", "") for c in cands for p in c["content"]["parts"] if not p.get("thought"))
    metas = [c["groundingMetadata"] for c in cands if (c.get("groundingMetadata") or {}).get("groundingSupports")]
    return text, metas[-1] if metas else {}


def _expected_places(data: Any) -> list[str]:
    """What each citation the data gives should follow: the words before a ``([site](url))`` span it
    replaces, else the words its span (or its block) ends with."""
    out: list[str] = []
    if isinstance(data, list) or "candidates" in data:  # Gemini, one response or its stream
        text, meta = _gemini_whole(data)
        raw = text.encode("utf-8")
        for support in meta.get("groundingSupports") or []:
            seg = support["segment"]
            start, end = seg.get("startIndex", 0), seg["endIndex"]
            cited = seg["text"].encode("utf-8")
            if raw[start:end] != cited:  # Google's span off its own text: the text decides
                end = raw.index(cited, max(0, start - 8)) + len(cited)
            out.append(_before(text, after_last_word(text, to_codepoints(text, end, "utf8"))))
    elif data.get("object") == "response":
        for item in data.get("output") or []:
            for part in item.get("content") or [] if item.get("type") == "message" else []:
                text = part.get("text", "")
                for a in part.get("annotations") or []:
                    if "end_index" not in a:
                        continue  # file_citation: an index, not a span
                    start, end = a.get("start_index", 0), a["end_index"]
                    span = text[start:end]
                    link = LINK_SPAN.match(span) if span else None
                    opener = re.search(r"\[([^\]]*)\]\($", text[:start])
                    if opener and a["type"] == "container_file_citation":  # a sandbox: URL: the link's text stays
                        out.append(_before(text[: opener.start()] + opener.group(1), 10**9))
                    elif link:  # a ([site](url)) span: the marker takes its place
                        out.append(_before(text, start + len(span) - len(span.lstrip())))
                    else:
                        out.append(_before(text, after_last_word(text, end)))
    elif data.get("type") == "message":  # Anthropic: after each cited block's last word
        for block in data.get("content") or []:
            if block.get("type") == "text" and block.get("citations"):
                out.append(_before(block["text"], after_last_word(block["text"], len(block["text"]))))
    elif isinstance(data.get("message"), dict):  # Cohere v2
        text = "".join(c.get("text", "") for c in data["message"].get("content") or [])
        out.extend(_before(text, after_last_word(text, c["end"])) for c in data["message"].get("citations") or [])
    return out


@pytest.mark.parametrize(
    "name",
    ["openai-responses-web-search.json", "openai-responses-code-interpreter.json", "azure-responses-web-search-preview.json",
     "anthropic-web-search.json", "cohere-citations.json", "gemini-google-search.json", "gemini-google-search.sse",
     "gemini-file-search.json", "gemini-thoughts-google-search.json"],
)  # fmt: skip
def test_each_recorded_citation_sits_after_the_words_it_names(name: str) -> None:
    data = _data(name)
    stripped, places = _marker_places(load_response(RECORDED / name).text)
    expected = _expected_places(data)
    assert expected, name
    found = {_before(stripped, p) for p in places}
    missing = [e for e in expected if e not in found]
    assert not missing, missing
    assert len(places) >= len(set(expected))  # nothing dropped: a place for each spot the data names


def test_recorded_file_and_container_citations_name_their_files() -> None:
    html = render(*_adapted("openai-responses-file-search.json"), style="hovercard").html
    filename = next(
        a["filename"]
        for o in _data("openai-responses-file-search.json")["output"] if o["type"] == "message"
        for c in o["content"] for a in c["annotations"] if a["type"] == "file_citation"
    )  # fmt: skip
    assert filename in html
    code = _data("openai-responses-code-interpreter.json")
    adapted = load_response(RECORDED / "openai-responses-code-interpreter.json")
    assert "sandbox:" not in adapted.text  # the dead sandbox link became the file's citation
    container = next(
        a for o in code["output"] if o["type"] == "message" for c in o["content"] for a in c["annotations"]
    )
    assert container["filename"] in render(adapted.text, adapted.registry).html


def test_recorded_perplexity_numbers_are_read_as_citations_of_its_results() -> None:
    data = _data("perplexity-citations.json")
    adapted = load_response(RECORDED / "perplexity-citations.json")
    parsed = parse_answer(adapted.text, adapted.registry)
    text = data["choices"][0]["message"]["content"]
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", text)}
    cited = {src.url for ref in parsed.references for src in [ref.source]}
    assert cited == {data["citations"][n - 1] for n in numbers}
    runs = re.findall(r"(?:\[\d+\])+", text)  # adjacent numbers are one citation group
    assert len(parsed.groups) == len(runs)


def test_recorded_anthropic_server_tools_consulted_and_a_failed_fetch_reported() -> None:
    fetched = load_response(RECORDED / "anthropic-web-fetch.json")
    url = _data("anthropic-web-fetch.json")["content"][2]["content"]["url"]
    html = render(fetched.text, fetched.registry, consulted=True).html
    assert url in _links(html)  # the page read, listed as consulted: it is cited nowhere
    failed = load_response(RECORDED / "anthropic-web-fetch-error.json")
    assert [code for code, _ in failed.notes] == ["CR511"] and "ai.pdf" in failed.notes[0][1]
    search = load_response(RECORDED / "anthropic-web-search.json")
    results = {
        r["url"]
        for b in _data("anthropic-web-search.json")["content"]
        if b["type"] == "web_search_tool_result"
        for r in b["content"]
    }
    assert results <= set(_links(render(search.text, search.registry, consulted=True).html))


def _adapted(name: str) -> tuple[str, Any]:
    a = load_response(RECORDED / name)
    return a.text, a.registry


@pytest.mark.parametrize("name", ["anthropic-web-search.json", "anthropic-web-search.chunks.txt"])
def test_recorded_anthropic_cited_text_is_quoted_in_its_card(name: str) -> None:
    adapted = load_response(RECORDED / name)
    cards = " ".join(
        c.get_text(" ") for c in BeautifulSoup(render(adapted.text, adapted.registry, style="hovercard").html, "html.parser").select(".citerender-card")
    )  # fmt: skip
    data = _data(name)
    if isinstance(data, list):  # the stream: the citations its deltas carry
        cited = [
            e["delta"]["citation"]["cited_text"] for e in data if e.get("delta", {}).get("type") == "citations_delta"
        ]
    else:
        cited = [c["cited_text"] for b in data["content"] if b["type"] == "text" for c in b.get("citations") or []]
    assert cited
    squash = " ".join(cards.split())
    for text in cited:
        assert " ".join(text.split())[:60] in squash, text[:80]


def test_recorded_file_search_chunks_are_named_by_their_store_or_the_callers_metadata() -> None:
    html = render(*_adapted("gemini-file-search.json"), style="hovercard").html
    chunk = _data("gemini-file-search.json")["candidates"][0]["groundingMetadata"]["groundingChunks"][0]
    cards = [c.get_text(" ") for c in BeautifulSoup(html, "html.parser").select(".citerender-card")]
    assert len(cards) == 2 and all(chunk["retrievedContext"]["text"] in c for c in cards)  # the passage read
    assert "testfilesearchstore-q7prdj5dqu8p (file search)" in cards[0]  # its store, not "turn0file0"
    adapted = load_response(RECORDED / "gemini-file-search-metadata.json")
    result = render(adapted.text, adapted.registry, consulted=True)
    assert [d.code for d in result.diagnostics] == ["CR308"]  # chunks only, no support: consulted, said
    assert "https://example.com/paris" in _links(result.html)  # the caller's source_url, the chunk's link


def _chat_whole(data: Any) -> tuple[str, list[str]]:
    """An OpenAI Chat answer's text and its annotations' URLs (a stream's deltas added up)."""
    parts = [
        c.get("message") or c.get("delta") or {}
        for r in (data if isinstance(data, list) else [data])
        for c in r.get("choices") or []
    ]
    text = "".join(p.get("content") or "" for p in parts)
    return text, [a["url_citation"]["url"] for p in parts for a in p.get("annotations") or []]


@pytest.mark.parametrize("name", ["openrouter-web-search.json", "openrouter-web-search.sse"])
def test_recorded_openrouter_empty_spans_are_listed_each_once_and_linked(name: str) -> None:
    adapted = load_response(RECORDED / name)
    answer, urls = _chat_whole(_data(name))
    text, places = _marker_places(adapted.text)
    assert places == [] and text == answer  # nothing stuck before the first word, nothing else changed
    assert len(urls) == 5
    result = render(adapted.text, adapted.registry)
    assert [d.code for d in result.diagnostics] == ["CR510"] * 5  # each one said
    sources = BeautifulSoup(result.html, "html.parser").select(".citerender-bibliography li")
    assert len(sources) == 5 and set(urls) <= _links(result.html)


def test_recorded_gemini_thoughts_are_neither_shown_nor_counted() -> None:
    data = _data("gemini-thoughts-google-search.json")
    parts = data["candidates"][0]["content"]["parts"]
    thoughts = [p["text"] for p in parts if p.get("thought")]
    assert len(thoughts) == 2
    adapted = load_response(RECORDED / "gemini-thoughts-google-search.json")
    text, places = _marker_places(adapted.text)
    answer, suggested = text.split("\n\nSearch suggestions from Google: ")  # the widget's chips follow the answer
    assert answer == parts[-1]["text"] and all(t[:60] not in adapted.text for t in thoughts)
    assert suggested.count("](<https://www.google.com/search?q=") == 3
    assert len(places) == 9  # every support placed in the answer, none clamped to a thought's length
    assert [code for code, _ in adapted.notes] == ["CR503", "CR503"]  # Google's two long spans, repaired


def _converse_cited(data: Any) -> tuple[str, list[tuple[str, str]]]:
    """A Converse answer's text and, for each citation, the words it follows and its cited text
    (a ConverseStream's events folded: a block's text deltas joined, its citation deltas kept)."""
    if isinstance(data, list):
        blocks: dict[int, dict[str, Any]] = {}
        for e in data:
            d = e.get("contentBlockDelta")
            if d:
                b = blocks.setdefault(d["contentBlockIndex"], {"text": "", "cites": []})
                b["text"] += d["delta"].get("text", "")
                if "citation" in d["delta"]:
                    b["cites"].append(d["delta"]["citation"])
        parts = [(b["text"], b["cites"]) for _, b in sorted(blocks.items())]
    else:
        parts = []
        for block in data["output"]["message"]["content"]:
            if "text" in block:
                parts.append((block["text"], []))
            else:
                cc = block["citationsContent"]
                parts.append(("".join(c["text"] for c in cc["content"]), cc["citations"]))
    text, out = "", []
    for piece, cites in parts:
        text += piece
        out.extend((_before(text, after_last_word(text, len(text))), c["sourceContent"][0]["text"]) for c in cites)
    return text, out


@pytest.mark.parametrize("name", sorted(n for n in SHAPES if n.startswith("bedrock-converse")))
def test_recorded_converse_citations_follow_their_blocks_and_quote_their_documents(name: str) -> None:
    adapted = load_response(RECORDED / name)
    text, cited = _converse_cited(_data(name))
    stripped, places = _marker_places(adapted.text)
    assert stripped == text and cited  # nothing but markers added
    assert [_before(stripped, p) for p in places] == [words for words, _ in cited]
    cards = " ".join(
        c.get_text(" ") for c in BeautifulSoup(render(adapted.text, adapted.registry, style="hovercard").html, "html.parser").select(".citerender-card")
    )  # fmt: skip
    for _, quote in cited:
        assert " ".join(quote.split()) in " ".join(cards.split())  # the document's words, in the card


def test_a_damaged_event_stream_is_named_not_read() -> None:
    from citerender.errors import CiterenderError

    raw = bytearray((RECORDED / "bedrock-converse-document-char.eventstream").read_bytes())
    raw[200] ^= 0xFF  # one byte of the second message flipped
    with pytest.raises(CiterenderError, match=r"message at byte \d+ is damaged"):
        parse_eventstream(bytes(raw), "x.eventstream")
    whole = (RECORDED / "bedrock-converse-document-char.eventstream").read_bytes()
    with pytest.raises(CiterenderError, match="cut short"):
        parse_eventstream(whole[:-3], "x.eventstream")  # a body saved before the stream ended


# -- the AI SDK's own output of recorded responses (generateText content parts) -------------------


def test_ai_sdk_content_places_each_source_where_its_provider_annotation_says() -> None:
    """The SDK's content for the recorded OpenAI web search: its source parts carry no span, but
    the text part passes OpenAI's url_citation spans through in providerMetadata. Each citation
    takes the place of the ``([site](url))`` link it spans, exactly as the OpenAI response itself
    renders, and each source appears once."""
    content = _data("ai-sdk-openai-web-search.content.json")
    ours = load_response(RECORDED / "ai-sdk-openai-web-search.content.json")
    direct = load_response(RECORDED / "openai-responses-web-search.json")
    assert ours.text == direct.text  # the same answer, the same places, through the SDK's output
    (part,) = [p for p in content if p["type"] == "text"]
    stripped, places = _marker_places(ours.text)
    expected = []
    for a in part["providerMetadata"]["openai"]["annotations"]:
        span = part["text"][a["start_index"] : a["end_index"]]
        assert LINK_SPAN.match(span)
        expected.append(_before(part["text"], a["start_index"] + len(span) - len(span.lstrip())))
    assert sorted({_before(stripped, p) for p in places}) == sorted(set(expected))
    assert "](https://" not in stripped  # every ([site](url)) link became its citation
    html = render(ours.text, ours.registry).html
    urls = {s["url"].replace("?utm_source=openai", "") for s in content if s["type"] == "source"}
    assert urls <= _links(html)
    assert len(urls) == 7  # ten source parts, seven distinct pages
    assert not [n for n in ours.notes if n[0] in ("CR505", "CR507")]
    # the web search tool's results (its sources, the pages it opened) are the pages consulted,
    # the same ones the response itself lists: nothing the SDK passed on is dropped
    pages = {ours.registry[sid].url for sid in ours.registry}
    assert pages == {direct.registry[sid].url for sid in direct.registry} and len(pages) == 16
    consulted = render(ours.text, ours.registry, consulted=True).html
    listed = {a["href"] for a in BeautifulSoup(consulted, "html.parser").select(".citerender-consulted a[href]")}
    assert listed == pages - {u for u in pages if u in _links(html)} and len(listed) == 9


def test_ai_sdk_content_with_a_document_source_cites_it_after_its_text() -> None:
    """The SDK's content for the recorded OpenAI file search: one ``source`` part of
    ``sourceType`` document after the text, no span anywhere: cited at the text's end (the file
    citation's index there), named by its file; the reasoning and tool parts are not the answer."""
    ours = load_response(RECORDED / "ai-sdk-openai-file-search.content.json")
    stripped, places = _marker_places(ours.text)
    assert stripped.startswith("According to the document, an embedding model converts")
    assert places == [len(stripped)]
    (sid,) = list(ours.registry)
    assert ours.registry[sid].title == "ai.pdf"
    assert ours.registry[sid].meta["sourceId"] == "id-0"
    html = render(ours.text, ours.registry).html
    assert "ai.pdf" in BeautifulSoup(html, "html.parser").select_one(".citerender-bibliography").get_text()


# -- Bedrock Knowledge Bases: RetrieveAndGenerate, as the AWS CLI printed it --------------------


def test_knowledge_base_answer_cites_both_passages_of_one_document_after_its_span() -> None:
    """One citation whose span is the whole answer (``end`` inclusive, as AWS writes it), two
    passages (pages 7 and 5) of one PDF: one source, both passages its lines, quoted in the card."""
    data = _data("bedrock-kb-retrieve-and-generate.json")
    adapted = load_response(RECORDED / "bedrock-kb-retrieve-and-generate.json")
    text, places = _marker_places(adapted.text)
    assert text == data["output"]["text"] and places == [len(text), len(text)]
    (sid,) = list(adapted.registry)
    source = adapted.registry[sid]
    refs = data["citations"][0]["retrievedReferences"]
    assert source.title == "PB-11133-001_v01.pdf" and source.url is None  # an S3 object: no web link
    assert [" ".join(r["content"]["text"].split()) for r in refs] == list(source.lines or ())
    assert source.meta["locations"] == ["page 7", "page 5"]
    assert source.meta["location"] == refs[0]["location"]["s3Location"]["uri"]
    html = render(adapted.text, adapted.registry, style="hovercard").html
    (card,) = [c.get_text(" ") for c in BeautifulSoup(html, "html.parser").select(".citerender-card")]
    assert "Product Specifications" in card and "Product Brief" in card
    assert adapted.notes == []


def test_the_pages_a_provider_names_are_shown_where_a_reader_looks_for_them() -> None:
    """Page numbers from the data (Bedrock's page metadata; Anthropic's and Bedrock's page
    locations, whose end is exclusive) in the bibliography entry, the card, the Markdown notes and
    the JSON export; a one-page PDF's ``start 1, end 2`` is page 1, not pages 1-2."""
    from citerender.rendering.exports.json import to_json_data

    kb = load_response(RECORDED / "bedrock-kb-retrieve-and-generate.json")
    (sid,) = list(kb.registry)
    assert kb.registry[sid].pages == "page 7, page 5"
    doc = BeautifulSoup(render(kb.text, kb.registry, style="hovercard").html, "html.parser")
    assert doc.select_one(".citerender-ref-pages").get_text() == "page 7, page 5"
    assert "page 7, page 5" in doc.select_one(".citerender-card-meta").get_text()
    # each passage with the page it is on: in the card's rows, Sources' back-links, the notes
    assert [r.get_text(" ") for r in doc.select(".citerender-card .citerender-lpage")] == ["page 7", "page 5"]
    assert [a["aria-label"].split(":")[0] for a in doc.select(".citerender-backlinks a")] == [
        "a, passage 1, page 7",
        "b, passage 2, page 5",
    ]
    parsed = parse_answer(kb.text, kb.registry)
    assert "v01.pdf, passage 1, page 7\n" in to_markdown(parsed)
    (entry,) = to_json_data(parsed)["bibliography"]
    assert entry["pages"] == "page 7, page 5" and entry["lines"] == ["passage 1, page 7", "passage 2, page 5"]

    pdf = load_response(RECORDED / "bedrock-converse-document-page.json")
    (sid,) = list(pdf.registry)
    assert pdf.registry[sid].meta["locations"] == ["page 1"] and pdf.registry[sid].pages == "page 1"
    chunks = load_response(RECORDED / "bedrock-converse-document-chunk.json")
    (sid,) = list(chunks.registry)
    assert chunks.registry[sid].meta["locations"] == ["chunk 1"] and chunks.registry[sid].pages is None


def test_page_ranges_are_counted_as_a_reader_counts_them_and_nothing_else_is_shown_as_pages() -> None:
    from citerender.providers.common import index_range
    from citerender.sources.model import registry_from_data

    assert index_range("page", "pages", 3, 4) == "page 3"
    assert index_range("page", "pages", 1, 3) == "pages 1–2"
    assert index_range("page", "pages", "<b>", 4) == "pages <b>–4 (end exclusive)"
    assert index_range("page", "pages", 4, 4) == "pages 4–4 (end exclusive)"
    assert index_range("page", "pages", True, 2) == "pages True–2 (end exclusive)"
    hostile = ["pages <b>–4 (end exclusive)", "page 2<script>", "characters 0–9", "page 2", "page 2", "pages 3–5"]
    assert registry_from_data([{"id": "d", "meta": {"locations": hostile}}])["d"].pages == "page 2, pages 3–5"
    assert registry_from_data([{"id": "d", "meta": {"locations": "page 2"}}])["d"].pages is None

    from citerender.sources.pages import range_label
    from citerender.syntax.types import LineRange

    quoted = {"line_unit": "passage", "line_pages": ["page 2", "<b>page 3</b>", None, "page 4"]}
    d = registry_from_data([{"id": "d", "lines": ["a", "b", "c", "d", "e"], "meta": quoted}])["d"]
    assert range_label(d, LineRange(1, 1)) == "passage 1, page 2"
    assert range_label(d, LineRange(2, 3)) == "passages 2–3"  # nothing plainly a page
    assert range_label(d, LineRange(1, 4)) == "passages 1–4, page 2, page 4"
    assert range_label(d, LineRange(5, 5)) == "passage 5"  # past the pages given


def test_an_anthropic_pdf_citation_shows_the_page_its_passage_is_on() -> None:
    """``page_location`` 3 to 4 (end exclusive): the card's row of that cited text says page 3."""
    data = json.loads((FIXTURES / "providers" / "anthropic.json").read_text(encoding="utf-8"))
    (cited,) = [
        c["cited_text"] for b in data["content"] for c in b.get("citations") or () if c["type"] == "page_location"
    ]
    adapted = adapt(data)
    doc = BeautifulSoup(render(adapted.text, adapted.registry, style="hovercard").html, "html.parser")
    rows = {
        r.select_one(".citerender-ltext").get_text(): r.select_one(".citerender-lpage")
        for r in doc.select(".citerender-card .citerender-line")
    }
    page = rows[" ".join(cited.split())]
    assert page is not None and page.get_text() == "page 3"


def test_a_failed_anthropic_web_search_is_reported_not_dropped() -> None:
    """The recorded web search response with its result replaced by the error block Anthropic
    documents for the tool (``web_search_tool_result_error``, ``max_uses_exceeded``): no source,
    and a CR511 naming the query the search ran for."""
    data = _data("anthropic-web-search.json")
    call = next(b for b in data["content"] if b["type"] == "server_tool_use")
    for block in data["content"]:
        if block["type"] == "web_search_tool_result" and block["tool_use_id"] == call["id"]:
            block["content"] = {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}
    adapted = adapt(data)
    (note,) = [n for n in adapted.notes if n[0] == "CR511"]
    assert repr(call["input"]["query"]) in note[1] and "max_uses_exceeded" in note[1]


def test_a_providers_quoted_passages_are_called_passages_not_lines() -> None:
    """The text a provider quotes is kept as numbered rows of its source, but they are no lines of
    the page or file: card, bibliography back-links (and what a screen reader hears of them) and the
    Markdown notes say "passage", where a sources file's own numbered lines still say "line"."""
    from citerender.rendering.exports.markdown import to_markdown
    from citerender.rendering.exports.parsed import parse_answer
    from citerender.sources.model import registry_from_data

    adapted = load_response(RECORDED / "bedrock-kb-retrieve-and-generate.json")
    soup = BeautifulSoup(render(adapted.text, adapted.registry, style="hovercard").html, "html.parser")
    card = soup.select_one(".citerender-card")
    assert card is not None and "passage 1:" in card.get_text(" ") and "line" not in card.get_text(" ")
    labels = [a["aria-label"] for a in soup.select(".citerender-backlinks a")]
    assert labels == [
        "a, passage 1, page 7: back to citation a of source 1",
        "b, passage 2, page 5: back to citation b of source 1",
    ]
    notes = to_markdown(parse_answer(adapted.text, adapted.registry))
    assert "PB-11133-001\\_v01.pdf, passage 1, page 7" in notes and "line 1" not in notes

    own = registry_from_data([{"id": "doc", "lines": ["First.", "Second."]}])
    html = render("A claim.\ue200cite\ue202doc\ue202L2\ue201", own, style="hovercard").html
    assert "line 2:" in BeautifulSoup(html, "html.parser").select_one(".citerender-card").get_text(" ")
