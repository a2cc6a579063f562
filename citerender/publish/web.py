"""One-call rendering for web back ends, and a Jinja2 filter (examples: ``docs/publishing.md``)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from markupsafe import Markup

from ..options import RenderOptions
from ..rendering.html import render
from ..rendering.themes import load_theme
from ..sources.files import load_sources
from ..sources.model import Registry, registry_from_data

__all__ = ["citations", "install_filter", "render_answer", "stylesheet"]

SourcesLike = Registry | str | Path | list[Any] | dict[str, Any] | None


def _registry(sources: SourcesLike) -> Registry | None:
    if sources is None or isinstance(sources, Registry):
        return sources
    if isinstance(sources, (str, Path)):
        return load_sources(sources)
    return registry_from_data(sources)


def render_answer(
    text: str, sources: SourcesLike = None, options: RenderOptions | None = None, **kwargs: Any
) -> Markup:
    """The answer as an HTML fragment, safe to insert in a page (link :func:`stylesheet`).

    ``options`` or keyword arguments as for :func:`citerender.render` (a fragment: ``standalone``
    is ignored)."""
    opts = replace(RenderOptions.build(options, **kwargs), standalone=False)
    return Markup(render(text, _registry(sources), opts).html)


def stylesheet(theme: str | Path = "default") -> str:
    """The CSS the fragments need (serve it, or inline it in a ``<style>``)."""
    return load_theme(theme).css


def citations(value: str, sources: SourcesLike = None, style: str | None = None, **options: Any) -> Markup:
    """Jinja2 filter: ``{{ answer | citations(sources, "hovercard") }}``."""
    return render_answer(str(value), sources, style=style, **options)


def install_filter(env: Any, name: str = "citations", **defaults: Any) -> None:
    """Register the ``citations`` filter on a Jinja2 environment (defaults apply to every use)."""
    env.filters[name] = partial(citations, **defaults) if defaults else citations
