"""One frozen value for every rendering setting, taken by every entry point (or built from its
keyword arguments), so all have the same defaults, chosen for a first-time user: footnotes (they
work without the theme's CSS, in print and read back by pandoc), unknown ids dropped and reported,
model HTML escaped, and images shown as text (a model cannot make readers' browsers fetch a URL).
"""

from __future__ import annotations

from dataclasses import fields, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args, runtime_checkable

from .lazy_re import lazy_compile
from .records import record
from .syntax.format import DEFAULT_FORMAT, CitationFormat

__all__ = [
    "DIALECTS",
    "ENGINE_REMOVED",
    "IMAGE_POLICIES",
    "MARKDOWN_PRESETS",
    "STYLES",
    "UNKNOWN_POLICIES",
    "ImagePolicy",
    "MarkdownPreset",
    "RenderOptions",
    "Style",
    "UnknownPolicy",
    "scorer_name",
    "unit_score",
]

Style = Literal["footnotes", "superscript", "hovercard", "pills", "sidenotes"]
UnknownPolicy = Literal["drop", "keep", "error"]
ImagePolicy = Literal["text", "keep"]
MarkdownPreset = Literal["full", "commonmark"]
MARKDOWN_PRESETS: tuple[str, ...] = get_args(MarkdownPreset)
if TYPE_CHECKING:
    from .formats import Kind

    #: the ``--from`` names of saved provider responses and of numbering dialects, read from
    #: :mod:`citerender.formats` when first asked for (:func:`__getattr__`)
    PROVIDERS: tuple[str, ...]
    DIALECTS: tuple[str, ...]
#: what an old ``engine=`` / ``--engine`` says: there is one pipeline now (CHANGELOG: "one pipeline")
ENGINE_REMOVED = (
    "the engine option was removed (CHANGELOG: one pipeline): every answer is rendered by markdown-it-py and "
    "citerender's plugin (the comrak engine was slower on densely cited answers); drop engine / --engine"
)
_ID_PREFIX = lazy_compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
#: ``auto``, ``page``, ``off``, or a relative folder URL (percent-encoded), no part starting with a dot
_SOURCE_VIEWS = lazy_compile(r"auto|page|off|(?:(?!\.)[A-Za-z0-9_.~%-]+/)+")
STYLES: tuple[str, ...] = get_args(Style)
UNKNOWN_POLICIES: tuple[str, ...] = get_args(UnknownPolicy)
IMAGE_POLICIES: tuple[str, ...] = get_args(ImagePolicy)


def __getattr__(name: str) -> tuple[str, ...]:
    """``PROVIDERS`` and ``DIALECTS``: the formats' table loads when one is asked for (a render
    that names no dialect never loads it)."""
    kinds: dict[str, Kind] = {"PROVIDERS": "response", "DIALECTS": "dialect"}
    if name not in kinds:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = _names(kinds[name])
    return value


def _names(kind: Kind) -> tuple[str, ...]:
    from .formats import names

    return names(kind)


@runtime_checkable
class SupportScorer(Protocol):
    """A model that rates how well a passage supports a claim (an entailment model a team
    already runs): 0 (contradicted or unrelated) to 1 (entailed). Used when configured, after
    the deterministic checks; below 0.5 a claim is unsupported (CR406). Nothing is downloaded."""

    def score(self, claim: str, evidence: str) -> float: ...


def scorer_name(scorer: object) -> str:
    """What names a scorer in reports: its ``name`` (``MODULE:NAME`` for ``--scorer``), else its class."""
    name = getattr(scorer, "name", None)
    return name if isinstance(name, str) and name else type(scorer).__qualname__


def unit_score(value: object) -> float | None:
    """A scorer's answer as a score: a number in [0, 1], else None (NaN fails both comparisons, an
    infinity one; a bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= float(value) <= 1.0:
        return None
    return float(value)


@record(frozen=True, compile_init=False)  # built a few times a process: no __init__ compiled at import
class RenderOptions:
    """How an answer is rendered.

    :param style: ``footnotes``, ``superscript``, ``hovercard``, ``pills`` (chips naming the
        source, as chat products show them, opening the same card) or ``sidenotes`` (each
        citation's sources in the margin beside its line; toggles on narrow screens).
    :param theme: a built-in theme name or a theme folder.
    :param unknown: ids the registry lacks: ``drop`` (removed, reported), ``keep`` (shown as
        unverified) or ``error`` (``render`` raises :class:`citerender.UnknownSourceError`).
    :param fmt: marker characters, citation families and id shape (``families`` lives here).
    :param bibliography: append the bibliography after the answer.
    :param list_all: list every registry source in the bibliography, cited or not.
    :param consulted: list the sources the answer never cites (a provider's search results,
        pages read, the rest of the registry) after the bibliography, under "Consulted, not
        cited": each source once, in one of the two lists.
    :param dialect: the citations are written in a RAG framework's numbered form (``azure``,
        ``deepseek``, ``ragflow``, ``numbered-links``, ``numbered``): each number names a source of
        the registry, in its order (or the source whose id or URL it names). Off: such text is
        ordinary Markdown, never guessed at.
    :param html: let raw HTML from the answer through (off: it is escaped).
    :param images: ``text`` shows Markdown images from the answer as ``[image: alt]``; ``keep``
        renders them (readers' browsers then fetch them).
    :param standalone: a complete page with the CSS inlined, instead of a fragment.
    :param markdown: ``full`` reads Markdown as models write it (tables, strikethrough, task
        lists, bare URLs, footnotes, math, highlighted code, heading anchors); ``commonmark`` is
        the strict CommonMark preset.
    :param id_prefix: put before every HTML id (``a1-cite-1``), so several answers share a page.
    :param repo: a repository checkout that Codex file citations (``【F:path†L10-L20】``) are read from.
    :param repo_url: the repository's web address; each file citation links to ``URL/path#L10-L20``.
    :param repo_include_hidden: read and quote hidden paths of the checkout too (``.env``, ``.git/…``;
        refused by default and reported as CR113).
    :param keep_code_residue: keep ChatGPT's copy residue (``:contentReference[oaicite:N]{index=N}``)
        inside code, for the rare page that documents it (off: removed there too, CR212).
    :param evidence: check that each cited passage supports its claim (CR401–CR406; always on
        in :func:`citerender.check`).
    :param mark_unsupported: give unsupported claims a visible, accessible flag and a note in
        the hover card, for an editor's review (turns ``evidence`` on).
    :param scorer: a :class:`SupportScorer` used with the deterministic checks.
    :param source_views: where the cited sources' texts are shown, their cited lines highlighted
        and linked from the cards: ``auto`` (on a standalone page, after the bibliography; none in
        a fragment), ``page`` (after the bibliography, fragment or not), ``off``, or a folder, a
        relative URL ending in ``/``, holding a page per source (``sources/a/``: site builds).
    """

    style: Style = "footnotes"
    theme: str | Path = "default"
    unknown: UnknownPolicy = "drop"
    fmt: CitationFormat = DEFAULT_FORMAT
    bibliography: bool = True
    list_all: bool = False
    consulted: bool = False
    dialect: str | None = None
    html: bool = False
    images: ImagePolicy = "text"
    standalone: bool = False
    markdown: MarkdownPreset = "full"
    id_prefix: str = ""
    repo: str | None = None
    repo_url: str | None = None
    repo_include_hidden: bool = False
    keep_code_residue: bool = False
    evidence: bool = False
    mark_unsupported: bool = False
    scorer: SupportScorer | None = None
    source_views: str = "auto"

    def __post_init__(self) -> None:
        choices = (
            ("style", STYLES),
            ("unknown", UNKNOWN_POLICIES),
            ("images", IMAGE_POLICIES),
            ("markdown", MARKDOWN_PRESETS),
        )
        for name, allowed in choices:
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
        if self.dialect is not None and self.dialect not in _names("dialect"):
            raise ValueError(f"dialect must be one of {', '.join(_names('dialect'))}, not {self.dialect!r}")
        if not isinstance(self.fmt, CitationFormat):
            raise TypeError(f"fmt must be a CitationFormat, not {type(self.fmt).__name__}")
        if self.id_prefix and not _ID_PREFIX.fullmatch(self.id_prefix):
            raise ValueError(
                f"id_prefix must be a letter then up to 63 letters, digits, '-' or '_', not {self.id_prefix[:80]!r}"
            )
        if self.source_views not in ("auto", "page", "off") and not _SOURCE_VIEWS.fullmatch(self.source_views):
            raise ValueError(
                f"source_views must be auto, page, off or a relative folder URL ending in '/', not {self.source_views[:80]!r}"
            )
        if self.mark_unsupported and not self.evidence:
            object.__setattr__(self, "evidence", True)
        if self.scorer is not None and not isinstance(self.scorer, SupportScorer):
            raise TypeError("scorer must have a score(claim, evidence) -> float method")
        if isinstance(self.repo, Path):
            object.__setattr__(self, "repo", str(self.repo))
        if self.repo is not None or self.repo_url is not None:
            from .sources.repo import Repository

            Repository(self.repo, self.repo_url)  # a missing checkout or an unsafe URL: said now

    @property
    def families(self) -> tuple[str, ...]:
        """The marker families read as citations (``fmt.families``)."""
        return self.fmt.families

    @classmethod
    def build(cls, base: RenderOptions | None = None, /, *, families: Any = None, **changes: Any) -> RenderOptions:
        """Options from keyword arguments, over ``base`` (or the defaults).

        ``families`` is a convenience for ``fmt=replace(fmt, families=…)``; ``None`` keeps the
        format's own families, so ``fmt=CitationFormat(families=("source",))`` is honoured.
        Unknown keywords are an error naming the valid ones.
        """
        if not changes and families is None:  # the common calls: options given whole, or none
            return base if base is not None else _defaults()
        names = {f.name for f in fields(cls)}
        if "engine" in changes:
            raise TypeError(ENGINE_REMOVED)
        unknown = sorted(set(changes) - names)
        if unknown:
            raise TypeError(f"unknown option(s) {', '.join(unknown)}; valid: families, {', '.join(sorted(names))}")
        opts = base or cls()
        changes = {k: v for k, v in changes.items() if v is not None}
        if changes:
            opts = replace(opts, **changes)
        if families is not None and tuple(families) != opts.fmt.families:
            opts = replace(opts, fmt=replace(opts.fmt, families=tuple(families)))
        return opts


def id_stem(prefix: str) -> str:
    """What the page's ids start with for ``id_prefix`` ``prefix``: nothing, or the prefix and a
    hyphen (``q1`` and ``q1-`` both give ``q1-cite-1``, never ``q1--cite-1``)."""
    if not prefix:
        return ""
    return prefix if prefix.endswith(("-", "_")) else prefix + "-"


@cache
def _defaults() -> RenderOptions:
    """The default options, made once (they are frozen): a render given none builds no new ones."""
    return RenderOptions()
