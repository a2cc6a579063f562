"""Issue 49 (§2.5–2.7, §3.5, §4.4), as a reader meets it, on the files of
``fixtures/providers/gemini_anthropic`` (origins in its README): Gemini's and Vertex AI's
``citationMetadata``, image grounding chunks and the Search Suggestions widget; Anthropic's
``search_result_location`` sources and citations of pages its web fetch tool read; a Claude export
whose answers cite web pages. Every file is rendered as a user would, ``citerender render FILE``
without ``--from``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from conftest import FIXTURES, run_cli

from citerender.providers import adapt, load_response
from citerender.providers.sse import parse_sse
from citerender.stream import StreamRenderer
from citerender.stream.events import LiveAnswer

HERE = FIXTURES / "providers" / "gemini_anthropic"
RECORDED = FIXTURES / "providers" / "recorded"
SUGGESTED = "Search suggestions from Google:"


def _render(name: str | Path, *args: str) -> tuple[BeautifulSoup, str, int]:
    """The page ``citerender render FILE`` writes (no ``--from``), its stderr and exit code."""
    path = name if isinstance(name, Path) else HERE / name
    r = run_cli("render", path, *args)
    assert "Traceback" not in r.stderr
    return BeautifulSoup(r.stdout, "html.parser"), r.stderr, r.returncode


def _codes(stderr: str) -> list[str]:
    return [line.split(": ")[1].split()[0] for line in stderr.splitlines() if ": CR" in line]


def _sources(soup: BeautifulSoup) -> list[Tag]:
    return soup.select(".citerender-bibliography li")


def _before_citations(soup: BeautifulSoup) -> list[str]:
    """The text just before each citation (what it follows, as a reader sees it)."""
    out = []
    for sup in soup.select("sup.citerender-cite"):
        prev = sup.find_previous(string=True)
        out.append(str(prev).replace("\u2060", "") if prev else "")
    return out


def _suggestions(soup: BeautifulSoup) -> Tag:
    found = [p for p in soup.find_all("p") if p.get_text().startswith(SUGGESTED)]
    assert len(found) == 1
    return found[0]


def _answer(name: str) -> str:
    data = json.loads((HERE / name).read_text(encoding="utf-8"))
    return "".join(p["text"] for p in data["candidates"][0]["content"]["parts"] if "text" in p)


# ------------------------------------------------------------------------------ citationMetadata


def test_a_gemini_stream_cites_its_recited_page_after_the_words_its_bytes_end_in() -> None:
    soup, err, code = _render("gemini-citation-sources.sse")
    assert code == 0 and _codes(err) == []
    url = "https://www.vaia.com/en-us/textbooks/physics/quantum-physics-of-atoms-molecules-solids-nuclei-and-particles-2-edition/chapter-4/problem-23-according-to-classical-mechanics-an-electron-movi/"
    assert [a["href"] for a in soup.select(".citerender-bibliography a.citerender-ref-title")] == [url]
    # the span ends inside "particles" (byte 236): after that word and its full stop
    assert _before_citations(soup) == ["At its core, quantum mechanics (QM) is a fundamental theory in physics that describes the physical properties of nature at the scale of atoms and subatomic particles."]  # fmt: skip


def test_recited_spans_past_the_answer_are_reported_and_listed_without_a_place() -> None:
    # Google's own test response: its text cut to one sentence, its four spans left pointing past it
    soup, err, code = _render("gemini-citation-sources.json")
    assert code == 0
    assert sorted(_codes(err)) == ["CR504", "CR504", "CR505", "CR505", "CR510"]
    assert "starts past the answer's end (93 bytes)" in err and "has no URI" in err
    text = soup.get_text(" ")
    assert _answer("gemini-citation-sources.json") in " ".join(text.split())  # the answer whole, nothing pinned in it
    assert soup.select("sup.citerender-cite") == []
    (entry,) = _sources(soup)
    assert entry.select_one("a")["href"] == "https://www.example.com/some-citation-1"
    assert "cited without a place in the text" in entry.get_text()


def test_vertex_citations_link_every_uri_and_name_the_titled_source_without_one() -> None:
    soup, err, code = _render("vertex-citations.sse")
    assert code == 0 and sorted(_codes(err)) == ["CR505", "CR505"]
    assert "'some-citation-2', not linked" in err and "'some-citation-5', not linked" in err
    links = {a["href"] for a in soup.select(".citerender-bibliography a")}
    assert {f"https://www.example.com/some-citation-{n}" for n in (1, 3, 4, 6)} <= links
    titles = [li.get_text(" ", strip=True) for li in _sources(soup)]
    assert any(t.startswith("some-citation-2") for t in titles) and any(t.startswith("some-citation-5") for t in titles)
    before = _before_citations(soup)
    # a span running from "…vice versa. " into the next item's "**": on the line whose words it covers
    assert any(b.endswith("and vice versa.") for b in before)
    assert not any(b.rstrip().endswith("**") for b in before)
    assert "CR301" not in err  # never inside the next item's bold


def test_vertex_unary_citations_read_a_span_running_past_the_end_to_the_end() -> None:
    r = run_cli("render", HERE / "vertex-citations.json", "--to", "json")
    assert r.returncode == 0
    data = json.loads(r.stdout)
    codes = sorted(d["code"] for d in data["diagnostics"])
    assert codes == ["CR504", "CR504", "CR504", "CR505", "CR510", "CR510"]
    assert data["text"].startswith("Some information cited from an external source")
    urls = {s.get("url") for s in data["bibliography"]}
    assert {"https://www.example.com/some-citation-1", "https://www.example.com/some-citation-3"} <= urls


def test_citation_metadata_and_grounding_supports_are_read_together() -> None:
    text = "Rust was first released in 2015. Its mascot is Ferris."
    cut = len("Rust was first released in 2015.")
    data = {"candidates": [{"content": {"parts": [{"text": text}]}, "groundingMetadata": {
        "groundingChunks": [{"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/R", "title": "rust-lang.org"}}],
        "groundingSupports": [{"segment": {"endIndex": cut, "text": text[:cut]}, "groundingChunkIndices": [0]}]},
        "citationMetadata": {"citationSources": [{"startIndex": cut + 1, "endIndex": len(text) - 3, "uri": "https://rustacean.net/", "license": ""}]},
    }]}  # fmt: skip
    adapted = adapt(data)
    from citerender import render

    soup = BeautifulSoup(render(adapted.text, adapted.registry).html, "html.parser")
    assert _before_citations(soup) == ["Rust was first released in 2015.", " Its mascot is Ferris."]
    assert [a["href"] for a in soup.select(".citerender-bibliography a.citerender-ref-title")] == [
        "https://vertexaisearch.cloud.google.com/grounding-api-redirect/R", "https://rustacean.net/"]  # fmt: skip
    assert adapted.notes == []


@pytest.mark.parametrize(
    "path", [HERE / "gemini-citation-sources.sse", RECORDED / "gemini-google-search.sse"], ids=lambda p: p.name
)
def test_a_live_gemini_stream_gives_the_one_shot_answer(path: Path) -> None:
    events = parse_sse(path.read_text(encoding="utf-8"), path.name)
    one = adapt(events, "gemini")
    sink = StreamRenderer(one.registry, output="markdown")
    expected = sink.feed(one.text) + sink.close()
    live = LiveAnswer("gemini", output="markdown")
    assert "".join(live.feed(e) for e in events) + live.close() == expected
    assert [d.code for d in live.diagnostics if d.code.startswith("CR5")] == [c for c, _ in one.notes]


# ------------------------------------------------------------------------------ image grounding


def test_image_chunks_cite_the_page_the_image_is_on_and_never_the_image() -> None:
    soup, err, code = _render("gemini-image-grounding.json", "--standalone")
    assert code == 0 and _codes(err) == ["CR505"]
    assert "grounding chunk 4 (an image search result) has no page URL" in err
    entries = {li.select_one(".citerender-ref-title").get_text(): li for li in _sources(soup)}
    page = entries["Timareta butterfly (Heliconius timareta)"].select_one("a")
    assert page["href"] == "https://www.inaturalist.org/taxa/timareta"
    assert "inaturalist.org" in entries["Timareta butterfly (Heliconius timareta)"].get_text()
    assert entries["File:Heliconius timareta.jpg"].select_one("a")["href"].startswith("https://commons.wikimedia.org/")
    assert entries["Timareta on a flower"].select_one("a.citerender-ref-title") is None  # no page: named, said
    html = str(soup)
    assert soup.find("img") is None and "static.inaturalist.org" not in html and "upload.wikimedia.org" not in html
    assert "grounding chunk" not in soup.get_text()


def test_empty_grounding_chunks_are_reported_never_a_silent_placeholder() -> None:
    soup, err, code = _render("gemini-empty-grounding-chunks.json")
    assert code == 0
    assert (
        _codes(err).count("CR505") == 2 and "grounding chunk 1 is empty" in err and "grounding chunk 2 is empty" in err
    )
    link = _suggestions(soup).select_one("a")
    assert link.get_text() == "current weather London" and link["href"].startswith(
        "https://vertexaisearch.cloud.google.com/"
    )


# ------------------------------------------------------------------------------ Search Suggestions


@pytest.mark.parametrize("standalone", [False, True], ids=["fragment", "standalone"])
def test_search_suggestions_are_shown_after_the_answer_each_chip_a_link(standalone: bool) -> None:
    soup, err, code = _render("gemini-search-suggestions.json", *(["--standalone"] if standalone else []))
    assert code == 0 and _codes(err) == []
    chips = _suggestions(soup).select("a")
    assert [a.get_text() for a in chips] == ["current weather in London"]
    assert chips[0]["href"].startswith("https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbF9wXHDlag")
    paragraphs = [p.get_text() for p in soup.find_all("p")]
    last_answer = next(i for i, p in enumerate(paragraphs) if "humidity is around 41%" in p)
    assert paragraphs[last_answer + 1].startswith(SUGGESTED)  # right after the answer, before the Sources
    assert soup.find("style", string=lambda s: s is not None and ".chip" in s) is None  # Google's CSS is not ours
    assert soup.find("svg") is None


def test_search_suggestions_are_written_by_the_text_markdown_and_json_exports() -> None:
    path = HERE / "gemini-search-suggestions.json"
    text = run_cli("render", path, "--to", "text").stdout
    assert f"{SUGGESTED} current weather in London <https://vertexaisearch.cloud.google.com/" in text
    md = run_cli("render", path, "--to", "markdown").stdout
    assert f"{SUGGESTED} [current weather in London](<https://vertexaisearch.cloud.google.com/" in md
    data = json.loads(run_cli("render", path, "--to", "json").stdout)
    assert f"{SUGGESTED} [current weather in London]" in data["text"] and data["diagnostics"] == []


def test_the_recorded_widget_links_its_chip() -> None:
    soup, _, code = _render(RECORDED / "gemini-google-search.json")
    (chip,) = _suggestions(soup).select("a")
    data = json.loads((RECORDED / "gemini-google-search.json").read_text(encoding="utf-8"))
    rendered = data["candidates"][0]["groundingMetadata"]["searchEntryPoint"]["renderedContent"]
    assert code == 0 and chip.get_text() == "weather in San Francisco today" and f'href="{chip["href"]}"' in rendered


def test_a_hostile_widget_runs_nothing_and_links_only_https() -> None:
    soup, err, code = _render("gemini-suggestions-hostile.json", "--standalone")
    assert code == 0
    assert soup.find("script") is None and soup.find("img") is None
    assert not [a for t in soup.find_all(True) for a in t.attrs if a.lower().startswith("on")]
    suggested = _suggestions(soup)
    assert [a["href"] for a in suggested.select("a")] == [
        "https://vertexaisearch.cloud.google.com/grounding-api-redirect/ok?a=1&b=2",
        "https://evil.example/a%20b%3Cc%3E",
        "https://x.example/unclosed",
    ]
    shown = suggested.get_text()
    assert "capital of france" in shown and "plain http" in shown  # unlinked chips: their text, said
    assert "paris <img src=x onerror=alert(5)> [link](javascript:alert(6))" in shown  # text, never markup
    assert [c for c in _codes(err) if c == "CR515"] == ["CR515", "CR515"]
    assert "'capital of france' has no https link" in err and "'plain http' has no https link" in err


def test_a_widget_without_a_chip_shows_the_search_queries_as_text() -> None:
    soup, err, code = _render("gemini-suggestions-no-link.json")
    suggested = _suggestions(soup)
    assert code == 0 and suggested.get_text() == f"{SUGGESTED} capital of france · paris population"
    assert suggested.find("a") is None and _codes(err) == ["CR515"]


# ------------------------------------------------------------------------------ Anthropic


def test_search_result_sources_show_their_source_beside_their_title() -> None:
    soup, err, code = _render("anthropic-search-results.json")
    assert code == 0 and _codes(err) == []
    entries = [li.select_one(".citerender-ref-title") for li in _sources(soup)]
    assert [(e.get_text(), e.get("href")) for e in entries] == [
        ("API Reference - Authentication", "https://docs.company.com/api-reference"),
        ("Getting Started Guide", "https://docs.company.com/quickstart"),
        ("upgrade-guide.pdf (file_001)", None),  # an id, not a place to go: shown, not linked
        ("kb://support/retention", None),
    ]
    assert "docs.company.com" in _sources(soup)[0].get_text()


def test_a_page_web_fetch_read_is_the_cited_source_linked_and_listed_once() -> None:
    soup, err, code = _render("anthropic-web-fetch-citations.json", "--consulted")
    assert code == 0 and _codes(err) == []
    (entry,) = _sources(soup)
    title = entry.select_one("a.citerender-ref-title")
    assert (title.get_text(), title["href"]) == ("Article Title", "https://example.com/article")
    assert soup.select(".citerender-consulted") == []  # the fetched page is cited: not listed again
    assert str(soup).count('href="https://example.com/article"') == 1
    assert _before_citations(soup) == ["Based on the article, the main argument presented is that artificial intelligence will transform healthcare"]  # fmt: skip


def test_fetched_documents_are_told_apart_a_pdf_by_its_page() -> None:
    soup, _, code = _render("anthropic-web-fetch-pdf.json", "--consulted")
    entries = _sources(soup)
    assert code == 0 and [li.select_one("a")["href"] for li in entries] == [
        "https://example.com/article", "https://example.com/paper.pdf"]  # fmt: skip
    assert "page 3" in entries[1].get_text()
    assert _before_citations(soup)[-1].endswith("a 12% drop in waiting times.")


def _anthropic_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A Messages response as the stream Anthropic sends for it (block starts, deltas, stops)."""
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {**message, "content": []}}]
    for i, block in enumerate(message["content"]):
        if block["type"] != "text":
            events += [{"type": "content_block_start", "index": i, "content_block": block},
                       {"type": "content_block_stop", "index": i}]  # fmt: skip
            continue
        events.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
        events.append(
            {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}}
        )
        for c in block.get("citations") or []:
            events.append(
                {"type": "content_block_delta", "index": i, "delta": {"type": "citations_delta", "citation": c}}
            )
        events.append({"type": "content_block_stop", "index": i})
    return [*events, {"type": "message_stop"}]


def test_a_live_web_fetch_answer_links_the_fetched_page_as_the_one_shot_does() -> None:
    events = _anthropic_events(json.loads((HERE / "anthropic-web-fetch-pdf.json").read_text(encoding="utf-8")))
    one = adapt(events, "anthropic")
    sink = StreamRenderer(one.registry, output="markdown")
    expected = sink.feed(one.text) + sink.close()
    live = LiveAnswer("anthropic", output="markdown")
    out = "".join(live.feed(e) for e in events) + live.close()
    assert out == expected and "<https://example.com/paper.pdf>" in out and "<https://example.com/article>" in out


def test_the_recorded_web_fetch_lists_its_page_as_consulted() -> None:
    adapted = load_response(RECORDED / "anthropic-web-fetch.json")
    from citerender import render

    soup = BeautifulSoup(render(adapted.text, adapted.registry, consulted=True).html, "html.parser")
    consulted = soup.select(".citerender-consulted a")
    assert len(consulted) == 1 and consulted[0]["href"].startswith("http")


# ------------------------------------------------------------------------------ Claude export


def test_a_claude_export_links_its_citations_and_lists_the_pages_searched(tmp_path: Path) -> None:
    r = run_cli("build", HERE / "claude-export-citations.json", tmp_path / "site", "--consulted", "--verbose")
    assert r.returncode == 0, r.stderr
    assert "CR504" in r.stderr and "lies outside its text (70 characters)" in r.stderr
    (page,) = [p for p in (tmp_path / "site").rglob("*.html") if p.name != "index.html"]
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    answer = soup.select("article")[1]
    cited = [li.select_one("a.citerender-ref-title")["href"] for li in answer.select(".citerender-bibliography li")]
    assert cited == [
        "https://www.ecb.europa.eu/mopo/decisions/html/index.en.html",
        "https://www.reuters.com/markets/europe/ecb-holds-rates-2026-03-05/",
        "https://www.bundesbank.de/en/tasks/monetary-policy/key-rates",
        "https://www.ecb.europa.eu/press/pr/date/2026/html/index.en.html",  # cited past its text: listed, not placed
    ]
    last = answer.select(".citerender-bibliography li")[-1]
    assert "cited without a place in the text" in last.get_text() and last.select(".citerender-backlinks") == []
    titles = [a.get_text() for a in answer.select(".citerender-bibliography a.citerender-ref-title")]
    assert titles[:3] == [
        "Monetary policy decisions",
        "ECB holds rates steady",
        "Key interest rates – Deutsche Bundesbank",
    ]
    assert [a["href"] for a in answer.select(".citerender-consulted a")] == ["https://example.org/rates-explained"]
    before = _before_citations(answer)
    assert [b.strip() for b in before] == [
        "The ECB's deposit facility rate is 2.00 %",
        "— unchanged at the March meeting,",  # the next block's comma closes the cited words
        "The Bundesbank lists every change since 1999",
    ]
    assert "(Zinssätze, Übersicht)." in answer.get_text()


@pytest.mark.parametrize(
    "name", ["gemini-interactions-google-search.json", "gemini-interactions-google-search.chunks.txt"]
)
def test_the_interactions_api_widget_is_shown_once_each_chip_a_link(name: str) -> None:
    from citerender import render

    adapted = load_response(RECORDED / name)
    soup = BeautifulSoup(render(adapted.text, adapted.registry).html, "html.parser")
    chips = _suggestions(soup).select("a")  # every search result repeats the widget: its chips shown once
    raw = (RECORDED / name).read_text(encoding="utf-8")
    assert len(chips) == len({a["href"] for a in chips}) >= 2
    assert all(a["href"].startswith("https://vertexaisearch.cloud.google.com/") and a["href"] in raw for a in chips)
    assert all(a.get_text() in raw for a in chips) and adapted.notes == []


def _snake(data: Any) -> Any:
    """``data`` as the google-genai SDKs' ``model_dump()`` writes it: every key snake_case."""
    import re

    if isinstance(data, dict):
        return {re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), k): _snake(v) for k, v in data.items()}
    return [_snake(v) for v in data] if isinstance(data, list) else data


@pytest.mark.parametrize(
    "name", ["gemini-image-grounding.json", "gemini-search-suggestions.json", "vertex-citations.json"]
)
def test_an_sdk_dump_in_snake_case_reads_as_the_api_response(name: str) -> None:
    data = json.loads((HERE / name).read_text(encoding="utf-8"))
    dumped = _snake(data)
    assert "grounding_metadata" in json.dumps(dumped) or "citation_metadata" in json.dumps(dumped)
    api, sdk = adapt(data), adapt(dumped)
    assert sdk.text == api.text and "\ue200" in sdk.text and sdk.notes == api.notes
    assert [s.url for s in sdk.registry.values()] == [s.url for s in api.registry.values()]


@pytest.mark.parametrize(
    "name",
    ["gemini-interactions-google-search.chunks.txt", "anthropic-web-search.chunks.txt", "xai-web-search.chunks.txt"],
)
def test_a_stream_saved_as_json_lines_under_any_name_renders_as_its_answer(name: str) -> None:
    soup, _, code = _render(RECORDED / name)
    assert code == 0 and "event_type" not in soup.get_text() and '"type"' not in soup.get_text()
    assert soup.select(".citerender-bibliography a.citerender-ref-title")  # its sources, linked


def test_an_answer_that_only_looks_like_json_lines_stays_an_answer(tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text('{"a": 1}\n{"b": 2}\n', encoding="utf-8")  # JSON, but no provider's events
    soup, _, code = _render(answer)
    assert code == 0 and '{"a": 1}' in soup.get_text()
