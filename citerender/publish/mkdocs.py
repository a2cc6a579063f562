"""MkDocs plugin (entry point ``citerender`` in ``mkdocs.plugins``).

MkDocs renders Markdown with Python-Markdown, so the plugin works around the parser:
``on_page_markdown`` replaces each citation group by a placeholder word (see :mod:`.host`),
``on_page_content`` swaps them for the rendered citations and the bibliography. The theme's CSS is
added to ``extra_css`` (any MkDocs theme, Material included); each cited source with lines gets a
page beside the page citing it (``source_views``).
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger

from ..errors import CiterenderError
from ..jobs.files import write_atomic
from ..options import DIALECTS, STYLES, UNKNOWN_POLICIES, RenderOptions
from ..rendering.themes import load_theme
from ..syntax.headings import first_heading
from .answers import SIDE_SUFFIXES, split_front_matter
from .host import SUPPORT_LEVELS, Transformed, host_css, host_options, page_options, prepare_page
from .source_pages import view_pages, write_site_views

CSS_PATH = "assets/citerender.css"
#: the source views' pages are citerender's own: their stylesheet follows the reader's colour scheme
VIEWS_CSS_PATH = "assets/citerender-sources.css"
SIDECAR = re.compile("(?:" + "|".join(re.escape(s) for s in SIDE_SUFFIXES) + ")$", re.I)


_DEFAULTS = RenderOptions()


class CiterenderConfig(Config):  # type: ignore[no-untyped-call]
    style = c.Choice(STYLES, default=_DEFAULTS.style)
    theme = c.Type(str, default=str(_DEFAULTS.theme))
    unknown = c.Choice(UNKNOWN_POLICIES, default=_DEFAULTS.unknown)
    heading = c.Type(str, default="Sources")
    #: ``auto``: ids prefixed with the page's path (pages joined into one stay unique); "" for none
    id_prefix = c.Type(str, default="auto")
    repo = c.Optional(c.Type(str))
    repo_url = c.Optional(c.Type(str))
    #: the support checks (CR401–CR406): ``off``, ``report`` (info), ``error`` (warnings: ``--strict``
    #: fails on them); YAML reads a bare ``off`` as false, ``on`` as true (``report``)
    check_support = c.Choice((*SUPPORT_LEVELS, False, True), default="off")
    #: list the sources a page's sources file gives but the page never cites, after its bibliography
    consulted = c.Type(bool, default=False)
    #: the pages' citations are a RAG framework's numbers (``azure`` [doc1], ``ragflow`` [ID:0], …)
    dialect = c.Optional(c.Choice(DIALECTS))
    #: a page per cited source (its text, the cited lines highlighted), linked from the cards
    source_views = c.Type(bool, default=True)


class CiterenderPlugin(BasePlugin[CiterenderConfig]):  # type: ignore[no-untyped-call]
    """Render citation markers in MkDocs pages."""

    def __init__(self) -> None:
        self.pages: dict[str, Transformed] = {}
        self.token = secrets.token_hex(4).upper()
        self.options = _DEFAULTS
        self.source_files: set[Path] = set()  # sources named in front matter: input, not output
        self.strict = False
        self.css = ""
        self.views: dict[str, str] = {}  # the source views' pages, by path in the site

    def on_config(self, config: Any) -> Any:
        folder = Path(config["config_file_path"] or ".").parent  # mkdocs.yml's, as MkDocs' own paths
        check = self._check_support()
        self.options = host_options(self.config, "", folder, theme=self.config.theme, check=check)
        self.strict = bool(config.get("strict"))
        self.views = {}
        try:  # a theme that cannot be used (one that reads outside its folder…) stops the build now, clearly
            self.css = host_css(load_theme(self.config.theme).css)  # dark when the page is, not the system
        except CiterenderError as e:
            raise PluginError(f"citerender: {e}") from None
        if CSS_PATH not in config["extra_css"]:
            config["extra_css"].append(CSS_PATH)
        return config

    def _check_support(self) -> str:
        value = self.config.check_support
        return "report" if value is True else "off" if value is False else str(value)

    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Any) -> str:
        """The page with placeholders for its citations; what is wrong with one page (its sources,
        its markers) is a warning at that page, never the end of the build (``--strict`` fails on it)."""
        src, uri = Path(page.file.abs_src_path), page.file.src_uri
        views = page.file.dest_uri if self.config.source_views else None
        opts = page_options(self.options, uri, self.config.id_prefix == "auto", views)
        result, problems, used = prepare_page(
            markdown, page.meta or {}, src, Path(config["docs_dir"]), opts,
            token=self.token, name=uri, heading=self.config.heading,
        )  # fmt: skip
        self.source_files.update(used)
        log = get_plugin_logger(__name__)
        for problem in problems:
            log.warning(f"{uri}: {problem}")
        for level, message, _ in result.for_host(
            check_support=self._check_support(), strict=self.strict, first_line=_first_line(page, result)
        ):
            getattr(log, level)(message)
        self.pages[uri] = result
        if views is not None:
            title = page.title or (page.meta or {}).get("title") or first_heading(markdown) or uri
            theme = load_theme(self.config.theme)
            self.views.update(view_pages(result.references, theme, page=views, title=str(title), css=VIEWS_CSS_PATH))
        return result.markdown

    def on_files(self, files: Any, config: Any) -> Any:
        """Sidecar sources (``NAME.sources.json``) are the build's input, never published."""
        for f in list(files):
            if SIDECAR.search(f.src_uri):
                files.remove(f)
        return files

    def on_page_content(self, html: str, page: Any, config: Any, files: Any) -> str:
        result = self.pages.pop(page.file.src_uri, None)
        if result is None:
            return html
        _clean_toc(getattr(page, "toc", None) or [], result)
        return result.fill(html)

    def on_post_build(self, config: Any) -> None:
        docs, site = Path(config["docs_dir"]).resolve(), Path(config["site_dir"])
        for used in self.source_files:  # a sources file that MkDocs copied as a static file
            copy = site / used.resolve().relative_to(docs)
            if copy.is_file():
                copy.unlink()

        write_atomic(site / CSS_PATH, self.css, make_parents=True)
        if self.views:
            css = load_theme(self.config.theme).css  # the views' own pages: dark when the reader's system is
            for problem in write_site_views(site, self.views, VIEWS_CSS_PATH, css):
                get_plugin_logger(__name__).warning(problem)


def _clean_toc(items: Any, result: Transformed) -> None:
    for item in items:
        item.title = result.strip_placeholders(item.title)
        if getattr(item, "id", None):
            item.id = result.strip_placeholders(item.id)
        _clean_toc(getattr(item, "children", []) or [], result)


def _first_line(page: Any, result: Transformed) -> int:
    """The file line the page's Markdown starts on (after its front matter), read again only when
    there is something to say; 1 when the front matter cannot be read (MkDocs shows it as text)."""
    if not result.diagnostics:
        return 1
    try:
        return split_front_matter(page.file.content_string, page.file.src_uri)[2]
    except CiterenderError:
        return 1
