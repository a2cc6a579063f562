"""What one ``--from`` entry is (:class:`Format`), and a list of streaming events as the entries'
event tests read it (:class:`Events`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ..records import record

__all__ = ["Events", "Format", "Kind"]

Kind = Literal["response", "export", "dialect"]


@record(frozen=True)
class Events:
    """A list of streaming events as the event tests read it: its objects, their ``type`` values and
    their top-level keys (gathered once for every entry's test)."""

    items: tuple[Mapping[str, Any], ...]
    types: frozenset[str]
    kinds: frozenset[str]

    @classmethod
    def of(cls, data: Sequence[Any]) -> Events:
        items = tuple(e for e in data if isinstance(e, Mapping))
        types = frozenset(str(e.get("type", "")) for e in items)
        return cls(items, types, frozenset(str(k) for e in items for k in e))


@record(frozen=True)
class Format:
    """One ``--from`` choice.

    :param kind: ``response`` (a provider's saved response, read by ``adapter``), ``export`` (a chat
        export, told from its first bytes by ``probes``) or ``dialect`` (numbers in an answer's text).
    :param summary: what is read (the documentation's table; for a dialect, its written form).
    :param positions: how the provider gives citation positions (the documentation's table).
    :param detect: is a parsed response (a JSON object) this format's?
    :param stream: is a list of events this format's stream?
    :param keys: keys characteristic of the format ("it resembles …" when nothing is detected).
    :param adapter: ``"module:function"`` reading ``(data, builder)`` into the answer's text parts.
    :param collect: ``"module:function"`` folding ``(events)`` into one response.
    :param documents: the adapter also takes ``documents=`` (those sent with the request).
    :param form: a dialect's pattern: its numbers the first group that matched, a link's URL ``url``.
    :param probes: plain substrings one of which the format's text holds (none: not looked at).
    :param label: the id a dialect's number spells when it names no source (``doc{}``).
    :param first: the characters a dialect's form may start with.
    :param base: the number a dialect gives the first source (RAGFlow counts from 0).
    """

    name: str
    kind: Kind
    summary: str
    positions: str = ""
    detect: Callable[[Mapping[str, Any]], bool] | None = None
    stream: Callable[[Events], bool] | None = None
    keys: frozenset[str] = frozenset()
    adapter: str | None = None
    collect: str | None = None
    documents: bool = False
    form: re.Pattern[str] | None = None
    probes: tuple[str, ...] = ()
    label: str = "{}"
    first: str = "["
    base: int = 1
