"""A streamed response saved as it came over the wire (server-sent events): read as its events,
whatever the file is called, with bad lines named; an answer that merely opens with ``data:``
stays an answer. The recorded streams in ``fixtures/providers/recorded`` (Gemini's CRLF events,
OpenRouter's comments and ``[DONE]``) are rendered in ``test_provider_recordings.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, run_cli

from citerender.errors import CiterenderError
from citerender.providers.inputs import read_input
from citerender.providers.sse import parse_sse

CHUNK = {
    "choices": [
        {
            "delta": {
                "content": "Paris is the capital.",
                "annotations": [
                    {
                        "type": "url_citation",
                        "url_citation": {"url": "https://example.org/paris", "title": "Paris", "start_index": 0, "end_index": 21},
                    }
                ],
            }
        }
    ],
    "object": "chat.completion.chunk",
}  # fmt: skip


def test_fields_comments_multiline_data_and_the_done_mark() -> None:
    text = (
        '\ufeff: keep-alive\r\n\r\nevent: message\r\nid: 7\r\nretry: 100\r\ndata: {"a":\r\ndata:  1}\r\n\r\n'
        'data:{"b": 2}\n\ndata: [DONE]\n\n'
    )
    assert parse_sse(text, "s") == [{"a": 1}, {"b": 2}]  # one space after the colon is the separator, no more
    raw = 'data: {"text": "one\u2028two\x85three"}\n\n'  # JSON may hold these raw: no line ends here
    assert parse_sse(raw, "s") == [{"text": "one\u2028two\x85three"}]


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ('data: {"a": 1}\n\ndata: {"b": \n\n', 3, "event data is not JSON"),
        ('data: {"a": 1}\nThe answer is 42.\n', 2, "not a server-sent event line"),
    ],
)
def test_a_bad_line_is_named(text: str, line: int, what: str) -> None:
    with pytest.raises(CiterenderError) as err:
        parse_sse(text, "stream.sse")
    assert err.value.line == line and what in err.value.message and err.value.path == "stream.sse"


def test_a_stream_is_read_as_a_response_whatever_the_file_is_called(tmp_path: Path) -> None:
    body = f"data: {json.dumps(CHUNK)}\n\ndata: [DONE]\n\n"
    for name in ("stream.sse", "stream.txt", "saved"):
        (tmp_path / name).write_text(body, encoding="utf-8")
        got = read_input(str(tmp_path / name))
        assert got.kind == "response" and got.data == [CHUNK], name
    prose = tmp_path / "answer.md"
    prose.write_text("data: the figures below are from 2024.\n\nSee the table.\n", encoding="utf-8")
    assert read_input(str(prose)).kind == "answer"  # opens like a field, is prose: stays an answer


def test_the_command_line_renders_a_saved_stream(tmp_path: Path) -> None:
    stream = tmp_path / "answer.sse"
    stream.write_text(f": OPENROUTER PROCESSING\n\ndata: {json.dumps(CHUNK)}\n\ndata: [DONE]\n\n", encoding="utf-8")
    out = tmp_path / "answer.html"
    done = run_cli("render", stream, "-o", out)
    assert done.returncode == 0, done.stderr
    page = BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser")
    assert "https://example.org/paris" in {a["href"] for a in page.find_all("a", href=True)}
    assert page.get_text().startswith("Paris is the capital.")
    broken = tmp_path / "broken.sse"
    broken.write_text('data: {"choices": [\n\n', encoding="utf-8")
    failed = run_cli("render", broken, "-o", tmp_path / "broken.html")
    assert failed.returncode != 0 and f"{broken}:1: event data is not JSON" in failed.stderr
    assert not (tmp_path / "broken.html").exists()  # nothing half-written


def test_a_recorded_stream_with_crlf_line_ends_reads_every_event() -> None:
    raw = (FIXTURES / "providers" / "recorded" / "gemini-google-search.sse").read_bytes()
    assert b"\r\n" in raw  # as Google sent it
    events = parse_sse(raw.decode("utf-8"), "gemini-google-search.sse")
    assert len(events) == raw.count(b"data: ") == 10


@pytest.mark.parametrize(
    ("name", "wrong", "looks"),
    [("gemini-google-search.sse", "anthropic", "gemini"), ("openrouter-web-search.sse", "gemini", "openai-chat")],
)
def test_a_wrong_from_on_a_stream_names_what_its_events_look_like(name: str, wrong: str, looks: str) -> None:
    # the hint was read from the events folded the wrong way, which look like nothing
    done = run_cli("render", FIXTURES / "providers" / "recorded" / name, "--from", wrong, "-o", "-")
    assert done.returncode != 0
    assert f"the {wrong} response holds no text (it looks like {looks}: pass --from {looks})" in done.stderr


def _frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One AWS event-stream message (string headers), built as the format defines it."""
    import struct
    import zlib

    head = b"".join(
        bytes([len(k)]) + k.encode() + b"\x07" + struct.pack(">H", len(v.encode())) + v.encode()
        for k, v in headers.items()
    )
    total = 16 + len(head) + len(payload)
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack(">I", zlib.crc32(body))


def test_a_bedrock_binary_stream_renders_whatever_the_file_is_called(tmp_path: Path) -> None:
    recorded = (FIXTURES / "providers" / "recorded" / "bedrock-converse-document-char.eventstream").read_bytes()
    saved = tmp_path / "body.bin"
    saved.write_bytes(recorded)
    done = run_cli("render", saved, "--style", "hovercard", "-o", tmp_path / "page.html")
    assert done.returncode == 0, done.stderr
    page = BeautifulSoup((tmp_path / "page.html").read_text(encoding="utf-8"), "html.parser")
    assert "Consult with your manager for details." in page.get_text()  # the document's words in a card
    assert page.select(".citerender-cite")


def test_an_aws_exception_in_the_stream_is_the_error() -> None:
    from citerender.providers.eventstream import parse_eventstream

    ok = _frame({":message-type": "event", ":event-type": "messageStart"}, b'{"role": "assistant"}')
    err = _frame(
        {":message-type": "exception", ":exception-type": "throttlingException"}, b'{"message": "Too many requests"}'
    )
    assert parse_eventstream(ok, "s") == [{"messageStart": {"role": "assistant"}}]
    with pytest.raises(CiterenderError, match=r"throttlingException.*Too many requests"):
        parse_eventstream(ok + err, "s")
