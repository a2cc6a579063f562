"""OpenAI's Assistants API as a reader gets it (issue 49 §2.1–2.4, §4.1): a page of a thread's
messages and a run's event stream are detected without ``--from``; each ``【4:0†handbook.pdf】``
becomes a citation of the file it names (never an internal placeholder, in the page and in every
export); a code interpreter's ``sandbox:`` links show their label (no stray ``!``) cited to the
file, which is reported as not linkable; OpenAI's ``file_path`` annotations never vanish.
Fixtures in ``fixtures/providers/assistants`` (their origins in its README)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, assert_no_marker, run_cli

from citerender import CiterenderError, render
from citerender.providers import adapt, detect_provider, load_response
from citerender.providers.responses import parse_json

A = FIXTURES / "providers" / "assistants"
ANSWER = "Remote work is limited to three days a week, and extra days need a manager’s approval."


def _render(name: str | Path, *args: str) -> tuple[BeautifulSoup, str]:
    r = run_cli("render", str(A / name), *args)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return BeautifulSoup(r.stdout, "html.parser"), r.stderr


def _titles(soup: BeautifulSoup, where: str = ".citerender-references") -> list[str]:
    return [t.get_text() for t in soup.select(f"{where} .citerender-ref-title")]


def _prose(soup: BeautifulSoup) -> str:
    """The answer as read: the text of its paragraphs, each citation as its label (the word joiner
    that keeps a citation on its word's line left out)."""
    return "\n".join(p.get_text().replace("\u2060", "") for p in soup.find_all("p"))


def _codes(stderr: str) -> list[str]:
    return re.findall(r"\b(CR\d{3})\b", stderr)


# --------------------------------------------------------------------------- a page of a thread's messages


def test_a_page_of_thread_messages_is_detected_and_shows_its_newest_answer() -> None:
    page = json.loads((A / "messages-page.json").read_text(encoding="utf-8"))
    assert detect_provider(page) == "openai-assistants"
    soup, stderr = _render("messages-page.json")
    text = _prose(soup)
    assert text.startswith(
        "Remote work is limited to three days a week,[1] and extra days need a manager’s approval.[2]"
    )
    assert "reimbursed up to €300 a year.[1, 3]" in text
    assert "Hello! Ask me anything" not in text and "How many days" not in text  # the earlier turns
    assert _titles(soup) == ["handbook.pdf", "file-Pq3Lw9Z8", "equipment-policy.pdf"]  # 【4:1†source】: its file id
    assert "【" not in soup.get_text() and "turn0" not in str(soup)
    assert_no_marker(str(soup))
    assert _codes(stderr) == ["CR512"] and "3 other message(s)" in stderr  # what is left out is said


def test_the_page_is_read_in_time_order_whichever_way_it_was_listed() -> None:
    page = json.loads((A / "messages-page.json").read_text(encoding="utf-8"))
    newest_first = adapt(page)
    oldest_first = adapt({**page, "data": page["data"][::-1]})  # order=asc
    assert oldest_first.text == newest_first.text
    same_second = {**page, "data": [{**m, "created_at": 1714003600} for m in page["data"]]}  # one second: listed order
    assert adapt(same_second).text == newest_first.text


def test_a_page_saved_as_the_sdk_page_object_or_a_list_of_messages_is_read_too() -> None:
    page = json.loads((A / "messages-page.json").read_text(encoding="utf-8"))
    sdk_page = {"body": dict(page), "data": page["data"]}  # JSON.stringify of the JS SDK's page: no "object"
    assert detect_provider(sdk_page) == "openai-assistants"
    assert adapt(sdk_page).text == adapt(page).text


def test_a_bare_list_of_thread_messages_is_the_page_not_a_transcript(tmp_path: Path) -> None:
    """``[m.model_dump() for m in client.beta.threads.messages.list(…)]``: the page's data alone."""
    page = json.loads((A / "messages-page.json").read_text(encoding="utf-8"))
    saved = tmp_path / "messages.json"
    saved.write_text(json.dumps(page["data"]), encoding="utf-8")
    bare, whole = run_cli("render", str(saved)), run_cli("render", str(A / "messages-page.json"))
    assert bare.returncode == 0, bare.stderr
    assert bare.stdout == whole.stdout and _codes(bare.stderr) == ["CR512"]


@pytest.mark.parametrize(
    "other",
    [
        {"object": "list", "data": [{"id": "msg_1", "type": "message", "role": "user", "content": []}]},  # input items
        {"object": "list", "data": [{"id": "c1", "object": "chat.completion.message", "role": "assistant"}]},
    ],
)
def test_other_lists_are_not_taken_for_a_page_of_thread_messages(other: dict[str, Any]) -> None:
    try:
        found: str | None = detect_provider(other)
    except CiterenderError:
        found = None
    assert found != "openai-assistants"


# --------------------------------------------------------------------------- run streams


def test_a_run_stream_is_detected_and_renders_like_its_final_message() -> None:
    events = parse_json((A / "run-stream.sse").read_text(encoding="utf-8"), "run-stream.sse")
    assert detect_provider(events) == "openai-assistants"
    soup, stderr = _render("run-stream.sse", "--consulted")
    final = next(e for e in events if e.get("object") == "thread.message" and e.get("status") == "completed")
    one = adapt(final)  # the completed message alone: the same text and places, its files named by their ids
    alone = BeautifulSoup(render(one.text, one.registry).html, "html.parser")
    assert _prose(soup) == _prose(alone) == ANSWER.replace("week,", "week,[1]").replace("approval.", "approval.[2]")
    # the run's file search results name the files the markers call "source"; the file it found and
    # the answer does not cite is consulted
    assert _titles(soup) == ["handbook.pdf", "remote-work-policy.docx"]
    assert _titles(soup, ".citerender-consulted") == ["travel-policy.pdf"]
    assert _titles(alone) == ["file-Hb7Qm2R1", "file-Pq3Lw9Z8"]
    assert "CR514" not in _codes(stderr)


def test_a_stream_cut_before_the_message_completed_is_read_from_its_deltas_and_reported() -> None:
    lines = (A / "run-events-cut.jsonl").read_text(encoding="utf-8")
    events = parse_json(lines, "run-events-cut.jsonl")
    assert all(set(e) == {"event", "data"} for e in events)  # the SDKs' events, as saved
    assert detect_provider(events) == "openai-assistants"
    soup, stderr = _render("run-events-cut.jsonl")
    assert _prose(soup) == ANSWER.replace("week,", "week,[1]").replace("approval.", "approval.[2]")
    assert _titles(soup) == ["file-Hb7Qm2R1", "file-Pq3Lw9Z8"]
    assert _codes(stderr) == ["CR514"] and "msg_05" in stderr


def test_a_failed_run_and_an_incomplete_message_are_said() -> None:
    message = json.loads((A / "messages-page.json").read_text(encoding="utf-8"))["data"][0]
    cut = adapt({**message, "status": "incomplete", "incomplete_details": {"reason": "max_tokens"}})
    assert [c for c, _ in cut.notes] == ["CR514"] and "max_tokens" in cut.notes[0][1]
    events = [
        {"id": "run_9", "object": "thread.run", "status": "failed", "last_error": {"code": "server_error",
                                                                                   "message": "Something went wrong"}},
        {"id": "msg_9", "object": "thread.message.delta",
         "delta": {"content": [{"index": 0, "type": "text", "text": {"value": "Partial answer"}}]}},
    ]  # fmt: skip
    failed = adapt(events)
    assert failed.text == "Partial answer"
    assert [c for c, _ in failed.notes] == ["CR514", "CR514"] and "Something went wrong" in failed.notes[0][1]


# --------------------------------------------------------------------------- file names, everywhere


@pytest.mark.parametrize("to", ["markdown", "text", "json", "csl-json", "bibtex", "ris", "annotations", "ai-sdk"])
def test_every_export_names_the_cited_files_never_a_placeholder(to: str) -> None:
    r = run_cli("render", str(A / "messages-page.json"), "--to", to)
    assert r.returncode == 0, r.stderr
    assert "handbook.pdf" in r.stdout and "equipment-policy.pdf" in r.stdout and "file-Pq3Lw9Z8" in r.stdout
    assert not re.search(r"turn\d+file\d+", r.stdout) and "【" not in r.stdout


def test_the_hover_card_names_the_file_and_quotes_the_passage() -> None:
    message = json.loads((A / "messages-page.json").read_text(encoding="utf-8"))["data"][0]
    ann = message["content"][0]["text"]["annotations"][0]
    ann["file_citation"]["quote"] = "Staff may work remotely up to three days a week."  # v1 gave the quote
    a = adapt(message)
    card = BeautifulSoup(render(a.text, a.registry, style="hovercard").html, "html.parser").select_one("#cite-1-card")
    assert card is not None and "handbook.pdf" in card.get_text() and "up to three days a week" in card.get_text()


def test_a_marker_whose_offsets_are_off_is_placed_where_its_words_are() -> None:
    text = "Remote work is limited to three days a week【4:0†handbook.pdf】."
    ann = {"type": "file_citation", "text": "【4:0†handbook.pdf】", "start_index": 3, "end_index": 9,
           "file_citation": {"file_id": "file-Hb7Qm2R1"}}  # fmt: skip
    a = adapt({"object": "thread.message", "role": "assistant", "content": [{"type": "text", "text": {"value": text, "annotations": [ann]}}]})  # fmt: skip
    html = BeautifulSoup(render(a.text, a.registry).html, "html.parser")
    assert _prose(html) == "Remote work is limited to three days a week.[1]"
    assert [c for c, _ in a.notes] == ["CR503"]


def test_a_marker_no_annotation_backs_is_cited_by_its_file_name_or_removed_and_said() -> None:
    text = "Three days a week【4:0†handbook.pdf】, approval needed【4:1†source】. Older form【8†source】."
    r = run_cli("render", "-", "--from", "openai-assistants", stdin=json.dumps(
        {"object": "thread.message", "role": "assistant", "content": [{"type": "text", "text": {"value": text, "annotations": []}}]}
    ))  # fmt: skip
    assert r.returncode == 0, r.stderr
    soup = BeautifulSoup(r.stdout, "html.parser")
    assert _prose(soup) == "Three days a week,[1] approval needed. Older form."
    assert _titles(soup) == ["handbook.pdf"] and "【" not in r.stdout
    assert _codes(r.stderr) == ["CR505"] * 3


def test_azure_url_citations_in_a_message_are_linked() -> None:
    """Azure AI Agents with Bing grounding: the Assistants shape, ``url_citation`` annotations
    over ``【3:0†source】`` markers."""
    text = "Pydantic models validate the config【3:0†source】【3:1†source】."
    anns = [
        {"type": "url_citation", "text": "【3:0†source】", "url_citation": {"url": "https://docs.pydantic.dev/latest/", "title": "Pydantic"}},
        {"type": "url_citation", "text": "【3:1†source】", "url_citation": {"url": "https://ops.readthedocs.io/", "title": "ops"}},
    ]  # fmt: skip
    for a_ in anns:
        a_["start_index"] = text.index(a_["text"])
        a_["end_index"] = a_["start_index"] + len(a_["text"])
    a = adapt({"object": "thread.message", "role": "assistant", "content": [{"type": "text", "text": {"value": text, "annotations": anns}}]})  # fmt: skip
    soup = BeautifulSoup(render(a.text, a.registry).html, "html.parser")
    assert _prose(soup) == "Pydantic models validate the config.[1, 2]"
    assert [x["href"] for x in soup.select(".citerender-references a[href^=http]")] == [
        "https://docs.pydantic.dev/latest/",
        "https://ops.readthedocs.io/",
    ]


# --------------------------------------------------------------------------- a code interpreter's files


def test_sandbox_links_show_their_label_cited_to_the_named_file_and_are_reported() -> None:
    soup, stderr = _render("code-interpreter-message.json")
    text = _prose(soup)
    assert text.split("\n") == [
        "[image][1]",  # the image part: its file, named by its id (the message gives no name)
        "Here is the cleaned table: Download the cleaned data.[2]",
        "Monthly sales[3]",  # ![Monthly sales](sandbox:…): no stray "!"
        "The raw export is here.[4]",  # a link no annotation names
    ]
    assert _titles(soup) == ["file-Img4Sa1", "cleaned.csv", "sales.png", "raw.xlsx"]
    assert "sandbox:" not in str(soup) and not soup.select("a[href*=sandbox]")
    assert _codes(stderr) == ["CR513"] * 4  # each file the page cannot link, once
    assert all(name in stderr for name in ("file-Img4Sa1", "cleaned.csv", "sales.png", "raw.xlsx"))


def test_responses_output_files_are_named_and_never_vanish() -> None:
    data = json.loads((A / "responses-output-files.json").read_text(encoding="utf-8"))
    assert detect_provider(data) == "openai-responses"
    soup, stderr = _render("responses-output-files.json")
    assert _prose(soup).split("\n") == [
        "The histogram is below.",
        "Histogram of the sums[1]",  # container_file_citation over ![…](sandbox:…)
        "The sums are in sums.csv.[2]",  # file_path: a file id and an index, named after its link
    ]
    assert _titles(soup) == ["hist.png", "sums.csv"]
    assert _codes(stderr) == ["CR513", "CR513"]
    meta = load_response(A / "responses-output-files.json").registry["cfile_sums02"].meta
    assert meta["file_id"] == "cfile_sums02"


def test_a_file_path_with_no_link_is_still_cited_by_its_id() -> None:
    resp = {"object": "response", "output": [{"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "The report is ready.", "annotations": [
            {"type": "file_path", "file_id": "cfile_rep01", "index": 20}]}]}]}  # fmt: skip
    a = adapt(resp)
    soup = BeautifulSoup(render(a.text, a.registry).html, "html.parser")
    assert _prose(soup) == "The report is ready.[1]" and _titles(soup) == ["cfile_rep01"]
    assert [c for c, _ in a.notes] == ["CR513"]


# --------------------------------------------------------------------------- nothing breaks on odd shapes


@pytest.mark.parametrize(
    "data",
    [
        {
            "object": "thread.message",
            "content": [{"type": "text", "text": {"value": "Hi【1†x】", "annotations": "no"}}],
        },
        {
            "object": "thread.message",
            "content": [
                {
                    "type": "text",
                    "text": {
                        "value": "Hi",
                        "annotations": [{"type": "file_citation", "text": 7, "start_index": "a", "file_citation": []}],
                    },
                }
            ],
        },
        {
            "object": "thread.message",
            "content": [
                {
                    "type": "text",
                    "text": {
                        "value": "Hi",
                        "annotations": [
                            {"type": "file_citation", "text": "【1†a.pdf】", "start_index": 90, "end_index": 99}
                        ],
                    },
                }
            ],
        },
        {"object": "list", "data": [{"object": "thread.message", "role": "assistant", "content": "text"}]},
        [{"object": "thread.message.delta", "delta": {"content": [{"index": 10**9, "type": "text", "text": {}}]}}],
        [
            {
                "event": "thread.message.delta",
                "data": {"id": "m", "delta": {"content": [{"index": -1, "type": "text", "text": {"value": "x"}}]}},
            }
        ],
        {"object": "thread.message", "content": [{"type": "text", "text": "plain"}]},
    ],
)
def test_odd_shapes_are_read_or_refused_clearly(data: Any) -> None:
    try:
        a = adapt(data)
    except CiterenderError as e:
        assert e.message
        return
    assert_no_marker(render(a.text, a.registry).html)


def test_a_part_of_a_kind_not_read_is_said() -> None:
    a = adapt({"object": "thread.message", "content": [{"type": "audio"}, {"type": "text", "text": {"value": "Hi"}}]})
    assert a.text == "Hi" and [c for c, _ in a.notes] == ["CR507"] and "'audio'" in a.notes[0][1]
