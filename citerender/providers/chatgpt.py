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
import io
import json
import re
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..errors import CiterenderError
from ..sources.clean import clean_data, display_text
from ..sources.model import Registry, registry_from_data
from .content_refs import SearchSources, edits_for, md_text, unknown_ids, unresolved_tether

__all__ = [
    "BrokenGraph",
    "Conversation",
    "Turn",
    "Version",
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
    #: this turn's place among its versions (``(2, 2)``: the second of two), when it has others
    version: tuple[int, int] | None = None
    #: the other versions of this turn, each with the messages that followed it
    versions: list[Version] = field(default_factory=list)


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
    #: (code, message) of the import, about the conversation as a whole
    notes: list[tuple[str, str]] = field(default_factory=list)
    #: threads whose parent node the export lost, oldest first: shown after the rest, never dropped
    detached: list[list[Turn]] = field(default_factory=list)

    def every_turn(self) -> Iterator[Turn]:
        """Every turn on the page: the current branch, every version and every detached thread
        (versions nest at most ``MAX_VERSION_DEPTH`` deep, so the walk's recursion is bounded)."""
        for thread in (self.turns, *self.detached):
            yield from _with_versions(thread)

    @property
    def answers(self) -> int:
        """Answers on the current branch (what the chat shows)."""
        return sum(1 for t in self.turns if t.role == "assistant")

    @property
    def sources(self) -> int:
        """Sources of every answer on the page, other versions and detached threads included."""
        return sum(len(t.registry) for t in self.every_turn() if t.registry is not None)


#: the most a zipped export may inflate to, and the most it may inflate per compressed byte: an
#: 800 KB zip inflating to 800 MB ran for minutes (see SECURITY.md); ``max_bytes`` changes the first
MAX_INFLATED_BYTES = 4 * 1024**3
MAX_INFLATE_RATIO = 200


@contextmanager
def _open(path: str | Path, max_bytes: int = MAX_INFLATED_BYTES) -> Iterator[IO[bytes]]:
    p = Path(path)
    if not p.is_file():
        raise CiterenderError("export not found (or not a regular file)", path=str(path))
    if zipfile.is_zipfile(p):
        with zipfile.ZipFile(p) as z:
            members = [i for i in z.infolist() if i.filename.rsplit("/", 1)[-1] == "conversations.json"]
            if not members:
                raise CiterenderError("the zip holds no conversations.json", path=str(path))
            info = members[0]
            _check_inflation(info.file_size, info.compress_size, max_bytes, str(path))
            with z.open(info) as f:
                # the header's sizes may lie: the stream itself is bounded
                yield io.BufferedReader(_Bounded(f, max_bytes, info.compress_size, str(path)))
    else:
        with p.open("rb") as f:
            yield f


def _check_inflation(size: int, compressed: int, max_bytes: int, path: str) -> None:
    if size > max_bytes:
        raise CiterenderError(
            f"the zip's conversations.json inflates to {size:,} bytes, over the limit of {max_bytes:,}",
            path=path,
            hint="unzip it and build conversations.json, or raise the limit with --max-export-bytes",
        )
    if size > 1024 * 1024 and size > MAX_INFLATE_RATIO * max(compressed, 1):
        raise CiterenderError(
            f"the zip's conversations.json inflates {size // max(compressed, 1):,} times (over {MAX_INFLATE_RATIO}): "
            "refused as a zip bomb",
            path=path,
            hint="unzip it and build conversations.json",
        )


class _Bounded(io.RawIOBase):
    """A zip member read as a stream, stopped once it inflates past the limits whatever its header said."""

    def __init__(self, f: IO[bytes], max_bytes: int, compressed: int, path: str) -> None:
        self.f, self.max_bytes, self.compressed, self.path, self.read_so_far = f, max_bytes, compressed, path, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.f.read(len(buffer))
        self.read_so_far += len(data)
        _check_inflation(self.read_so_far, self.compressed, self.max_bytes, self.path)
        buffer[: len(data)] = data
        return len(data)


def is_chatgpt_export(path: str | Path) -> bool:
    """Does the file look like a ChatGPT export: a zip holding a ``conversations.json`` (its size is
    judged when it is read), or a list of objects with ``mapping``?"""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                return any(n.rsplit("/", 1)[-1] == "conversations.json" for n in z.namelist())
        with _open(path) as f:
            head = f.read(65536).decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    except (CiterenderError, OSError, zipfile.BadZipFile):
        return False
    return head.startswith("[") and '"mapping"' in head


def read_raw(path: str | Path, max_bytes: int = MAX_INFLATED_BYTES) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """Every conversation of the export as its JSON data, with its position, read as a stream
    (a zipped export inflates to at most ``max_bytes``)."""
    import ijson

    with _open(path, max_bytes) as f:
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
    """The title as readers see it: marker forms removed, as front-matter titles are."""
    title = data.get("title")
    shown = display_text(title[:10_000])[0].replace("\x00", "\ufffd").strip()[:200] if isinstance(title, str) else ""
    return shown or "Untitled conversation"


def conversation(data: Mapping[str, Any], k: int = 0) -> Conversation:
    """One conversation of the export, on its current branch; a :class:`BrokenGraph` if its
    message graph cannot be walked."""
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode("utf-8")).hexdigest()
    surrogates: list[str] = []
    data = clean_data(data, surrogates)  # once, where the conversation enters
    notes = [("CR114", "lone surrogates replaced by U+FFFD in the conversation's data")] if surrogates else []
    cid, title = _conversation_id(data, k), _title(data)
    model = data.get("default_model_slug") if isinstance(data.get("default_model_slug"), str) else None
    try:
        turns, detached = _threads(data)
    except BrokenGraph as e:
        raise BrokenGraph(
            f"CR506 conversation {cid[:80]!r} ({title[:80]!r}) was skipped: {e.message}",
            hint="the export's mapping must be a tree of message nodes",
        ) from None
    if detached:
        notes.append(("CR508", f"{len(detached)} part(s) of the conversation lost their place in the export "
                               "(their parent message is missing): shown after the rest"))  # fmt: skip
    return Conversation(
        cid, title, _number(data.get("create_time")), _number(data.get("update_time")), model, turns, digest, notes,
        detached,
    )  # fmt: skip


def _with_versions(turns: list[Turn]) -> Iterator[Turn]:
    for turn in turns:
        yield turn
        for version in turn.versions:
            yield from _with_versions(version.turns)


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class BrokenGraph(CiterenderError):
    """A conversation whose message graph cannot be walked: a cycle, a node that is not an object,
    an id that is not a string. The conversation is reported (CR506) and skipped; the rest of the
    export still builds."""


#: forks nested deeper than this inside other versions are shown as their own threads, after the
#: conversation (an export may nest edits without limit; the page and the walk stay bounded)
MAX_VERSION_DEPTH = 16


class _Graph:
    """A conversation's mapping as a forest: each node's children in the export's order (a node
    whose parent names it but whose ``children`` omit it is added after them), walked once.

    Every node is reached at most once: a node reached twice (a child that is its own ancestor)
    or a parent chain that loops is a :class:`BrokenGraph`, never a hang."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        mapping = data.get("mapping")
        self.nodes: dict[str, Mapping[str, Any]] = {}
        for nid, node in mapping.items() if isinstance(mapping, Mapping) else ():
            if not isinstance(node, Mapping):
                raise BrokenGraph(f"node {str(nid)[:60]!r} is a {type(node).__name__}, not an object")
            self.nodes[str(nid)] = node
        self.kids: dict[str, list[str]] = {}
        listed: dict[str, set[str]] = {}  # membership of each list, so a wide fork stays linear
        for nid, node in self.nodes.items():
            children = node.get("children") or []
            if not isinstance(children, list):
                raise BrokenGraph(f"the children of node {nid[:60]!r} are not a list")
            kids, known = self.kids.setdefault(nid, []), listed.setdefault(nid, set())
            for child in children:
                if not isinstance(child, str):
                    raise BrokenGraph(f"a child id is a {type(child).__name__}, not a node id")
                if child in self.nodes and child not in known:
                    known.add(child)
                    kids.append(child)
        for nid in self.nodes:
            parent = self._parent(nid)
            if parent is not None and nid not in listed[parent]:
                listed[parent].add(nid)
                self.kids[parent].append(nid)
        self.seen: set[str] = set()

    def _parent(self, nid: str) -> str | None:
        """The parent node's id, ``None`` for a root or a parent the export lost."""
        parent = self.nodes[nid].get("parent")
        if parent is not None and not isinstance(parent, str):
            raise BrokenGraph(f"a parent id is a {type(parent).__name__}, not a node id")
        return parent if parent in self.nodes else None

    def path_to(self, nid: str) -> list[str]:
        """The ids from ``nid``'s top (a root, or a node whose parent is lost) down to it."""
        path, seen = [nid], {nid}
        while (parent := self._parent(path[-1])) is not None:
            if parent in seen:
                raise BrokenGraph(f"the parents of node {parent[:60]!r} loop back to it: the graph has a cycle")
            seen.add(parent)
            path.append(parent)
        return path[::-1]

    def tops(self) -> list[str]:
        """Every node without a parent in the export, true roots (no parent at all) first."""
        roots = [n for n, v in self.nodes.items() if v.get("parent") is None]
        lost = [n for n, v in self.nodes.items() if v.get("parent") is not None and self._parent(n) is None]
        return roots + lost


@dataclass
class Version:
    """Another version of a turn (an edit, a regeneration), as the chat UI's "1 / 2" shows it:
    ``position`` of ``of`` among the turn's versions, its messages from there to its own end."""

    position: int
    of: int
    created: float | None
    turns: list[Turn]


def _threads(data: Mapping[str, Any]) -> tuple[list[Turn], list[list[Turn]]]:
    """The conversation as the owner last saw it (from the root to ``current_node``, or along the
    last children), every other version hung on the turn it replaces, and the threads whose place
    in the conversation the export lost (their parent node is missing), oldest first."""
    graph = _Graph(data)
    current = data.get("current_node")
    if current is not None and not isinstance(current, str):
        raise BrokenGraph(f"current_node is a {type(current).__name__}, not a node id")
    target = graph.path_to(current) if current in graph.nodes else []
    tops = graph.tops()
    overflow: list[str] = []
    threads: list[tuple[float, int, list[Turn]]] = []
    main: list[Turn] | None = None
    true_roots = [t for t in tops if graph.nodes[t].get("parent") is None]
    main_top = target[0] if target and target[0] in true_roots else (true_roots[0] if true_roots else None)
    order = ([main_top] if main_top else []) + [t for t in tops if t != main_top]
    for k, top in enumerate(order):
        turns = _thread(graph, top, set(target), 0, overflow)
        if top == main_top:
            main = turns
        elif turns:
            threads.append((min((t.created for t in turns if t.created), default=float("inf")), k, turns))
    deep: list[list[Turn]] = []
    while overflow:  # versions nested too deep: each its own thread, after the rest
        if turns := _thread(graph, overflow.pop(0), set(), 0, overflow):
            deep.append(turns)
    unreached = [n for n in graph.nodes if n not in graph.seen]
    if unreached:  # not below any top: parents that loop
        graph.path_to(unreached[0])  # raises, naming the loop
        raise BrokenGraph(f"node {unreached[0][:60]!r} hangs from no root: the graph has a cycle")
    return main or [], [t for *_, t in sorted(threads, key=lambda x: x[:2])] + deep


def _thread(graph: _Graph, top: str, target: set[str], depth: int, overflow: list[str]) -> list[Turn]:
    """The turns from ``top`` down, through the child on ``target`` (else the last child); at a
    fork the other children become :class:`Version` s of the next turn shown; past
    ``MAX_VERSION_DEPTH`` nested forks their ids go to ``overflow`` (walked later, at the top)."""
    turns: list[Turn] = []
    pending: list[Version] = []
    position: tuple[int, int] | None = None
    nid: str | None = top
    while nid is not None:
        if nid in graph.seen:
            raise BrokenGraph(f"node {nid[:60]!r} is its own descendant: the graph has a cycle")
        graph.seen.add(nid)
        message = graph.nodes[nid].get("message")
        turn = _turn(message) if isinstance(message, Mapping) else None
        if turn is not None:
            turn.version, turn.versions = position, pending
            pending, position = [], None
            turns.append(turn)
        kids = graph.kids.get(nid, [])
        if not kids:
            break
        chosen = next((k for k in kids if k in target), kids[-1])
        if len(kids) > 1:
            if depth >= MAX_VERSION_DEPTH:  # not nested further: shown as threads of their own
                overflow.extend(k for k in kids if k != chosen)
            else:
                others = [(k, _thread(graph, k, target, depth + 1, overflow)) for k in kids if k != chosen]
                shown = {k for k, turns_of in others if turns_of}
                if shown:
                    at = {k: i for i, k in enumerate((k for k in kids if k == chosen or k in shown), start=1)}
                    of = len(at)
                    pending += [Version(at[k], of, t[0].created, t) for k, t in others if t]
                    position = (at[chosen], of)
        nid = chosen
    if pending:  # forks after the last turn shown: versions of the last turn, or the thread itself
        if turns:
            turns[-1].versions += pending
        else:
            turns = pending[0].turns
            if len(pending) > 1:
                turns[0].versions += pending[1:]
    return turns


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
    edits = edits_for(text, meta.get("content_references"), sources, meta.get("citations"))
    notes = [note for *_, note in edits if note is not None]
    out, pos = [], 0
    for start, end, replacement, _ in sorted((e for e in edits if e[3] is None or e[1] > e[0]), key=lambda e: e[:2]):
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    answer, unresolved = unresolved_tether("".join(out).replace(_GROUP_END, ""), sources)
    answer, lost = unknown_ids(answer, sources)
    notes += unresolved + lost
    registry = registry_from_data(list(sources.sources.values()))
    return Turn("assistant", answer, created, registry, notes, model)
