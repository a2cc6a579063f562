"""Per-document citation state: the rules' working view of one answer (:class:`CitationState`),
and the typed shapes of the plugin's token ``meta``.

``env["citerender"]`` holds plain data only: the document table (:mod:`.document`). The working
state (objects, the registry, the rules' caches) is found from ``env`` by :func:`citation_state`
(a few recent documents per thread, by their table), or built back from the table.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, MutableMapping
from dataclasses import field
from threading import get_ident
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from ..diagnostics import Diagnostic
from ..records import record
from ..sources.model import Registry, require_registry
from ..syntax.escapes import OffsetMap
from ..syntax.lines import line_starts
from ..syntax.types import LineRange
from .document import read_table, write_table
from .references import CitingPlace, Reference, RefUse, Use

if TYPE_CHECKING:
    from array import array

    from markdown_it.rules_core import StateCore
    from markdown_it.token import Token

    from ..syntax.types import Mark
    from .options import PluginOptions

__all__ = [
    "ENV_KEY",
    "BibliographyMeta",
    "CitationMeta",
    "CitationState",
    "CitingPlace",  # the values, from :mod:`.references`, where the rules' modules have them
    "RefUse",
    "Reference",
    "Use",
    "citation_meta",
    "citation_state",
    "document_rule",
    "keep",
    "new_state",
    "release",
]

ENV_KEY = "citerender"
T = TypeVar("T")


@record(compile_init=False)  # built a few times a process: no __init__ compiled at import
class CitationState:
    """Everything the plugin learns about one document."""

    registry: Registry | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    #: with ``RenderOptions.consulted``: the registry's sources never cited, for the second list
    consulted: list[Reference] = field(default_factory=list)
    by_id: dict[str, Reference] = field(default_factory=dict)
    by_url: dict[str, Reference] = field(default_factory=dict)
    places: int = 0
    marks: int = 0
    #: False while a stream renders block by block: document-wide checks wait for the end
    whole_document: bool = True
    unknown_ids: list[str] = field(default_factory=list)
    #: put before every HTML id (``RenderOptions.id_prefix`` plus ``-``)
    id_prefix: str = ""
    #: no registry was given: reported once, every reference unverified
    without_sources_reported: bool = False
    # positions: the text after markdown-it's normalisation, before escape normalisation
    original: str = ""
    offsets: OffsetMap = field(default_factory=OffsetMap)
    #: for the exports: (start, end, replacement) in the original text of every mark but citations
    spans: list[tuple[int, int, str]] | None = None
    #: with ``spans``: (start, end) of the code in the original text, where marker forms stay
    code: list[tuple[int, int]] = field(default_factory=list)
    #: with ``RenderOptions.evidence``: every group's :class:`~citerender.evidence.claims.Claim`
    claims: list[Any] = field(default_factory=list)
    #: per inline block: (token index, or -1 when it cites nothing; has text; cites), for placement
    blocks: list[tuple[int, bool, bool]] = field(default_factory=list)
    #: every mark read, in order: token ``meta["mark"]`` and ``meta["marks"]`` are indices into it
    mark_table: list[Mark] = field(default_factory=list)
    #: the document table in ``env`` (plain data) this state writes and is found by
    table: dict[str, Any] = field(default_factory=dict, repr=False)
    # the rules' own caches, by owner: their shapes are the owners' business (see :meth:`cache`)
    _line_starts: array[int] | None = field(default=None, repr=False)
    _caches: dict[str, Any] = field(default_factory=dict, repr=False)
    _parse_caches: dict[str, Any] = field(default_factory=dict, repr=False)
    _views: dict[Use, RefUse] = field(default_factory=dict, repr=False)  # :meth:`uses`', by row

    def __post_init__(self) -> None:
        self.registry = require_registry(self.registry)

    def begin(self, original: str, offsets: OffsetMap) -> None:
        """Start a (new) parse: positions refer to ``original`` from now on."""
        self.original = original
        self.offsets = offsets
        self._line_starts = None
        self._parse_caches.clear()

    def cache(self, owner: str, make: Callable[[], T], *, per_parse: bool = False) -> T:
        """The document's cache of the rule ``owner`` (made by ``make`` on first use);
        ``per_parse``: dropped when a new parse begins (it holds positions in the old text)."""
        caches = self._parse_caches if per_parse else self._caches
        found = caches.get(owner)
        if found is None:
            found = caches[owner] = make()
        return found

    def forget(self, owner: str) -> None:
        """Drop the rule ``owner``'s cache: what only speeds up the parse need not outlive it."""
        self._caches.pop(owner, None)

    def add_mark(self, mark: Mark) -> int:
        """Enter ``mark`` in the table; its index is what token meta holds."""
        self.mark_table.append(mark)
        return len(self.mark_table) - 1

    def mark(self, tok: Token) -> Mark:
        """The mark a ``citation`` (``citation_dropped``, highlight) token was read from."""
        k: int = tok.meta["mark"]
        return self.mark_table[k]

    def group_marks(self, tok: Token) -> list[Mark]:
        """Every mark of a citation group, in order."""
        table = self.mark_table
        return [table[k] for k in tok.meta["marks"]]

    def _view(self, u: Use) -> RefUse:
        """A group's use of a source, looked up (once per row: groups citing alike share it)."""
        ref = self.references[u.ref - 1]
        source = ref.source
        if source.id != u.source:
            source = next((s for s in ref.merged if s.id == u.source), source)
        lines = LineRange(*u.lines) if u.lines is not None else None
        found = self._views[u] = RefUse(ref, source, lines, u.valid)
        return found

    def reference(self, number: int) -> Reference:
        """The reference numbered ``number``: cited (``references``), or consulted after them."""
        cited = len(self.references)
        return self.references[number - 1] if number <= cited else self.consulted[number - cited - 1]

    def uses(self, tok: Token) -> list[RefUse]:
        """Every source a citation group cites, looked up (:meth:`_view`), in order."""
        views = self._views
        return [views.get(u) or self._view(u) for u in tok.meta["uses"]]

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of an offset into :attr:`original`."""
        if self._line_starts is None:
            self._line_starts = line_starts(self.original)
        k = bisect_right(self._line_starts, offset) - 1
        return k + 1, offset - self._line_starts[k] + 1

    def line_text(self, line: int) -> str:
        """The text of a 1-based line of :attr:`original`."""
        self.line_col(0)
        assert self._line_starts is not None
        start = self._line_starts[line - 1]
        end = self._line_starts[line] - 1 if line < len(self._line_starts) else len(self.original)
        return self.original[start:end]

    def report(self, code: str, message: str, offset: int | None) -> None:
        line, col = self.line_col(offset) if offset is not None else (1, 1)
        self.diagnostics.append(Diagnostic.make(code, message, line=line, column=col))


class _Recent(threading.local):
    """The working states of the documents this thread parsed or rendered last, by their table."""

    def __init__(self) -> None:
        self.states: OrderedDict[int, CitationState] = OrderedDict()


_RECENT = _Recent()
#: how many documents' working states a thread keeps at hand; an older one is built again from its table
KEEP = 8


#: the last state put at hand, with its thread and table: checked before the thread-local (~30 reads a render)
_LAST: tuple[int, Any, CitationState | None] = (0, None, None)


def keep(st: CitationState) -> CitationState:
    """Put ``st`` at hand (whoever holds a state calls this before running rules on it)."""
    global _LAST
    states = _RECENT.states
    key = id(st.table)
    states[key] = st
    states.move_to_end(key)
    while len(states) > KEEP:
        states.popitem(last=False)
    _LAST = (get_ident(), st.table, st)
    return st


def release(st: CitationState) -> None:
    """Take ``st`` off hand: its document is done, so nothing it holds outlives its caller."""
    global _LAST
    states = _RECENT.states
    if states.get(id(st.table)) is st:
        del states[id(st.table)]
    if _LAST[2] is st:
        _LAST = (0, None, None)


def new_state(env: MutableMapping[str, Any], registry: Registry | None = None) -> CitationState:
    """A new document in ``env``: its (empty) table, and its working state, at hand."""
    st = CitationState(registry=registry)
    env[ENV_KEY] = st.table
    return keep(st)


def citation_state(env: MutableMapping[str, Any], registry: Registry | None = None) -> CitationState:
    """The working state of the document in ``env``: at hand, built from its table
    (:func:`~.document.read_table`), or new (``registry`` seeds it)."""
    table = env.get(ENV_KEY)
    last = _LAST
    if last[1] is table and table is not None and last[0] == get_ident():
        return last[2]  # type: ignore[return-value]
    if table is not None:
        st = _RECENT.states.get(id(table))
        if st is not None and st.table is table:
            return st
    if not isinstance(table, dict) or not table.get("version"):
        return new_state(env, registry)
    st = CitationState(registry=registry)
    read_table(st, table)
    st.table = table
    return keep(st)


def document_rule(state: StateCore, *, opts: PluginOptions) -> None:
    """Core rule, the chain's last (``citerender_document``): the document table written into ``env``."""
    st = citation_state(state.env, opts.registry)
    write_table(st, st.table)


class CitationMeta(TypedDict, total=False):
    """``meta`` of a ``citation`` token (``mark`` and ``offset`` only: ``citation_dropped`` and
    ``citation_highlight_*``). The core rule writes it; render rules only read it."""

    mark: int  # the first mark of the group, by index in the state's ``mark_table`` (None on text tokens split from copy-paste forms)
    offset: int  # where the mark starts in the inline token's content
    offset_abs: int  # where it starts in the original text, computed when a report needs it
    place: tuple[int, bool]  # the block's first line and whether it is a fence: with ``content``, locates the mark
    content: str  # the inline content the mark sits in (``offset`` counts in it)
    span: tuple[int, int]  # (start, end) in the original text, when the exports ask for spans
    marks: list[int]  # every mark of the group, in order (indices into ``mark_table``)
    spans: list[tuple[int, int]]  # with the exports' spans only
    uses: list[Use]  # each cited source: its reference number, source id and locator
    in_link: bool  # inside link text: numbers are shown without their own links
    title: str | None  # a navlist's title
    anchor: str  # the HTML id of the citing place (``cite-N``)
    claims: list[int]  # with ``evidence``: the claims this group closes, by index in the state's ``claims``


class BibliographyMeta(TypedDict, total=False):
    """``meta`` of the ``citerender_bibliography`` token."""

    references: list[int]  # by number (the state's ``references``)
    consulted: list[int]  # sources consulted, not cited (``RenderOptions.consulted``), by number
    long: bool  # the answer fills pages: in print, the bibliography may start on a page of its own


def citation_meta(tok: Token) -> CitationMeta:
    """A citation token's ``meta``, typed."""
    return tok.meta  # type: ignore[return-value]
