"""Citations for hosts whose Markdown parser is not ours (MkDocs, Sphinx/MyST, templates).

The answer is parsed by citerender, each citation group is replaced by a placeholder word the
host's parser passes through untouched, and after the host has rendered the page the
placeholders are swapped for citerender's HTML. In code only the invisible marker characters go.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from ..diagnostics import Diagnostic, Severity, in_file
from ..errors import CiterenderError, internal_failure
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

__all__ = ["Transformed", "page_prefix", "prepare_page", "transform_for_host"]


def page_prefix(name: str) -> str:
    """An id prefix from a page's name (``guide/remote.md`` → ``guide-remote``), so that pages
    joined into one (Sphinx's singlehtml, MkDocs print-site) keep every id unique."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", name.rsplit(".", 1)[0] if "." in name else name).strip("-_")
    slug = slug[:48].rstrip("-_") or "page"
    return slug if slug[0].isalpha() else "p" + slug


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

    def messages(self, *, first_line: int = 1, place: bool = True) -> list[tuple[Severity, str, int | None]]:
        """Each diagnostic as ``(severity, "path:line:col: CODE [severity] message", line)`` with
        lines counted in the whole file (the body starts at ``first_line``, after front matter);
        ``place=False`` leaves ``path:line:col:`` out (a host that prints the location itself).
        Safe for a terminal: control and marker characters are named, never sent."""
        out: list[tuple[Severity, str, int | None]] = []
        for d in in_file(self.diagnostics, first_line):
            text = d.format(self.path) if place else f"{d.code} [{d.severity.value}] {d.message}"
            out.append((d.severity, visible(text), d.line))
        return out

    def for_host(
        self, *, check_support: str = "off", strict: bool = False, first_line: int = 1, place: bool = True
    ) -> list[tuple[str, str, int | None]]:
        """Each diagnostic as ``(level, message, line)`` for a host's logger, where ``warning`` is
        what the host's strict mode (``mkdocs build --strict``, ``sphinx-build -W``) fails on:
        errors always; the support checks (CR401–CR406) when ``check_support`` is ``error``; a page
        rendered without sources (CR112) when the build is ``strict``. Other warnings are ``info``,
        the rest ``debug``."""
        out: list[tuple[str, str, int | None]] = []
        for d, (severity, text, line) in zip(
            in_file(self.diagnostics, first_line), self.messages(first_line=first_line, place=place), strict=True
        ):
            if (
                severity is Severity.ERROR
                or (d.code in SUPPORT_CODES and check_support == "error")
                or (d.code == "CR112" and strict)
            ):
                level = "warning"
            elif severity is Severity.WARNING or d.code in SUPPORT_CODES:
                level = "info"
            else:
                level = "debug"
            out.append((level, text, line))
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
    """A theme's CSS for a page citerender does not own: the host, not the reader's system, says
    when it is dark. Each ``@media (prefers-color-scheme: dark)`` block of ours applies under the
    host's dark scheme (:data:`HOST_DARK`), and under the system's only where the host follows it
    (:data:`HOST_AUTO`); a host that says neither (Sphinx's alabaster) stays light, as its page does."""
    out, pos = [], 0
    while (start := css.find(_DARK_MEDIA, pos)) != -1:
        open_at = css.index("{", start)
        depth, i = 1, open_at + 1
        while depth and i < len(css):
            depth += {"{": 1, "}": -1}.get(css[i], 0)
            i += 1
        inner = css[open_at + 1 : i - 1]
        rules = [r.strip() for r in inner.split("}") if "{" in r]
        dark = "\n".join(
            f":is({HOST_DARK}) :is({sel.strip()}) {{{body}}}" for sel, body in (r.split("{", 1) for r in rules)
        )
        auto = "\n".join(
            f"  :is({HOST_AUTO}) :is({sel.strip()}) {{{body}}}" for sel, body in (r.split("{", 1) for r in rules)
        )
        out.append(css[pos:start] + dark + f"\n{_DARK_MEDIA} {{\n{auto}\n}}")
        pos = i
    out.append(css[pos:])
    return "".join(out)


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
    counter = iter(range(1, 1_000_000))

    def placeholder(group: Token) -> str:
        ph = f"CITERENDER{token}P{next(counter)}X"
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

    Sources that cannot be used (a bad or missing id, a file outside ``root`` or missing, invalid
    JSON/YAML) are reported and the page is rendered without them, its citations unverified; a page
    citerender cannot render at all keeps its text, every marker removed. Returns the page, the
    problems (for the host's warnings, which its strict mode fails on) and the sources files read."""
    problems: list[str] = []
    try:
        registry, used = registry_for(meta, path, root)
    except Exception as e:  # a CiterenderError (bad sources), or a bug of ours: the page is still built
        registry, used = None, _named_file(meta, path, root)
        problems.append(f"the page's sources were not used, it is rendered without them: {_why(e)}")
    try:
        result = transform_for_host(markdown, registry, options, token=token, path=name, heading=heading)
    except Exception as e:  # the answer is over a limit, or a bug of ours
        problems.append(f"citations were not rendered, every marker was removed: {_why(e)}")
        plain = remove_residue(strip_citations(markdown))
        result = Transformed(plain, token, path=name, stripped=plain)
    return result, [visible(p) for p in problems], used


def _why(e: Exception) -> str:
    return str(e) if isinstance(e, CiterenderError) else internal_failure(e)


def _named_file(meta: dict[str, Any], path: Path, root: Path) -> list[Path]:
    """The sources file inside ``root`` a page names, even one that cannot be used: it is the
    site's input, never published as a file of the site."""
    try:
        target = sources_file(meta, path, root)
        return [target] if target is not None and target.is_file() else []
    except Exception:  # outside the docs, or not even a path: nothing of the site's to keep back
        return []
