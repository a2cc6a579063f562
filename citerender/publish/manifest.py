"""The build manifest (``.citerender-manifest.json``): which outputs a build owns, and their hashes.

A file the manifest does not list is never overwritten or deleted; every path it lists must lie
inside the output folder, or the manifest is refused as corrupt (a manifest is just a file in
the output folder, and anyone who can write there could otherwise make a build delete elsewhere).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import CiterenderError
from ..jobs.files import write_atomic
from ..sources.files import regular_file
from ..syntax.residue import remove_residue

__all__ = [
    "MANIFEST",
    "file_stamp",
    "hash_bytes",
    "hash_file",
    "load_manifest",
    "refuse_overwrite",
    "remove_stale_temporaries",
    "save_manifest",
    "unchanged",
]

MANIFEST = ".citerender-manifest.json"


def load_manifest(out_dir: Path) -> dict[str, Any] | None:
    """The files a previous build owns (None when there is no manifest)."""
    path = out_dir / MANIFEST
    if not path.exists():
        return None
    bad = CiterenderError(
        "the build manifest is unreadable", path=str(path), hint="remove the output folder and build again"
    )
    try:
        files = json.loads(path.read_text(encoding="utf-8")).get("files", {})
    except (OSError, ValueError, AttributeError, RecursionError):
        raise bad from None
    if not isinstance(files, dict) or not all(isinstance(v, dict) for v in files.values()):
        raise bad
    for rel in files:
        if not is_inside(rel):
            raise CiterenderError(
                f"the build manifest lists a path outside the output folder: '{rel[:200]}'",
                path=str(path),
                hint="the manifest is corrupt or was edited; remove the output folder and build again",
            )
    return files


def is_inside(rel: str) -> bool:
    """Is ``rel`` a plain relative path that stays inside the folder it is joined to?"""
    if not isinstance(rel, str) or not rel or "\\" in rel or "\x00" in rel:
        return False
    p = PurePosixPath(rel)
    return not p.is_absolute() and ".." not in p.parts and not re.match(r"[A-Za-z]:", rel)


def unchanged(target: Path, entry: Mapping[str, Any]) -> bool:
    """Is the page still what the build wrote? Size and mtime first, the content hash if they moved."""
    try:
        st = target.stat()
    except OSError:
        return False
    if st.st_size == entry.get("size") and st.st_mtime_ns == entry.get("mtime_ns"):
        return True
    return bool(hash_file(target) == entry["output_hash"])


def file_stamp(path: Path) -> list[int]:
    """``[size, mtime_ns]`` of a file (``[-1, -1]`` when missing), as a manifest records it."""
    try:
        st = path.stat()
    except OSError:
        return [-1, -1]
    return [st.st_size, st.st_mtime_ns]


def hash_bytes(data: bytes) -> str:
    import hashlib  # here, not at the top: `render` reads front matter through this module, and
    # loading OpenSSL's hashes costs every command ~4 ms of start-up it never uses

    return hashlib.sha256(data).hexdigest()


def hash_file(path: Path) -> str | None:
    """The file's SHA-256; None when it is missing, unreadable or not a regular file (a FIFO
    would block the build forever: it is opened without blocking and refused)."""
    import hashlib

    try:
        with regular_file(path) as f:
            return None if f is None else hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


def refuse_overwrite(rel: str, target: Path, ours: bool, digest: str | None, overwrite: bool) -> None:
    """Refuse to write over ``target``, which exists: a file the last build did not write (not
    ``ours``), or one changed since it wrote it (its hash then ``digest``) unless ``overwrite``."""
    if not ours:
        raise CiterenderError(
            f"{rel} exists in the output folder and was not written by citerender build",
            path=str(target),
            hint="move it away or choose another output folder",
        )
    if digest and hash_file(target) != digest and not overwrite:
        raise CiterenderError(
            f"{rel} was changed after citerender build wrote it",
            path=str(target),
            hint="move your changes away, or pass --overwrite to write over them",
        )


def remove_stale_temporaries(out_dir: Path, ours: set[str]) -> None:
    """Temporary files an interrupted build left next to pages it owns (``.NAME.XXXXXXXX.tmp``)."""
    pattern = re.compile(r"\.(.+)\.[A-Za-z0-9_]+\.tmp\Z")
    for tmp in out_dir.rglob(".*.tmp"):
        m = pattern.match(tmp.name)
        if m is None:
            continue
        rel = (tmp.parent / m.group(1)).relative_to(out_dir).as_posix()
        if rel in ours or m.group(1) == MANIFEST:
            tmp.unlink(missing_ok=True)


def save_manifest(path: Path, files: Mapping[str, Any]) -> None:
    """Write the manifest, its display fields (title, input) through the residue pass; paths stay exact."""
    shown = {rel: _displayed(entry) for rel, entry in sorted(files.items())}
    data = json.dumps(
        {"version": 1, "generator": "citerender build", "files": shown},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")
    write_atomic(path, data, make_parents=True, root=path.parent)


def _displayed(entry: Any) -> Any:
    if not isinstance(entry, Mapping) or not any(isinstance(entry.get(k), str) for k in ("title", "input")):
        return entry
    return {k: remove_residue(v) if k in ("title", "input") and isinstance(v, str) else v for k, v in entry.items()}
