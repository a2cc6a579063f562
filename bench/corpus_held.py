"""What a recording holds, counted from its JSON by the providers' documented shapes, never by
citerender's adapters: the answer's own text (markers taken out), its citation places (each
annotation, citation or grounding support that says where it applies), the citations that say
nowhere, the web URLs of the cited sources and the names of the cited files.

:func:`held` picks the shape from the data's own fields; the readers are in
:mod:`bench.held_openai` and :mod:`bench.held_other`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.corpus_load import load

__all__ = ["Held", "held", "held_markdown", "is_web", "shape_of", "without_markers"]


def is_web(url: Any) -> bool:
    return isinstance(url, str) and url.lower().startswith(("http://", "https://"))


@dataclass
class Held:
    shape: str
    text: str | None = ""  # the answer's own words (None: not compared; pieces in any order split by \f)
    places: int = 0  # where citations apply (several sources at one place: one place)
    unplaced: int = 0  # citations that say nowhere (no span, or an empty one at the start)
    urls: set[str] = field(default_factory=set)  # web URLs of cited sources
    files: set[str] = field(default_factory=set)  # names (or ids) of cited files
    seen: set[str] = field(default_factory=set)

    def cite(self, where: Any, what: Any = None, placed: bool = True) -> None:
        """A citation of ``what`` at ``where`` (an offset, or what stands for one): each place
        counted once, however many sources it names and however often a stream repeats it."""
        k = json.dumps(where if placed else ["-", where, what], sort_keys=True, default=str)
        if k in self.seen:
            return
        self.seen.add(k)
        if placed:
            self.places += 1
        else:
            self.unplaced += 1

    def url(self, *urls: Any) -> None:
        self.urls.update(u for u in urls if is_web(u))

    def file(self, name: Any) -> None:
        if isinstance(name, str) and name.strip():
            self.files.add(name.strip())

    def add(self, other: Held) -> None:
        self.text = None if self.text is None or other.text is None else f"{self.text}\f{other.text}"
        self.places += other.places
        self.unplaced += other.unplaced
        self.urls |= other.urls
        self.files |= other.files


def _kinds(data: Any) -> set[Any]:
    """The kinds of a stream's events (``type``, ``event``, ``event_type`` or ``object``)."""
    if not isinstance(data, list):
        return set()
    return {
        e.get("type") or e.get("event") or e.get("event_type") or e.get("object") for e in data if isinstance(e, dict)
    }


def _all_output(data: Any) -> bool:
    return isinstance(data, list) and all(isinstance(e.get("output"), dict) for e in data if isinstance(e, dict))


def _agent_items(data: Any, doc: dict[str, Any]) -> bool:
    if "$schemaVersion" in doc or "generatedItems" in doc:
        return True
    items = data if isinstance(data, list) else []
    return any(isinstance(e, dict) and ("role" in e or e.get("type") in ("message", "web_search_call")) for e in items)


#: (shape, test on the data, its first document and its events' kinds), asked in order
_SHAPES: list[tuple[str, Any]] = [
    ("transcript", lambda d, doc, k: isinstance(d, dict) and "turns" in d),
    ("gemini", lambda d, doc, k: "candidates" in doc),
    ("gemini-interactions", lambda d, doc, k: "steps" in doc or bool(k & {"step.delta", "interaction.created"})),
    (
        "anthropic",
        lambda d, doc, k: (
            bool(k & {"message_start", "content_block_delta"})
            or (d is doc and doc.get("type") == "message" and "content" in doc)
        ),
    ),
    (
        "openai-assistants",
        lambda d, doc, k: (
            any(str(t).startswith("thread.") for t in k) or doc.get("object") in ("thread.message", "list")
        ),
    ),
    ("bedrock-converse", lambda d, doc, k: "messageStart" in doc or "contentBlockDelta" in doc or "stopReason" in doc),
    (
        "bedrock-kb",
        lambda d, doc, k: (
            ("citations" in doc and isinstance(doc.get("output"), dict)) or "citation" in doc or _all_output(d)
        ),
    ),
    (
        "cohere",
        lambda d, doc, k: (
            bool(k & {"message-start", "content-delta", "citation-start"})
            or ("message" in doc and "finish_reason" in doc)
        ),
    ),
    ("vertex-ai-search", lambda d, doc, k: isinstance(doc.get("answer"), dict)),
    ("llamaindex", lambda d, doc, k: "source_nodes" in doc),
    ("ragflow", lambda d, doc, k: isinstance(doc.get("data"), dict) and "answer" in doc["data"]),
    ("mistral", lambda d, doc, k: "outputs" in doc),
    ("langchain", lambda d, doc, k: doc.get("type") in ("ai", "AIMessageChunk") or "content_blocks" in doc),
    (
        "ai-sdk",
        lambda d, doc, k: "parts" in doc or bool(k & {"text-delta", "source-url", "text-start", "source", "tool-call"}),
    ),
    ("openai-chat", lambda d, doc, k: "choices" in doc),
    ("openai-responses", lambda d, doc, k: "output" in doc or any(str(t).startswith("response.") for t in k)),
    ("openai-agents", lambda d, doc, k: _agent_items(d, doc)),
]


def shape_of(data: Any) -> str:
    """The shape the data has, told by its own fields."""
    first = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else {}
    doc = data if isinstance(data, dict) else first
    kinds = _kinds(data)
    return next((name for name, test in _SHAPES if test(data, doc, kinds)), "unknown")


def held(path: Path) -> Held:
    """What the response, stream or transcript at ``path`` holds."""
    from bench import held_openai, held_other

    data = load(path)
    shape = shape_of(data)
    if shape == "transcript":
        out = Held("transcript")
        for turn in data["turns"]:
            if isinstance(turn, dict) and "role" not in turn:  # a response (the user's turns are shown too)
                out.add(held_data(turn, held_openai, held_other))
        return out
    return held_data(data, held_openai, held_other)


def held_data(data: Any, *modules: Any) -> Held:
    shape = shape_of(data)
    for m in modules:
        reader = getattr(m, "READERS", {}).get(shape)
        if reader is not None:
            h: Held = reader(data)
            h.shape = shape
            return h
    return Held(shape, text=None)


# --- Markdown answers: the markers in the text itself ------------------------------------------

_PUA = re.compile("\ue200([a-z_]*)\ue202(.*?)\ue201", re.S)
_OAI = re.compile(r"\[oai_citation[:_]\d+[‡,]([^\]]*)\]\(([^)\s]*)\)")
_CITE_TAG = re.compile(r"<Cite\b[^>]*/>")
_CODE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}\1[ \t]*$|\Z)|`[^`\n]+`", re.S | re.M)
_RESIDUE_OBJECT = re.compile(r'\{"fallbackMarkdown":.*?"showLoginRequiredCard":\s*(?:true|false)\s*\}', re.S)


def held_markdown(path: Path) -> Held:
    """A Markdown answer: each canonical ``\\ue200cite\\ue202…\\ue201`` marker, each copied
    ``[oai_citation:N‡Title](url)``, each ``<Cite …/>`` tag and each copy residue object of a
    ``grouped_webpages`` pill is a place; the URLs are the copied citations', the residue objects'
    and the sidecar sources' of the ids cited. The text compared is the answer's without them."""
    text = _CODE.sub(lambda m: " " * len(m.group(0)), path.read_text(encoding="utf-8"))  # code is code
    h = Held("markdown", text=without_markers(text))
    sources = _sidecar(path)
    place, end = 0, -1
    for m in _PUA.finditer(text):
        if m.group(1) in ("cite", ""):
            ids = [i for i in re.split("\ue202", m.group(2)) if i and not re.fullmatch(r"L\d+(-L\d+)?", i)]
            place = place if m.start() == end else m.start()  # markers side by side: one place
            end = m.end()
            h.cite(place, ids)
            for i in ids:
                h.url(sources.get(i, {}).get("url"))
    for m in _OAI.finditer(text):
        gap = text[end : m.start()] if end >= 0 else "x"
        place = place if not gap.strip() else m.start()  # copied citations in a row: one place
        end = m.end()
        h.cite(place, m.group(2))
        h.url(m.group(2).split("#:~:")[0])
    for m in _CITE_TAG.finditer(text):
        h.cite(m.start(), m.group(0))
    for m in _RESIDUE_OBJECT.finditer(text):  # ChatGPT's copy residue objects
        body = re.sub(r"\\([\[\]_*])", r"\1", m.group(0))  # copies may be Markdown-escaped
        if '"type":"grouped_webpages"' in body:
            h.cite(m.start(), body)
        h.url(*re.findall(r'"url":"(https?://[^"\\]+)"', body))
    return h


_FORMS = [
    _RESIDUE_OBJECT,
    re.compile(r":contentReference\[oaicite:\d+\]\{index=\d+\}"),
    _OAI,
    _CITE_TAG,
    re.compile("\ue200[^\ue201\n]*\ue201|\ue200\\w*(?:\ue202[^\\s\ue200-\ue206]*)*|[\ue200-\ue206]"),
    re.compile(r"[a-z]*(?:cite)?(?:turn\d+[a-z]+\d+(?:L\d+(?:-L\d+)?)?)+|【[^】\n]{0,200}】"),
]
_ESCAPED = re.compile(r"\\{1,2}u[eE]20([0-6])")


def without_markers(text: str) -> str:
    """The answer's own words: every citation form taken out (what the page puts in its place
    is a citation, not the answer's text)."""
    text = _ESCAPED.sub(lambda m: chr(0xE200 + int(m.group(1))), text)  # literal escapes: the characters
    for rx in _FORMS:
        text = rx.sub(" ", text)
    return text


def _sidecar(path: Path) -> dict[str, dict[str, Any]]:
    side = path.with_name(path.stem + ".sources.json")
    if not side.exists():
        return {}
    data = json.loads(side.read_text(encoding="utf-8"))
    items = data.get("sources", data) if isinstance(data, dict) else data
    if isinstance(items, dict):
        return {k: v for k, v in items.items() if isinstance(v, dict)}
    return {str(s.get("id")): s for s in items if isinstance(s, dict)}
