"""MkDocs plugin (entry point ``citerender`` in ``mkdocs.plugins``).

MkDocs renders Markdown with Python-Markdown, not markdown-it-py, so the plugin works around
the parser instead of inside it: ``on_page_markdown`` parses the page with citerender, replaces
each citation group by a placeholder word (and markers in code by nothing), and
``on_page_content`` swaps the placeholders for the rendered citations and appends the
bibliography. Sources come from the page's front matter (``sources:`` inline or a path) or a
sidecar ``NAME.sources.{json,yaml}``. The theme's CSS is written once and added to
``extra_css``, so it works inside any MkDocs theme, Material included.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.plugins import BasePlugin

from ..options import STYLES, UNKNOWN_POLICIES, RenderOptions
from ..rendering.themes import load_theme
from ..syntax.escapes import visible
from .answers import registry_for
from .files import write_atomic
from .host import Transformed, transform_for_host

CSS_PATH = "assets/citerender.css"


_DEFAULTS = RenderOptions()


class CiterenderConfig(Config):  # type: ignore[no-untyped-call]
    style = c.Choice(STYLES, default=_DEFAULTS.style)
    theme = c.Type(str, default=str(_DEFAULTS.theme))
    unknown = c.Choice(UNKNOWN_POLICIES, default=_DEFAULTS.unknown)
    heading = c.Type(str, default="Sources")


class CiterenderPlugin(BasePlugin[CiterenderConfig]):  # type: ignore[no-untyped-call]
    """Render citation markers in MkDocs pages."""

    def __init__(self) -> None:
        self.pages: dict[str, Transformed] = {}
        self.token = secrets.token_hex(4).upper()
        self.options = _DEFAULTS

    def on_config(self, config: Any) -> Any:
        self.options = RenderOptions.build(
            style=self.config.style, theme=self.config.theme, unknown=self.config.unknown
        )
        if CSS_PATH not in config["extra_css"]:
            config["extra_css"].append(CSS_PATH)
        return config

    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Any) -> str:

        src = Path(page.file.abs_src_path)
        registry, _ = registry_for(page.meta or {}, src)
        result = transform_for_host(
            markdown, registry, self.options, token=self.token, path=str(src), heading=self.config.heading
        )
        for line in result.diagnostics:
            from mkdocs.plugins import get_plugin_logger

            get_plugin_logger(__name__).info(visible(line))
        self.pages[page.file.src_uri] = result
        return result.markdown

    def on_page_content(self, html: str, page: Any, config: Any, files: Any) -> str:
        result = self.pages.pop(page.file.src_uri, None)
        if result is None:
            return html
        _clean_toc(getattr(page, "toc", None) or [], result)
        return result.fill(html)

    def on_post_build(self, config: Any) -> None:

        write_atomic(Path(config["site_dir"]) / CSS_PATH, load_theme(self.config.theme).css, make_parents=True)


def _clean_toc(items: Any, result: Transformed) -> None:
    for item in items:
        item.title = result.strip_placeholders(item.title)
        if getattr(item, "id", None):
            item.id = result.strip_placeholders(item.id)
        _clean_toc(getattr(item, "children", []) or [], result)
