"""Source views as pages of a site (``build``, MkDocs, Sphinx): one page per cited source, in a
folder of its answer's own (``guide/a.html`` → ``guide/sources/a/turn0file0.html#L8-L13``), linked
relatively both ways. Two answers citing sources that share an id, not a text, each publish their
own; a source nobody cites has no view, so its text reaches no page.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..jobs.files import write_atomic
from ..plugin.source_links import view_file
from ..plugin.state import Reference
from ..rendering.html import answer_lang
from ..rendering.source_view import source_views
from ..rendering.source_view_html import view_html
from ..rendering.themes import Theme
from ..syntax.residue import clean_html
from .manifest import hash_bytes, refuse_overwrite

__all__ = [
    "VIEWS_FOLDER",
    "answer_pages_clash",
    "record_views",
    "view_pages",
    "views_folder",
    "views_href",
    "views_intact",
    "write_site_views",
    "write_views",
]

#: the folder beside an answer page that holds its sources' views
VIEWS_FOLDER = "sources"


def _split(page: str) -> tuple[str, str]:
    """A page's path (``guide/a.html``) as its folder (``guide/``, or empty) and its stem (``a``)."""
    folder, _, name = page.rpartition("/")
    stem = name[:-5] if name.lower().endswith(".html") else name
    return (folder + "/" if folder else ""), stem


def views_folder(page: str) -> str:
    """Where the views of the answer page ``page`` (a path in the site) are: ``guide/sources/a/``."""
    folder, stem = _split(page)
    return f"{folder}{VIEWS_FOLDER}/{stem}/"


def views_href(page: str) -> str:
    """The views folder as the answer page links to it (relative, percent-encoded): the
    ``source_views`` option of its render."""
    return f"{VIEWS_FOLDER}/{quote(_split(page)[1], safe='')}/"


def view_pages(references: Sequence[Reference], theme: Theme, *, page: str, title: str, css: str) -> dict[str, str]:
    """The view pages of the answer page ``page`` (titled ``title``), by path in the site: each a
    complete page linking the site's stylesheet ``css`` (a path in the site) and back to the answer."""
    views = source_views(references)
    if not views:
        return {}
    folder, href = views_folder(page), views_href(page)
    back = "../../" + quote(page.rpartition("/")[2])
    out = {}
    for v in views:
        rel = folder + view_file(v.reference, v.which)
        sample = " ".join(v.lines[:200])
        html = theme.render_page(
            view_html(v, href, back, level=1),
            title=f"{v.source.label} \u2013 {title}",
            css="",
            css_href="../" * rel.count("/") + quote(css),
            home_href=back,
            home_label=f"Back to \u201c{title}\u201d",
            lang="en" if sample.isascii() else answer_lang(sample),
        )
        out[rel] = clean_html(html)[0]  # the same safety net as every page of a site
    return out


def write_views(task: dict[str, Any], pages: dict[str, str]) -> dict[str, str]:
    """A build worker's view pages, written atomically inside the build's output folder, as the
    build's pages are (:func:`.manifest.refuse_overwrite`); their hashes by path, for the manifest."""
    out_dir = Path(task["out"]).parents[task["out_rel"].count("/")]
    owned: dict[str, str] = task.get("owned_views") or {}
    written = {}
    for rel, html in pages.items():
        target = out_dir / rel
        data = html.encode("utf-8")
        if target.exists() and not task.get("resumed"):  # an interrupted build of ours was writing them
            before = owned.get(rel)
            refuse_overwrite(rel, target, before is not None, before, bool(task.get("overwrite")))
        write_atomic(target, data, make_parents=True, root=out_dir)
        written[rel] = hash_bytes(data)
    return written


def views_intact(out_dir: Path, entry: dict[str, Any]) -> bool:
    """Are the view pages the last build wrote for a page (its manifest ``entry``) all there?"""
    return all((out_dir / rel).is_file() for rel in entry.get("views", ()))


def answer_pages_clash(pages: Iterable[str]) -> str | None:
    """Why a build cannot publish its views: an answer page that lies in another answer's views
    folder (``sources/a/x.html`` beside ``a.html``) would meet a view; None when none does."""
    pages = list(pages)
    folders = {views_folder(p): p for p in pages}
    for p in pages:
        parts = p.split("/")
        for k in range(1, len(parts)):
            owner = folders.get("/".join(parts[:k]) + "/")
            if owner is not None:
                return f"{p} lies in {owner}'s folder of source views ({'/'.join(parts[:k])}/): rename or move it"
    return None


def record_views(journal: dict[str, Any], planned: set[str], page: str, views: dict[str, str]) -> None:
    """The manifest's record of a page's view pages, owned by the build while the page is."""
    if not views:
        return
    journal[page]["views"] = sorted(views)
    for rel, digest in views.items():
        journal[rel] = {"output_hash": digest, "view_of": page}
    planned.update(views)


def write_site_views(site: Path, pages: dict[str, str], css_path: str, css: str) -> list[str]:
    """A host's view pages and their stylesheet, written into its built site; a page the host
    wrote itself is never written over: said, for the host's warnings."""
    problems = []
    for rel, html in sorted(pages.items()):
        target = site / rel
        if target.exists() and not _ours(target):
            problems.append(f"{rel}: the site has a page there, the source view is not written (rename that page)")
            continue
        write_atomic(target, html, make_parents=True, root=site)
    write_atomic(site / css_path, css, make_parents=True, root=site)
    return problems


_GENERATOR = b'<meta name="generator" content="citerender">'


def _ours(path: Path) -> bool:
    """Was the page at ``path`` written by citerender (its generator, in its head)?"""
    try:
        with path.open("rb") as f:
            return _GENERATOR in f.read(2048)
    except OSError:
        return False
