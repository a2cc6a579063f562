"""The values numbering makes: a reference (a numbered bibliography entry and every place citing
it), and how one citation group uses a source — as plain data in token meta (:class:`Use`) and
looked up for renderers (:class:`RefUse`)."""

from __future__ import annotations

from dataclasses import field
from typing import NamedTuple

from ..records import record
from ..sources.model import Source
from ..syntax.types import LineRange

__all__ = ["CitingPlace", "RefUse", "Reference", "Use"]


@record(slots=True)
class CitingPlace:
    """One place in the text that cites: its anchor id, its locator, the id of the source it cites."""

    anchor: str
    lines: LineRange | None
    source: str = ""


@record(slots=True)
class Reference:
    """A numbered bibliography entry: the source(s) it stands for (``merged``: sharing its URL)
    and every place citing it."""

    number: int
    source: Source
    known: bool = True
    merged: list[Source] = field(default_factory=list)
    places: list[CitingPlace] = field(default_factory=list)
    prefix: str = ""  # the page's id prefix, when several answers share it
    unverified: str = "not in the sources"  # why, when not ``known``
    #: where this render's source views are (``off``, ``page`` or a folder URL: see
    #: :func:`citerender.plugin.source_links.views_mode`): the entry links its cited ranges there
    views: str = "off"

    @property
    def anchor(self) -> str:
        return f"{self.prefix}ref-{self.number}"


class Use(NamedTuple):
    """One source as one group uses it, as plain data in ``meta["uses"]`` (:meth:`CitationState.uses`)."""

    ref: int
    source: str
    lines: tuple[int, int] | None
    valid: bool


@record(slots=True)
class RefUse:
    """A :class:`Use` with its reference and source looked up: what renderers read."""

    reference: Reference
    source: Source
    lines: LineRange | None
    lines_valid: bool
