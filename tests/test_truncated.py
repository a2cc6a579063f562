"""Never drop silently (1): an answer its provider did not finish — the token limit, a content
filter, a refusal, an ``incomplete`` status — is shown as far as it came and reported as cut off
(CR514), naming the provider's field and its value, on stderr and in ``--to json``; in one-shot
responses and in saved streams, for every adapter whose format carries such a field. Real
recordings where public ones exist, documented shapes otherwise (tests/fixtures/truncated/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, run_cli

from citerender.providers import adapt

TRUNCATED = FIXTURES / "truncated"
PROVIDERS = FIXTURES / "providers"


def _cut(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CR514 [warning] the answer was cut off: " in line]


#: (fixture, extra arguments, the field and value the note names, words of the answer shown)
CASES: list[tuple[str, tuple[str, ...], str, str]] = [
    ("vercel-ai.deepseek-text.json", (), "choices[0].finish_reason 'length'", "Micro-Gift"),
    ("vercel-ai.deepseek-text.chunks.txt", (), "choices[0].finish_reason 'length'", "silent looking at"),
    ("pydantic-ai.test_max_completion_tokens.0.json", (), "choices[0].finish_reason 'length'", "Acknowledge"),
    ("vercel-ai.cohere-max-tokens.json", (), "finish_reason 'MAX_TOKENS'", "The History of"),
    ("cohere-max-tokens-stream.jsonl", (), "finish_reason 'MAX_TOKENS'", "The History of"),
    (
        "pydantic-ai.test_google_model_max_tokens.0.json",
        (),
        "candidates[0].finishReason 'MAX_TOKENS'",
        "capital of France",
    ),
    ("firebase.streaming-failure-finish-reason-safety.sse", (), "candidates[0].finishReason 'SAFETY'", "redacted"),
    ("pydantic-ai.test_bedrock_model_max_tokens.0.json", (), "stopReason 'max_tokens'", "capital of France"),
    ("bedrock-converse-max-tokens-stream.jsonl", (), "stopReason 'max_tokens'", "France is"),
    ("openai-responses-incomplete.json", (), "incomplete_details.reason 'max_output_tokens'", "two pups born in"),
    ("openai-responses-incomplete.sse", (), "incomplete_details.reason 'max_output_tokens'", "two pups born in"),
    ("anthropic-max-tokens.json", (), "stop_reason 'max_tokens'", "plans to bring"),
    ("anthropic-max-tokens.sse", (), "stop_reason 'max_tokens'", "plans to bring"),
    ("gemini-interactions-incomplete.json", (), "status 'incomplete'", "a second family is"),
    (
        "mistral-length.json",
        ("--sources", str(TRUNCATED / "mistral-length.sources.json")),
        "choices[0].finish_reason 'length'",
        "only while the",
    ),
    ("perplexity-length.json", (), "choices[0].finish_reason 'length'", "and the next"),
    ("langchain-length.json", (), "response_metadata.finish_reason 'length'", "A family of four was"),
    ("ai-sdk-ui-message-stream-length.sse", (), "finishReason 'length'", "A family of four was"),
    ("pydantic-ai-length.json", (), "finish_reason 'length'", "capital of France is"),
]


@pytest.mark.parametrize(("name", "extra", "named", "shown"), CASES, ids=[c[0] for c in CASES])
def test_a_cut_off_answer_is_shown_and_said_to_be_cut_off(
    tmp_path: Path, name: str, extra: tuple[str, ...], named: str, shown: str
) -> None:
    out = tmp_path / "page.html"
    r = run_cli("render", TRUNCATED / name, *extra, "-o", out)
    assert r.returncode == 0, r.stderr
    cut = _cut(r.stderr)
    assert len(cut) == 1 and named in cut[0], r.stderr  # the provider's field and its value, once
    assert "CR5" not in r.stderr.replace("CR514", ""), r.stderr  # nothing else was lost on the way
    page = BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser")
    assert shown in page.get_text(" "), "the answer is shown as far as it came"
    data = json.loads(run_cli("render", TRUNCATED / name, *extra, "--to", "json").stdout)
    found = [d for d in data["diagnostics"] if d["code"] == "CR514"]
    assert [d["severity"] for d in found] == ["warning"] and named in found[0]["message"]
    assert found[0]["message"].startswith("the answer was cut off: ")


def test_a_citation_the_cut_left_open_is_reported_and_the_cut_says_why(tmp_path: Path) -> None:
    """Cut inside a marker: the unterminated marker is still reported (CR107), the cut (CR514)
    says why; the citation's source is linked where the marker opened."""
    out = tmp_path / "page.html"
    r = run_cli("render", TRUNCATED / "openai-chat-cut-in-marker.json", "-o", out)
    assert r.returncode == 0, r.stderr
    codes = [line.split(": ")[1].split()[0] for line in r.stderr.splitlines() if ": CR" in line]
    assert sorted(codes) == ["CR107", "CR514"], r.stderr
    assert "choices[0].finish_reason 'length'" in _cut(r.stderr)[0]
    page = BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser")
    assert "Chrysler Building" in page.get_text(" ")
    assert "\ue200" not in page.get_text() and "\ue202" not in page.get_text()
    links = {a["href"] for a in page.select("a[href^='https://']")}
    assert "https://www.toureiffel.paris/en/the-monument/history" in links


@pytest.mark.parametrize(
    ("name", "named"),
    [
        ("vercel-ai.anthropic-refusal.chunks.txt", "stop_reason 'refusal': 'This request triggered restrictions"),
        ("firebase.unary-failure-with-message-no-content.json", "finishReason 'OTHER': 'Model failed to generate"),
        # a chunk says length, the last one says nothing: the stream's last word is "length"
        ("pydantic-ai.test_openrouter_stream_error.0.sse", "choices[0].finish_reason 'length'"),
    ],
)
def test_an_answer_cut_before_its_first_word_says_why_with_the_error(name: str, named: str) -> None:
    r = run_cli("render", TRUNCATED / name)
    assert r.returncode == 2
    assert "holds no text: the answer was cut off: " in r.stderr and named in r.stderr, r.stderr


@pytest.mark.parametrize(
    "name",
    [
        "openai-chat.json",
        "openai-chat-stream.jsonl",
        "openai-responses.json",
        "openai-responses-stream.jsonl",
        "anthropic.json",
        "anthropic-stream.jsonl",
        "gemini.json",
        "gemini-stream.jsonl",
        "cohere.json",
        "cohere-stream.jsonl",
        "bedrock-converse.json",
        "bedrock-converse-stream.jsonl",
        "perplexity.json",
        "mistral.json",
        "mistral-stream.jsonl",
        "langchain.json",
        "ai-sdk-stream.jsonl",
        "recorded/gemini-interactions-google-search.chunks.txt",
        "recorded/openrouter-web-search.sse",
        "recorded/xai-web-search.chunks.txt",
    ],
)
def test_a_finished_answer_is_not_said_to_be_cut_off(name: str) -> None:
    extra = ("--sources", PROVIDERS / "mistral.sources.json") if name.startswith("mistral") else ()
    r = run_cli("render", PROVIDERS / name, "--to", "json", *extra)
    assert r.returncode == 0, r.stderr
    assert "CR514" not in r.stderr and not [d for d in json.loads(r.stdout)["diagnostics"] if d["code"] == "CR514"]


def _notes(data: Any, provider: str | None = None) -> list[str]:
    return [message for code, message in adapt(data, provider).notes if code == "CR514"]


def _response(**top: Any) -> dict[str, Any]:
    """A Responses object (its fields as the API reference gives them) with one message."""
    part = {"type": "output_text", "text": "Otters are back in Iberá, and", "annotations": []}
    message = {"type": "message", "role": "assistant", "status": "completed", "content": [part]}
    return {
        "object": "response",
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "output": [message],
        **top,
    }


def test_a_responses_answer_that_failed_or_was_saved_early_is_cut_off_with_its_reason() -> None:
    failed = _response(status="failed", error={"code": "server_error", "message": "The model failed mid-answer."})
    assert _notes(failed) == [
        "the answer was cut off: the response failed (status 'failed': 'The model failed mid-answer.'); "
        "shown as far as it came"
    ]
    assert "filter" in _notes(_response(status="incomplete", incomplete_details={"reason": "content_filter"}))[0]
    assert "saved before it finished (status 'in_progress')" in _notes(_response(status="in_progress"))[0]
    assert _notes(_response()) == []
    # a stream that ended with response.failed: the response it carries says how
    events = [
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Otters are back"},
        {"type": "response.failed", "response": failed},
    ]
    assert "status 'failed'" in _notes(events, "openai-responses")[0]


def test_an_agents_sdk_history_keeps_an_incomplete_message_item() -> None:
    """The Agents SDK keeps the Responses items, not the response: an item left ``incomplete``
    (the token limit) is what says the answer was cut."""
    history = [
        {"role": "user", "content": "Are otters back in Iberá?"},
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "incomplete",
            "content": [{"type": "output_text", "text": "Yes: a family of four was", "annotations": []}],
        },
    ]
    assert _notes(history) == [
        "the answer was cut off: the provider marked it incomplete (output[0].status 'incomplete'); "
        "shown as far as it came"
    ]


def test_anthropic_and_gemini_say_which_of_their_stops_cut_the_answer() -> None:
    base = json.loads((TRUNCATED / "anthropic-max-tokens.json").read_text(encoding="utf-8"))
    for reason, why in (
        ("refusal", "the model refused to go on"),
        ("model_context_window_exceeded", "filled the model's context window"),
        ("pause_turn", "the turn was paused"),
    ):
        assert why in _notes({**base, "stop_reason": reason})[0]
    for done in ("end_turn", "stop_sequence", "tool_use", None):
        assert _notes({**base, "stop_reason": done}) == []
    gemini = json.loads((TRUNCATED / "pydantic-ai.test_google_model_max_tokens.0.json").read_text(encoding="utf-8"))
    cand = gemini["candidates"][0]
    assert "recited a source" in _notes({"candidates": [{**cand, "finishReason": "RECITATION"}]})[0]
    assert _notes({"candidates": [{**cand, "finishReason": "STOP"}]}) == []


def _export_answer(path: Path, data: list[dict[str, Any]], title: str) -> tuple[int, list[str]]:
    (path / "conversations.json").write_text(json.dumps(data), encoding="utf-8")
    r = run_cli("render", path / "conversations.json", "--conversation", title, "-o", path / "page.html")
    return r.returncode, _cut(r.stderr)


@pytest.mark.parametrize("kind", ["max_tokens", "interrupted"])
def test_a_chatgpt_export_answer_cut_short_is_reported(tmp_path: Path, kind: str) -> None:
    """A real export's conversation whose last answer the export records as ``max_tokens`` or
    ``interrupted`` (``metadata.finish_details.type``)."""
    data = json.loads((FIXTURES / "chatgpt" / "real" / "best-mice.json").read_text(encoding="utf-8"))
    conv = data[0]
    leaf = conv["mapping"][conv["current_node"]]["message"]
    assert leaf["metadata"]["finish_details"]["type"] == "stop"
    code, cut = _export_answer(tmp_path, data, conv["title"])
    assert code == 0 and cut == []
    leaf["metadata"]["finish_details"] = {"type": kind}
    code, cut = _export_answer(tmp_path, data, conv["title"])
    assert code == 0 and len(cut) == 1 and f"metadata.finish_details.type '{kind}'" in cut[0]


def test_a_claude_export_answer_cut_at_max_tokens_is_reported(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "claude" / "conversations.json").read_text(encoding="utf-8"))
    conv = data[0]
    leaf = next(m for m in conv["chat_messages"] if m["uuid"] == conv["current_leaf_message_uuid"])
    assert leaf["sender"] == "assistant" and leaf["stop_reason"] == "end_turn"
    code, cut = _export_answer(tmp_path, data, conv["name"])
    assert code == 0 and cut == []
    leaf["stop_reason"] = "max_tokens"
    code, cut = _export_answer(tmp_path, data, conv["name"])
    assert code == 0 and len(cut) == 1 and "stop_reason 'max_tokens'" in cut[0]
