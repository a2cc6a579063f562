"""Static site builds: every answer under a folder rendered to a mirrored tree of pages.

Safety rules, because a build runs unattended over someone's site: every file is written to a
temporary file and renamed; the manifest lists what the build owns, and a file it does not own is
never overwritten or deleted; planned outputs are recorded *before* they are written, so an
interrupted build is resumed, not refused; unchanged inputs are skipped.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from ..diagnostics import in_file
from ..errors import CiterenderError
from ..jobs.pool import PageResult
from ..options import RenderOptions
from ..rendering.html import render
from ..rendering.themes import load_theme
from ..syntax.escapes import visible
from ..syntax.headings import first_heading
from .answers import find_answers, load_answer
from .build_state import ASSET_CSS, Build, BuildResult, owned_files, reported, write_output
from .shown import one_line, shown_path, shown_text
from .source_pages import answer_pages_clash, view_pages, views_href, write_views

__all__ = ["BuildResult", "PageResult", "build_site", "owned_files", "summarise"]


def _render_page(task: dict[str, Any]) -> PageResult:
    """Worker: render one answer and write its page (atomically)."""
    src, rel = Path(task["src"]), task["rel"]
    opts: RenderOptions = task["options"]
    res = PageResult(rel=rel, out=task["out_rel"], title=rel, input_hash=task["input_hash"])
    with reported(res):
        ans = load_answer(src, task["root"])
        theme = load_theme(opts.theme)
        own_views = opts.source_views not in ("page", "off")  # a page per cited source, in the page's own folder
        views = views_href(task["out_rel"]) if own_views else opts.source_views
        r = render(ans.body, ans.registry, replace(opts, standalone=False, source_views=views))
        title = shown_text(ans.title or first_heading(ans.body) or src.stem) or "Untitled answer"  # one pass
        res.title = title
        if own_views:  # written first: a page is never published linking views that are not there
            pages = view_pages(r.bibliography, theme, page=task["out_rel"], title=title, css=ASSET_CSS)
            res.views = write_views(task, pages)
        up = "../" * task["out_rel"].count("/")
        page = theme.render_page(
            r.body, title=title, css="", css_href=up + ASSET_CSS, home_href=up + "index.html", lang=r.lang
        )
        write_output(task, res, page, r.diagnostics)
        res.unverified = any(d.code == "CR112" for d in r.diagnostics)
        res.lines = [d.format(str(src)) for d in in_file(r.diagnostics, ans.first_line)]
    return res


def build_site(
    src: str | Path,
    out: str | Path,
    options: RenderOptions | None = None,
    *,
    jobs: int = 1,
    force: bool = False,
    progress: TextIO | None = None,
    follow_outside: bool = False,
    overwrite: bool = False,
    **kwargs: Any,
) -> BuildResult:
    """Render every answer under ``src`` into ``out`` (see the module docstring for the rules).

    ``options`` or keyword arguments as for :func:`citerender.render` (pages link the theme's CSS).
    Answers and sources files outside ``src`` are refused unless ``follow_outside``. ``force``
    renders every page again; ``overwrite`` writes over pages changed since the last build."""
    opts = RenderOptions.build(options, **kwargs)
    src_dir = _source_folder(src, out)
    build = Build(src_dir, out, opts, force, follow_outside, overwrite)
    for p in find_answers(src_dir):
        if build.out_dir not in p.parents:
            build.plan(p)
    clash = answer_pages_clash([t["out_rel"] for t in build.tasks] + [r.out for r in build.results if r.out])
    if clash is not None:
        raise CiterenderError(clash, path=str(src), hint="a folder build publishes an answer's source views beside it")
    build.start()
    build.render(build.tasks, len(build.tasks), jobs, _render_page, progress)
    removed = build.remove_gone()
    build.results.sort(key=lambda r: r.rel)
    if build.tasks or removed or not build.index_intact():
        pages = [r for r in build.results if r.output_hash]
        build.write_page("index.html", build.theme.render_index(pages, css_href=ASSET_CSS))
    return build.finish(len(build.tasks), removed)


def _source_folder(src: str | Path, out: str | Path) -> Path:
    src_dir = Path(src).resolve()
    if not src_dir.is_dir():
        raise CiterenderError("source folder not found", path=str(src))
    if Path(out).resolve() == src_dir:
        raise CiterenderError(
            "output folder is the source folder", path=str(out), hint="choose a separate output folder"
        )
    return src_dir


def summarise(result: BuildResult, stream: TextIO, *, verbose: bool = False) -> None:
    """One line per page with problems (all diagnostics with ``verbose``), then a total."""
    for p in result.pages:  # each line one line, whatever the file's name holds (a newline, bytes not UTF-8)
        if p.failure:
            print(one_line(shown_path(visible(f"{p.rel}: error: {p.failure}"))), file=stream)
        elif p.errors or p.warnings:
            print(one_line(shown_path(visible(f"{p.rel}: {p.errors} error(s), {p.warnings} warning(s)"))), file=stream)
        if verbose:
            for line in p.lines:
                print(f"  {one_line(shown_path(visible(line)))}", file=stream)
    print(
        f"built {result.written} page(s), {result.skipped} unchanged, {len(result.removed)} removed "
        f"in {result.seconds:.2f} s",
        file=stream,
    )
