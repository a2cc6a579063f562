"""Where in a document a provider says its passages are: the page numbers a reader can turn to,
for a source (``meta.locations``) and for each of its quoted passages (``meta.line_pages``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..lazy_re import lazy_compile

if TYPE_CHECKING:
    from ..syntax.types import LineRange

__all__ = ["passage_pages", "range_label", "shown_pages"]


class Source(Protocol):
    """What these read of a :class:`~citerender.sources.model.Source` (which uses them)."""

    @property
    def meta(self) -> Mapping[str, Any]: ...

    @property
    def line_unit(self) -> str: ...


#: a page location a reader can turn to: ``page 7``, ``pages 3–4``
_PAGES = lazy_compile(r"pages? [0-9]{1,6}(?:\u2013[0-9]{1,6})?")


def shown_pages(locations: Any) -> str | None:
    """The page locations among ``locations`` (a provider's page numbers, as its reader wrote
    them), once each, in order: ``page 7, page 5``. Character offsets and content blocks stay in
    the data, and anything that is not plainly a page number is not shown."""
    if not isinstance(locations, list | tuple):
        return None
    return ", ".join(dict.fromkeys(x for x in locations if isinstance(x, str) and _PAGES.fullmatch(x))) or None


def passage_pages(source: Source, low: int, high: int) -> str | None:
    """The pages passages ``low``–``high`` are on, when the provider said (``meta.line_pages``)."""
    pages = source.meta.get("line_pages")
    return shown_pages(pages[max(low, 1) - 1 : high]) if isinstance(pages, list | tuple) else None


def range_label(source: Source, rng: LineRange) -> str:
    """A cited range as a reader is told it: ``lines 8–13``, ``passage 1, page 7``."""
    label = rng.label(source.line_unit)
    on = passage_pages(source, rng.low, rng.high)
    return f"{label}, {on}" if on else label
