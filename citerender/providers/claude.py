"""A Claude data export (``conversations.json``, or its ``.zip``) as conversations, as a ChatGPT
export's are. ``chat_messages`` form a tree by ``parent_message_uuid``; an answer is its ``text``
blocks joined (a tool call between them starts a paragraph), each ``citations`` entry a marker after
the words it ends on; the pages a web search returned title the sources and are consulted. An
unknown block is reported (CR501), attachments are named, an unfinished ``stop_reason`` is CR514."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..sources.model import registry_from_data
from ..syntax.format import DEFAULT_FORMAT
from .common import as_map, insert_edits
from .content_refs import md_text
from .stops import stopped
from .threads import BrokenGraph, Conversation, Turn, assembled, entered, shown_title, timestamp

__all__ = ["ROOT_PARENT", "conversation"]

#: the parent Claude gives a conversation's first message: no message at all
ROOT_PARENT = "00000000-0000-4000-8000-000000000000"
#: blocks the chat does not show (thinking, tools and their results, bookkeeping)
_NOT_SHOWN = frozenset({"thinking", "redacted_thinking", "tool_use", "tool_result", "token_budget", "flag"})
_BREAKS = frozenset({"tool_use", "tool_result"})  # text on either side of them: separate paragraphs
_CLOSING = frozenset(".,;:!?)]\u201d\u2019\"'")  # a citation ending just before these goes after them
#: the markers a block's text ends with
_START, _STOP = re.escape(DEFAULT_FORMAT.start), re.escape(DEFAULT_FORMAT.stop)
_TRAILING_MARKERS = re.compile(f"(?:{_START}[^{_STOP}]*{_STOP})+\\Z")


def conversation(data: Mapping[str, Any], k: int = 0) -> Conversation:
    """One conversation of a Claude export; a :class:`BrokenGraph` if its messages cannot be walked."""
    data, digest, notes = entered(data)
    cid = str(data.get("uuid") or data.get("id") or f"conversation-{k + 1}")
    title = shown_title(data.get("name"))
    model = data.get("model") if isinstance(data.get("model"), str) and data.get("model") else None
    created, updated = timestamp(data.get("created_at")), timestamp(data.get("updated_at"))
    head = Conversation(cid, title, created, updated, model, [], digest, notes, [], "Claude")
    return assembled(head, lambda: _tree(data), _turn, "chat_messages must be a list of message objects")


def _tree(data: Mapping[str, Any]) -> dict[str, Any]:
    """The messages as nodes for :func:`~.threads.walk`, each under its parent (or the one before it)."""
    messages = data.get("chat_messages")
    if not isinstance(messages, list):
        raise BrokenGraph(f"chat_messages is a {type(messages).__name__}, not a list")
    with_parents = any(isinstance(m, Mapping) and "parent_message_uuid" in m for m in messages)
    mapping: dict[str, Any] = {}
    previous: str | None = None
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise BrokenGraph(f"message {i + 1} is a {type(message).__name__}, not an object")
        uuid = message.get("uuid")
        mid: str = uuid if isinstance(uuid, str) and uuid else f"#{i + 1}"
        if mid in mapping:
            mid = f"{mid}#{i + 1}"  # one uuid twice: both kept
        parent = message.get("parent_message_uuid") if with_parents else previous
        if parent is not None and not isinstance(parent, str):
            raise BrokenGraph(f"the parent of message {mid[:60]!r} is a {type(parent).__name__}, not a message id")
        mapping[mid] = {"parent": None if parent == ROOT_PARENT else parent, "children": [], "message": message}
        previous = mid
    leaf = data.get("current_leaf_message_uuid")
    return {"mapping": mapping, "current_node": leaf if isinstance(leaf, str) and leaf in mapping else None}


def _turn(message: Mapping[str, Any]) -> Turn | None:
    sender = message.get("sender")
    created = timestamp(message.get("created_at"))
    if sender == "human":
        text = _human_text(message)
        return Turn("user", text, created) if text.strip() else None
    if sender != "assistant":
        return None
    answer = _Answer()
    content = message.get("content")
    if isinstance(content, list) and content:
        for block in content:
            if isinstance(block, Mapping):
                answer.block(block)
    elif isinstance(message.get("text"), str):
        answer.pieces.append(message["text"])
    text = "".join(answer.pieces).strip()
    if not text:
        return None
    registry = registry_from_data(answer.sources())
    cut = stopped("stop_reason", message.get("stop_reason"), {"max_tokens", "refusal", "model_context_window_exceeded"})
    return Turn("assistant", text, created, registry, answer.notes + ([cut] if cut else []))


def _human_text(message: Mapping[str, Any]) -> str:
    """The user's words (text blocks, else ``text``), then what they attached, by name."""
    content = message.get("content")
    texts = [b["text"] for b in content if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str)] if isinstance(content, list) else []  # fmt: skip
    if not texts and isinstance(message.get("text"), str):
        texts = [message["text"]]
    out = ["".join(texts)]
    for key, what in (("attachments", "attachment"), ("files", "file"), ("files_v2", "file")):
        for item in message.get(key) or []:
            name = item.get("file_name") if isinstance(item, Mapping) else None
            label = f"&#91;{what}: {md_text(name)}&#93;" if isinstance(name, str) and name.strip() else ""
            if label and label not in out:
                out.append(label)
    return "\n\n".join(p for p in out if p.strip())


class _Answer:
    """An assistant message's blocks, read in order into its text, sources and notes."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.notes: list[tuple[str, str]] = []
        self.cited: dict[str, dict[str, Any]] = {}  # url → source, in the order first cited
        self.seen: dict[str, dict[str, Any]] = {}  # url → what a search returned for it
        self.placed: set[str] = set()  # ids some citation put in the text
        self.gap = False

    def block(self, block: Mapping[str, Any]) -> None:
        typ = str(block.get("type") or "")
        if typ == "text":
            text = self._cited(block)
            if self.gap and self.pieces and text.strip():
                self.pieces.append("\n\n")
            elif self.pieces:
                text = self._past_punctuation(text)
            self.pieces.append(text)
            self.gap = False
        elif typ == "tool_result":
            self._results(block.get("content"))
            self.gap = True
        elif typ in _BREAKS:
            self.gap = True
        elif typ not in _NOT_SHOWN:
            self.notes.append(("CR501", f"content block of unknown type {typ[:40]!r} not shown"))

    def _past_punctuation(self, text: str) -> str:
        """``text`` without the punctuation it opens with when the block before it ends in a
        citation: that punctuation goes before the citation (``…meeting,[2] as…``)."""
        lead = len(text) - len(text.lstrip("".join(_CLOSING)))
        found = _TRAILING_MARKERS.search(self.pieces[-1]) if lead else None
        if found is None:
            return text
        prev = self.pieces[-1]
        self.pieces[-1] = prev[: found.start()] + text[:lead] + prev[found.start() :]
        return text[lead:]

    def _results(self, content: Any) -> None:
        for item in content if isinstance(content, list) else []:
            if isinstance(item, Mapping) and isinstance(item.get("url"), str) and item["url"]:
                found = self.seen.setdefault(item["url"], {})
                for key in ("title", "text"):
                    if isinstance(item.get(key), str) and item[key].strip() and key not in found:
                        found[key] = " ".join(item[key].split()) if key == "text" else item[key]

    def _cited(self, block: Mapping[str, Any]) -> str:
        """The block's text with a marker after the words each citation names (ids by URL)."""
        text: str = block["text"] if isinstance(block.get("text"), str) else ""
        at: dict[int, dict[str, None]] = {}  # place → the ids cited there, in order
        for c in block.get("citations") or []:
            if not isinstance(c, Mapping):
                continue
            details = as_map(c.get("details"))
            url = details.get("url") or c.get("url")
            if not isinstance(url, str) or not url.strip():
                self.notes.append(("CR505", "a citation names no URL: left out"))
                continue
            sid = self._source(url, c, details)
            end = self._end(text, c.get("end_index"))
            if end is None:
                continue
            self.placed.add(sid)
            at.setdefault(end, {})[sid] = None
        return insert_edits(text, [(end, end, DEFAULT_FORMAT.marker(*ids)) for end, ids in at.items()])

    def _end(self, text: str, given: Any) -> int | None:
        """After a citation's end and the punctuation that follows; None outside the text (CR504)."""
        end = given if isinstance(given, int) and not isinstance(given, bool) else -1
        if not 0 <= end <= len(text):
            where = f"a citation's end ({str(given)[:20]}) lies outside its text ({len(text)} characters)"
            self.notes.append(("CR504", f"{where}: its page is listed without a place"))
            return None
        while end < len(text) and text[end] in _CLOSING:
            end += 1
        return end

    def _source(self, url: str, c: Mapping[str, Any], details: Mapping[str, Any]) -> str:
        """The id of the page ``url`` (one per URL), titled and quoted by its first citation that says."""
        source = self.cited.setdefault(url, {"id": f"claude{len(self.cited) + 1}", "url": url})
        title = details.get("title") or c.get("title")
        if isinstance(title, str) and title.strip():
            source.setdefault("title", title)
        quoted = c.get("cited_text")
        if isinstance(quoted, str) and quoted.strip():
            source.setdefault("text", " ".join(quoted.split()))
        sid: str = source["id"]
        return sid

    def sources(self) -> list[dict[str, Any]]:
        """The cited pages (titled from the searches if need be), then the pages only searched."""
        out = []
        for url, source in self.cited.items():
            found = self.seen.get(url, {})
            listed = {} if source["id"] in self.placed else {"listed": "cited"}  # cited, but nowhere in the text
            out.append({**{k: v for k, v in found.items() if k not in source}, **source, **listed})
        unseen = [(url, found) for url, found in self.seen.items() if url not in self.cited]
        out.extend({"id": f"claude{n}", "url": url, **found} for n, (url, found) in enumerate(unseen, len(out) + 1))
        return out
