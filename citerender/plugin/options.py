"""The settings the plugin's rules are bound to: the render options, the registry and the
bibliography renderer, with the cheap prechecks every rule shares."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import field
from functools import cached_property
from typing import TYPE_CHECKING

from ..options import RenderOptions
from ..records import record
from ..sources.model import Registry, require_registry
from ..syntax.charset import CharSet
from ..syntax.format import CitationFormat
from ..syntax.patterns import may_hold_copied, patterns
from ..syntax.types import Mark
from .references import Reference

if TYPE_CHECKING:
    from ..sources.repo import Repository

__all__ = ["BibliographyRenderer", "PluginOptions"]

#: ``(references, style) -> HTML``: how the bibliography token renders (a theme's template).
BibliographyRenderer = Callable[[Sequence[Reference], str], str]


@record(frozen=True, compile_init=False)  # built a few times a process: no __init__ compiled at import
class PluginOptions:
    """The plugin's settings, bound to its rules with ``functools.partial``."""

    options: RenderOptions
    registry: Registry | None = None
    bibliography_renderer: BibliographyRenderer | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        require_registry(self.registry)  # at ``md.use``, not at the first citation

    @property
    def fmt(self) -> CitationFormat:
        return self.options.fmt

    @cached_property
    def parsed_marks(self) -> dict[str, Mark]:
        """Well-formed markers already parsed by this parser, by their text (see ``rules``)."""
        return {}

    @cached_property
    def repository(self) -> Repository:
        """Where Codex file citations are read and linked (``repo``, ``repo_url``), loaded on need."""
        from ..sources.repo import Repository

        return Repository(self.options.repo, self.options.repo_url, self.options.repo_include_hidden)

    @cached_property
    def triggers(self) -> str:
        """Characters at which the inline rule looks for a marker."""
        return self.fmt.marker_chars + "\u3010"

    @cached_property
    def canonical(self) -> re.Pattern[str]:
        """A well-formed marker of a citation family (the scanner's fast path)."""
        return patterns(self.fmt).canonical

    @cached_property
    def trigger_set(self) -> CharSet:
        """:attr:`triggers`, to look for in a text."""
        return CharSet(self.triggers)

    def needs_attention(self, text: str) -> bool:
        """Could ``text`` hold anything the core rule handles? (Plain searches, cheaper than a regex.)"""
        return (
            self.trigger_set.found_in(text)
            or "cite" in text
            or "entity[" in text
            or ("%" in text and "%EE%88%8" in text.upper())
            or may_hold_copied(text)
        )

    def marker_end(self, src: str, at: int) -> int:
        """Where the marker starting at ``at`` ends (past its stop character), or -1 when none starts there."""
        if src[at] != self.fmt.start:
            return -1
        stop = src.find(self.fmt.stop, at + 1, at + 512)
        return -1 if stop == -1 else stop + 1
