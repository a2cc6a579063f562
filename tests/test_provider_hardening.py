"""Hardening, round four, for the provider side (issue 46): G02 deep nesting, G13 linear span
placement, G16 Bedrock Agents text, G18 one placement rule, G21 live events, F12 ``--repo`` symlinks.

Each finding is tried with the reproducer's input and with variants of our own: the class of
problem, not one input. ``S``, ``D``, ``E`` stand for U+E200, U+E202, U+E201.
"""

from __future__ import annotations

import base64
import contextlib
import gc
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, CliResult, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from citerender import CiterenderError
from citerender.providers import adapt
from citerender.providers.bedrock_agents import answer_text
from citerender.providers.common import insert_edits
from citerender.providers.exports import conversation
from citerender.providers.offsets import LooseText, SpanReader, loose_text
from citerender.providers.threads import BrokenGraph
from citerender.providers.zones import Zones
from citerender.sources.clean import MAX_NESTING, clean_data
from citerender.stream import StreamRenderer
from citerender.stream.events import LIVE_PROVIDERS, LiveAnswer

S, D, E = "\ue200", "\ue202", "\ue201"
P = FIXTURES / "providers"


def cli(*args: object) -> CliResult:
    return run_cli(*args)


def _nested(depth: int, leaf: Any = 1, kind: str = "list") -> Any:
    """``depth`` levels of lists (or objects) around ``leaf``, built without recursion."""
    value = leaf
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


# --------------------------------------------------------------------------- G02 deep nesting

#: the reproducer's shape: ~500 nested arrays somewhere in an input
DEEP = _nested(500)


def _gemini(text: str, extra: Any = None) -> dict[str, Any]:
    resp: dict[str, Any] = {"candidates": [{"content": {"parts": [{"text": text}]}}]}
    if extra is not None:
        resp["candidates"][0]["x"] = extra
    return resp


@pytest.mark.parametrize("kind", ["list", "object"])
@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 500, 5_000, 100_000])
def test_clean_data_refuses_any_depth_with_a_clear_error(kind: str, depth: int) -> None:
    with pytest.raises(CiterenderError, match="nested too deeply"):
        clean_data(_nested(depth, kind=kind), [])


def test_data_as_deep_as_allowed_is_read() -> None:
    value = _nested(MAX_NESTING - 1, "ok\udfff")
    changed: list[str] = []
    assert clean_data(value, changed) == _nested(MAX_NESTING - 1, "ok\ufffd") and changed


@pytest.mark.parametrize("where", ["response", "events", "transcript-user", "transcript-answer"])
def test_a_deep_response_or_transcript_is_exit_2_naming_the_file(tmp_path: Path, where: str) -> None:
    path = tmp_path / "deep.json"
    if where == "response":  # the reproducer's: deep arrays inside a response
        data: Any = _gemini("Hello.", DEEP)
    elif where == "events":  # JSON Lines of events, one of them deep
        path = tmp_path / "deep.jsonl"
        lines = [_gemini("Hello."), _gemini(" More.", _nested(400, kind="object"))]
        path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
        data = None
    elif where == "transcript-user":
        data = [{"role": "user", "content": "q", "meta": DEEP}, {"type": "message", "role": "assistant",
                "content": [{"type": "text", "text": "Hi."}]}]  # fmt: skip
    else:
        data = [{"role": "user", "content": "q"}, _gemini("Hi.", DEEP)]
    if data is not None:
        path.write_text(json.dumps(data), encoding="utf-8")
    r = cli("render", path)
    assert r.returncode == 2 and "nested too deeply" in r.stderr and str(path) in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("fmt", ["json", "yaml", "toml"])
def test_a_deep_sources_file_is_exit_2_naming_it(tmp_path: Path, fmt: str) -> None:
    answer = tmp_path / "a.md"
    answer.write_text(f"Fact.{S}cite{D}s1{E}\n", encoding="utf-8")
    src = tmp_path / f"s.{fmt}"
    if fmt == "json":  # the reproducer's: the nesting inside a source's meta
        src.write_text(json.dumps([{"id": "s1", "title": "t", "meta": {"x": DEEP}}]), encoding="utf-8")
    elif fmt == "yaml":  # flow style: 500 levels in a few bytes
        src.write_text("- id: s1\n  meta: " + "[" * 500 + "]" * 500 + "\n", encoding="utf-8")
    else:
        src.write_text('[[sources]]\nid = "s1"\nmeta = ' + "[" * 500 + "]" * 500 + "\n", encoding="utf-8")
    r = cli("render", answer, "-s", src)
    assert r.returncode == 2 and "nested too deeply" in r.stderr and str(src) in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def _chatgpt(cid: str, meta: Any) -> dict[str, Any]:
    message = {"author": {"role": "assistant"}, "content": {"content_type": "text", "parts": ["Hi there."]},
               "recipient": "all", "metadata": meta}  # fmt: skip
    return {"id": cid, "title": cid, "create_time": 1, "update_time": 1, "current_node": "a",
            "mapping": {"r": {"id": "r", "parent": None, "children": ["a"]},
                        "a": {"id": "a", "parent": "r", "children": [], "message": message}}}  # fmt: skip


def _claude(cid: str, extra: Any) -> dict[str, Any]:
    return {"uuid": cid, "name": cid, "created_at": "2026-01-01T00:00:00Z", "chat_messages": [
        {"uuid": "a1", "sender": "assistant", "parent_message_uuid": "00000000-0000-4000-8000-000000000000",
         "content": [{"type": "text", "text": "Hi there.", "x": extra}]}]}  # fmt: skip


@pytest.mark.parametrize("make", [_chatgpt, _claude], ids=["chatgpt", "claude"])
def test_a_deep_conversation_is_skipped_and_the_others_build(tmp_path: Path, make: Callable[..., Any]) -> None:
    deep = make("deep", {"x": DEEP})
    with pytest.raises(BrokenGraph, match="nested too deeply"):
        conversation(deep)
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([make("good", {}), deep, make("also-good", {})]), encoding="utf-8")
    r = cli("build", export, tmp_path / "site")
    assert "nested too deeply" in r.stderr and "Traceback" not in r.stderr, r.stderr
    pages = [p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html")]
    assert sum("Hi there." in p for p in pages) == 2  # the two good conversations have their pages


def test_deep_front_matter_sources_name_the_answer(tmp_path: Path) -> None:
    answer = tmp_path / "a.md"
    answer.write_text(f"---\nsources:\n  - id: s1\n    meta: {'[' * 300}{']' * 300}\n---\nFact.{S}cite{D}s1{E}\n")
    r = cli("render", answer)
    assert r.returncode == 2 and "nested too deeply" in r.stderr and str(answer) in r.stderr, r.stderr


def test_a_deep_live_event_is_a_clear_error() -> None:
    live = LiveAnswer("gemini")
    with pytest.raises(CiterenderError, match="nested too deeply"):
        live.feed(_gemini("Hello.", _nested(10_000)))


# --------------------------------------------------------------------------- G13 linear span placement


def _growth(small: Callable[[], object], large: Callable[[], object], repeat: int = 3) -> float:
    """How many times more CPU ``large`` (the input ×4) costs than ``small``: the best of
    ``repeat`` runs of each in this process's CPU time, the two interleaved (a machine busier for
    a while slows both alike) and garbage collection paused. A complexity check, not a speed target."""
    best = [float("inf"), float("inf")]
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            for k, work in enumerate((small, large)):
                t = time.process_time()
                work()
                best[k] = min(best[k], time.process_time() - t)
    finally:
        gc.enable()
    return best[1] / max(best[0], 1e-3)


def _words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n)) + "."


def _gemini_spans(n: int, cited: Callable[[int], str]) -> dict[str, Any]:
    """The reproducer's: n words, n/4 supports each spanning the whole answer but citing other text."""
    text = _words(n)
    sups = [{"segment": {"startIndex": 0, "endIndex": len(text.encode()), "text": cited(i)},
             "groundingChunkIndices": [i % 50]} for i in range(n // 4)]  # fmt: skip
    chunks = [{"web": {"uri": f"https://s{i}.example/", "title": f"S{i}"}} for i in range(50)]
    return {"candidates": [{"content": {"parts": [{"text": text}]},
                            "groundingMetadata": {"groundingChunks": chunks, "groundingSupports": sups}}]}  # fmt: skip


def _cohere_spans(n: int, cited: Callable[[int], str]) -> dict[str, Any]:
    text = _words(n)
    cits = [{"start": 0, "end": len(text) - 1 - (i % 7), "text": cited(i), "sources": [
        {"type": "document", "id": f"d{i % 50}", "document": {"title": f"D{i % 50}"}}]} for i in range(n // 4)]  # fmt: skip
    return {"message": {"role": "assistant", "content": [{"type": "text", "text": text}], "citations": cits},
            "finish_reason": "COMPLETE"}  # fmt: skip


def _bedrock_spans(n: int, cited: Callable[[int], str]) -> dict[str, Any]:
    text = _words(n)
    cits = [{"generatedResponsePart": {"textResponsePart": {"text": cited(i), "span": {"start": 3, "end": len(text) - 2}}},
             "retrievedReferences": [{"content": {"text": f"passage {i}"}, "location": {"s3Location": {"uri": f"s3://b/{i % 9}"}}}]}
            for i in range(n // 4)]  # fmt: skip
    return {"output": {"text": text}, "citations": cits}


def _aisdk_spans(n: int, cited: Callable[[int], str]) -> dict[str, Any]:
    text = _words(n)
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    parts += [{"type": "source-document", "sourceId": f"d{i % 50}", "title": f"D{i % 50}", "startIndex": 0,
               "endIndex": len(text), "citedText": cited(i)} for i in range(n // 4)]  # fmt: skip
    return {"role": "assistant", "parts": parts}


#: cited texts that do not match their spans: absent, absent but made of the answer's own
#: characters, and present elsewhere in the answer (each found where it is)
CITED: dict[str, Callable[[int], str]] = {
    "absent": lambda i: f"zz {i}",
    "absent, the answer's letters": lambda i: f"w{i} w{i + 2}",
    "present elsewhere": lambda i: f"w{i} w{i + 1}",
}
MAKERS = {"gemini": _gemini_spans, "cohere": _cohere_spans, "bedrock-kb": _bedrock_spans, "ai-sdk": _aisdk_spans}


@pytest.mark.parametrize("cited", list(CITED), ids=list(CITED))
@pytest.mark.parametrize("provider", list(MAKERS))
def test_placing_spans_that_miss_their_text_is_linear(provider: str, cited: str) -> None:
    make, pick = MAKERS[provider], CITED[cited]
    small, large = make(2_500, pick), make(10_000, pick)
    adapt(small, provider)  # warm up
    ratio = _growth(lambda: adapt(small, provider), lambda: adapt(large, provider), 5)
    assert ratio <= 6, f"{provider}, {cited}: 4x the response cost {ratio:.1f}x"


#: each provider's stream of many small text deltas (folded into one response before adapting)
STREAMS: dict[str, Callable[[int], list[Any]]] = {
    "anthropic": lambda n: [{"type": "message_start", "message": {"role": "assistant", "content": []}},
                            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}]
    + [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "word "}}] * n,
    "gemini": lambda n: [{"candidates": [{"content": {"parts": [{"text": "word "}]}}]}] * n,
    "mistral": lambda n: [{"choices": [{"delta": {"content": "word "}}]}] * n,
    "bedrock-converse": lambda n: [{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "word "}}}] * n,
    "langchain": lambda n: [{"type": "AIMessageChunk", "content": [{"type": "text", "text": "word ", "index": 0}]}] * n,
    "ai-sdk": lambda n: [{"type": "text-start", "id": "t"}] + [{"type": "text-delta", "id": "t", "delta": "word "}] * n,
    "cohere": lambda n: [{"type": "content-delta", "delta": {"message": {"content": {"text": "word "}}}}] * n,
    "openai-responses": lambda n: [{"type": "response.output_text.delta", "delta": "word "}] * n,
}  # fmt: skip


@pytest.mark.parametrize("provider", list(STREAMS))
def test_folding_a_long_stream_is_linear(provider: str) -> None:
    small, large = STREAMS[provider](10_000), STREAMS[provider](40_000)
    assert adapt(small, provider).text.startswith("word word")
    ratio = _growth(lambda: adapt(small, provider), lambda: adapt(large, provider), 5)
    assert ratio <= 6, f"{provider}: 4x the events cost {ratio:.1f}x"


def test_a_live_answer_with_a_citation_after_every_delta_is_linear() -> None:
    """OpenAI's annotation after each word of one long paragraph: each release reads only what is
    not shown yet (the zones restart where everything is closed; only changed sources are synced)."""

    def run(n: int) -> Callable[[], object]:
        events: list[dict[str, Any]] = []
        pos = 0
        for i in range(n):
            word = f"word{i} " if i % 7 else f"`c{i}` "
            events.append({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": word})
            events.append({"type": "response.output_text.annotation.added", "output_index": 0, "content_index": 0,
                           "annotation": {"type": "url_citation", "start_index": pos, "end_index": pos + len(word) - 1,
                                          "url": f"https://s{i}.example/", "title": "t"}})  # fmt: skip
            pos += len(word)
        return lambda: (lambda la: ([la.feed(e) for e in events], la.close()))(LiveAnswer("openai-responses"))

    ratio = _growth(run(750), run(3_000))
    assert ratio <= 6, ratio


def test_a_live_answer_placing_many_spans_is_linear() -> None:
    def run(n: int) -> Callable[[], object]:
        resp = _gemini_spans(n, CITED["absent"])
        return lambda: (lambda la: (la.feed(resp), la.close()))(LiveAnswer("gemini"))

    ratio = _growth(run(1_500), run(6_000))
    assert ratio <= 6, ratio


def test_the_cli_renders_the_reproducers_response_in_linear_time(tmp_path: Path) -> None:
    def run(n: int) -> Callable[[], object]:
        path = tmp_path / f"g{n}.json"
        path.write_text(json.dumps(_gemini_spans(n, CITED["absent"])), encoding="utf-8")
        return lambda: cli("render", path, "--from", "gemini", "-o", tmp_path / "o.html")

    ratio = _growth(run(1_000), run(4_000))
    assert ratio <= 6, ratio


def test_a_span_whose_text_is_elsewhere_is_still_placed_there() -> None:
    text = "Alpha beta gamma. Delta  epsilon\nzeta. Eta theta."
    p = SpanReader(text).place(0, 5, "epsilon zeta")
    assert text[p.start : p.end] == "epsilon\nzeta" and text[: p.at].endswith("zeta.") and p.note is not None
    assert "not in the answer" in str(SpanReader(text).place(0, 5, "iota kappa").note)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab \n\t\u00a0.\u3000c", max_size=40), st.data())
def test_the_collapsed_text_reads_spans_as_the_regex_did(text: str, data: st.DataObject) -> None:
    loose = LooseText(text)
    s = data.draw(st.integers(0, len(text)))
    e = data.draw(st.integers(s, len(text)))
    want = loose_text(data.draw(st.text(alphabet="ab \n.c\u00a0", max_size=12)))
    if want:
        assert loose.covers(s, e, want) == (loose_text(text[s:e]) == want)
        m = re.search(r"\s+".join(re.escape(w) for w in want.split(" ")), text)
        assert loose.find(want) == ((m.start(), m.end()) if m else None)


# --------------------------------------------------------------------------- G16 Bedrock Agents text


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _agent(chunks: list[Any]) -> dict[str, Any]:
    return {"completion": [{"chunk": {"bytes": c}} for c in chunks]}


#: the reproducer's three answers, and more of our own: any characters, any split
TEXTS = [
    "Le café ouvre à 8 h. Ça coûte 5 €.",
    "Le prix\u00a0: 5\u00a0€.",
    "Pair programming 👩\u200d💻 helps.",
    "東京の支店は9時に開きます。 🇫🇷 نعم\u200f.",
    "Tab\tand\u2028line separator, soft\u00adhyphen, zero\u200bwidth.",
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("size", [1, 2, 3, 5, 64])
def test_agent_chunks_are_one_utf8_stream_whatever_the_split(text: str, size: int) -> None:
    raw = text.encode("utf-8")
    pieces = [raw[i : i + size] for i in range(0, len(raw), size)]
    assert answer_text([_b64(p) for p in pieces]) == text  # saved as JSON: base64
    assert answer_text(pieces) == text  # boto3's own: bytes
    assert answer_text([list(p) for p in pieces]) == text  # bytes saved as lists of byte values
    assert adapt(_agent([_b64(p) for p in pieces]), "bedrock-agent").text == text


@pytest.mark.parametrize("text", TEXTS)
def test_agent_chunks_saved_as_text_stay_text(text: str) -> None:
    pieces = [text[:4], text[4:]]
    assert answer_text(pieces) == text
    assert answer_text(["QUJD", "not base64 at all"]) == "QUJDnot base64 at all"  # one chunk that is not: all text
    assert answer_text([b"\xff\xfeok"]) == "\ufffd\ufffdok"  # bytes that are not UTF-8: replaced, never base64


def test_the_reproducers_split_character_renders_as_text(tmp_path: Path) -> None:
    raw = "Le café ouvre à 8 h. Ça coûte 5 €.".encode()
    cut = raw.index("é".encode()) + 1  # inside é
    path = tmp_path / "agent.json"
    path.write_text(json.dumps(_agent([_b64(raw[:cut]), _b64(raw[cut:])])), encoding="utf-8")
    r = cli("render", path, "--from", "bedrock-agent", "--to", "text")
    assert r.returncode == 0 and r.stdout.strip() == "Le café ouvre à 8 h. Ça coûte 5 €.", r.stdout


# --------------------------------------------------------------------------- G18 one placement rule


def _outside_code_and_links(html: str, codes: list[str], links: list[tuple[str, str]]) -> None:
    for code in codes:
        assert f"<code>{code}</code>" in html, (code, html)
    for label, url in links:
        assert f'<a href="{url}">{label}</a>' in html, (url, html)
    assert "cite" not in re.sub(r"<[^>]+>", "", html).replace("citerender", ""), html
    assert "xn--" not in html


def test_the_reproducers_litellm_supported_text(tmp_path: Path) -> None:
    text = "See [the docs](https://x.example/path) and `code here` for the fee of ten dollars."
    cits = [
        [{"type": "char_location", "cited_text": "c", "document_index": 0, "document_title": "Doc",
          "supported_text": "See [the docs](https://x."}],
        [{"type": "char_location", "cited_text": "c", "document_index": 0, "document_title": "Doc",
          "supported_text": "and `code"}],
    ]  # fmt: skip
    resp = {"choices": [{"message": {"role": "assistant", "content": text,
                                     "provider_specific_fields": {"citations": cits}}}]}  # fmt: skip
    path = tmp_path / "r.json"
    path.write_text(json.dumps(resp), encoding="utf-8")
    r = cli("render", path, "--from", "openai-chat")
    _outside_code_and_links(r.stdout, ["code here"], [("the docs", "https://x.example/path")])
    assert r.stdout.count('class="citerender-cite') == 2


def test_the_reproducers_claude_export_offsets(tmp_path: Path) -> None:
    text = "Use `span` and [the docs](https://x.example/path) here."
    conv = _claude("c1", None)
    conv["chat_messages"][0]["content"] = [{"type": "text", "text": text, "citations": [
        {"start_index": 0, "end_index": 6, "details": {"type": "web_search_citation", "url": "https://a.example/"}},
        {"start_index": 0, "end_index": 45, "details": {"type": "web_search_citation", "url": "https://b.example/"}},
    ]}]  # fmt: skip
    turn = conversation(conv).turns[0]
    assert "`span`" in turn.text and "(https://x.example/path)" in turn.text
    assert turn.text.count(S) == 2 and "`span`" + S in turn.text and "/path)" + S in turn.text


#: answers with every kind of zone, and (a word just before) where a span may end inside one
ZONED = [
    ("Run `pip install x` now.", "install"),
    ("Run ``a ` b`` now.", "` b"),
    ("Read [the guide](https://docs.example/a/b) today.", "docs."),
    ("Read [the guide](https://docs.example/a/b) today.", "the gu"),
    ("Read ![a chart](https://img.example/c.png) here.", "img."),
    ("Read <https://auto.example/x> here.", "auto."),
    ("Read https://bare.example/page here.", "bare."),
    ("Visit docs.python.org/3/ today.", "docs."),
    ("Read [the guide][g] today.\n\n[g]: https://ref.example/x", "ref."),
    ("Intro words.\n\n```py\nx = 1\n```\nAfter.", "x = "),
]


@pytest.mark.parametrize("text,inside", ZONED, ids=[t[1] for t in ZONED])
def test_every_adapter_places_outside_code_links_and_urls(text: str, inside: str) -> None:
    end = text.index(inside) + len(inside)
    src = {"type": "document", "id": "d0", "document": {"title": "Doc", "url": "https://cite.example/"}}
    cohere = {"message": {"role": "assistant", "content": [{"type": "text", "text": text}],
                          "citations": [{"start": 0, "end": end, "sources": [src]}]}, "finish_reason": "COMPLETE"}  # fmt: skip
    openai = {"object": "response", "output": [{"type": "message", "content": [{"type": "output_text", "text": text,
              "annotations": [{"type": "url_citation", "start_index": 0, "end_index": end,
                               "url": "https://cite.example/"}]}]}]}  # fmt: skip
    gemini = _gemini(text)
    gemini["candidates"][0]["groundingMetadata"] = {
        "groundingChunks": [{"web": {"uri": "https://cite.example/"}}],
        "groundingSupports": [{"segment": {"endIndex": len(text[:end].encode())}, "groundingChunkIndices": [0]}],
    }
    for provider, resp in (("cohere", cohere), ("openai-responses", openai), ("gemini", gemini)):
        out = adapt(resp, provider).text
        assert out.replace(out[out.index(S) : out.index(E) + 1], "") == text, (provider, out)
        at = out.index(S)
        zones = Zones(text)
        assert zones.zone_at(at) is None, (provider, out)  # not inside code, a link, a URL or a block
        assert (at > 0 and out[at - 1] != "\n") or "```" in text, (provider, out)


@pytest.mark.parametrize("text,inside", ZONED, ids=[t[1] for t in ZONED])
def test_live_answers_follow_the_same_rule(text: str, inside: str) -> None:
    end = text.index(inside) + len(inside)
    src = {"type": "document", "id": "d0", "document": {"title": "Doc", "url": "https://cite.example/"}}
    events: list[dict[str, Any]] = [
        {"type": "content-delta", "delta": {"message": {"content": {"text": text[:end]}}}},  # a zone may be open
        {"type": "citation-start", "delta": {"message": {"citations": {"start": 0, "end": end, "sources": [src]}}}},
        {"type": "content-delta", "delta": {"message": {"content": {"text": text[end:]}}}},
        {"type": "message-end"},
    ]
    live = LiveAnswer("cohere")
    streamed = "".join(live.feed(e) for e in events) + live.close()
    one = adapt(events, "cohere")
    sr = StreamRenderer(one.registry)
    assert streamed == sr.feed(one.text) + sr.close()


def test_citations_at_the_end_of_a_chunk_or_block_that_opens_code_go_after_it() -> None:
    """Mistral's reference chunks, Bedrock's and Anthropic's cited blocks: their place is the end
    of the text so far, which may be inside a code span or a link the next text closes."""
    mistral = {"choices": [{"message": {"role": "assistant", "content": [
        {"type": "text", "text": "Use `pip"}, {"type": "reference", "reference_ids": [0]},
        {"type": "text", "text": " install` or [the docs](https://x."}, {"type": "reference", "reference_ids": [1]},
        {"type": "text", "text": "example/p) now."}]}}]}  # fmt: skip
    bedrock = {"output": {"message": {"role": "assistant", "content": [
        {"citationsContent": {"content": [{"text": "Use `pip"}], "citations": [
            {"title": "A", "sourceContent": [{"text": "q"}], "location": {"web": {"url": "https://a.example/"}}}]}},
        {"text": " install` now."}]}}}  # fmt: skip
    anthropic = {"type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "Use `pip", "citations": [{"type": "char_location", "cited_text": "q",
                                                            "document_index": 0, "document_title": "A"}]},
        {"type": "text", "text": " install` now."}]}  # fmt: skip
    for provider, resp in (("mistral", mistral), ("bedrock-converse", bedrock), ("anthropic", anthropic)):
        out = adapt(resp, provider, sources=None).text
        assert "`pip install`" + S in out, (provider, out)
        if provider == "mistral":
            assert "(https://x.example/p)" + S in out, out


@pytest.mark.parametrize(
    "text,at,where",
    [
        ("A price rose sharply today.", 9, "A price rose"),  # mid-word: after the word
        ("A well-known fact.", 4, "A well-known"),
        ("It grew 3.5 times, to 3,000.", 10, "It grew 3.5"),  # after a number's point: after the number
        ("It grew 3.5 times, to 3,000.", 24, "It grew 3.5 times, to 3,000."),
        ("The café's hours.", 6, "The café's"),
        ("東京の支店は9時に開きます。", 3, "東京の"),  # CJK does not space words: in place
        ("สวัสดีครับ วันนี้", 3, "สวั"),  # nor Thai
    ],
)
def test_a_citation_never_splits_a_spaced_word(text: str, at: int, where: str) -> None:
    out = insert_edits(text, [(at, at, f"{S}cite{D}s{E}")])
    assert out.startswith(where + S), out


@pytest.mark.parametrize("output", ["markdown", "html"])
def test_a_late_citation_never_lands_inside_the_link_shown_before_it(output: str) -> None:
    """OpenAI's annotations after all the text: the text (links included) is shown already, so
    each citation goes where the text has got to, past the link it would have replaced."""
    text = "Otters are back. ([a.example](https://a.example/x?utm_source=openai)) Pups too. ([b.example](https://b.example/y))"
    events: list[dict[str, Any]] = [
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": text[i : i + 7]}
        for i in range(0, len(text), 7)
    ]
    spans = {"a": (text.index(" ([a."), text.index("openai))") + 8), "b": (text.index(" ([b."), len(text))}
    for name, (start, end) in spans.items():
        events.append({"type": "response.output_text.annotation.added", "output_index": 0, "content_index": 0,
                       "annotation": {"type": "url_citation", "start_index": start, "end_index": end,
                                      "url": f"https://{name}.example/", "title": name}})  # fmt: skip
    live = LiveAnswer("openai-responses", output=output)
    out = "".join(live.feed(e) for e in events) + live.close()
    assert not any(d.code == "CR311" for d in live.diagnostics), [d.message for d in live.diagnostics]
    if output == "html":
        assert out.count('class="citerender-cite') == 1 and 'href="#ref-2"' in out, out  # one group, both sources
    else:
        assert "[^1]" in out and "[^2]" in out and "(https://b.example/y)" in out, out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["word", " ", "`code x`", "[link](https://l.example/p)", "https://u.example/q", ".", "\n"]),
        max_size=14,
    ),
    st.lists(st.integers(0, 200), max_size=5),
)
def test_any_offsets_leave_code_spans_and_links_intact(pieces: list[str], ends: list[int]) -> None:
    text = " ".join(pieces) + " end."
    out = insert_edits(text, [(min(e, len(text)), min(e, len(text)), f"{S}cite{D}s{k}{E}") for k, e in enumerate(ends)])
    assert re.sub(f"{S}[^{E}]*{E}", "", out).replace("\n\n", "\n") in (text, text.replace("\n\n", "\n"))
    for zone in ("`code x`", "[link](https://l.example/p)", "https://u.example/q"):
        assert out.count(zone) == text.count(zone)


#: texts built to make a Markdown scan slow: every scan of the placement rule stays linear
HOSTILE_MARKDOWN: dict[str, Callable[[int], str]] = {
    "link openers": lambda n: "[](" * n,
    "unclosed brackets": lambda n: "[" * n + "]" * n,
    "backtick runs of many lengths": lambda n: "".join("`" * (i % 50 + 1) + " x " for i in range(n // 25)),
    "dotted words": lambda n: "a." * n,
    "links": lambda n: "[a](https://x.example/p) " * (n // 5),
    "autolink openers": lambda n: "<http:" * n,
    "fences": lambda n: "```\nx\n" * (n // 3),
    "code spans": lambda n: "`c` " * n,
    "definitions between fences": lambda n: "[a]: https://x.example/\n```\nx\n```\n" * (n // 10),
}


@pytest.mark.parametrize("name", list(HOSTILE_MARKDOWN))
def test_the_placement_rule_is_linear_on_hostile_markdown(name: str) -> None:
    def run(n: int) -> Callable[[], object]:
        text = HOSTILE_MARKDOWN[name](n)
        edits = [(k, k, f"{S}cite{D}s{E}") for k in range(0, len(text), max(1, len(text) // 50))]
        return lambda: (insert_edits(text, edits), Zones(text, complete=False))

    ratio = _growth(run(30_000), run(120_000), 5)
    assert ratio <= 6, f"{name}: {ratio:.1f}x"


# --------------------------------------------------------------------------- G21 live events never raise raw


def test_the_reproducers_malformed_events_are_clear_errors() -> None:
    events: list[dict[str, Any]] = [
        {"type": "response.output_text.delta", "item_id": "m", "output_index": 0, "content_index": 0,
         "delta": "Hello world."},
        {"type": "response.output_text.annotation.added", "item_id": "m", "output_index": 0, "content_index": 0,
         "annotation_index": 0, "annotation": 1.5},
    ]  # fmt: skip
    live = LiveAnswer("openai-responses", output="html")
    with pytest.raises(CiterenderError, match="openai-responses event has an unexpected shape"):
        for e in events:
            live.feed(e)
    gemini = [{"candidates": [{"content": {"parts": [{"text": "Hello world."}]}, "groundingMetadata": {
        "groundingChunks": [{"web": {"uri": "https://a.example/"}}], "groundingSupports": ["x"]}}]}]  # fmt: skip
    with pytest.raises(CiterenderError):
        LiveAnswer("gemini").feed(gemini)
    with pytest.raises(CiterenderError, match="must be an object"):
        LiveAnswer("cohere").feed([["not", "an", "event"]])  # type: ignore[list-item]
    with pytest.raises(CiterenderError):
        LiveAnswer("anthropic").feed(7)  # type: ignore[arg-type]


LIVE_FILES = {
    "openai-responses": "openai-responses-live.jsonl",
    "anthropic": "anthropic-stream.jsonl",
    "gemini": "gemini-stream.jsonl",
    "cohere": "cohere-live.jsonl",
}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*path, i))
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replace(value[path[0]], path[1:], new)
    return copy


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(LIVE_PROVIDERS)), st.data())
def test_any_malformed_event_of_any_provider_is_a_clear_error_or_read(provider: str, data: st.DataObject) -> None:
    assert set(LIVE_FILES) == set(LIVE_PROVIDERS)
    events = [json.loads(line) for line in (P / LIVE_FILES[provider]).read_text(encoding="utf-8").splitlines() if line]
    for _ in range(data.draw(st.integers(1, 3))):
        k = data.draw(st.integers(0, len(events) - 1))
        path = data.draw(st.sampled_from(_paths(events[k])))
        events[k] = _replace(events[k], path, data.draw(JSON))
    live = LiveAnswer(provider, output=data.draw(st.sampled_from(["markdown", "html"])))
    try:
        for e in events:
            live.feed(e)
        live.close()
    except CiterenderError:
        pass
    with contextlib.suppress(CiterenderError):  # the one-shot adapter on the same events: the same promise
        adapt(events, provider)


# --------------------------------------------------------------------------- F12 --repo symlinks


def _checkout(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text("[remote]\n\turl = https://u:TOKEN123@git.example/r\n", encoding="utf-8")
    (repo / ".env").write_text("SECRET=hunter2\nOTHER=1\n", encoding="utf-8")
    (repo / ".private").mkdir()
    (repo / ".private" / "keys.txt").write_text("KEY=swordfish\nOTHER=1\n", encoding="utf-8")
    (tmp_path / "outside.txt").write_text("OUTSIDE=opensesame\nOTHER=1\n", encoding="utf-8")
    (repo / "app.py").write_text("print('hi')\nprint('bye')\n", encoding="utf-8")
    (repo / "docs").mkdir()
    (repo / "config.txt").symlink_to(repo / ".git" / "config")  # the review's: a plain name into .git
    (repo / "docs" / "env.md").symlink_to("../.env")  # relative, from a folder
    (repo / "keys").symlink_to(".private")  # a folder link into a hidden folder
    (repo / "out.txt").symlink_to(tmp_path / "outside.txt")  # out of the checkout
    (repo / "app-link.py").symlink_to("app.py")  # an ordinary link: read
    answer = tmp_path / "a.md"
    cites = ["config.txt", "docs/env.md", "keys/keys.txt", "out.txt", "app-link.py"]
    answer.write_text(" ".join(f"Fact {i}.【F:{c}†L1-L2】" for i, c in enumerate(cites)) + "\n", encoding="utf-8")
    return repo, answer


SECRETS = ("TOKEN123", "hunter2", "swordfish", "opensesame")


@pytest.mark.parametrize("style", ["hovercard", "pills", "footnotes"])
def test_a_symlink_into_a_hidden_path_or_out_of_the_checkout_is_refused(tmp_path: Path, style: str) -> None:
    repo, answer = _checkout(tmp_path)
    r = cli("render", answer, "--repo", repo, "--style", style, "--standalone")
    assert not any(s in r.stdout for s in SECRETS), r.stdout
    assert "print(" in r.stdout or style == "footnotes"  # an ordinary link is read
    assert "'config.txt' is a symbolic link to '.git/config', which is hidden" in r.stderr, r.stderr
    assert "'docs/env.md' is a symbolic link to '.env'" in r.stderr and "keys/keys.txt" in r.stderr
    assert "'out.txt' leads outside the repository checkout" in r.stderr
    for fmt in ("json", "markdown"):
        out = cli("render", answer, "--repo", repo, "--to", fmt, "--quotes").stdout
        assert not any(s in out for s in SECRETS), (fmt, out)


def test_hidden_paths_asked_for_are_read_but_never_outside(tmp_path: Path) -> None:
    repo, answer = _checkout(tmp_path)
    r = cli("render", answer, "--repo", repo, "--repo-include-hidden", "--style", "hovercard")
    assert "TOKEN123" in r.stdout and "hunter2" in r.stdout and "swordfish" in r.stdout
    assert "opensesame" not in r.stdout and "leads outside" in r.stderr


def test_build_with_repo_publishes_no_secret_through_a_link(tmp_path: Path) -> None:
    repo, answer = _checkout(tmp_path)
    site_in = tmp_path / "answers"
    site_in.mkdir()
    answer.rename(site_in / "a.md")
    cli("build", site_in, tmp_path / "site", "--repo", repo)
    for f in (tmp_path / "site").rglob("*"):
        if f.is_file():
            body = f.read_bytes()
            assert not any(s.encode() in body for s in SECRETS), f
