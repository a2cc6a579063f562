"""A build's bookkeeping, shared by folder and conversation builds: what to render, what the build
owns (the journal, saved as the manifest), what it wrote, and what a page's output depends on."""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from ..diagnostics import Diagnostic
from ..errors import CiterenderError, failure_of
from ..jobs.files import refuse_links, settled, write_atomic
from ..jobs.pool import PageResult, Progress, run_pages
from ..options import RenderOptions
from ..rendering.themes import load_theme
from ..sources.files import read_text_file
from ..syntax.residue import clean_html
from .answers import page_name_problem, sidecar_for, sources_file, split_front_matter
from .manifest import (
    MANIFEST,
    file_stamp,
    hash_bytes,
    hash_file,
    load_manifest,
    refuse_overwrite,
    remove_stale_temporaries,
    save_manifest,
    unchanged,
)
from .shown import shown_path
from .source_pages import record_views, views_intact

__all__ = [
    "ASSET_CSS",
    "Build",
    "BuildResult",
    "options_key",
    "owned_files",
    "package_version",
    "reported",
    "write_output",
]

ASSET_CSS = "assets/citerender.css"
Worker = Callable[[dict[str, Any]], PageResult]


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


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("citerender")
    except PackageNotFoundError:
        return "0"


def options_key(opts: RenderOptions) -> str:
    """What, besides the inputs, a page depends on: version, options (a scorer by its class: its
    repr holds an address, new every run) and the theme's files."""
    theme_hash = hashlib.sha256()
    for d in load_theme(opts.theme).dirs:
        for f in sorted(d.rglob("*")):
            if f.is_file():
                theme_hash.update(f.name.encode())
                theme_hash.update(f.read_bytes())
    scorer = f"{type(opts.scorer).__module__}.{type(opts.scorer).__qualname__}" if opts.scorer else ""
    return f"{package_version()}|{replace(opts, scorer=None)!r}|{scorer}|{theme_hash.hexdigest()}"


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


@contextmanager
def reported(res: PageResult) -> Iterator[None]:
    """A worker's failure as ``res.failure``: one bad page never costs the rest of the site its pages."""
    try:
        yield
    except Exception as e:
        res.failure = failure_of(e)


def write_output(task: dict[str, Any], res: PageResult, page: str, diagnostics: Sequence[Diagnostic]) -> None:
    """A worker's page through the residue pass, written atomically inside its build's output folder
    (never through a link there); its hash and its diagnostics' counts on ``res``."""
    out, data = Path(task["out"]), clean_html(page)[0].encode("utf-8")
    write_atomic(out, data, make_parents=True, root=out.parents[task["out_rel"].count("/")])
    res.output_hash = hash_bytes(data)
    res.errors = sum(d.severity.value == "error" for d in diagnostics)
    res.warnings = sum(d.severity.value == "warning" for d in diagnostics)


class Build:
    """One build's bookkeeping: what to render, what it owns (the journal), what it wrote."""

    def __init__(
        self, src_dir: Path, out: str | Path, opts: RenderOptions, force: bool, follow_outside: bool, overwrite: bool
    ) -> None:
        """``force``: render every page again, up to date or not; ``overwrite``: write over pages
        changed by someone since the last build (refused otherwise)."""
        out_dir = Path(out).resolve()
        if out_dir.exists() and not out_dir.is_dir():
            raise CiterenderError("output path exists and is not a folder", path=str(out))
        self.src_dir, self.out_dir, self.opts, self.force = src_dir, out_dir, opts, force
        self.overwrite, self.follow_outside = overwrite, follow_outside
        self.started = time.perf_counter()
        self.theme = load_theme(opts.theme)
        self.owned = owned_files(out_dir, out)
        self.key = options_key(opts)
        self.tasks: list[dict[str, Any]] = []
        self.results: list[PageResult] = []
        self.planned: set[str] = {ASSET_CSS, "index.html"}
        self.journal: dict[str, Any] = dict(self.owned)
        self.rendered = 0
        self._saved = (0, time.perf_counter(), 0.0)  # pages rendered, when, and how long it took
        self._dep_hashes: dict[Path, str] = {}
        self._sources_of: dict[str, str] = {}
        #: what a page's input hash was computed from (see ``_stamped_hash``), by output path
        self.stamps: dict[str, dict[str, Any]] = {}
        self.stamp_key = hashlib.sha256(f"{self.key}|{follow_outside}".encode()).hexdigest()[:16]

    def may_write(self, rel: str) -> None:
        target, entry = self.out_dir / rel, self.owned.get(rel)
        if target.exists() and not (entry and entry.get("pending")):  # pending: an interrupted build of ours
            refuse_overwrite(rel, target, entry is not None, (entry or {}).get("output_hash"), self.overwrite)

    def kept(self, name: str, rel: str, input_hash: str, title: str | None = None) -> bool:
        """Plan the page ``rel`` (of the input ``name``): is it what the last build wrote from the same
        inputs, its source views with it? Then it is recorded as skipped; else it may be written (or
        is refused: :meth:`may_write`)."""
        self.planned.add(rel)
        entry = self.owned.get(rel)
        if (
            self.force
            or not entry
            or entry.get("input_hash") != input_hash
            or not entry.get("output_hash")
            or not unchanged(self.out_dir / rel, entry)
            or not views_intact(self.out_dir, entry)
        ):
            self.may_write(rel)
            return False
        self.planned.update(entry.get("views", ()))  # its source views stay with it
        if rel in self.stamps:  # read the slow way (an older manifest): stamped for next time
            self.journal[rel] = {**entry, "stamp": self.stamps[rel]}
        self.results.append(
            PageResult(
                rel=name,
                out=rel,
                title=entry.get("title", name) if title is None else title,
                input_hash=input_hash,
                output_hash=entry["output_hash"],
                skipped=True,
                errors=entry.get("errors", 0),
                warnings=entry.get("warnings", 0),
                unverified=bool(entry.get("unverified")),
            )
        )
        return True

    def _stamped_hash(self, p: Path, entry: dict[str, Any] | None) -> str | None:
        """The input hash recorded for ``p`` when none of its inputs moved since (sizes and mtimes,
        options, sidecar): a no-change rebuild reads no answer."""
        stamp = entry.get("stamp") if entry else None
        if entry is None or not isinstance(stamp, dict) or stamp.get("key") != self.stamp_key:
            return None
        for path, size, mtime in stamp.get("deps", ()):
            if file_stamp(Path(path)) != [size, mtime]:
                return None
        if stamp.get("sidecar") and str(sidecar_for(p)) != stamp.get("side"):
            return None  # a sidecar appeared, went, or another one now comes first
        found = entry.get("input_hash")
        return found if isinstance(found, str) else None

    def _input_hash(self, p: Path, out_rel: str) -> str:
        h = hashlib.sha256(self.key.encode())
        deps: list[Path] = [p]
        stamps = [file_stamp(p)]  # taken before reading: a change while reading moves it
        stamp: dict[str, Any] = {"key": self.stamp_key}
        try:
            meta, _, _ = split_front_matter(read_text_file(p, what="answer"), str(p))
            side = sources_file(meta, p, None if self.follow_outside else self.src_dir)
            if side is not None:
                deps.append(side)
                stamps.append(file_stamp(side))
            if meta.get("sources") is None:
                stamp.update(sidecar=True, side=str(side))
        except CiterenderError:
            stamp = {}  # reported by the worker; read again next time
        # a file changed within the last seconds may change again without its size or mtime moving
        # (coarse file-system clocks): such an answer is read again next time (git's "racy" rule)
        if stamp and all(settled(mtime) for _, mtime in stamps):
            stamp["deps"] = [[str(d), *st] for d, st in zip(deps, stamps, strict=True)]
            self.stamps[out_rel] = stamp
        for d in deps:
            h.update(str(d).encode())
            dh = self._dep_hashes.get(d)
            if dh is None:
                dh = self._dep_hashes[d] = hash_file(d) or "missing"
            h.update(dh.encode())
        return h.hexdigest()

    def plan(self, p: Path) -> None:
        """Skip the answer if its page is up to date, else queue it."""
        rel = p.relative_to(self.src_dir).as_posix()
        out_rel = rel[:-3] + ".html"
        if out_rel == "index.html":
            out_rel = "index.page.html"
        problem = page_name_problem(out_rel)
        if problem is not None:  # that answer reported, every other page built
            self.results.append(PageResult(rel=shown_path(rel), out="", title="", failure=problem))
            return
        other = self._sources_of.get(out_rel)
        if other is not None:
            raise CiterenderError(
                f"{other} and {rel} would both be written to {out_rel}", path=str(p), hint="rename one of them"
            )
        self._sources_of[out_rel] = rel
        entry = self.owned.get(out_rel)
        input_hash = self._stamped_hash(p, entry) or self._input_hash(p, out_rel)
        if self.kept(rel, out_rel, input_hash):
            return
        self.tasks.append(
            {
                "src": str(p),
                "out": str(self.out_dir / out_rel),
                "rel": rel,
                "out_rel": out_rel,
                "options": self.opts,
                "input_hash": input_hash,
                "root": None if self.follow_outside else self.src_dir,
                # what the page's source views may write over: its own views of the last build
                "owned_views": {v: self.owned.get(v, {}).get("output_hash") for v in (entry or {}).get("views", ())},
                "resumed": bool(entry and entry.get("pending")),
                "overwrite": self.overwrite,
            }
        )

    def start(self, *site_files: str) -> None:
        """Record ownership of every planned output before writing any of them, then the stylesheet;
        refused first if a file the build would write or delete (pages, site files, the manifest, an
        earlier build's outputs) lies through a symbolic link there: it would be written wherever it points."""
        self.planned.update(site_files)
        for rel in (ASSET_CSS, "index.html", *site_files):
            self.may_write(rel)
        for rel in sorted(self.planned | set(self.owned) | {MANIFEST}):
            refuse_links(self.out_dir, self.out_dir / rel)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(self.out_dir, self.planned | set(self.owned))
        for t in self.tasks:
            self.journal.setdefault(t["out_rel"], {}).update({"input": t["rel"], "pending": True})
        self.journal.setdefault(ASSET_CSS, {})
        self.journal.setdefault("index.html", {})
        if self.tasks or not (self.out_dir / MANIFEST).exists():
            save_manifest(self.out_dir / MANIFEST, self.journal)
        self.write_asset(ASSET_CSS, self.theme.css.encode("utf-8"))

    def render(
        self, tasks: Iterable[dict[str, Any]], count: int, jobs: int, work: Worker, progress: TextIO | None
    ) -> None:
        """Run ``work`` on the ``count`` tasks, recording each page as it completes."""
        bar = Progress(count, progress or sys.stderr)
        for r in run_pages(tasks, jobs if count > 1 else 1, work):
            self.record(r)
            bar.step()
        bar.close()

    def write_asset(self, rel: str, data: bytes) -> None:
        """Write a site-wide file unless it is already exactly this."""
        path = self.out_dir / rel
        if hash_file(path) != hash_bytes(data):
            write_atomic(path, data, make_parents=True, root=self.out_dir)
        self.journal[rel] = {"output_hash": hash_bytes(data)}

    def write_page(self, rel: str, html: str) -> None:
        """A site-wide page (an index): through the residue pass, as every page is."""
        self.write_asset(rel, clean_html(html)[0].encode("utf-8"))

    def index_intact(self) -> bool:
        """Is the index the one the last build wrote (with nothing rendered or removed, it is kept)?"""
        entry = self.owned.get("index.html") or {}
        return bool(entry.get("output_hash")) and hash_file(self.out_dir / "index.html") == entry["output_hash"]

    def record(self, r: PageResult) -> None:
        self.results.append(r)
        self.rendered += 1
        if r.output_hash:
            st = (self.out_dir / r.out).stat()
            self.journal[r.out] = {
                "input": r.rel,
                "input_hash": r.input_hash,
                "output_hash": r.output_hash,
                "title": r.title,
                "errors": r.errors,
                "warnings": r.warnings,
                "unverified": r.unverified,
                "size": st.st_size,
                "mtime_ns": st.st_mtime_ns,
            }
            if r.out in self.stamps:
                self.journal[r.out]["stamp"] = self.stamps[r.out]
            record_views(self.journal, self.planned, r.out, r.views)
        elif r.failure:  # the page as the last build left it: its views too
            self.planned.update(self.owned.get(r.out, {}).get("views", ()))
        self._checkpoint()

    def _checkpoint(self) -> None:
        """The manifest saved as pages complete (an interrupted build keeps their record): after 50
        pages, and no sooner than 20 times its last save's duration, so saving a manifest that
        grows with the site stays under 5% of the build."""
        pages, at, cost = self._saved
        if self.rendered - pages < 50 or time.perf_counter() - at < 20 * cost:
            return
        started = time.perf_counter()
        save_manifest(self.out_dir / MANIFEST, self.journal)
        done = time.perf_counter()
        self._saved = (self.rendered, done, done - started)

    def remove_gone(self) -> list[str]:
        """Outputs of answers that are gone: delete only what we wrote and nobody changed since."""
        removed = []
        for rel, entry in list(self.journal.items()):
            if rel in self.planned:
                continue
            target = self.out_dir / rel
            if entry.get("output_hash") and hash_file(target) == entry["output_hash"]:
                refuse_links(self.out_dir, target)  # checked at the start; a link made since is refused too
                target.unlink()
                removed.append(rel)
                del self.journal[rel]
            elif not target.exists():
                del self.journal[rel]
        return removed

    def finish(self, written: int, removed: list[str]) -> BuildResult:
        """The manifest saved as the build leaves the folder; what it did."""
        for r in self.results:
            if (
                r.output_hash is None
                and r.out in self.journal
                and self.journal[r.out].get("pending")
                and not (self.out_dir / r.out).exists()
            ):
                del self.journal[r.out]
        if self.journal != self.owned:
            save_manifest(self.out_dir / MANIFEST, self.journal)
        skipped = sum(r.skipped for r in self.results)
        return BuildResult(self.results, written, skipped, removed, time.perf_counter() - self.started)
