"""Themes: folders of Jinja2 templates and one CSS file, built in or given as a path. A theme holds
only the files it changes: templates are looked up in it, then in the built-in theme it names as
``base`` (``theme.toml``), then in ``default``. A theme changes looks, never what is shown.
"""

from __future__ import annotations

import html
import os
import re
import stat
from collections.abc import Callable, Sequence
from functools import cache, cached_property, lru_cache, partial
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

from ..errors import CiterenderError
from ..lazy_re import lazy_compile
from ..plugin.bibliography import NOTE_STYLES, bibliography_entries, mark_after_long, render_bibliography
from ..plugin.state import Reference
from ..records import record
from ..sources.files import decode_text, read_bytes
from .page_markup import page_markup

__all__ = [
    "MAX_THEME_ENTRIES",
    "MAX_THEME_FILE_BYTES",
    "Theme",
    "builtin_themes",
    "check_theme_folder",
    "load_theme",
    "own_file",
    "themes_root",
]


@cache
def themes_root() -> Path:
    """The built-in themes: inside the installed package, or the checkout's top-level folder
    (resolved once: a page asks for it five times)."""
    package = Path(__file__).resolve().parent.parent
    for cand in (package / "themes", package.parent / "themes"):
        if (cand / "default").is_dir():
            return cand
    raise CiterenderError("built-in themes not found; the installation is incomplete")


def builtin_themes() -> list[str]:
    return sorted(p.name for p in themes_root().iterdir() if (p / "style.css").is_file())


class IndexEntry(NamedTuple):
    """One page as the index template sees it."""

    title: str
    href: str
    out: str
    errors: int
    warnings: int


_H1 = lazy_compile(r"<h1[\s>]", re.I)
_FIRST_HEADING = lazy_compile(r"^\s*<h[2-6][^>]*>(.*?)</h[2-6]>", re.S | re.I)
_TAG = lazy_compile(r"<[^>]*>")


def _first_heading_is(body: str, title: str) -> bool:
    m = _FIRST_HEADING.match(body)
    return m is not None and html.unescape(_TAG.sub("", m.group(1))).strip() == title.strip()


@record(frozen=True)
class Theme:
    """A resolved theme: its folders, most specific first."""

    name: str
    dirs: tuple[Path, ...]

    @cached_property
    def env(self) -> Any:
        import jinja2  # lazy: only rendering pays for it
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        # themes are shared like stylesheets: templates run sandboxed, and every one however it
        # is loaded (``{% include %}``, ``{% extends %}``) is read by :func:`own_file`
        return ImmutableSandboxedEnvironment(
            loader=jinja2.FunctionLoader(self._template_source),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )

    @cached_property
    def css(self) -> str:
        """The shared mechanics (``_core.css``: cards shown on hover/focus, print rules) and the
        most specific ``style.css`` in the chain."""
        core = (themes_root() / "_core.css").read_text(encoding="utf-8")
        own = next((own_file(d / "style.css", d, self.name) for d in self.dirs if (d / "style.css").is_file()), "")
        dark = "prefers-color-scheme: dark" in own  # dark code colours only where the page goes dark
        return "\n".join((core, code_css(dark=dark), views_css(dark=dark), own))

    def _template_source(self, name: str) -> tuple[str, str, Callable[[], bool]] | None:
        """Jinja2's loader: ``name`` from the first folder of the chain that has it (the folder
        itself, never a file a link in it points to outside it), with a check that it is unchanged."""
        from jinja2.loaders import split_template_path

        pieces = split_template_path(name)  # refuses "..": a name never climbs out of the folder
        for d in self.dirs:
            f = d.joinpath(*pieces)
            if f.is_file():
                return own_file(f, d, self.name), str(f), partial(_unchanged, f, f.stat().st_mtime_ns)
        return None

    def _own(self, template: str) -> bool:
        """Does the theme chain override the default theme's ``template`` (else it is written in
        Python, no Jinja2 loaded)?"""
        default = themes_root() / "default"
        for d in self.dirs:
            if (d / template).is_file():
                return d != default
        return False

    @cached_property
    def own_bibliography(self) -> bool:
        return self._own("bibliography.html.j2")

    @cached_property
    def own_page(self) -> bool:
        return self._own("page.html.j2")

    def render_bibliography(
        self, references: Sequence[Reference], style: str, heading: str = "Sources", *, after_long: bool = False
    ) -> str:
        """The bibliography: the theme's own template, or the built-in markup (no Jinja2)."""
        if not self.own_bibliography:
            return render_bibliography(references, style, heading, after_long=after_long)
        out = self._render(
            "bibliography.html.j2",
            entries=bibliography_entries(references, quotes=style in NOTE_STYLES),
            style=style,
            heading=heading,
        )
        return mark_after_long(out) if after_long else out

    def render_page(
        self,
        body: str,
        *,
        title: str,
        css: str,
        lang: str = "en",
        css_href: str | None = None,
        home_href: str | None = None,
        home_label: str = "All answers",
    ) -> str:
        """A complete page, the CSS inlined or linked (``css_href``); an answer without an ``h1``
        gets the title as one (for screen readers only when its first heading shows that text)."""
        safe_css = css.replace("</", "<\\/")
        heading = None if _H1.search(body) else ("sr" if _first_heading_is(body, title) else "shown")
        if not self.own_page:  # the default template's markup, without loading Jinja2 for it
            return page_markup(body, title, safe_css, lang, css_href, home_href, home_label, heading)
        return self._render(
            "page.html.j2",
            body=body,
            title=title,
            css=safe_css,
            lang=lang,
            css_href=css_href,
            home_href=home_href,
            home_label=home_label,
            heading=heading,
        )

    def render_index(self, pages: Sequence[Any], *, css_href: str, title: str = "Answers") -> str:
        """The index page of a site build: every page with its title and problem counts. Each
        ``href`` is percent-encoded and starts ``./``: ``javascript:alert(1).md`` links to itself."""
        entries = [IndexEntry(p.title, "./" + quote(p.out, safe="/"), p.out, p.errors, p.warnings) for p in pages]
        return self._render("index.html.j2", pages=entries, css_href=css_href, title=title)

    def render_conversation(self, turns: Sequence[Any], **meta: Any) -> str:
        """The body of a conversation page: its dates and counts, then each turn (``role``,
        ``who``, ``id``, rendered ``html``) styled by who speaks (``conversation.html.j2``)."""
        return self._render("conversation.html.j2", turns=turns, **meta)

    def render_conversation_index(
        self,
        conversations: Sequence[Any],
        *,
        css_href: str,
        title: str,
        search_script: str = "",
        search_hash: str = "",
        search_index: str = "[]",
    ) -> str:
        """The index of a conversation site, newest first, with its search box over
        ``search_index`` (JSON already safe inside a script element) (``conversations.html.j2``;
        the script runs only under the CSP hash given with it)."""
        from markupsafe import Markup

        return self._render(
            "conversations.html.j2",
            conversations=conversations,
            css_href=css_href,
            title=title,
            search_script=search_script,
            search_hash=search_hash,
            search_index=Markup(search_index),  # JSON with <, > and & written as \\u00XX: safe in a script element
        )

    def render_dataset_report(self, **context: Any) -> str:
        """The page of a dataset check (``dataset_report.html.j2``): headline measures per group,
        charts as inline SVG, frequent diagnostics, the worst answers."""
        return self._render("dataset_report.html.j2", **context)

    def _render(self, name: str, **context: Any) -> str:
        """A template of the theme; what a theme may not do (sandbox) or gets wrong is an error
        naming the theme and template, never a traceback."""
        import jinja2

        try:
            return str(self.env.get_template(name).render(**context))
        except jinja2.TemplateError as e:
            where = getattr(e, "filename", None) or name
            raise CiterenderError(
                f"theme {self.name!r}: {type(e).__name__}: {str(e)[:200]}",
                path=str(where),
                line=getattr(e, "lineno", None),
                hint="themes change looks: templates may use the values they are given, nothing else",
            ) from None


@lru_cache(maxsize=32)
def load_theme(name_or_path: str | Path | Theme = "default") -> Theme:
    """A built-in theme by name, or a folder of the user's (with an optional ``theme.toml``)."""
    if isinstance(name_or_path, Theme):
        return name_or_path
    root = themes_root()
    p = Path(name_or_path)
    if isinstance(name_or_path, str) and (root / name_or_path / "style.css").is_file() and "/" not in name_or_path:
        dirs = [root / name_or_path]
        name = name_or_path
    elif p.is_dir():
        dirs = [p.resolve()]
        name = p.name
        check_theme_folder(dirs[0], name)
        base = "default"
        meta = dirs[0] / "theme.toml"
        if meta.is_file():
            import tomllib  # a theme.toml is rare: read when there is one

            try:
                base = str(tomllib.loads(own_file(meta, dirs[0], name)).get("base", "default"))
            except tomllib.TOMLDecodeError as e:
                raise CiterenderError(f"invalid theme.toml: {e}", path=str(meta)) from None
            if base not in builtin_themes():  # a name, never a path (base = "../../elsewhere")
                raise CiterenderError(
                    f"base theme '{base[:100]}' does not exist",
                    path=str(meta),
                    hint=f"use one of {', '.join(builtin_themes())}",
                )
        if base != "default":
            dirs.append(root / base)
    else:
        raise CiterenderError(
            f"theme '{str(name_or_path)[:200]}' not found",
            path=str(name_or_path),
            hint=f"use one of {', '.join(builtin_themes())} or a folder",
        )
    if root / "default" not in dirs:
        dirs.append(root / "default")
    return Theme(name, tuple(dirs))


#: the largest template or stylesheet a theme may hold, and the most entries its folder may have
MAX_THEME_FILE_BYTES = 4 * 1024 * 1024
MAX_THEME_ENTRIES = 2_000


def _unchanged(f: Path, mtime: int) -> bool:
    """Is the template Jinja2 compiled from ``f`` still the file's text (its cache asks)?"""
    try:
        return f.stat().st_mtime_ns == mtime
    except OSError:
        return False


def own_file(f: Path, folder: Path, theme: str) -> str:
    """The text of ``f``, a file of the theme folder ``folder`` (resolved): refused, naming the
    file, when ``f`` (or a folder on its way) is a link to something outside the folder, or is
    not a regular file. A shared theme may not publish ``~/.aws/credentials`` through a link."""
    try:
        real = f.resolve(strict=True)
    except (OSError, RuntimeError):
        raise CiterenderError(f"theme {theme!r}: {f.name} cannot be read", path=str(f)) from None
    if not real.is_relative_to(folder):
        raise _outside(theme, f, real)
    return decode_text(read_bytes(real, limit=MAX_THEME_FILE_BYTES, what="theme file"), str(f), "theme file")


def _outside(theme: str, f: Path, real: Path) -> CiterenderError:
    return CiterenderError(
        f"theme {theme!r}: {f.name} is a link to {real}, outside the theme folder",
        path=str(f),
        hint="a theme reads only its own files: copy that file into the theme folder",
    )


def check_theme_folder(folder: Path, theme: str) -> None:
    """Refuse a theme folder (resolved) that holds a link to anything outside it, or anything but
    folders and regular files (a FIFO would block a build), before a page is rendered with it."""
    todo, seen = [folder], 0
    while todo:
        here = todo.pop()
        try:
            with os.scandir(here) as found:
                entries = list(found)
        except OSError as err:
            why = err.strerror or err
            raise CiterenderError(f"theme {theme!r}: cannot read {here.name}: {why}", path=str(here)) from None
        seen += len(entries)
        if seen > MAX_THEME_ENTRIES:
            raise CiterenderError(
                f"theme {theme!r}: the folder holds more than {MAX_THEME_ENTRIES:,} files",
                path=str(folder),
                hint="pass the theme's own folder (templates and style.css)",
            )
        for e in entries:
            todo += _checked_entry(e, folder, theme)


def _checked_entry(e: os.DirEntry[str], folder: Path, theme: str) -> list[Path]:
    """A folder to look into (``[]`` for a file), or the error that refuses the theme."""
    p = Path(e.path)
    try:
        if e.is_symlink():
            real = p.resolve()
            if not real.is_relative_to(folder):
                raise _outside(theme, p, real)
            return []
        if e.is_dir(follow_symlinks=False):
            return [p]
        regular = stat.S_ISREG(e.stat(follow_symlinks=False).st_mode)
    except (OSError, RuntimeError):  # gone meanwhile, or a loop of links
        raise CiterenderError(f"theme {theme!r}: {e.name} cannot be read", path=str(p)) from None
    if not regular:
        raise CiterenderError(
            f"theme {theme!r}: {e.name} is not a regular file (a FIFO, device or socket)",
            path=str(p),
            hint="a theme holds templates and style.css",
        )
    return []


@lru_cache(maxsize=2)
def code_css(*, dark: bool = True) -> str:
    """The highlighting colours of code blocks (``_code.css``, and ``_code-dark.css`` for themes
    that go dark), as :func:`citerender.rendering.full_preset.generated_highlight_css` wrote them."""
    light = (themes_root() / "_code.css").read_text(encoding="utf-8")
    return light + "\n" + (themes_root() / "_code-dark.css").read_text(encoding="utf-8") if dark else light


@lru_cache(maxsize=2)
def views_css(*, dark: bool = True) -> str:
    """The source views' stylesheet (``_source-view.css``; its dark half for themes that go dark)."""
    views = (themes_root() / "_source-view.css").read_text(encoding="utf-8")
    return views + "\n" + (themes_root() / "_source-view-dark.css").read_text(encoding="utf-8") if dark else views
