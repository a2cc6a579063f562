"""Citations for hosts whose Markdown parser is not ours (MkDocs, Sphinx/MyST, templates): each
citation group becomes a placeholder word the host's parser passes through, swapped for our HTML
once the host has rendered the page. In code only the invisible marker characters go.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from ..diagnostics import Diagnostic, Severity, in_file
from ..errors import failure_of
from ..options import RenderOptions
from ..plugin.bibliography import render_consulted
from ..plugin.state import Reference
from ..rendering.exports.markdown import guard_markdown, to_stripped
from ..rendering.exports.parsed import parse_answer, rewrite
from ..rendering.pipeline import pipeline
from ..rendering.themes import load_theme
from ..sources.model import Registry
from ..syntax.escapes import visible
from ..syntax.guide import strip_citations
from ..syntax.residue import remove_residue
from .answers import registry_for, sources_file
from .source_pages import views_href

__all__ = ["Transformed", "host_options", "page_options", "page_prefix", "prepare_page", "transform_for_host"]


def host_options(config: Mapping[str, Any], prefix: str, folder: Path, *, theme: str, check: str) -> RenderOptions:
    """The options a host's settings give (``config[prefix + "style"]`` …): ``repo`` relative to
    ``folder`` (the host's configuration file's, as its own paths), ``id_prefix`` ``auto`` left to
    each page (:func:`prepare_page`), the support checks on unless ``check`` is ``off``."""
    repo = config[prefix + "repo"]
    if repo and not Path(repo).is_absolute():
        repo = str(folder / repo)
    id_prefix = config[prefix + "id_prefix"]
    return RenderOptions.build(
        style=config[prefix + "style"],
        theme=theme,
        unknown=config[prefix + "unknown"],
        repo=repo,
        repo_url=config[prefix + "repo_url"],
        id_prefix=None if id_prefix == "auto" else id_prefix,
        evidence=check != "off" or None,
        consulted=bool(config[prefix + "consulted"]) or None,
        dialect=config[prefix + "dialect"] or None,
    )


def page_prefix(name: str) -> str:
    """An id prefix from a page's name (``guide/remote.md`` → ``guide-remote``), so that pages
    joined into one (Sphinx's singlehtml, MkDocs print-site) keep every id unique."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", name.rsplit(".", 1)[0] if "." in name else name).strip("-_")
    slug = slug[:48].rstrip("-_") or "page"
    return slug if slug[0].isalpha() else "p" + slug


def page_options(options: RenderOptions, name: str, auto_prefix: bool, views_page: str | None) -> RenderOptions:
    """A host page's options: with ``auto_prefix`` its ids prefixed by its ``name``; with
    ``views_page`` (its path in the site) its citations linking its source views."""
    if auto_prefix:
        options = replace(options, id_prefix=page_prefix(name))
    return options if views_page is None else replace(options, source_views=views_href(views_page))


@dataclass
class Transformed:
    """The host-ready Markdown and what to put back into the host's HTML."""

    markdown: str
    token: str
    html: dict[str, str] = field(default_factory=dict)
    bibliography: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    path: str = "<page>"
    stripped: str = ""  # the page without any marker, code as written (a host's copy of the source)
    references: list[Reference] = field(default_factory=list)  # as the bibliography lists them (source views)

    def for_host(
        self, *, check_support: str = "off", strict: bool = False, first_line: int = 1, place: bool = True
    ) -> list[tuple[str, str, int | None]]:
        """Each diagnostic as ``(level, "path:line:col: CODE [severity] message", line)`` for a host's
        logger, safe for a terminal, lines counted from ``first_line`` (``place=False``: no
        ``path:line:col:``). ``warning``, what a strict host build fails on: errors; the support checks
        when ``check_support`` is ``error``; CR112 when ``strict``. Other warnings ``info``, the rest ``debug``."""
        out: list[tuple[str, str, int | None]] = []
        for d in in_file(self.diagnostics, first_line):
            text = d.format(self.path) if place else f"{d.code} [{d.severity.value}] {d.message}"
            if (
                d.severity is Severity.ERROR
                or (d.code in SUPPORT_CODES and check_support == "error")
                or (d.code == "CR112" and strict)
            ):
                level = "warning"
            elif d.severity is Severity.WARNING or d.code in SUPPORT_CODES:
                level = "info"
            else:
                level = "debug"
            out.append((level, visible(text), d.line))
        return out

    @property
    def bib_placeholder(self) -> str:
        return f"CITERENDER{self.token}BIBX"

    def fill(self, html: str) -> str:
        """Swap the placeholders in the host's HTML for citations and the bibliography."""
        if self.bibliography:
            html = re.sub(rf"<p>\s*{self.bib_placeholder}\s*</p>", lambda m: self.bibliography, html)
            html = html.replace(self.bib_placeholder, self.bibliography)
        for ph, snippet in self.html.items():
            html = html.replace(ph, snippet)
        return self.strip_placeholders(html)

    def strip_placeholders(self, text: str) -> str:
        """Remove placeholders the host copied elsewhere (heading slugs, tables of contents)."""
        return re.sub(rf"CITERENDER{self.token}(?:P\d+|BIB)X", "", text, flags=re.I)


#: where a host page says it is dark: MkDocs Material's slate scheme, Furo's and pydata's data-theme
HOST_DARK = '[data-md-color-scheme="slate"], [data-theme="dark"]'
#: where a host page follows the reader's system (Furo's and pydata's "auto")
HOST_AUTO = '[data-theme="auto"]'
_DARK_MEDIA = "@media (prefers-color-scheme: dark)"


def host_css(css: str) -> str:
    """A theme's CSS for a host's page: our dark blocks apply under the host's dark scheme
    (:data:`HOST_DARK`), and under the system's only where the host follows it (:data:`HOST_AUTO`);
    a host that says neither (Sphinx's alabaster) stays light, as its page does."""
    out, pos = [], 0
    while (start := css.find(_DARK_MEDIA, pos)) != -1:
        open_at = css.index("{", start)
        depth, i = 1, open_at + 1
        while depth and i < len(css):
            depth += {"{": 1, "}": -1}.get(css[i], 0)
            i += 1
        rules = [r.strip().split("{", 1) for r in css[open_at + 1 : i - 1].split("}") if "{" in r]
        auto = _scoped(rules, HOST_AUTO, "  ")
        out.append(css[pos:start] + _scoped(rules, HOST_DARK) + f"\n{_DARK_MEDIA} {{\n{auto}\n}}")
        pos = i
    out.append(css[pos:])
    return "".join(out)


def _scoped(rules: list[list[str]], host: str, indent: str = "") -> str:
    """CSS rules (selector, declarations) applied only inside the host's ``host`` element."""
    return "\n".join(f"{indent}:is({host}) :is({sel.strip()}) {{{body}}}" for sel, body in rules)


#: the support checks (does the cited passage back the claim?): opt-in where pages are published
SUPPORT_CODES = frozenset({"CR401", "CR402", "CR403", "CR404", "CR405", "CR406"})
#: what a host's ``check_support`` setting may be: off, reported (info), or failing a strict build
SUPPORT_LEVELS = ("off", "report", "error")


def transform_for_host(
    markdown: str,
    registry: Registry | None,
    options: RenderOptions | None = None,
    *,
    token: str = "CR",
    path: str = "<page>",
    heading: str = "Sources",
) -> Transformed:
    """Parse ``markdown`` and prepare it for a host parser (see the module docstring)."""
    opts = options or RenderOptions()
    th = load_theme(opts.theme)
    parsed = parse_answer(markdown, registry, opts)  # unknown="error" is kept there, as in every export
    p = pipeline(replace(opts, bibliography=False))
    out = Transformed("", token, diagnostics=parsed.diagnostics, path=path, stripped=to_stripped(parsed))
    out.references = list(parsed.references)

    def placeholder(group: Token) -> str:
        ph = f"CITERENDER{token}P{len(out.html) + 1}X"
        out.html[ph] = p.html_inline([group], parsed)
        return ph

    text = guard_markdown(rewrite(parsed, placeholder))  # the host links what it reads: no unsafe or cut URL
    if parsed.references or parsed.state.consulted:
        cited = th.render_bibliography(parsed.references, opts.style, heading) if parsed.references else ""
        out.bibliography = cited + render_consulted(parsed.state.consulted)
        text = text.rstrip("\n") + f"\n\n{out.bib_placeholder}\n"
    out.markdown = text
    return out


def prepare_page(
    markdown: str,
    meta: dict[str, Any],
    path: Path,
    root: Path,
    options: RenderOptions,
    *,
    token: str,
    name: str,
    heading: str = "Sources",
) -> tuple[Transformed, list[str], list[Path]]:
    """A host's page ready for its parser, whatever is wrong with it: one page never stops the site.

    Sources that cannot be used are reported and the page is rendered without them; a page that
    cannot be rendered at all keeps its text, every marker removed. Returns the page, the problems
    (for the host's warnings) and the sources files read."""
    problems: list[str] = []
    try:
        registry, used = registry_for(meta, path, root)
    except Exception as e:  # a CiterenderError (bad sources), or a bug of ours: the page is still built
        registry, used = None, _named_file(meta, path, root)
        problems.append(f"the page's sources were not used, it is rendered without them: {failure_of(e)}")
    try:
        result = transform_for_host(markdown, registry, options, token=token, path=name, heading=heading)
    except Exception as e:  # the answer is over a limit, or a bug of ours
        problems.append(f"citations were not rendered, every marker was removed: {failure_of(e)}")
        plain = remove_residue(strip_citations(markdown))
        result = Transformed(plain, token, path=name, stripped=plain)
    return result, [visible(p) for p in problems], used


def _named_file(meta: dict[str, Any], path: Path, root: Path) -> list[Path]:
    """The sources file inside ``root`` a page names, even one that cannot be used: it is the
    site's input, never published as a file of the site."""
    try:
        target = sources_file(meta, path, root)
        return [target] if target is not None and target.is_file() else []
    except Exception:  # outside the docs, or not even a path: nothing of the site's to keep back
        return []
