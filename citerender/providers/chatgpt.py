"""A ChatGPT data export (``conversations.json``, or the export's ``.zip``) as conversations a
reader can follow: each one's current branch, the turns a reader saw, and for every assistant
turn an answer with canonical markers and a registry of the pages it cites.

The file is read as a stream (``ijson``): an export of hundreds of megabytes never sits in memory
whole, one conversation at a time does. What is shown follows the export's own rules: the path
from the root to ``current_node`` (edits and regenerations branch; the reader saw the last one),
without system and tool messages, tool calls (``recipient`` other than ``all``), hidden messages
(``is_visually_hidden_from_conversation``) and thinking (``thoughts``, ``reasoning_recap``,
``user_editable_context``)."""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..errors import CiterenderError
from ..sources.model import Registry, registry_from_data
from .content_refs import SearchSources, edits_for, md_text

__all__ = [
    "BrokenGraph",
    "Conversation",
    "Turn",
    "conversation",
    "find_conversation",
    "is_chatgpt_export",
    "read_conversations",
    "read_raw",
]

_SHOWN_TYPES = frozenset({"text", "multimodal_text", "code"})
_GROUP_END = "\ue206"  # older gpt-4o answers end citation groups with it: it stands for nothing
_FENCE_RUN = re.compile(r"^ {0,3}(~{3,})", re.M)  # tilde fences inside a code message


@dataclass
class Turn:
    """One message a reader sees: ``role`` is ``user`` or ``assistant``; an assistant's ``text``
    holds canonical markers over ``registry``; ``notes`` are (code, message) from the import."""

    role: str
    text: str
    created: float | None = None
    registry: Registry | None = None
    notes: list[tuple[str, str]] = field(default_factory=list)
    model: str | None = None


@dataclass
class Conversation:
    """One conversation on its current branch; ``digest`` changes whenever its data does."""

    id: str
    title: str
    created: float | None
    updated: float | None
    model: str | None
    turns: list[Turn]
    digest: str

    @property
    def answers(self) -> int:
        return sum(1 for t in self.turns if t.role == "assistant")

    @property
    def sources(self) -> int:
        return sum(len(t.registry) for t in self.turns if t.registry is not None)


@contextmanager
def _open(path: str | Path) -> Iterator[IO[bytes]]:
    p = Path(path)
    if not p.is_file():
        raise CiterenderError("export not found", path=str(path))
    if zipfile.is_zipfile(p):
        with zipfile.ZipFile(p) as z:
            names = [n for n in z.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"]
            if not names:
                raise CiterenderError("the zip holds no conversations.json", path=str(path))
            with z.open(names[0]) as f:
                yield f
    else:
        with p.open("rb") as f:
            yield f


def is_chatgpt_export(path: str | Path) -> bool:
    """Does the file look like a ChatGPT export (a list of objects with ``mapping``)?"""
    try:
        with _open(path) as f:
            head = f.read(65536).decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    except (CiterenderError, OSError):
        return False
    return head.startswith("[") and '"mapping"' in head


def read_raw(path: str | Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """Every conversation of the export as its JSON data, with its position, read as a stream."""
    import ijson

    with _open(path) as f:
        try:
            for k, data in enumerate(ijson.items(f, "item", use_float=True)):
                if isinstance(data, Mapping):
                    yield k, data
        except ijson.JSONError as e:
            raise CiterenderError(f"invalid JSON in the export: {e}", path=str(path)) from None


def read_conversations(path: str | Path) -> Iterator[Conversation]:
    """Every conversation of the export, in file order, read as a stream."""
    for k, data in read_raw(path):
        yield conversation(data, k)


def find_conversation(path: str | Path, key: str) -> Conversation:
    """The conversation whose id is ``key``, else the first whose title is ``key`` (case-insensitive).

    Only the one found is built: a broken conversation elsewhere in the export does not stop it."""
    by_title: tuple[int, Mapping[str, Any]] | None = None
    for k, data in read_raw(path):
        if _conversation_id(data, k) == key:
            return conversation(data, k)
        if by_title is None and _title(data).casefold() == key.casefold():
            by_title = (k, data)
    if by_title is None:
        raise CiterenderError(f"no conversation with id or title {key!r}", path=str(path), hint="see the index page")
    return conversation(by_title[1], by_title[0])


def _conversation_id(data: Mapping[str, Any], k: int) -> str:
    return str(data.get("conversation_id") or data.get("id") or f"conversation-{k + 1}")


def _title(data: Mapping[str, Any]) -> str:
    title = data.get("title")
    return title if isinstance(title, str) and title else "Untitled conversation"


def conversation(data: Mapping[str, Any], k: int = 0) -> Conversation:
    """One conversation of the export, on its current branch; a :class:`BrokenGraph` if its
    message graph cannot be walked."""
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode("utf-8")).hexdigest()
    cid, title = _conversation_id(data, k), _title(data)
    model = data.get("default_model_slug") if isinstance(data.get("default_model_slug"), str) else None
    try:
        branch = _branch(data)
    except BrokenGraph as e:
        raise BrokenGraph(
            f"CR506 conversation {cid[:80]!r} ({title[:80]!r}) was skipped: {e.message}",
            hint="the export's mapping must be a tree of message nodes",
        ) from None
    turns = [t for m in branch if (t := _turn(m)) is not None]
    return Conversation(
        cid, title, _number(data.get("create_time")), _number(data.get("update_time")), model, turns, digest
    )


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class BrokenGraph(CiterenderError):
    """A conversation whose message graph cannot be walked: a cycle, a node that is not an object,
    an id that is not a string. The conversation is reported (CR506) and skipped; the rest of the
    export still builds."""


def _node(mapping: Mapping[str, Any], node_id: Any, what: str) -> Mapping[str, Any] | None:
    """The node ``node_id`` names, ``None`` past the graph's end; a wrong shape is a :class:`BrokenGraph`."""
    if node_id is None:
        return None
    if not isinstance(node_id, str):
        raise BrokenGraph(f"{what} is a {type(node_id).__name__}, not a node id")
    if node_id not in mapping:
        return None
    node = mapping[node_id]
    if not isinstance(node, Mapping):
        raise BrokenGraph(f"node {node_id[:60]!r} is a {type(node).__name__}, not an object")
    return node


def _branch(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The messages from the root to ``current_node`` (or, without one, along the last children).

    Both walks keep the nodes they have seen and take at most one step per node: a cycle (a child
    that is its own ancestor, a parent chain that loops) is a :class:`BrokenGraph`, never a hang."""
    mapping = data.get("mapping")
    if not isinstance(mapping, Mapping):
        return []
    node_id = data.get("current_node")
    if _node(mapping, node_id, "current_node") is None:  # no leaf recorded: follow the last child from the root
        roots = [n for n, v in mapping.items() if isinstance(v, Mapping) and not v.get("parent")]
        node_id = roots[0] if roots else None
        seen: set[str] = set()
        while (node := _node(mapping, node_id, "a child id")) is not None:
            if node_id in seen:
                raise BrokenGraph(f"node {node_id[:60]!r} is its own descendant: the graph has a cycle")
            seen.add(node_id)
            children = node.get("children") or []
            if not isinstance(children, list):
                raise BrokenGraph(f"the children of node {node_id[:60]!r} are not a list")
            if not children:
                break
            node_id = children[-1]
    path: list[Mapping[str, Any]] = []
    seen = set()
    while (node := _node(mapping, node_id, "a parent id")) is not None:
        if node_id in seen:
            raise BrokenGraph(f"the parents of node {node_id[:60]!r} loop back to it: the graph has a cycle")
        seen.add(node_id)
        if isinstance(node.get("message"), Mapping):
            path.append(node["message"])
        node_id = node.get("parent")
    return path[::-1]


def _shown(message: Mapping[str, Any]) -> bool:
    author = _map(message.get("author"))
    meta = _map(message.get("metadata"))
    content = _map(message.get("content"))
    return (
        author.get("role") in ("user", "assistant")
        and message.get("recipient", "all") in ("all", None)
        and not meta.get("is_visually_hidden_from_conversation")
        and content.get("content_type") in _SHOWN_TYPES
        and message.get("channel") in (None, "final")
    )


def _parts_text(content: Mapping[str, Any]) -> str:
    """A message's text: its string parts; an image or file part as ``[image]``; code fenced."""
    if content.get("content_type") == "code":
        code = str(content.get("text") or "")
        fence = "~" * max(3, max(map(len, _FENCE_RUN.findall(code)), default=0) + 1)  # longer than any inside
        return f"{fence}{md_text(str(content.get('language') or ''))}\n{code}\n{fence}"
    out: list[str] = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, Mapping):
            kind = str(part.get("content_type") or "attachment")
            out.append("[image]" if "image" in kind else f"[{md_text(kind.replace('_', ' '))}]")
    return "\n\n".join(p for p in out if p)


def _turn(message: Mapping[str, Any]) -> Turn | None:
    if not _shown(message):
        return None
    content = _map(message.get("content"))
    role = _map(message.get("author")).get("role")
    meta = _map(message.get("metadata"))
    text = _parts_text(content)
    created = _number(message.get("create_time"))
    model = meta.get("model_slug") if isinstance(meta.get("model_slug"), str) else None
    if not text.strip():
        return None
    if role == "user":  # the user's words, shown as written (Markdown is theirs to write)
        return Turn("user", text, created)
    sources = SearchSources()
    sources.add_groups(meta.get("search_result_groups"))
    edits = edits_for(text, meta.get("content_references"), sources)
    notes = [note for *_, note in edits if note is not None]
    out, pos = [], 0
    for start, end, replacement, _ in sorted((e for e in edits if e[3] is None or e[1] > e[0]), key=lambda e: e[:2]):
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    answer = "".join(out).replace(_GROUP_END, "")
    registry = registry_from_data(list(sources.sources.values()))
    return Turn("assistant", answer, created, registry, notes, model)
