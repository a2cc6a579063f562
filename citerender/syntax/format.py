"""The citation format: marker characters, families and id shape, shared by every stage.

One frozen value travels from the prompt generator to the parser, the presenter and the
validator, so a custom marker set changes all of them at once.
"""

from __future__ import annotations

import re
from functools import cached_property

from ..lazy_re import lazy_compile
from ..records import record
from .charset import CharSet

#: The private-use characters OpenAI-trained models emit (start, stop, delimiter, …).
CITATION_START = "\ue200"
CITATION_STOP = "\ue201"
CITATION_DELIMITER = "\ue202"
HIGHLIGHT_START = "\ue203"
HIGHLIGHT_STOP = "\ue204"
ITEM_SEPARATOR = "\ue205"
#: Every character of the reserved block; none of them may ever reach rendered output.
RESERVED_CHARS = "".join(chr(c) for c in range(0xE200, 0xE207))
RESERVED_RE = lazy_compile(f"[{RESERVED_CHARS}]")

#: Families that display as a widget in ChatGPT and have no meaning on a page.
WIDGET_FAMILIES = frozenset(
    {
        "i",
        "image",
        "image_group",
        "finance",
        "schedule",
        "standing",
        "forecast",
        "video",
        "products",
        "product_entity",
        "businesses_map",
        "genui",
    }
)

#: the shape of a source id unless a format says otherwise
_ID_PATTERN = r"[A-Za-z0-9_-]+"


@record(frozen=True, compile_init=False)  # built a few times a process: no __init__ compiled at import
class CitationFormat:
    """How markers are written: characters, citation families and the source-id shape.

    :param start: the character opening a marker (the guide's ``CITATION_START``).
    :param stop: the character closing a marker (``CITATION_STOP``).
    :param delimiter: the character separating family, ids and locator.
    :param families: families whose markers are citations.
    :param id_pattern: regular expression (no anchors) a source id must match.
    :param locators: whether line locators (``L8-L13``) are part of the format.
    """

    start: str = CITATION_START
    stop: str = CITATION_STOP
    delimiter: str = CITATION_DELIMITER
    families: tuple[str, ...] = ("cite", "filecite")
    id_pattern: str = _ID_PATTERN
    locators: bool = True
    highlight_start: str = HIGHLIGHT_START
    highlight_stop: str = HIGHLIGHT_STOP

    def __post_init__(self) -> None:
        chars = (self.start, self.stop, self.delimiter)
        if any(len(c) != 1 for c in chars) or len(set(chars)) != 3:
            raise ValueError("start, stop and delimiter must be three distinct single characters")
        if not self.families or any(not f or any(c.isspace() for c in f) for f in self.families):
            raise ValueError("families must be non-empty words without whitespace")
        for family in self.families:
            if any(c in family for c in chars):
                raise ValueError(f"family {family!r} contains a marker character")
        if self.id_pattern != _ID_PATTERN:  # a bad custom pattern fails here, not at its first use
            re.compile(self.id_pattern)

    @cached_property
    def id_re(self) -> re.Pattern[str]:
        """The anchored source-id pattern."""
        return re.compile(rf"(?:{self.id_pattern})\Z")

    @cached_property
    def marker_chars(self) -> str:
        """Every character the scanner treats as part of the marker syntax."""
        custom = {self.start, self.stop, self.delimiter, self.highlight_start, self.highlight_stop}
        return "".join(sorted(set(RESERVED_CHARS) | custom))

    @cached_property
    def marker_set(self) -> CharSet:
        """:attr:`marker_chars`, to ask whether a text holds any (code, a block, an inline run)."""
        return CharSet(self.marker_chars)

    def marker(self, *source_ids: str, locator: str | None = None, family: str | None = None) -> str:
        """Write the canonical marker for ``source_ids`` (and an optional locator)."""
        parts = [family or self.families[0], *source_ids]
        if locator:
            parts.append(locator)
        return self.start + self.delimiter.join(parts) + self.stop


DEFAULT_FORMAT = CitationFormat()
