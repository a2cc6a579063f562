"""Conversations as readers follow them, whatever exported them: an export's message forest
(ChatGPT's ``mapping``, Claude's ``parent_message_uuid``) walked (:func:`walk`) into the current
branch, every other :class:`Version` of a turn where it happened, and the threads whose place the
export lost. Every node is reached once: a cycle or a wrong shape is a :class:`BrokenGraph`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..errors import CiterenderError
from ..sources.clean import clean_data, display_text
from ..sources.model import Registry

__all__ = [
    "MAX_VERSION_DEPTH",
    "BrokenGraph",
    "Conversation",
    "Turn",
    "Version",
    "assembled",
    "entered",
    "shown_title",
    "timestamp",
    "walk",
]


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
    #: who answers, as the page names them (``ChatGPT``, ``Claude``); empty: "Assistant"
    assistant: str = ""

    def every_turn(self) -> Iterator[Turn]:
        """Every turn on the page: the current branch, every version and every detached thread."""
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


def entered(data: Mapping[str, Any]) -> tuple[Mapping[str, Any], str, list[tuple[str, str]]]:
    """A conversation's data cleaned of lone surrogates (CR114), the digest of the data as
    exported, and the notes; data nested too deeply is a :class:`BrokenGraph`."""
    surrogates: list[str] = []
    try:
        cleaned = clean_data(data, surrogates)  # first: it bounds the depth json.dumps walks
    except CiterenderError as e:
        title = shown_title(data.get("title") if "title" in data else data.get("name"))
        raise BrokenGraph(f"CR506 conversation {title[:80]!r} was skipped: its data is {e.message}") from None
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode("utf-8")).hexdigest()
    notes = [("CR114", "lone surrogates replaced by U+FFFD in the conversation's data")] if surrogates else []
    return cleaned, digest, notes


def assembled(
    head: Conversation,
    tree: Callable[[], Mapping[str, Any]],
    turn_of: Callable[[Mapping[str, Any]], Turn | None],
    shape: str,
) -> Conversation:
    """``head`` (a conversation without turns) with the turns :func:`walk` finds in ``tree()``; a
    graph that cannot be walked is a :class:`BrokenGraph` naming it (CR506, ``shape``: what the
    messages must be), a detached part a note (CR508)."""
    try:
        head.turns, head.detached = walk(tree(), turn_of)
    except BrokenGraph as e:
        raise BrokenGraph(
            f"CR506 conversation {head.id[:80]!r} ({head.title[:80]!r}) was skipped: {e.message}",
            hint=f"the export's {shape}",
        ) from None
    if head.detached:
        head.notes.append(("CR508", f"{len(head.detached)} part(s) of the conversation lost their place in the "
                                    "export (their parent message is missing): shown after the rest"))  # fmt: skip
    return head


def shown_title(title: Any, fallback: str = "Untitled conversation") -> str:
    """A title as readers see it: marker forms removed, one line, at most 200 characters."""
    shown = display_text(title[:10_000])[0].replace("\x00", "\ufffd").strip()[:200] if isinstance(title, str) else ""
    return " ".join(shown.split()) or fallback


def timestamp(value: Any) -> float | None:
    """Epoch seconds from a number or an ISO 8601 string (``…Z`` too); anything else is ``None``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value[:4].isdigit():
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def _with_versions(turns: list[Turn]) -> Iterator[Turn]:
    for turn in turns:
        yield turn
        for version in turn.versions:
            yield from _with_versions(version.turns)


class BrokenGraph(CiterenderError):
    """A conversation whose message graph cannot be walked (a cycle, a node that is no object, an
    id that is no string): reported (CR506) and skipped, the rest of the export built."""


#: forks nested deeper than this inside other versions are shown as their own threads, after the
#: conversation (the page and the walk's recursion stay bounded)
MAX_VERSION_DEPTH = 16


class _Graph:
    """A conversation's mapping as a forest: each node's children in the export's order (a node
    naming a parent that omits it added after them), each node walked at most once."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        mapping = data.get("mapping")
        self.nodes: dict[str, Mapping[str, Any]] = {}
        for nid, node in mapping.items() if isinstance(mapping, Mapping) else ():
            if not isinstance(node, Mapping):
                raise BrokenGraph(f"node {str(nid)[:60]!r} is a {type(node).__name__}, not an object")
            self.nodes[str(nid)] = node
        kids: dict[str, dict[str, None]] = {}  # ordered sets, so a wide fork stays linear
        for nid, node in self.nodes.items():
            children = node.get("children") or []
            if not isinstance(children, list):
                raise BrokenGraph(f"the children of node {nid[:60]!r} are not a list")
            odd = next((type(c).__name__ for c in children if not isinstance(c, str)), None)
            if odd is not None:
                raise BrokenGraph(f"a child id is a {odd}, not a node id")
            kids[nid] = dict.fromkeys(c for c in children if c in self.nodes)
        for nid in self.nodes:
            parent = self._parent(nid)
            if parent is not None:
                kids[parent].setdefault(nid)
        self.kids = {nid: list(found) for nid, found in kids.items()}
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

    def tops(self, target: list[str]) -> tuple[str | None, list[str]]:
        """The top the conversation shown starts from (the current node's root, else the first root),
        and every node without a parent in the export, that one first, then true roots, then lost ones."""
        roots = [n for n, v in self.nodes.items() if v.get("parent") is None]
        lost = [n for n, v in self.nodes.items() if v.get("parent") is not None and self._parent(n) is None]
        main = target[0] if target and target[0] in roots else (roots[0] if roots else None)
        return main, ([main] if main else []) + [t for t in roots + lost if t != main]


@dataclass
class Version:
    """Another version of a turn (an edit, a regeneration), ``position`` of ``of`` (the chat's
    "1 / 2"), its messages from there to its own end."""

    position: int
    of: int
    created: float | None
    turns: list[Turn]


def walk(
    data: Mapping[str, Any], turn_of: Callable[[Mapping[str, Any]], Turn | None]
) -> tuple[list[Turn], list[list[Turn]]]:
    """The conversation as the owner last saw it (root to ``current_node``, else along the last
    children), other versions hung on the turns they replace, and the threads whose parent is
    lost, oldest first. ``turn_of`` makes a node's message a turn (``None``: one readers do not see)."""
    graph = _Graph(data)
    current = data.get("current_node")
    if current is not None and not isinstance(current, str):
        raise BrokenGraph(f"current_node is a {type(current).__name__}, not a node id")
    target = graph.path_to(current) if current in graph.nodes else []
    main_top, order = graph.tops(target)
    overflow: list[str] = []
    threads: list[tuple[float, int, list[Turn]]] = []
    main: list[Turn] | None = None
    for k, top in enumerate(order):
        turns = _thread(graph, top, set(target), 0, overflow, turn_of)
        if top == main_top:
            main = turns
        elif turns:
            threads.append((min((t.created for t in turns if t.created), default=float("inf")), k, turns))
    deep: list[list[Turn]] = []
    while overflow:  # versions nested too deep: each its own thread, after the rest
        if turns := _thread(graph, overflow.pop(0), set(), 0, overflow, turn_of):
            deep.append(turns)
    unreached = [n for n in graph.nodes if n not in graph.seen]
    if unreached:  # not below any top: parents that loop
        graph.path_to(unreached[0])  # raises, naming the loop
        raise BrokenGraph(f"node {unreached[0][:60]!r} hangs from no root: the graph has a cycle")
    return main or [], [t for *_, t in sorted(threads, key=lambda x: x[:2])] + deep


def _thread(
    graph: _Graph,
    top: str,
    target: set[str],
    depth: int,
    overflow: list[str],
    turn_of: Callable[[Mapping[str, Any]], Turn | None],
) -> list[Turn]:
    """The turns from ``top`` down, through the child on ``target`` (else the last); at a fork the
    others become :class:`Version` s of the next turn, past ``MAX_VERSION_DEPTH`` go to ``overflow``."""
    turns: list[Turn] = []
    pending: list[Version] = []
    position: tuple[int, int] | None = None
    nid: str | None = top
    while nid is not None:
        if nid in graph.seen:
            raise BrokenGraph(f"node {nid[:60]!r} is its own descendant: the graph has a cycle")
        graph.seen.add(nid)
        message = graph.nodes[nid].get("message")
        turn = turn_of(message) if isinstance(message, Mapping) else None
        if turn is not None:
            turn.version, turn.versions = position, pending
            pending, position = [], None
            turns.append(turn)
        kids = graph.kids.get(nid, [])
        if not kids:
            break
        chosen = next((k for k in kids if k in target), kids[-1])
        if len(kids) > 1 and depth >= MAX_VERSION_DEPTH:  # not nested further: shown as threads of their own
            overflow.extend(k for k in kids if k != chosen)
        elif len(kids) > 1:
            versions = [(k, _thread(graph, k, target, depth + 1, overflow, turn_of)) for k in kids if k != chosen]
            found, at = _versions(kids, chosen, versions)
            pending += found
            position = at or position
        nid = chosen
    return _hang(turns, pending)


def _versions(
    kids: list[str], chosen: str, others: list[tuple[str, list[Turn]]]
) -> tuple[list[Version], tuple[int, int] | None]:
    """At a fork: the other children's threads with turns as versions, in the children's order,
    and the chosen child's place among them (None: no version)."""
    shown = {k for k, turns_of in others if turns_of}
    if not shown:
        return [], None
    at = {k: i for i, k in enumerate((k for k in kids if k == chosen or k in shown), start=1)}
    of = len(at)
    return [Version(at[k], of, t[0].created, t) for k, t in others if t], (at[chosen], of)


def _hang(turns: list[Turn], pending: list[Version]) -> list[Turn]:
    """Forks after the last turn: its versions, or (no turn) the first version's turns."""
    if not pending:
        return turns
    if turns:
        turns[-1].versions += pending
        return turns
    turns = pending[0].turns
    if len(pending) > 1:
        turns[0].versions += pending[1:]
    return turns
