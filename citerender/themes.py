"""Themes: folders of Jinja2 templates and one CSS file, found in the wheel or given as a path.

A theme may hold only the files it changes: templates are looked up in the theme, then in the
built-in theme it names as ``base`` (``theme.toml``), then in ``default`` — a Jinja2 loader
chain, so overriding one template never means copying the rest. A theme changes looks, never
what is shown.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from .errors import CiterenderError
from .state import Reference
from .urls import safe_url

__all__ = ["Theme", "builtin_themes", "load_theme", "themes_root"]


def themes_root() -> Path:
    """The built-in themes: inside the installed package, or the checkout's top-level folder."""
    here = Path(__file__).resolve().parent
    for cand in (here / "themes", here.parent / "themes"):
        if (cand / "default").is_dir():
            return cand
    raise CiterenderError("built-in themes not found; the installation is incomplete")


def builtin_themes() -> list[str]:
    return sorted(p.name for p in themes_root().iterdir() if (p / "style.css").is_file())


def _letters(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


class Backlink(NamedTuple):
    """One back-link from a bibliography entry to a citing place."""

    anchor: str
    letter: str
    lines: str | None


class Entry(NamedTuple):
    """One bibliography entry as the templates see it."""

    number: int
    anchor: str
    title: str
    has_title: bool
    url: str | None
    url_text: str | None
    domain: str | None
    updated: str | None
    id: str
    known: bool
    merged: list[str]
    backlinks: list[Backlink]
    backlinks_html: Any  # Markup: the back-link list, built once in Python for speed


def _backlinks_html(number: int, backlinks: list[Backlink]) -> Any:
    """``↩ a b c`` with an accessible label per link (one plain ``↩`` for a single place)."""
    from markupsafe import Markup, escape

    arrow = "&#8617;&#xFE0E;"
    if not backlinks:
        return Markup("")
    if len(backlinks) == 1:
        b = backlinks[0]
        lines = f' <span class="citerender-ref-lines">{escape(b.lines)}</span>' if b.lines else ""
        return Markup(f'<span class="citerender-backlinks"><a href="#{escape(b.anchor)}" role="doc-backlink" '
                      f'aria-label="Back to the text citing source {number}">{arrow}</a>{lines}</span>')
    parts = [f'<span class="citerender-backlinks"><span aria-hidden="true">{arrow}</span>']
    for b in backlinks:
        parts.append(f' <a href="#{escape(b.anchor)}" role="doc-backlink" '
                     f'aria-label="Back to citation {b.letter} of source {number}">{b.letter}</a>')
        if b.lines:
            parts.append(f' <span class="citerender-ref-lines">({escape(b.lines)})</span>')
    parts.append("</span>")
    return Markup("".join(parts))


@dataclass(frozen=True)
class Theme:
    """A resolved theme: its folders, most specific first."""

    name: str
    dirs: tuple[Path, ...]

    @cached_property
    def env(self) -> Any:
        import jinja2  # lazy: only rendering pays for it

        return jinja2.Environment(
            loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(d)) for d in self.dirs]),
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
        for d in self.dirs:
            f = d / "style.css"
            if f.is_file():
                return core + "\n" + f.read_text(encoding="utf-8")
        return core

    def bibliography_entries(self, references: Sequence[Reference]) -> list[Entry]:
        """Plain data for the bibliography template."""
        entries = []
        for ref in references:
            s = ref.source
            url = safe_url(s.url)
            backlinks: list[Backlink] = []
            seen: set[tuple[str, str | None]] = set()
            for place in ref.places:
                lines = place.lines.label() if place.lines else None
                if (place.anchor, lines) in seen:
                    continue
                seen.add((place.anchor, lines))
                backlinks.append(Backlink(place.anchor, _letters(len(backlinks)), lines))
            backlinks_html = _backlinks_html(ref.number, backlinks)
            entries.append(Entry(
                number=ref.number,
                anchor=ref.anchor,
                title=s.title or s.domain or s.url or s.id,
                has_title=bool(s.title),
                url=url,
                url_text=s.url if s.url and url is None else None,
                domain=s.domain if url else None,
                updated=s.updated,
                id=s.id,
                known=ref.known,
                merged=[m.title or m.id for m in ref.merged],
                backlinks=backlinks,
                backlinks_html=backlinks_html,
            ))
        return entries

    def render_bibliography(self, references: Sequence[Reference], *, style: str,
                            heading: str = "Sources") -> str:
        tpl = self.env.get_template("bibliography.html.j2")
        return str(tpl.render(entries=self.bibliography_entries(references), style=style, heading=heading))

    def render_page(self, body: str, *, title: str, css: str, lang: str = "en", css_href: str | None = None,
                    home_href: str | None = None) -> str:
        """A complete page: the CSS inlined, or linked when ``css_href`` is given (site builds)."""
        tpl = self.env.get_template("page.html.j2")
        safe_css = css.replace("</", "<\\/")
        return str(tpl.render(body=body, title=title, css=safe_css, lang=lang, css_href=css_href,
                              home_href=home_href))

    def render_index(self, pages: Sequence[Any], *, css_href: str, title: str = "Answers") -> str:
        """The index page of a site build: every page with its title and problem counts."""
        tpl = self.env.get_template("index.html.j2")
        return str(tpl.render(pages=pages, css_href=css_href, title=title))


@lru_cache(maxsize=32)
def load_theme(name_or_path: str | Path = "default") -> Theme:
    """A built-in theme by name, or a folder of the user's (with an optional ``theme.toml``)."""
    root = themes_root()
    p = Path(name_or_path)
    if isinstance(name_or_path, str) and (root / name_or_path / "style.css").is_file() and "/" not in name_or_path:
        dirs = [root / name_or_path]
        name = name_or_path
    elif p.is_dir():
        dirs = [p.resolve()]
        name = p.name
        base = "default"
        meta = p / "theme.toml"
        if meta.is_file():
            try:
                base = str(tomllib.loads(meta.read_text(encoding="utf-8")).get("base", "default"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
                raise CiterenderError(f"invalid theme.toml: {e}", path=str(meta)) from None
            if not (root / base / "style.css").is_file():
                raise CiterenderError(f"base theme {base!r} does not exist", path=str(meta),
                                      hint=f"use one of {', '.join(builtin_themes())}")
        if base != "default":
            dirs.append(root / base)
    else:
        raise CiterenderError(f"theme {str(name_or_path)!r} not found", path=str(name_or_path),
                              hint=f"use one of {', '.join(builtin_themes())} or a folder")
    if root / "default" not in dirs:
        dirs.append(root / "default")
    return Theme(name, tuple(dirs))
