"""The real corpus read as data, without citerender: which files make it up, and each one's JSON
value (a response, its stream's events, an export), decoded here with the standard library alone
so that what the data holds is counted apart from the adapters that render it.

Formats: JSON; JSON Lines; server-sent events (``data:`` lines, ``[DONE]`` and comments skipped);
AWS's binary event stream (each message ``{event type: payload}``, as boto3 yields it); Markdown
answers (with their ``NAME.sources.json`` sidecar, if any)."""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
#: where the corpus lives: each file under these is rendered as a user would
CORPUS_DIRS = (
    FIXTURES / "real_corpus",
    FIXTURES / "providers",
    FIXTURES / "chatgpt" / "real",
    FIXTURES / "chatgpt" / "copied",
    ROOT / "examples",
)
_SUFFIXES = (".json", ".jsonl", ".sse", ".txt", ".eventstream", ".md")
#: files under those folders that are no answer a user renders, and why
EXCLUDED = {
    "documented/azure-on-your-data-minimum.json": "Azure's REST example file (request, parameters, responses), not a response",
    "documented/azure-on-your-data-advanced.json": "Azure's REST example file (request, parameters, responses), not a response",
    "examples/dataset/answers.jsonl": "a check-dataset input, not one answer",
    "examples/worked/context.txt": "the prompt's context, not an answer",
    "examples/worked/prompt.txt": "the prompt, not an answer",
    "examples/worked/docs/expenses.txt": "a source document, not an answer",
    "examples/worked/docs/handbook.md": "a source document, not an answer",
}


@dataclass
class CorpusFile:
    path: Path
    kind: str  # "data" (a response, a stream, an export) or "markdown"

    @property
    def name(self) -> str:
        for base in (FIXTURES, ROOT):
            if self.path.is_relative_to(base):
                return str(self.path.relative_to(base))
        return str(self.path)


def corpus_files(dirs: tuple[Path, ...] = CORPUS_DIRS) -> list[CorpusFile]:
    """Every answer, response, stream and export of the corpus, sorted, the excluded left out."""
    out = []
    for d in dirs:
        for p in sorted(d.rglob("*")):
            if not p.is_file() or not p.name.endswith(_SUFFIXES) or p.name.endswith(".sources.json"):
                continue
            if p.name == "README.md" or _excluded(p):
                continue
            out.append(CorpusFile(p, "markdown" if p.suffix == ".md" else "data"))
    return out


def _excluded(p: Path) -> bool:
    rel = str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)
    return any(rel.endswith(k) for k in EXCLUDED)


def load(path: Path) -> Any:
    """The file's JSON value: a document, or a list of events (JSON Lines, server-sent events,
    AWS's event stream)."""
    raw = path.read_bytes()
    if raw[:1] in (b"\0", b"\1") and len(raw) > 16:
        return eventstream(raw)
    text = raw.decode("utf-8-sig")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if any(ln.startswith(("data:", "event:", ":")) for ln in lines[:5]):
        return sse(text)
    return [json.loads(ln) for ln in lines]


def sse(text: str) -> list[Any]:
    """The JSON payload of each server-sent event."""
    events, data = [], []
    for line in [*text.splitlines(), ""]:
        if not line.strip():
            payload = "\n".join(data).strip()
            data.clear()
            if payload and payload != "[DONE]":
                events.append(json.loads(payload))
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    return events


def eventstream(raw: bytes) -> list[Any]:
    """AWS's binary event stream: prelude (total, headers length, CRC), headers, payload, CRC."""
    events, at = [], 0
    while at + 16 <= len(raw):
        total, head, _ = struct.unpack_from(">III", raw, at)
        headers = _headers(raw[at + 12 : at + 12 + head])
        payload = raw[at + 12 + head : at + total - 4]
        if headers.get(":message-type", "event") == "event" and payload:
            events.append({headers.get(":event-type", "event"): json.loads(payload)})
        at += total
    return events


def _headers(raw: bytes) -> dict[str, str]:
    out, i = {}, 0
    while i < len(raw):
        size = raw[i]
        key = raw[i + 1 : i + 1 + size].decode()
        i += 1 + size
        kind = raw[i]
        i += 1
        if kind in (6, 7):
            (length,) = struct.unpack_from(">H", raw, i)
            if kind == 7:
                out[key] = raw[i + 2 : i + 2 + length].decode("utf-8", "replace")
            i += 2 + length
        else:
            i += {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}[kind]
    return out


def conversations(data: Any) -> list[tuple[str, Any]] | None:
    """A chat export's conversations as (id, conversation), or None when the data is no export
    (a ChatGPT export's ``mapping``, a Claude export's ``chat_messages``)."""
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        return None
    if not any(k in data[0] for k in ("mapping", "chat_messages")):
        return None
    return [(str(c.get("conversation_id") or c.get("id") or c.get("uuid")), c) for c in data if isinstance(c, dict)]
