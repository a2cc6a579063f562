"""Static site builds: every answer under a folder rendered to a mirrored tree of pages.

Safety rules, because a build runs unattended over someone's site:

* every file is written to a temporary file and renamed (a crash never leaves half a page);
* the manifest (``.citerender-manifest.json`` in the output) lists what the build owns; a file
  it does not own is never overwritten or deleted, and planned outputs are recorded *before*
  they are written, so an interrupted build is resumed, not refused, by the next run;
* unchanged inputs (same answer, sources, options, theme and version) are skipped.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from ..diagnostics import in_file
from ..errors import CiterenderError, internal_failure
from ..jobs.files import refuse_links
from ..jobs.pool import PageResult, Progress, run_pages
from ..options import RenderOptions
from ..rendering.html import render
from ..rendering.themes import load_theme
from ..syntax.escapes import visible
from ..syntax.headings import first_heading
from ..syntax.residue import clean_html
from .answers import find_answers, load_answer
from .build_state import ASSET_CSS, Build, write_output
from .manifest import (
    MANIFEST,
    hash_bytes,
    load_manifest,
)
from .shown import one_line, shown_path, shown_text
from .source_pages import answer_pages_clash, view_pages, views_href, write_views

__all__ = ["BuildResult", "PageResult", "build_site", "owned_files", "summarise"]


@dataclass
class BuildResult:
    pages: list[PageResult]
    written: int
    skipped: int
    removed: list[str]
    seconds: float

    @property
    def errors(self) -> int:
        return sum(p.errors for p in self.pages) + sum(1 for p in self.pages if p.failure)

    @property
    def failed(self) -> bool:
        return any(p.failure for p in self.pages)

    @property
    def warnings(self) -> int:
        return sum(p.warnings for p in self.pages)

    def strict_problems(self) -> int:
        """What ``--strict`` fails on: errors, warnings (support checks' included) and pages
        rendered without sources (published as entirely unverified)."""
        return self.errors + self.warnings + sum(1 for p in self.pages if p.unverified)


def _render_page(task: dict[str, Any]) -> PageResult:
    """Worker: render one answer and write its page (atomically)."""
    src, rel = Path(task["src"]), task["rel"]
    opts: RenderOptions = task["options"]
    res = PageResult(rel=rel, out=task["out_rel"], title=rel, input_hash=task["input_hash"])
    try:
        ans = load_answer(src, None if task["follow_outside"] else Path(task["root"]))
        theme = load_theme(opts.theme)
        own_views = opts.source_views not in ("page", "off")  # a page per cited source, in the page's own folder
        views = views_href(task["out_rel"]) if own_views else opts.source_views
        r = render(ans.body, ans.registry, replace(opts, standalone=False, source_views=views))
        title = shown_text(ans.title or first_heading(ans.body) or src.stem) or "Untitled answer"  # one pass
        res.title = title
        if own_views:  # written first: a page is never published linking views that are not there
            pages = view_pages(r.bibliography, theme, page=task["out_rel"], title=title, css=ASSET_CSS)
            res.views = write_views(task, pages)
        page = theme.render_page(
            r.body, title=title, css="", css_href=task["css_href"], home_href=task["home_href"], lang=r.lang
        )
        page = clean_html(page)[0]  # the title comes from front matter: the same safety net as the body
        data = page.encode("utf-8")
        write_output(task, data)
        res.output_hash = hash_bytes(data)
        res.errors = sum(d.severity.value == "error" for d in r.diagnostics)
        res.warnings = sum(d.severity.value == "warning" for d in r.diagnostics)
        res.unverified = any(d.code == "CR112" for d in r.diagnostics)
        res.lines = [d.format(str(src)) for d in in_file(r.diagnostics, ans.first_line)]
    except CiterenderError as e:
        res.failure = str(e)
    except Exception as e:  # a bug of ours must not cost the rest of the site its pages
        res.failure = internal_failure(e)
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

    ``options`` or keyword arguments as for :func:`citerender.render` (pages link the theme's
    CSS once instead of inlining it). Answers that are links to files outside ``src``, and
    sources files outside it, are refused unless ``follow_outside``. ``force`` renders every page
    again, up to date or not; ``overwrite`` writes over pages changed since the last build. (The
    folder a chat export unzips to is an export: :func:`.conversations.build_conversations`.)"""
    opts = RenderOptions.build(options, **kwargs)
    started = time.perf_counter()
    src_dir, out_dir = _folders(src, out)
    th = load_theme(opts.theme)
    owned = owned_files(out_dir, out)
    build = Build(src_dir, out_dir, opts, owned, force, follow_outside, overwrite)
    for p in find_answers(src_dir):
        if out_dir not in p.parents:
            build.plan(p)
    for rel in (ASSET_CSS, "index.html"):
        build.may_write(rel)
    clash = answer_pages_clash([t["out_rel"] for t in build.tasks] + [r.out for r in build.results if r.out])
    if clash is not None:
        raise CiterenderError(clash, path=str(src), hint="a folder build publishes an answer's source views beside it")
    build.start()
    build.write_asset(ASSET_CSS, th.css.encode("utf-8"))
    bar = Progress(len(build.tasks), progress or sys.stderr)
    for r in run_pages(build.tasks, jobs if len(build.tasks) > 1 else 1, _render_page):
        build.record(r)
        bar.step()
    bar.close()
    removed = build.remove_gone()
    build.results.sort(key=lambda r: r.rel)
    if build.tasks or removed or not build.index_intact():
        pages = [r for r in build.results if r.output_hash]
        build.write_page("index.html", th.render_index(pages, css_href=ASSET_CSS))
    build.finish()
    return BuildResult(
        build.results,
        written=len(build.tasks),
        skipped=sum(r.skipped for r in build.results),
        removed=removed,
        seconds=time.perf_counter() - started,
    )


def owned_files(out_dir: Path, out: str | Path) -> dict[str, Any]:
    """What a previous build wrote in ``out_dir`` (its manifest); a folder that holds files but
    no manifest is somebody else's, and refused."""
    refuse_links(out_dir, out_dir / MANIFEST)  # a linked manifest would be read, and written, elsewhere
    owned = load_manifest(out_dir)
    if owned is None:
        if out_dir.exists() and any(out_dir.iterdir()):
            raise CiterenderError(
                "output folder is not empty and was not made by citerender build",
                path=str(out),
                hint="choose an empty or new folder",
            )
        owned = {}
    return owned


def _folders(src: str | Path, out: str | Path) -> tuple[Path, Path]:
    src_dir, out_dir = Path(src).resolve(), Path(out).resolve()
    if not src_dir.is_dir():
        raise CiterenderError("source folder not found", path=str(src))
    if out_dir == src_dir:
        raise CiterenderError(
            "output folder is the source folder", path=str(out), hint="choose a separate output folder"
        )
    if out_dir.exists() and not out_dir.is_dir():
        raise CiterenderError("output path exists and is not a folder", path=str(out))
    return src_dir, out_dir


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
