"""Sphinx extension for MyST documents: ``extensions = ["myst_parser", "citerender.sphinx"]``.

MyST builds its own markdown-it-py parser and takes no outside plugins through its settings, so
the extension hooks Sphinx instead: ``source-read`` runs citerender on each Markdown document
(sources from front matter or a sidecar) and leaves placeholder words; ``doctree-resolved``
turns them into raw HTML nodes (citations, bibliography; in headings they are dropped). The CSS is added once as
``_static/citerender.css``.

Settings (``conf.py``): ``citerender_style`` (``hovercard``), ``citerender_theme``
(``minimal``), ``citerender_unknown`` (``drop``), ``citerender_heading`` (``Sources``),
``citerender_id_prefix`` (``auto``: the document's name, so ``singlehtml`` keeps ids unique),
``citerender_repo`` and ``citerender_repo_url`` (Codex file citations), ``citerender_consulted``
(``False``: list the sources never cited after the bibliography), ``citerender_dialect``
(``None``: the citations are a RAG framework's numbers, ``azure`` ``[doc1]`` …),
``citerender_source_views`` (``True``: with the ``html`` and ``dirhtml`` builders, a page per cited
source beside its document, ``sources/NAME/ID.html``, its cited lines highlighted and linked from
the cards). Error diagnostics are
Sphinx warnings with the document and line (``-W`` fails on them); the ``_sources`` copies are
written without markers.
"""

from __future__ import annotations

import re
from dataclasses import replace
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
from .host import host_css, page_prefix, prepare_page
from .source_pages import view_pages, views_href, write_site_views

CSS_NAME = "citerender.css"
#: the source views' pages are citerender's own: their stylesheet follows the reader's colour scheme
VIEWS_CSS = "_static/citerender-sources.css"
_PH = re.compile(r"CITERENDERSPHINX(?:P\d+|BIB)X")


_DEFAULTS = RenderOptions()


def _options(app: Any) -> RenderOptions:
    """The project's options, built once per build from ``conf.py``."""
    opts = getattr(app, "citerender_options", None)
    if opts is None:
        repo = app.config.citerender_repo
        if repo and not Path(repo).is_absolute():  # relative to conf.py, as Sphinx's own paths
            repo = str(Path(app.confdir) / repo)
        prefix = app.config.citerender_id_prefix
        opts = app.citerender_options = RenderOptions.build(
            style=app.config.citerender_style,
            theme=_theme(app.config.citerender_theme),
            unknown=app.config.citerender_unknown,
            repo=repo,
            repo_url=app.config.citerender_repo_url,
            id_prefix=None if prefix == "auto" else prefix,
            evidence=app.config.citerender_check_support != "off" or None,
            consulted=bool(app.config.citerender_consulted) or None,
            dialect=app.config.citerender_dialect or None,
        )
    return opts


def _theme(name: str) -> str:
    """``citerender_theme``, or the built-in one when it cannot be used (a theme that reads outside
    its folder…): said as a warning (``-W`` fails on it), since Sphinx shows any exception that
    stops a build as a crash report."""
    try:
        load_theme(name)  # its folder checked: every file of it its own, regular files only
    except CiterenderError as e:
        from sphinx.util import logging

        logging.getLogger(__name__).warning(visible(f"citerender_theme is not used, the built-in theme is: {e}"))
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
    from sphinx.util import logging

    log = logging.getLogger(__name__)
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
    opts = _options(app)
    if app.config.citerender_id_prefix == "auto":  # singlehtml joins every document into one page
        opts = replace(opts, id_prefix=page_prefix(docname))
    page = _views_page(app, docname)
    if page is not None:
        opts = replace(opts, source_views=views_href(page))
    result, problems, _ = prepare_page(
        body, meta, path, Path(app.srcdir), opts, token="SPHINX", name=docname, heading=app.config.citerender_heading
    )
    for problem in problems:
        log.warning(problem, location=docname)
    # a warning is what ``sphinx-build -W`` fails on: errors, the support checks when asked
    # (citerender_check_support = "error"), and a page without sources under -W
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
    """The page ``docname`` is written to, for its source views (``citerender_source_views``): a
    page of the ``html`` or ``dirhtml`` builder (``guide/a.html``, ``guide/a/index.html``); None for
    any other builder, whose pages the views could not link back to."""
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
        pos = 0
        for m in _PH.finditer(value):
            if m.start() > pos:
                parts.append(nodes.Text(value[pos : m.start()]))
            snippet = page["html"].get(m.group(0))
            if snippet:
                parts.append(nodes.raw("", snippet, format="html"))
            pos = m.end()
        if pos < len(value):
            parts.append(nodes.Text(value[pos:]))
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

    write_atomic(Path(app.outdir) / "_static" / CSS_NAME, host_css(_css(app)), make_parents=True)
    views = {rel: html for page in _store(app.env).values() for rel, html in page.get("views", {}).items()}
    if views:
        from sphinx.util import logging

        for problem in write_site_views(Path(app.outdir), views, VIEWS_CSS, _css(app)):
            logging.getLogger(__name__).warning(visible(problem))


def _css(app: Any) -> str:
    """The theme's CSS (made dark when the page is, not the system, by :func:`host_css`), or the
    built-in theme's when it cannot be read (said as a warning)."""
    try:
        return str(load_theme(_options(app).theme).css)
    except CiterenderError as e:
        from sphinx.util import logging

        logging.getLogger(__name__).warning(visible(f"citerender_theme is not used, the built-in theme is: {e}"))
        return str(load_theme(_DEFAULTS.theme).css)


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
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("citerender")
    except PackageNotFoundError:
        ver = "0"
    return {"version": ver, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
