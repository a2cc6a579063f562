"""The numbered citation forms of RAG frameworks, read only when named (``dialect=``, ``--from``,
or a provider adapter's registry): Azure ``[doc1]``; DeepSeek ``[citation:1]``; RAGFlow ``[ID:0]``
(``##0$$``); xAI / Onyx ``[[1]](url)``, ``[1](url)``; and ``[1]``, ``[1, 3]``, ``[2-4]``.

An inline rule before ``link`` (code keeps such text). Each number names the registry's source in
that place of its order (or :attr:`Registry.numbered`'s, or the one whose id is the label); a link
cites the source with its URL, else stays a link. A number naming nothing is the unknown id it
spells (CR101), never another source.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from markdown_it.rules_inline import StateInline

from ..sources.model import Registry
from ..syntax.types import Citation, Mark, MarkKind, parse_locator
from .options import PluginOptions
from .rules import count_marks
from .state import CitationState, citation_state

if TYPE_CHECKING:
    from ..formats import Format

__all__ = ["OPENERS", "active_dialect", "dialect_hint", "dialect_rule", "holds_form", "may_hold"]

#: where any dialect's form may start (the table's ``first`` characters; a test holds them equal),
#: so that the rule loads the table only for a document read in a dialect
OPENERS = "#[\u3010"
MAX_RANGE = 32  # ``[1-40]`` is no citation of forty sources


def active_dialect(opts: PluginOptions, st: CitationState) -> str | None:
    """The dialect this document is read in: the option, else its registry's provider's."""
    if opts.options.dialect is not None:
        return opts.options.dialect
    return st.registry.dialect if st.registry is not None else None


def may_hold(dialect: str | None, text: str) -> bool:
    """Could ``text`` hold a citation in ``dialect``? (Plain substring searches.)"""
    return dialect is not None and any(p in text for p in _entry(dialect).probes)


def holds_form(dialect: str, text: str) -> bool:
    """Does ``text`` write ``dialect``'s form anywhere (code included)?"""
    return _form(_entry(dialect)).search(text) is not None


def dialect_hint(text: str) -> str | None:
    """What to tell the reader when an answer citing nothing writes one of these forms."""
    if "[" not in text and "$$" not in text and "\u3010" not in text:  # every form needs one of them
        return None
    from ..formats import FORMATS

    for entry in FORMATS:
        dialect = entry.name
        m = _form(entry).search(text) if entry.kind == "dialect" and may_hold(dialect, text) else None
        if m is not None:
            return f"the answer writes {m.group(0)[:40]!r}: --from {dialect} (dialect={dialect!r}) reads such numbers"
    return None


def dialect_rule(opts: PluginOptions) -> Callable[[StateInline, bool], bool]:
    """Inline rule (before ``link``): a dialect citation becomes ``citation`` tokens."""

    def rule(state: StateInline, silent: bool) -> bool:
        pos = state.pos
        # silent (markdown-it measuring a link's text, ``[see [1]](url)``): not taken, or the bracket would end the link
        if silent or state.src[pos] not in OPENERS:
            return False
        st = citation_state(state.env, opts.registry)
        dialect = active_dialect(opts, st)
        entry = _entry(dialect) if dialect is not None else None
        if entry is None or state.src[pos] not in entry.first:
            return False
        m = _form(entry).match(state.src, pos, state.posMax)
        if m is None:
            return False
        numbers = _numbers(next(g for g in m.groups() if g is not None))  # the numbers: the group that matched
        url = m.groupdict().get("url")
        if not numbers:
            return False
        defined = state.env.get("references") or {}
        targets = _targets(st.registry, entry, numbers, url, defined)
        if targets is None:  # a link or reference the sources do not name: markdown-it's to read
            return False
        count_marks(st, len(targets))
        raw = m.group(0)
        for ids, locator in targets:
            lines = parse_locator(locator)[0] if locator else None
            cit = Citation(raw, opts.fmt.families[0], ids, locator, pos, m.end(), lines, entry.name)
            mk = Mark(MarkKind.CITATION, pos, m.end(), raw, citation=cit)
            state.push("citation", "", 0).meta = {"mark": st.add_mark(mk), "offset": pos}
        state.pos = m.end()
        return True

    return rule


def _numbers(written: str) -> list[int]:
    """``1, 3`` -> [1, 3]; ``2-4`` -> [2, 3, 4] (a range of at most :data:`MAX_RANGE`)."""
    out: list[int] = []
    for part in re.split(r"\s*,\s*", written.strip()):
        lo, _, hi = part.replace("\u2013", "-").partition("-")
        first, last = int(lo), int(hi.strip() or lo)
        if last < first or last - first >= MAX_RANGE:
            return []
        out.extend(n for n in range(first, last + 1) if n not in out)
    return out


def _targets(
    registry: Registry | None, entry: Format, numbers: list[int], url: str | None, defined: Mapping[str, object]
) -> list[tuple[tuple[str, ...], str | None]] | None:
    """The (source ids, locator) of each citation the numbers make (those without a locator are
    one); ``None`` (markdown-it's) when a link names no source, or a bare number none but the
    answer defines it as a link reference (``[1]: url``)."""
    plain: list[str] = []
    located: list[tuple[tuple[str, ...], str | None]] = []
    for n in numbers:
        found = _target(registry, entry, n, url)
        if found is None:
            if url is not None or (entry.name == "numbered" and str(n) in defined):
                return None
            found = (entry.label.format(n), None)  # an unknown id: reported, never another source
        sid, locator = found
        if locator is None:
            if sid not in plain:
                plain.append(sid)
        elif ((sid,), locator) not in located:
            located.append(((sid,), locator))
    return ([(tuple(plain), None)] if plain else []) + located


def _target(registry: Registry | None, entry: Format, n: int, url: str | None) -> tuple[str, str | None] | None:
    if registry is None:
        return None
    if url is not None:  # a link cites the source with its URL; another link stays a link
        by_url: dict[str, str] = registry.derived("dialects.urls", lambda: ids_by_url(registry))
        return (by_url[url], None) if url in by_url else None
    index = n - entry.base
    if registry.numbered:
        return registry.numbered[index] if 0 <= index < len(registry.numbered) else None
    label = entry.label.format(n)
    if label in registry:
        return label, None
    order: tuple[str, ...] = registry.derived("dialects.order", lambda: tuple(registry))
    return (order[index], None) if 0 <= index < len(order) else None


def _entry(dialect: str) -> Format:
    """The dialect's entry in the one table (its form, probes, label, first characters, base)."""
    from ..formats import find

    entry = find(dialect)
    if entry is None or entry.form is None:
        raise ValueError(f"{dialect!r} is no dialect")
    return entry


def _form(entry: Format) -> re.Pattern[str]:
    if entry.form is None:
        raise ValueError(f"{entry.name} is no dialect")
    return entry.form


def ids_by_url(registry: Registry, clean: Callable[[str], str] = str) -> dict[str, str]:
    """The first registry id of each URL (as ``clean`` writes it)."""
    out: dict[str, str] = {}
    for source in registry.values():
        if source.url:
            out.setdefault(clean(source.url), source.id)
    return out
