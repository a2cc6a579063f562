"""Sphinx extension for MyST documents: ``extensions = ["myst_parser", "citerender.sphinx"]``.

MyST builds its own markdown-it-py parser and takes no outside plugins through its settings, so
the extension hooks Sphinx instead: ``source-read`` runs citerender on each Markdown document
(sources from front matter or a sidecar) and leaves placeholder words; ``doctree-read`` turns them
into raw HTML nodes (citations, bibliography; in headings they are dropped). The CSS is added once
as ``_static/citerender.css``. Settings are ``citerender_*`` in ``conf.py`` (``docs/publishing.md``);
error diagnostics are Sphinx warnings with the document and line (``-W`` fails on them); the
``_sources`` copies are written without markers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes

from ..errors import CiterenderError
from ..jobs.files import write_atomic
from ..options import RenderOptions
from ..rendering.themes import load_theme
from ..syntax.escapes import visible
from ..syntax.headings import first_heading
from .answers import split_front_matter
from .build_state import package_version
from .host import host_css, host_options, page_options, prepare_page
from .source_pages import view_pages, write_site_views

CSS_NAME = "citerender.css"
#: the source views' pages are citerender's own: their stylesheet follows the reader's colour scheme
VIEWS_CSS = "_static/citerender-sources.css"
_PH = re.compile(r"(CITERENDERSPHINX(?:P\d+|BIB)X)")


_DEFAULTS = RenderOptions()


def _log() -> Any:
    from sphinx.util import logging

    return logging.getLogger(__name__)


def _options(app: Any) -> RenderOptions:
    """The project's options, built once per build from ``conf.py``."""
    opts = getattr(app, "citerender_options", None)
    if opts is None:
        theme, check = _theme(app.config.citerender_theme), app.config.citerender_check_support
        opts = host_options(app.config, "citerender_", Path(app.confdir), theme=theme, check=check)
        app.citerender_options = opts
    return opts


def _theme(name: str) -> str:
    """``citerender_theme``, or the built-in one when it cannot be used (a theme that reads outside
    its folder…): said as a warning (``-W`` fails on it), since Sphinx shows any exception that
    stops a build as a crash report."""
    try:
        load_theme(name)  # its folder checked: every file of it its own, regular files only
    except CiterenderError as e:
        _log().warning(visible(f"citerender_theme is not used, the built-in theme is: {e}"))
        return str(_DEFAULTS.theme)
    return name


def _store(env: Any) -> dict[str, dict[str, Any]]:
    if not hasattr(env, "citerender_pages"):
        env.citerender_pages = {}
    return env.citerender_pages  # type: ignore[no-any-return]


def on_source_read(app: Any, docname: str, source: list[str]) -> None:
    """The document with placeholders for its citations; what is wrong with one document (its
    front matter, its sources, its markers) is a warning at that document, never an "Extension
    error" that stops the build (``-W`` fails on the warning)."""
    log = _log()
    path = Path(app.env.doc2path(docname))
    if path.suffix.lower() not in (".md", ".markdown"):
        return
    text = source[0]
    try:
        meta, body, first_line = split_front_matter(text, str(path))
    except CiterenderError as e:  # MyST reports the front matter too; its citations are still rendered
        log.warning(visible(f"the front matter was not read: {e}"), location=(docname, e.line) if e.line else docname)
        meta, body, first_line = {}, text, 1
    front = text[: len(text) - len(body)]
    page = _views_page(app, docname)  # ids prefixed by default: singlehtml joins every document into one page
    opts = page_options(_options(app), docname, app.config.citerender_id_prefix == "auto", page)
    result, problems, _ = prepare_page(
        body, meta, path, Path(app.srcdir), opts, token="SPHINX", name=docname, heading=app.config.citerender_heading
    )
    for problem in problems:
        log.warning(problem, location=docname)
    strict = bool(getattr(app, "_fail_on_warnings", None) or getattr(app, "warningiserror", False))  # Sphinx 9, older
    check = app.config.citerender_check_support
    for level, message, line in result.for_host(check_support=check, strict=strict, first_line=first_line, place=False):
        if level == "warning":
            log.warning(message, location=(docname, line) if line else docname)
        else:
            (log.info if level == "info" else log.debug)(message)
    views = {}
    if page is not None:
        title = first_heading(body) or docname
        views = view_pages(result.references, load_theme(opts.theme), page=page, title=title, css=VIEWS_CSS)
    _store(app.env)[docname] = {
        "html": result.html,
        "bib": result.bibliography,
        "source": front + result.stripped,
        "views": views,
    }
    source[0] = front + result.markdown


def _views_page(app: Any, docname: str) -> str | None:
    """The page ``docname`` is written to, for its source views: None unless they are on and the
    builder is ``html`` or ``dirhtml`` (``guide/a.html``, ``guide/a/index.html``)."""
    builder = getattr(app, "builder", None)
    if not app.config.citerender_source_views or builder is None or builder.name not in ("html", "dirhtml"):
        return None
    uri = str(builder.get_target_uri(docname))
    return uri + "index.html" if uri == "" or uri.endswith("/") else uri


def on_doctree_read(app: Any, doctree: nodes.document) -> None:
    """Placeholders become raw HTML; in titles they are dropped, so page titles, the toctree
    and relation links stay plain text (runs before Sphinx collects titles)."""
    page = _store(app.env).get(app.env.docname)
    if not page:
        return
    for para in list(doctree.findall(nodes.paragraph)):
        if para.astext().strip() == "CITERENDERSPHINXBIBX":
            para.replace_self(nodes.raw("", page["bib"], format="html") if page["bib"] else [])
    for text in list(doctree.findall(nodes.Text)):
        value = str(text)
        if "CITERENDERSPHINX" not in value:
            continue
        if isinstance(text.parent, nodes.title):
            text.parent.replace(text, nodes.Text(_PH.sub("", value)))
            continue
        parts: list[nodes.Node] = []
        for i, piece in enumerate(_PH.split(value)):  # text, placeholder, text, …
            snippet = page["html"].get(piece) if i % 2 else None
            if snippet:
                parts.append(nodes.raw("", snippet, format="html"))
            elif piece and not i % 2:
                parts.append(nodes.Text(piece))
        text.parent.replace(text, parts)


def on_merge(app: Any, env: Any, docnames: set[str], other: Any) -> None:
    _store(env).update({k: v for k, v in _store(other).items() if k in docnames})


def on_purge(app: Any, env: Any, docname: str) -> None:
    _store(env).pop(docname, None)


def on_build_finished(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    # "Show source" copies (``_sources/NAME.md.txt``) are the raw text: written without markers
    suffix = app.config.html_sourcelink_suffix
    for docname, page in _store(app.env).items():
        copy = Path(app.outdir) / "_sources" / (docname + Path(app.env.doc2path(docname)).suffix + suffix)
        if copy.is_file():
            write_atomic(copy, page["source"])

    css = load_theme(_theme(str(_options(app).theme))).css  # the built-in theme's if it cannot be read now
    write_atomic(Path(app.outdir) / "_static" / CSS_NAME, host_css(css), make_parents=True)
    views = {rel: html for page in _store(app.env).values() for rel, html in page.get("views", {}).items()}
    if views:
        for problem in write_site_views(Path(app.outdir), views, VIEWS_CSS, css):
            _log().warning(visible(problem))


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("citerender_style", _DEFAULTS.style, "html")
    app.add_config_value("citerender_theme", str(_DEFAULTS.theme), "html")
    app.add_config_value("citerender_unknown", _DEFAULTS.unknown, "html")
    app.add_config_value("citerender_heading", "Sources", "html")
    app.add_config_value("citerender_id_prefix", "auto", "html")
    app.add_config_value("citerender_repo", None, "html")
    app.add_config_value("citerender_repo_url", None, "html")
    app.add_config_value("citerender_check_support", "off", "html", types=frozenset({str}))
    app.add_config_value("citerender_consulted", False, "html")
    app.add_config_value("citerender_dialect", None, "html")
    app.add_config_value("citerender_source_views", True, "html")
    app.connect("source-read", on_source_read)
    app.connect("doctree-read", on_doctree_read, priority=400)
    app.connect("env-merge-info", on_merge)
    app.connect("env-purge-doc", on_purge)
    app.connect("build-finished", on_build_finished)
    app.add_css_file(CSS_NAME)
    return {"version": package_version(), "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
