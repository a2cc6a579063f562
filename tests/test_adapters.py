"""Provider adapters on realistic saved responses and streaming event sequences."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, assert_no_marker, run_cli

from citerender import CiterenderError, check, extract_citations, render
from citerender.providers import adapt, collect_events, detect_provider, load_response

P = FIXTURES / "providers"


def _ids(text: str) -> list[tuple[str, ...]]:
    return [c.source_ids for c in extract_citations(text)]


def test_openai_responses_web_and_file_search() -> None:
    a = load_response(P / "openai-responses.json")
    fid = "file-2dtbBZdjtDKS8eqWxqbgDi"  # a file is listed under OpenAI's file id, never a placeholder
    assert _ids(a.text) == [("turn0search0",), ("turn0search1",), (fid,), (fid,)]
    assert "utm_source" not in a.text and "](https://" not in a.text  # the link spans became markers
    s0 = a.registry["turn0search0"]
    assert (s0.title, s0.url) == (
        "7 stories of optimism this week",
        "https://conservationoptimism.org/7-stories-of-optimism/",
    )
    assert a.registry[fid].title == "employee-handbook.pdf"
    assert a.registry[fid].meta["file_id"] == fid
    assert f"per week.\ue200cite\ue202{fid}\ue201 Extra" in a.text


def test_openai_responses_stream_events_fold_into_the_same_answer() -> None:
    events = [
        json.loads(line) for line in (P / "openai-responses-stream.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert detect_provider(events) == "openai-responses"
    folded = collect_events(events, "openai-responses")
    streamed = adapt(folded, "openai-responses")
    whole = load_response(P / "openai-responses.json")
    assert streamed.text == whole.text.split("\n\n")[0]


def test_openai_chat_completions() -> None:
    a = load_response(P / "openai-chat.json")
    assert _ids(a.text) == [("turn0search0",), ("turn0search1",)]
    assert a.text.endswith("thirty days.\ue200cite\ue202turn0search1\ue201")
    assert a.registry["turn0search0"].url == "https://legal.example.com/addenda/northwind"


def test_anthropic_citations_and_stream() -> None:
    a = load_response(P / "anthropic.json")
    b = load_response(P / "anthropic-stream.jsonl")
    assert a.text == b.text and a.registry == b.registry
    assert [c.locator for c in extract_citations(a.text)] == ["L1", "L1", "L1"]
    hb = a.registry["turn0file0"]
    assert hb.title == "Employee Handbook" and hb.lines == ("Employees may work remotely up to three days per week.",)
    assert hb.meta["locations"] == ["characters 0–55"]
    assert a.registry["turn0file1"].meta["locations"] == ["page 3"]  # end_page_number 4 is exclusive
    assert a.registry["turn0search0"].url == "https://www.rewildingargentina.org/otters"
    assert [d.code for d in check(a.text, a.registry)] == []
    card = BeautifulSoup(render(a.text, a.registry, style="hovercard").html, "html.parser").select_one("#cite-1-card")
    assert "three days per week" in card.get_text()


def test_assistants_file_citations() -> None:
    a = load_response(P / "openai-assistants.json")
    assert "【" not in a.text
    assert [(c.source_ids, c.locator) for c in extract_citations(a.text)] == [
        (("file-handbook01",), None),
        (("file-handbook01",), "L1"),
    ]
    assert a.registry["file-handbook01"].meta["file_id"] == "file-handbook01"


RESPONSES = sorted(p.name for p in P.iterdir() if p.suffix in (".json", ".jsonl") and ".sources." not in p.name)


@pytest.mark.parametrize("name", RESPONSES)
def test_cli_renders_saved_responses_directly(name: str, tmp_path: Path) -> None:
    out = tmp_path / "out.html"
    r = run_cli("render", str(P / name), "--standalone", "-o", str(out))
    assert r.returncode == 0, r.stderr
    html = out.read_text(encoding="utf-8")
    assert_no_marker(html)
    assert BeautifulSoup(html, "html.parser").select(".citerender-cite")


def test_unrecognised_responses_are_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}', encoding="utf-8")
    r = run_cli("render", str(bad))
    assert r.returncode == 2 and "cannot tell which provider" in r.stderr and str(bad) in r.stderr
    with pytest.raises(CiterenderError, match="holds no text"):
        adapt({"object": "chat.completion", "choices": [{"message": {"content": ""}}]})
    r = run_cli("render", str(P / "anthropic.json"), "--from", "openai-chat")
    assert r.returncode == 2 and "holds no text" in r.stderr
