"""Static site builds: every answer under a folder rendered to a mirrored tree of pages.

Safety rules, because a build runs unattended over someone's site:

* every file is written to a temporary file and renamed (a crash never leaves half a page);
* the manifest (``.citerender-manifest.json`` in the output) lists what the build owns; a file
  it does not own is never overwritten or deleted, and planned outputs are recorded *before*
  they are written, so an interrupted build is resumed, not refused, by the next run;
* unchanged inputs (same answer, sources, options, theme and version) are skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .errors import CiterenderError
from .files import write_atomic
from .markers import first_heading
from .sources import Registry, load_sources, read_text_file, registry_from_data

__all__ = ["Answer", "BuildResult", "build_site", "load_answer"]

MANIFEST = ".citerender-manifest.json"
ASSET_CSS = "assets/citerender.css"
SIDE_SUFFIXES = (".sources.json", ".sources.yaml", ".sources.yml", ".sources.toml", ".sources.txt")


@dataclass
class Answer:
    """An answer file read for publishing: its Markdown body, sources and front matter."""

    path: Path
    body: str
    registry: Registry | None
    meta: dict[str, Any]
    inputs: list[Path]  # every file the output depends on

    @property
    def title(self) -> str | None:
        t = self.meta.get("title")
        return str(t) if t else None


def split_front_matter(text: str, path: str) -> tuple[dict[str, Any], str, int]:
    """YAML front matter (``---`` … ``---``) as a dict, the body, and the body's first line."""
    if not text.startswith("---\n") and not text.startswith("---\r\n"):
        return {}, text, 1
    end = text.find("\n---", 4)
    while end != -1 and text[end + 4 : end + 5] not in ("", "\n", "\r"):
        end = text.find("\n---", end + 4)
    if end == -1:
        raise CiterenderError("front matter is not closed by a '---' line", path=path, line=1)
    import yaml

    raw = text[4:end]
    try:
        meta = yaml.load(raw, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise CiterenderError(f"invalid YAML front matter: {getattr(e, 'problem', e)}", path=path,
                              line=mark.line + 2 if mark is not None else 1) from None
    if not isinstance(meta, dict):
        raise CiterenderError("front matter must be a mapping of keys", path=path, line=2)
    body_start = end + 4
    if text[body_start : body_start + 1] == "\r":
        body_start += 1
    if text[body_start : body_start + 1] == "\n":
        body_start += 1
    return meta, text[body_start:], text.count("\n", 0, body_start) + 1


def sidecar_for(path: Path) -> Path | None:
    """``NAME.sources.{json,yaml,yml,toml,txt}`` next to ``NAME.md``."""
    for suffix in SIDE_SUFFIXES:
        cand = path.with_name(path.stem + suffix)
        if cand.is_file():
            return cand
    return None


def sources_file(meta: Mapping[str, Any], path: Path) -> Path | None:
    """The file an answer's sources come from: a front-matter path, else a sidecar (None if inline)."""
    spec = meta.get("sources")
    if spec is None:
        return sidecar_for(path)
    if isinstance(spec, str):
        return Path(os.path.normpath(path.parent / spec))
    return None


def registry_for(meta: Mapping[str, Any], path: Path) -> tuple[Registry | None, list[Path]]:
    """Sources from front matter (inline list, or a path relative to the answer) or a sidecar."""
    target = sources_file(meta, path)
    if target is not None:
        return load_sources(target), [target]
    spec = meta.get("sources")
    if spec is None:
        return None, []
    if isinstance(spec, (list, dict)):
        return registry_from_data(spec, path=f"{path} (front matter)"), []
    raise CiterenderError("front matter 'sources' must be a list of sources or a path", path=str(path))


def load_answer(path: str | Path) -> Answer:
    """Read an answer for publishing: front matter, body and its sources."""
    p = Path(path)
    text = read_text_file(p, what="answer")
    meta, body, _ = split_front_matter(text, str(p))
    registry, deps = registry_for(meta, p)
    return Answer(p, body, registry, meta, [p, *deps])


# --------------------------------------------------------------------------- the build


@dataclass
class PageResult:
    rel: str
    out: str
    title: str
    output_hash: str | None = None
    input_hash: str = ""
    errors: int = 0
    warnings: int = 0
    infos: int = 0
    lines: list[str] = field(default_factory=list)
    failure: str | None = None
    skipped: bool = False


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


def _unchanged(target: Path, entry: Mapping[str, Any]) -> bool:
    """Is the page still what the build wrote? Size and mtime first, the content hash if they moved."""
    try:
        st = target.stat()
    except OSError:
        return False
    if st.st_size == entry.get("size") and st.st_mtime_ns == entry.get("mtime_ns"):
        return True
    return bool(_hash_file(target) == entry["output_hash"])


def _hash_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _hash_file(path: Path) -> str | None:
    try:
        return _hash_bytes(path.read_bytes())
    except OSError:
        return None


def _options_key(style: str, theme: str, unknown: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    from .themes import load_theme

    try:
        ver = version("citerender")
    except PackageNotFoundError:
        ver = "0"
    th = load_theme(theme)
    theme_hash = hashlib.sha256()
    for d in th.dirs:
        for f in sorted(d.rglob("*")):
            if f.is_file():
                theme_hash.update(f.name.encode())
                theme_hash.update(f.read_bytes())
    return f"{ver}|{style}|{unknown}|{theme_hash.hexdigest()}"


def _render_page(task: dict[str, Any]) -> PageResult:
    """Worker: render one answer and write its page (atomically)."""
    from .rendering import render
    from .themes import load_theme

    src, out, rel = Path(task["src"]), Path(task["out"]), task["rel"]
    res = PageResult(rel=rel, out=task["out_rel"], title=rel, input_hash=task["input_hash"])
    try:
        ans = load_answer(src)
        theme = load_theme(task["theme"])
        r = render(ans.body, ans.registry, style=task["style"], theme=theme, unknown=task["unknown"])
        title = ans.title or first_heading(ans.body) or src.stem
        res.title = title
        page = theme.render_page(r.body, title=title, css="", css_href=task["css_href"],
                                 home_href=task["home_href"])
        data = page.encode("utf-8")
        write_atomic(out, data, make_parents=True)
        res.output_hash = _hash_bytes(data)
        for d in r.diagnostics:
            if d.severity.value == "error":
                res.errors += 1
            elif d.severity.value == "warning":
                res.warnings += 1
            else:
                res.infos += 1
            res.lines.append(d.format(str(src)))
    except CiterenderError as e:
        res.failure = str(e)
    return res


class _Progress:
    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.on = stream.isatty() and not os.environ.get("CI") and total > 0
        self.done = 0

    def step(self) -> None:
        self.done += 1
        if self.on:
            width = 30
            fill = int(width * self.done / self.total)
            self.stream.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total}")
            self.stream.flush()

    def close(self) -> None:
        if self.on:
            self.stream.write("\n")


def find_answers(src: Path) -> list[Path]:
    """Every ``.md`` answer under ``src`` (hidden folders and ``*.sources.*`` files skipped)."""
    out = []
    for p in sorted(src.rglob("*.md")):
        rel = p.relative_to(src)
        if any(part.startswith(".") for part in rel.parts) or ".sources." in p.name:
            continue
        out.append(p)
    return out


def build_site(
    src: str | Path,
    out: str | Path,
    *,
    style: str = "footnotes",
    theme: str = "default",
    unknown: str = "drop",
    jobs: int = 1,
    force: bool = False,
    progress: TextIO | None = None,
) -> BuildResult:
    """Render every answer under ``src`` into ``out`` (see the module docstring for the rules)."""
    from .themes import load_theme

    started = time.perf_counter()
    src_dir, out_dir = Path(src).resolve(), Path(out).resolve()
    if not src_dir.is_dir():
        raise CiterenderError("source folder not found", path=str(src))
    if out_dir == src_dir or src_dir in out_dir.parents:
        if out_dir == src_dir:
            raise CiterenderError("output folder is the source folder", path=str(out),
                                  hint="choose a separate output folder")
    if out_dir.exists() and not out_dir.is_dir():
        raise CiterenderError("output path exists and is not a folder", path=str(out))
    th = load_theme(theme)
    manifest_path = out_dir / MANIFEST
    owned: dict[str, Any] = {}
    if manifest_path.exists():
        try:
            owned = json.loads(manifest_path.read_text(encoding="utf-8")).get("files", {})
        except (OSError, ValueError, AttributeError):
            raise CiterenderError("the build manifest is unreadable", path=str(manifest_path),
                                  hint="remove the output folder and build again") from None
    elif out_dir.exists() and any(out_dir.iterdir()):
        raise CiterenderError("output folder is not empty and was not made by citerender build", path=str(out),
                              hint="choose an empty or new folder")
    answers = [p for p in find_answers(src_dir) if out_dir not in p.parents]
    key = _options_key(style, theme, unknown)
    css = th.css.encode("utf-8")

    def may_write(rel: str) -> None:
        target = out_dir / rel
        if not target.exists():
            return
        entry = owned.get(rel)
        if entry is None:
            raise CiterenderError(f"{rel} exists in the output folder and was not written by citerender build",
                                  path=str(target), hint="move it away or choose another output folder")
        if entry.get("pending"):
            return  # an interrupted build of ours was writing it
        if entry.get("output_hash") and _hash_file(target) != entry["output_hash"] and not force:
            raise CiterenderError(f"{rel} was changed after citerender build wrote it", path=str(target),
                                  hint="move your changes away, or pass --force to overwrite")

    tasks: list[dict[str, Any]] = []
    results: list[PageResult] = []
    dep_hashes: dict[Path, str] = {}
    planned: set[str] = {ASSET_CSS, "index.html"}
    for p in answers:
        rel = p.relative_to(src_dir).as_posix()
        out_rel = rel[:-3] + ".html"
        if out_rel == "index.html":
            out_rel = "index.page.html"
        depth = out_rel.count("/")
        h = hashlib.sha256(key.encode())
        deps: list[Path] = [p]
        try:
            text = read_text_file(p, what="answer")
            meta, _, _ = split_front_matter(text, str(p))
            side = sources_file(meta, p)
            if side is not None:
                deps.append(side)
        except CiterenderError:
            pass  # reported by the worker
        for d in deps:
            h.update(str(d).encode())
            dh = dep_hashes.get(d)
            if dh is None:
                dh = dep_hashes[d] = _hash_file(d) or "missing"
            h.update(dh.encode())
        input_hash = h.hexdigest()
        planned.add(out_rel)
        entry = owned.get(out_rel)
        target = out_dir / out_rel
        if entry and entry.get("input_hash") == input_hash and entry.get("output_hash") and _unchanged(target, entry):
            results.append(PageResult(rel=rel, out=out_rel, title=entry.get("title", rel), input_hash=input_hash,
                                      output_hash=entry["output_hash"], skipped=True,
                                      errors=entry.get("errors", 0), warnings=entry.get("warnings", 0)))
            continue
        may_write(out_rel)
        tasks.append({"src": str(p), "out": str(target), "rel": rel, "out_rel": out_rel, "style": style,
                      "theme": theme, "unknown": unknown, "input_hash": input_hash,
                      "css_href": "../" * depth + ASSET_CSS, "home_href": "../" * depth + "index.html"})
    for rel in (ASSET_CSS, "index.html"):
        may_write(rel)

    # record ownership of every planned output before writing any of them
    out_dir.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(out_dir, planned | set(owned))
    journal = dict(owned)
    for t in tasks:
        journal.setdefault(t["out_rel"], {}).update({"input": t["rel"], "pending": True})
    journal.setdefault(ASSET_CSS, {})
    journal.setdefault("index.html", {})
    if tasks or not manifest_path.exists():
        _save_manifest(manifest_path, journal)

    css_path = out_dir / ASSET_CSS
    if _hash_file(css_path) != _hash_bytes(css):
        write_atomic(css_path, css, make_parents=True)
    journal[ASSET_CSS] = {"output_hash": _hash_bytes(css)}

    bar = _Progress(len(tasks), progress or sys.stderr)
    done: list[PageResult] = []

    def record(r: PageResult) -> None:
        done.append(r)
        bar.step()
        if r.output_hash:
            st = (out_dir / r.out).stat()
            journal[r.out] = {"input": r.rel, "input_hash": r.input_hash, "output_hash": r.output_hash,
                              "title": r.title, "errors": r.errors, "warnings": r.warnings,
                              "size": st.st_size, "mtime_ns": st.st_mtime_ns}
        if len(done) % 50 == 0:
            _save_manifest(manifest_path, journal)

    if jobs > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            pending: set[Future[PageResult]] = set()
            it = iter(tasks)
            for t in it:  # keep a bounded number of tasks in flight
                pending.add(pool.submit(_render_page, t))
                if len(pending) >= jobs * 4:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        record(f.result())
            for f in pending:
                record(f.result())
    else:
        for t in tasks:
            record(_render_page(t))
    bar.close()
    results.extend(done)

    # outputs of answers that are gone: delete only what we wrote and nobody changed since
    removed = []
    for rel, entry in list(journal.items()):
        if rel in planned:
            continue
        target = out_dir / rel
        if entry.get("output_hash") and _hash_file(target) == entry["output_hash"]:
            target.unlink()
            removed.append(rel)
            del journal[rel]
        elif not target.exists():
            del journal[rel]

    results.sort(key=lambda r: r.rel)
    index = th.render_index([r for r in results if r.output_hash], css_href=ASSET_CSS).encode("utf-8")
    if _hash_file(out_dir / "index.html") != _hash_bytes(index):
        write_atomic(out_dir / "index.html", index, make_parents=True)
    journal["index.html"] = {"output_hash": _hash_bytes(index)}
    for r in results:
        if r.output_hash is None and r.out in journal and journal[r.out].get("pending"):
            if not (out_dir / r.out).exists():
                del journal[r.out]
    if journal != owned:
        _save_manifest(manifest_path, journal)
    return BuildResult(results, written=len(tasks), skipped=len(results) - len(done), removed=removed,
                       seconds=time.perf_counter() - started)


def _remove_stale_temporaries(out_dir: Path, ours: set[str]) -> None:
    """Temporary files an interrupted build left next to pages it owns (``.NAME.PID.tmp``)."""
    import re

    pattern = re.compile(r"\.(.+)\.\d+\.tmp\Z")
    for tmp in out_dir.rglob(".*.tmp"):
        m = pattern.match(tmp.name)
        if m is None:
            continue
        rel = (tmp.parent / m.group(1)).relative_to(out_dir).as_posix()
        if rel in ours or m.group(1) == MANIFEST:
            tmp.unlink(missing_ok=True)


def _save_manifest(path: Path, files: Mapping[str, Any]) -> None:
    data = json.dumps({"version": 1, "generator": "citerender build", "files": dict(sorted(files.items()))},
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    write_atomic(path, data, make_parents=True)


def summarise(result: BuildResult, stream: TextIO, *, verbose: bool = False) -> None:
    """One line per page with problems (all diagnostics with ``verbose``), then a total."""
    for p in result.pages:
        if p.failure:
            print(f"{p.rel}: error: {p.failure}", file=stream)
        elif p.errors or p.warnings:
            print(f"{p.rel}: {p.errors} error(s), {p.warnings} warning(s)", file=stream)
        if verbose:
            for line in p.lines:
                print(f"  {line}", file=stream)
    print(f"built {result.written} page(s), {result.skipped} unchanged, {len(result.removed)} removed "
          f"in {result.seconds:.2f} s", file=stream)
