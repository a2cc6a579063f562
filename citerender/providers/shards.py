"""Which files of a ChatGPT export hold its conversations (since 2026, shards
``conversations-000.json`` … read in number order as one list), and what is wrong with them as a
set: a shard missing between others, a zip member named twice (the last is read, as :mod:`zipfile`
keeps it), each a note (CR516); what is there is read."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from .common import Note

__all__ = ["Noted", "export_members", "shard_notes"]

#: a shard of the 2026 export's conversations (``conversations-000.json``)
_SHARD = re.compile(r"conversations-(\d{1,9})\.json")
_SHOWN = 12  # missing numbers named in one note; the rest counted


def export_members(names: Sequence[str]) -> list[str]:
    """The names that hold the conversations, in reading order: ``conversations.json``, else every
    ``conversations-NNN.json`` by its number (a name held twice, once)."""
    base = {n: n.rsplit("/", 1)[-1] for n in names if not n.endswith("/")}
    whole = [n for n, b in base.items() if b == "conversations.json"]
    if whole:
        return sorted(whole)[:1]
    shards = sorted((int(m[1]), n) for n, b in base.items() if (m := _SHARD.fullmatch(b)) is not None)
    return [n for _, n in shards]


def shard_notes(members: Sequence[tuple[str, Hashable]]) -> list[Note]:
    """What is wrong with the export's files as a set: ``members`` are every file's name (twice if
    held twice) with what tells its content apart (a zip member's CRC and size)."""
    names = [name for name, _ in members]
    read = export_members(names)
    counts = Counter(names)
    notes = [_twice(name, [tag for n, tag in members if n == name]) for name in read if counts[name] > 1]
    numbered = [(int(m[1]), m[1], n) for n in read if (m := _SHARD.fullmatch(n.rsplit("/", 1)[-1])) is not None]
    return notes + _gaps(numbered) + _one_number_twice(numbered)


def _twice(name: str, tags: list[Hashable]) -> Note:
    same = len(set(tags)) == 1
    others = "the other" if len(tags) == 2 else "the others"
    how = "identical copies: read once" if same else f"the last is read, {others} left out"
    return ("CR516", f"the zip holds {len(tags)} members named {name[:200]!r} ({how})")


def _gaps(numbered: list[tuple[int, str, str]]) -> list[Note]:
    """The shard numbers missing below the last one (the export numbers its shards from 000)."""
    if not numbered:
        return []
    width = len(numbered[0][1])
    there = {n for n, _, _ in numbered}
    missing = [n for n in range(max(there) + 1) if n not in there]
    if not missing:
        return []
    shown = ", ".join(f"conversations-{n:0{width}d}.json" for n in missing[:_SHOWN])
    more = f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else ""
    what, it = ("a shard is", "it") if len(missing) == 1 else (f"{len(missing)} shards are", "them")
    last = max(numbered)[2].rsplit("/", 1)[-1]
    lost = f"the conversations in {it} are not shown"
    return [("CR516", f"{what} missing from the export: {shown}{more} (its shards run to {last}); {lost}")]


def _one_number_twice(numbered: list[tuple[int, str, str]]) -> list[Note]:
    """Two files holding one shard number (``a/conversations-001.json``, ``conversations-1.json``):
    both are read."""
    by_number: dict[int, list[str]] = {}
    for n, _, name in numbered:
        by_number.setdefault(n, []).append(name)
    return [
        ("CR516", f"shard {n:0{len(numbered[0][1])}d} is in {len(names)} files ({_names(names)}): each is read")
        for n, names in by_number.items()
        if len(names) > 1
    ]


def _names(names: list[str]) -> str:
    return ", ".join(repr(x[:120]) for x in names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")


class Noted(dict[str, Any]):
    """A conversation's data carrying notes about the export it came from (CR516), for its page."""

    notes: tuple[Note, ...] = ()

    @classmethod
    def of(cls, data: Mapping[str, Any], notes: Sequence[Note]) -> Noted:
        noted = cls(data)
        noted.notes = tuple(notes)
        return noted
