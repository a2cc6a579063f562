"""A build's bookkeeping, shared by folder and conversation builds: what to render, what the build
owns (the journal, saved as the manifest), what it wrote, and what a page's output depends on."""

from __future__ import annotations

import hashlib
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..jobs.files import refuse_links, write_atomic
from ..jobs.pool import PageResult
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
    remove_stale_temporaries,
    save_manifest,
    settled,
    unchanged,
)
from .shown import shown_path
from .source_pages import record_views, views_intact

__all__ = ["ASSET_CSS", "Build", "options_key", "write_output"]

ASSET_CSS = "assets/citerender.css"


def options_key(opts: RenderOptions) -> str:
    """What, besides the inputs, a page depends on: version, options (a scorer by its class: its
    repr holds an address, new every run) and the theme's files."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("citerender")
    except PackageNotFoundError:
        ver = "0"
    theme_hash = hashlib.sha256()
    for d in load_theme(opts.theme).dirs:
        for f in sorted(d.rglob("*")):
            if f.is_file():
                theme_hash.update(f.name.encode())
                theme_hash.update(f.read_bytes())
    scorer = f"{type(opts.scorer).__module__}.{type(opts.scorer).__qualname__}" if opts.scorer else ""
    return f"{ver}|{replace(opts, scorer=None)!r}|{scorer}|{theme_hash.hexdigest()}"


def write_output(task: dict[str, Any], data: bytes) -> None:
    """A worker's page, written atomically inside its build's output folder (the folder that
    ``out`` lies ``out_rel`` deep in) and never through a link there."""
    out = Path(task["out"])
    write_atomic(out, data, make_parents=True, root=out.parents[task["out_rel"].count("/")])


class Build:
    """One build's bookkeeping: what to render, what it owns (the journal), what it wrote
    (shared by the conversation site, which plans its pages itself)."""

    def __init__(
        self,
        src_dir: Path,
        out_dir: Path,
        opts: RenderOptions,
        owned: dict[str, Any],
        force: bool,
        follow_outside: bool,
        overwrite: bool = False,
    ) -> None:
        #: ``force``: render every page again, up to date or not; ``overwrite``: write over pages
        #: changed by someone since the last build (refused otherwise)
        self.src_dir, self.out_dir, self.opts, self.owned, self.force = src_dir, out_dir, opts, owned, force
        self.overwrite = overwrite
        self.follow_outside = follow_outside
        self.key = options_key(opts)
        self.tasks: list[dict[str, Any]] = []
        self.results: list[PageResult] = []
        self.planned: set[str] = {ASSET_CSS, "index.html"}
        self.journal: dict[str, Any] = dict(owned)
        self.rendered = 0
        self._saved = (0, time.perf_counter(), 0.0)  # pages rendered, when, and how long it took
        self._dep_hashes: dict[Path, str] = {}
        self._sources_of: dict[str, str] = {}
        #: what a page's input hash was computed from (see ``_stamped_hash``), by output path
        self.stamps: dict[str, dict[str, Any]] = {}
        self.stamp_key = hashlib.sha256(f"{self.key}|{follow_outside}".encode()).hexdigest()[:16]

    def may_write(self, rel: str) -> None:
        target = self.out_dir / rel
        if not target.exists():
            return
        entry = self.owned.get(rel)
        if entry is None:
            raise CiterenderError(
                f"{rel} exists in the output folder and was not written by citerender build",
                path=str(target),
                hint="move it away or choose another output folder",
            )
        if entry.get("pending"):
            return  # an interrupted build of ours was writing it
        if entry.get("output_hash") and hash_file(target) != entry["output_hash"] and not self.overwrite:
            raise CiterenderError(
                f"{rel} was changed after citerender build wrote it",
                path=str(target),
                hint="move your changes away, or pass --overwrite to write over them",
            )

    def _stamped_hash(self, p: Path, entry: dict[str, Any] | None) -> str | None:
        """The input hash recorded for ``p`` when none of its inputs moved since (size and mtime
        of the answer and its sources file, the same options, the same sidecar): a no-change
        rebuild reads no answer and parses no front matter."""
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
        self.planned.add(out_rel)
        target = self.out_dir / out_rel
        if (
            not self.force
            and entry
            and entry.get("input_hash") == input_hash
            and entry.get("output_hash")
            and unchanged(target, entry)
            and views_intact(self.out_dir, entry)
        ):
            self.planned.update(entry.get("views", ()))  # its source views stay with it
            if out_rel in self.stamps:  # read the slow way (an older manifest): stamped for next time
                self.journal[out_rel] = {**entry, "stamp": self.stamps[out_rel]}
            self.results.append(
                PageResult(
                    rel=rel,
                    out=out_rel,
                    title=entry.get("title", rel),
                    input_hash=input_hash,
                    output_hash=entry["output_hash"],
                    skipped=True,
                    errors=entry.get("errors", 0),
                    warnings=entry.get("warnings", 0),
                    unverified=bool(entry.get("unverified")),
                )
            )
            return
        self.may_write(out_rel)
        depth = out_rel.count("/")
        self.tasks.append(
            {
                "src": str(p),
                "out": str(target),
                "rel": rel,
                "out_rel": out_rel,
                "options": self.opts,
                "input_hash": input_hash,
                "root": str(self.src_dir),
                "follow_outside": self.follow_outside,
                "css_href": "../" * depth + ASSET_CSS,
                "home_href": "../" * depth + "index.html",
                # what the page's source views may write over: its own views of the last build
                "owned_views": {v: self.owned.get(v, {}).get("output_hash") for v in (entry or {}).get("views", ())},
                "resumed": bool(entry and entry.get("pending")),
                "overwrite": self.overwrite,
            }
        )

    def refuse_links(self) -> None:
        """Refuse the build, before it writes anything, when a file it would write or delete (a
        page, an asset, the manifest, an output of an earlier build) lies through a symbolic link
        inside the output folder: pages would be written, and stale ones deleted, wherever it points."""
        for rel in sorted(self.planned | set(self.owned) | {MANIFEST}):
            refuse_links(self.out_dir, self.out_dir / rel)

    def start(self) -> None:
        """Record ownership of every planned output before writing any of them."""
        self.refuse_links()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(self.out_dir, self.planned | set(self.owned))
        for t in self.tasks:
            self.journal.setdefault(t["out_rel"], {}).update({"input": t["rel"], "pending": True})
        self.journal.setdefault(ASSET_CSS, {})
        self.journal.setdefault("index.html", {})
        if self.tasks or not (self.out_dir / MANIFEST).exists():
            save_manifest(self.out_dir / MANIFEST, self.journal)

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
        """Is the index the one the last build wrote (nothing rendered or removed since: it
        would be written the same)?"""
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
        grows with the site stays under 5% of the build (every 50 pages made 12,733 pages cost
        255 saves of up to 12,733 entries: quadratic)."""
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

    def finish(self) -> None:
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
