"""Agent histories and search answers rendered as a user does (``citerender render FILE``, no
``--from``): the OpenAI Agents SDK's histories (Python ``to_input_list()``, the JS SDK's history
and serialised run state), Perplexity's Sonar ``search_results`` and Agent API (a recording and its
stream), xAI's inline ``[[1]](url)`` citations. Every cited URL linked, every number a citation,
each source cited once, nothing raw on the page, what is not shown said on stderr. Fixtures and
their origins: ``fixtures/providers/{openai-agents,perplexity,xai}/README.md``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES

from citerender.cli import main
from citerender.providers import adapt, detect_provider
from citerender.providers.responses import parse_json
from citerender.providers.transcripts import is_transcript
from citerender.syntax.format import DEFAULT_FORMAT

AGENTS = FIXTURES / "providers" / "openai-agents"
PERPLEXITY = FIXTURES / "providers" / "perplexity"
XAI = FIXTURES / "providers" / "xai"
MARK = re.compile(
    re.escape(DEFAULT_FORMAT.start) + "[^" + re.escape(DEFAULT_FORMAT.stop) + "]*" + re.escape(DEFAULT_FORMAT.stop)
)
RAW = ("[[", "]](", '"type"', "url_citation", "{", "turn0search")


def _data(path: Path) -> Any:
    return parse_json(path.read_text(encoding="utf-8"), str(path))


def _render(capsys: pytest.CaptureFixture[str], path: Path, *args: str, code: int = 0) -> tuple[BeautifulSoup, str]:
    """``citerender render PATH`` as typed: the page parsed, and what stderr said."""
    assert main(["render", str(path), *args]) == code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return BeautifulSoup(out, "html.parser"), err


def _visible(soup: BeautifulSoup) -> str:
    """The page's text outside code (where a reader would see raw markup)."""
    for code in soup.find_all(["code", "pre"]):
        code.decompose()
    return soup.get_text(" ")


def _cited_urls(soup: BeautifulSoup) -> list[str]:
    return [a["href"] for a in soup.select(".citerender-references a.citerender-ref-title")]


def _strip_utm(url: str) -> str:
    return re.sub(r"[?&]utm_source=openai$", "", url)


def _answer_annotations(items: list[Any]) -> list[dict[str, Any]]:
    """Every url_citation of the last assistant message, wherever the SDK keeps it."""
    message = [i for i in items if i.get("role") == "assistant"][-1]
    out = []
    for part in message["content"]:
        for a in part.get("annotations") or (part.get("providerData") or {}).get("annotations") or []:
            out.append(a.get("url_citation", a))
    return out


# -- the OpenAI Agents SDK ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["python-to-input-list.json", "js-history.json"])
def test_an_agents_sdk_history_renders_its_answer_with_every_url_citation_linked(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _data(AGENTS / name)
    assert detect_provider(data) == "openai-agents" and not is_transcript(data)
    soup, err = _render(capsys, AGENTS / name)
    wanted = {_strip_utm(a["url"]) for a in _answer_annotations(data)}
    assert len(wanted) == 7 and set(_cited_urls(soup)) == wanted  # each once, in Sources
    assert len(soup.select("sup.citerender-cite")) == len(_answer_annotations(data))
    text = _visible(soup)
    assert "Today’s top tech stories (December 5, 2025)" in text and "What is in the tech news" not in text
    assert not any(r in text for r in RAW)
    assert "CR308" in err and "CR512" not in err  # the pages searched but not cited: said, not shown


def test_a_citation_replaces_its_site_link_after_the_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    soup, _ = _render(capsys, AGENTS / "python-to-input-list.json")
    first = soup.select_one("sup.citerender-cite")
    assert first is not None
    before = first.find_previous(string=True)
    assert before is not None and before.rstrip("\u2060").endswith("(discussion and analysis on The Vergecast).")
    assert "theverge.com" not in str(first.find_previous("li"))  # the ([site](url)) link is gone: cited instead


def test_the_python_and_js_histories_give_the_same_answer() -> None:
    python, js = (adapt(_data(AGENTS / n)) for n in ("python-to-input-list.json", "js-history.json"))
    assert python.text == js.text
    assert [s.url for s in python.registry.values()] == [s.url for s in js.registry.values()]


def test_the_web_search_calls_pages_are_consulted(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("python-to-input-list.json", "js-history.json"):
        soup, _ = _render(capsys, AGENTS / name, "--consulted")
        consulted = [a["href"] for a in soup.select("section.citerender-consulted a.citerender-ref-title")]
        assert "https://www.wired.com/story/the-big-interview-2025-recap" not in consulted  # cited: listed once
        assert "https://www.barrons.com/articles/stock-movers-7c77880d" in consulted


def test_a_run_state_renders_its_last_answer_and_counts_the_earlier_one(capsys: pytest.CaptureFixture[str]) -> None:
    soup, err = _render(capsys, AGENTS / "js-run-state.json")
    text = _visible(soup)
    assert "It opened on 31 March 1889" in text and "Gustave Eiffel’s company" not in text
    assert "CR512" in err and "1 earlier left out" in err
    assert _cited_urls(soup) == [
        "https://en.wikipedia.org/wiki/Eiffel_Tower",
        "https://www.toureiffel.paris/en/the-monument/key-figures",
    ]
    adapted = adapt(_data(AGENTS / "js-run-state.json"))
    before = [MARK.sub("", adapted.text[: m.start()]) for m in MARK.finditer(adapted.text)]
    assert [b[-14:] for b in before] == ["n’s centenary.", "from 15 May 1889."[-14:]]  # each after its sentence


def test_a_python_run_state_reads_as_the_js_one() -> None:
    js = _data(AGENTS / "js-run-state.json")
    python = {
        "$schemaVersion": js["$schemaVersion"],
        "original_input": js["originalInput"],
        "generated_items": [{"type": g["type"], "raw_item": g["rawItem"]} for g in js["generatedItems"]],
    }
    assert detect_provider(python) == "openai-agents"
    assert adapt(python).text == adapt(js).text


def test_a_longer_history_shows_its_last_answer_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = _data(AGENTS / "python-to-input-list.json")
    items += [
        {"role": "user", "content": "Which of them is about Vercel?"},
        {"type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text",
            "text": "Vercel announced its Series F (vercel.com).", "logprobs": [], "annotations": [
                {"type": "url_citation", "url": "https://vercel.com/blog/series-f", "title": "Series F",
                 "start_index": 0, "end_index": 43}]}]},
    ]  # fmt: skip
    path = tmp_path / "history.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    soup, err = _render(capsys, path)
    assert _cited_urls(soup) == ["https://vercel.com/blog/series-f"]
    assert "Today’s top tech stories" not in _visible(soup) and "CR512" in err


def test_a_short_history_is_no_transcript(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = _data(AGENTS / "python-to-input-list.json")
    path = tmp_path / "short.json"
    path.write_text(json.dumps([items[0], items[-1]]), encoding="utf-8")  # the question and the answer only
    soup, _ = _render(capsys, path, "--to", "markdown")  # a transcript would render to HTML only
    assert soup.get_text().count("[^") >= 14  # seven citations, seven notes


# -- Perplexity --------------------------------------------------------------------------------


def test_the_agent_api_recording_cites_the_result_its_number_names(capsys: pytest.CaptureFixture[str]) -> None:
    data = _data(PERPLEXITY / "agent-web-search.json")
    assert detect_provider(data) == "perplexity-agent"
    soup, err = _render(capsys, PERPLEXITY / "agent-web-search.json")
    assert _cited_urls(soup) == ["https://www.typescriptlang.org/"]  # result id 7
    title = soup.select_one(".citerender-references .citerender-ref-title")
    assert title is not None and title.get_text() == "TypeScript: JavaScript With Syntax For Types."
    text = _visible(soup)
    assert "[7]" not in text and "syntax for types." in text
    assert err.count("CR308") == 9  # the nine results the answer does not cite: said, not shown


def test_the_agent_api_stream_renders_as_its_response(capsys: pytest.CaptureFixture[str]) -> None:
    events = _data(PERPLEXITY / "agent-web-search.jsonl")
    assert isinstance(events, list) and detect_provider(events) == "perplexity-agent"
    soup, _ = _render(capsys, PERPLEXITY / "agent-web-search.jsonl")
    assert _cited_urls(soup) == ["https://www.typescriptlang.org/"]
    assert "adds syntax for types." in _visible(soup)
    folded = [e for e in events if e.get("type") != "response.completed"]  # a stream cut before its end
    adapted = adapt(folded)
    assert MARK.search(adapted.text) is None and adapted.registry.numbered[6] is not None
    assert [s.url for s in adapted.registry.values()][6] == "https://www.typescriptlang.org/"


def test_an_agent_api_number_names_a_result_by_id_not_by_place() -> None:
    data = {"object": "response", "output": [
        {"type": "search_results", "queries": ["q"], "results": [
            {"id": 2, "url": "https://b.example/", "title": "B", "snippet": "b", "source": "web"},
            {"id": 1, "url": "https://a.example/", "title": "A", "snippet": "a", "date": "2026-01-02", "source": "web"}]},
        {"type": "fetch_url_results", "contents": [{"url": "https://read.example/", "title": "Read", "snippet": "r"}]},
        {"type": "message", "role": "assistant", "status": "completed", "content": [
            {"type": "output_text", "text": "A is first.[1] B is second.[2]", "annotations": []}]},
    ]}  # fmt: skip
    from citerender import render

    adapted = adapt(data)
    soup = BeautifulSoup(render(adapted.text, adapted.registry, consulted=True).html, "html.parser")
    assert _cited_urls(soup) == ["https://a.example/", "https://b.example/"]
    assert [a["href"] for a in soup.select("section.citerender-consulted a.citerender-ref-title")] == [
        "https://read.example/"
    ]


def test_sonar_search_results_number_the_sources(capsys: pytest.CaptureFixture[str]) -> None:
    data = _data(PERPLEXITY / "sonar-search-results.json")
    assert "citations" not in data and detect_provider(data) == "perplexity"
    soup, err = _render(capsys, PERPLEXITY / "sonar-search-results.json")
    assert _cited_urls(soup) == [r["url"] for r in data["search_results"]]
    titles = [a.get_text() for a in soup.select(".citerender-references a.citerender-ref-title")]
    assert titles == [r["title"] for r in data["search_results"]]
    text = _visible(soup)
    assert not re.search(r"\[\d\]", text) and "2,22 m lower than in 2021." in text
    assert "2026-04-30" in soup.get_text()  # when the page was last updated
    assert "CR" not in err


# -- xAI ---------------------------------------------------------------------------------------


def _xai() -> dict[str, Any]:
    data: dict[str, Any] = _data(XAI / "responses-inline-citations.json")
    return data


def _citations_in(soup: BeautifulSoup) -> list[str]:
    """The source each citation of the text links to, in order."""
    out = []
    for sup in soup.select("sup.citerender-cite a.citerender-num"):
        ref = soup.find(id=sup["href"].lstrip("#"))
        link = ref.select_one("a.citerender-ref-title") if ref is not None else None
        out.append(link["href"] if link is not None else "")
    return out


def test_an_inline_xai_link_is_one_citation(capsys: pytest.CaptureFixture[str]) -> None:
    soup, err = _render(capsys, XAI / "responses-inline-citations.json")
    assert _citations_in(soup) == [
        "https://x.ai/news/grok-4",
        "https://docs.x.ai/docs/guides/tools/overview",
        "https://x.ai/company",
    ]
    code = soup.select_one("code")
    assert code is not None and code.get_text() == "[[1]](https://x.ai/news/grok-4)"  # code stays code
    text = _visible(soup)
    assert "[[" not in text and "]](" not in text and not re.search(r"\]\s*\.?\s*\[", text)  # no "[1].[1]"
    titles = [a.get_text() for a in soup.select(".citerender-references a.citerender-ref-title")]
    assert not any(t.strip().isdigit() for t in titles)  # xAI's title is the display number, not the page's
    assert err.count("CR308") == 2 and "CR303" not in err  # two listed pages unused; citations after the stops


def test_the_citations_no_link_uses_are_consulted_not_cited(capsys: pytest.CaptureFixture[str]) -> None:
    soup, _ = _render(capsys, XAI / "responses-inline-citations.json", "--consulted")
    consulted = [a["href"] for a in soup.select("section.citerender-consulted a.citerender-ref-title")]
    assert consulted == ["https://en.wikipedia.org/wiki/XAI_(company)", "https://x.com/xai/status/1943158495588815072"]
    assert set(_cited_urls(soup)).isdisjoint(consulted)


def test_links_without_positions_are_cited_once_too() -> None:
    from citerender import render

    data = _xai()
    message = data["output"][1]["content"][0]
    for spanless, anns in (("no annotations", []), ("spanless", [{"type": "url_citation", "url": a["url"]}
                                                              for a in message["annotations"]])):  # fmt: skip
        message["annotations"] = anns
        adapted = adapt(data)
        soup = BeautifulSoup(render(adapted.text, adapted.registry).html, "html.parser")
        assert _citations_in(soup) == [
            "https://x.ai/news/grok-4",
            "https://docs.x.ai/docs/guides/tools/overview",
            "https://x.ai/company",
        ], spanless
        assert "[[" not in _visible(soup)


def test_xai_chat_links_over_its_citations_list_are_cited_once() -> None:
    from citerender import render

    text = (
        "Grok 4 came out in July 2025 [[1]](https://x.ai/news/grok-4). It is xAI’s model [[2]](https://x.ai/company)."
    )
    data = {"object": "chat.completion", "model": "grok-4", "choices": [{"message": {"role": "assistant",
            "content": text}}], "citations": ["https://x.ai/news/grok-4", "https://x.ai/company", "https://x.ai/"]}  # fmt: skip
    adapted = adapt(data)
    result = render(adapted.text, adapted.registry)
    soup = BeautifulSoup(result.html, "html.parser")
    assert _citations_in(soup) == ["https://x.ai/news/grok-4", "https://x.ai/company"]
    assert "[[" not in _visible(soup) and "CR309" not in {d.code for d in result.diagnostics}


# -- every fixture, as a user renders it -------------------------------------------------------


@pytest.mark.parametrize(
    "path", sorted(p for d in (AGENTS, PERPLEXITY, XAI) for p in d.iterdir() if p.suffix in (".json", ".jsonl"))
)
def test_every_fixture_renders_with_nothing_raw(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    soup, _ = _render(capsys, path)
    assert soup.select("sup.citerender-cite"), "no citation placed"
    assert all(href.startswith("https://") for href in _cited_urls(soup))
    text = _visible(soup)
    assert not any(r in text for r in RAW) and not re.search(r"(?<![\w\]])\[\d{1,3}\](?!\()", text)
