"""Sources resolved against the registry and numbered by first citation; locators checked."""

from __future__ import annotations

from markdown_it.token import Token

from ..diagnostics import Diagnostic
from ..sources.model import Registry, Source
from ..syntax.marks import tidy_seam
from ..syntax.types import Citation, LineRange, Mark
from .copied import carried_source
from .locate import where
from .options import PluginOptions
from .state import CitationState, CitingPlace, Reference, Use

__all__ = ["drop_empty_groups", "forget_uses", "lookup", "reference_for", "repo_lookup", "report_uncited", "resolve"]


def reference_for(st: CitationState, source: Source, *, known: bool) -> Reference:
    """The reference numbered for ``source``: its own, one sharing its URL, or a new one."""
    ref = st.by_id.get(source.id)
    if ref is not None:
        return ref
    ref = st.by_url.get(source.url) if source.url else None
    if ref is None:
        ref = Reference(len(st.references) + 1, source, known, prefix=st.id_prefix)
        st.references.append(ref)
        if source.cleaned:  # what was cleaned as it was read: said once, where it is first cited
            st.report("CR114", f"source {source.id!r}: {'; '.join(source.cleaned)}", None)
        if source.url:
            st.by_url[source.url] = ref
    else:
        ref.merged.append(source)
        st.report("CR310", f"sources {ref.source.id!r} and {source.id!r} share a URL and are one reference", None)
    st.by_id[source.id] = ref
    return ref


def lookup(st: CitationState, sid: str, unknown: str, offset: int | Token | None) -> tuple[Source | None, bool]:
    """The source for ``sid`` and whether the registry knows it; an unknown id is reported (CR101)
    and, under ``unknown="drop"``, gives None. ``offset``: or the token, located only to report."""
    carried = carried_source(st, sid)  # a page a copied form names (issue 49): the text carries it
    if carried is not None:
        return carried, True
    registry = st.registry
    if registry is None:
        if not st.without_sources_reported:
            st.without_sources_reported = True
            st.report("CR112", "rendered without sources: no citation could be checked", None)
        return Source(sid), False
    source = registry.shown(sid)
    if source is not None:
        return source, True
    st.report("CR101", f"unknown source id {sid!r}", where(offset, st) if isinstance(offset, Token) else offset)
    st.unknown_ids.append(sid)
    return (None if unknown == "drop" else Source(sid)), False


def repo_lookup(st: CitationState, path: str, opts: PluginOptions, offset: int) -> tuple[Source, bool]:
    """The source for a Codex file citation, from the repository checkout or its web address, else
    the path itself (unverified); a file the checkout lacks is reported (CR113)."""
    ref = st.by_id.get(path)
    if ref is not None:
        return ref.source, ref.known
    found = opts.repository.file(path)
    if found.problem is not None:
        st.report("CR113", found.problem, offset)
    return found.source, found.found


def report_uncited(st: CitationState, *, list_all: bool = False, consulted: bool = False) -> None:
    """Every registry source never cited: listed and reported when cited without a place (CR510),
    else reported (CR308) and listed with ``list_all`` or as consulted with ``consulted``."""
    if st.registry is None:
        return
    cited = {s.id for r in st.references for s in [r.source, *r.merged]}
    never: list[str] = []
    for sid in st.registry:
        if sid in cited:
            continue
        raw = st.registry[sid]  # as displayed (shown) only when listed: most never-cited sources are not
        if raw.meta.get("listed") == "cited":
            st.report("CR510", f"source {sid!r} is cited without a place in the text: listed in Sources", None)
            reference_for(st, st.registry.shown(sid) or raw, known=True)
        elif consulted:
            never.append(sid)  # numbered once every reference is: after them
        else:
            st.diagnostics.append(_never_cited(st.registry, sid, ""))
            if list_all:
                reference_for(st, st.registry.shown(sid) or raw, known=True)
    if never:
        _list_consulted(st, never)


def _list_consulted(st: CitationState, never: list[str]) -> None:
    """The sources never cited, numbered after every reference, each page once."""
    assert st.registry is not None
    urls: set[str] = set()
    for sid in never:
        source = st.registry.shown(sid) or st.registry[sid]
        if source.url and (source.url in st.by_url or source.url in urls):
            continue  # the same page, already in one of the lists
        st.diagnostics.append(_never_cited(st.registry, sid, ": listed as consulted"))
        if source.url:
            urls.add(source.url)
        st.consulted.append(Reference(len(st.references) + len(st.consulted) + 1, source, prefix=st.id_prefix))


def _never_cited(registry: Registry, sid: str, how: str) -> Diagnostic:
    """CR308 for ``sid``: the same for every answer over ``registry``, so made once and kept with it."""
    made: dict[tuple[str, str], Diagnostic] = registry.derived("numbering.never-cited", dict)
    found = made.get((sid, how))
    if found is None:
        found = made[sid, how] = Diagnostic.make("CR308", f"source {sid!r} is never cited{how}")
    return found


#: the cache of :func:`resolve`: each numbered source's use, by (id, locator)
_USES = "numbering.uses"


def forget_uses(st: CitationState) -> None:
    """Drop :func:`resolve`'s table once a document is numbered (it would live through the HTML)."""
    st.forget(_USES)


def resolve(tok: Token, mk: Mark, st: CitationState, opts: PluginOptions) -> None:
    """Resolve one mark's sources against the registry and number them."""
    cit = mk.citation
    if cit is None:
        return
    meta = tok.meta
    # fast path: a source already numbered from the registry, its locator (if any) valid
    fast = st.registry is not None and cit.dialect != "codex"
    known_uses: dict[tuple[str, LineRange | None], Use] = st.cache(_USES, dict)
    for sid in cit.source_ids:
        use = _numbered_use(st, known_uses, sid, cit.lines) if fast else None
        if use is not None:
            st.references[use.ref - 1].places.append(CitingPlace(meta["anchor"], cit.lines, use.source))
            meta["uses"].append(use)
            continue
        source: Source | None
        if cit.dialect == "codex" and (st.registry is None or sid not in st.registry):
            source, known = repo_lookup(st, sid, opts, where(tok, st))
        else:
            source, known = lookup(st, sid, opts.options.unknown, tok)
        if source is None:
            continue
        lines = cit.lines
        valid = lines is not None and _locator_holds(st, tok, cit, sid, source, known)
        ref = st.by_id.get(sid) or reference_for(st, source, known=known)
        if not known:
            ref.unverified = _why_unverified(st, cit.dialect, opts)
        ref.places.append(CitingPlace(meta["anchor"], lines if valid else None, source.id))
        meta["uses"].append(Use(ref.number, source.id, (lines.first, lines.last) if lines else None, valid))


def _numbered_use(
    st: CitationState, known_uses: dict[tuple[str, LineRange | None], Use], sid: str, lines: LineRange | None
) -> Use | None:
    """The use of a registry source already numbered with a valid locator (if any), by (id, locator)."""
    use = known_uses.get((sid, lines))
    if use is not None or st.registry is None:
        return use
    ref = st.by_id.get(sid)
    source = st.registry.shown(sid) if ref is not None and ref.known else None
    if source is None or ref is None:
        return None
    if lines is not None and (lines.is_reversed or source.lines is None or not source.has_lines(lines)):
        return None
    span = (lines.first, lines.last) if lines is not None else None
    use = known_uses[sid, lines] = Use(ref.number, sid, span, lines is not None)
    return use


def _locator_holds(st: CitationState, tok: Token, cit: Citation, sid: str, source: Source, known: bool) -> bool:
    """Does the citation's line locator name lines ``source`` has? Each problem is reported
    (CR103 backwards, CR110 no numbered lines, CR102 out of range)."""
    lines = cit.lines
    assert lines is not None
    if lines.is_reversed:
        st.report("CR103", f"line range {cit.locator} runs backwards", where(tok, st))
    if cit.dialect == "codex" and source.lines is None:
        return True  # no checkout read: the path and lines are the reference as written
    if not known or (st.registry is None and cit.dialect != "codex"):
        return True
    if source.lines is None:
        st.report("CR110", f"{cit.locator} cites {sid!r}, which has no numbered lines", where(tok, st))
        return False
    if not source.has_lines(lines):
        st.report("CR102", f"{cit.locator} is outside {sid!r} (lines 1-{len(source.lines)})", where(tok, st))
        return False
    return True


def _why_unverified(st: CitationState, dialect: str, opts: PluginOptions) -> str:
    if dialect == "codex":
        return "not in the repository checkout" if opts.options.repo else "not checked against a repository checkout"
    return "not in the sources" if st.registry is not None else "rendered without sources"


def drop_empty_groups(tokens: list[Token], st: CitationState) -> list[Token]:
    """Remove citation groups left without a source and dropped marks' tokens, tidying each seam."""
    out: list[Token] = []
    seam = False
    for tok in tokens:
        if tok.type == "citation" and not tok.meta.get("uses"):
            if st.spans is not None:
                st.spans.extend(
                    (a, b, mk.text) for (a, b), mk in zip(tok.meta["spans"], st.group_marks(tok), strict=False)
                )
            seam = True
            continue
        if tok.type == "citation_dropped":
            seam = True
            continue
        if seam:
            _tidy(out[-1] if out else None, tok)
            seam = False
        out.append(tok)
    if seam:
        _tidy(out[-1] if out else None, None)
    return out


def _tidy(left: Token | None, right: Token | None) -> None:
    """Tidy the text tokens around a removal (``None``: the block's edge)."""
    if right is not None and right.type in ("softbreak", "hardbreak"):
        right_text = "\n"
    elif right is None:
        right_text = ""
    elif right.type == "text":
        right_text = right.content
    else:
        return
    if left is not None and left.type != "text":
        return
    new_left, new_right = tidy_seam(left.content if left is not None else "", right_text)
    if left is not None:
        left.content = new_left
    if right is not None and right.type == "text":
        right.content = new_right
