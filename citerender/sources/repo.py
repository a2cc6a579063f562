"""Repository files as sources: what Codex's ``【F:path†L10-L20】`` citations point at.

A :class:`Repository` turns a cited path into a :class:`Source`: with a checkout (``root``) the
file's lines are read (for hover cards and line checks); with a web address (``url``) the source
links to ``URL/path`` and each citation to its lines (``#L10-L20``, as GitHub and GitLab
anchor them). Without either, the path itself is the reference. A path that leaves the
checkout (``..``, absolute, a symlink out) is never read, nor one that resolves to a hidden path
(a symlink into ``.git/``, to ``.env``) unless hidden paths are asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from ..errors import CiterenderError
from .model import Source
from .urls import safe_url

__all__ = ["MAX_REPO_FILE_BYTES", "RepoFile", "Repository"]

#: The largest repository file read for its lines (larger ones are cited without lines).
MAX_REPO_FILE_BYTES = 4 * 1024 * 1024
_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
_HIDDEN = (
    "hidden (a dotfile or a VCS folder such as .git): not read or quoted; --repo-include-hidden reads hidden paths"
)


@dataclass(frozen=True)
class RepoFile:
    """A cited path resolved: its source, whether the checkout has it, and what is wrong if not."""

    source: Source
    found: bool
    problem: str | None = None


@dataclass(frozen=True)
class Repository:
    """Where cited repository paths are read (``root``, a checkout) and linked (``url``)."""

    root: str | None = None
    url: str | None = None
    #: quote hidden paths too (``.env``, ``.git/config``): off, since a model citing them would
    #: publish VCS internals and secrets in cards and footnotes
    include_hidden: bool = False

    def __post_init__(self) -> None:
        if self.url is not None and (
            safe_url(self.url) is None or not self.url.lower().startswith(("http://", "https://"))
        ):
            raise CiterenderError(
                f"repository URL {self.url[:200]!r} is not an http(s) address",
                hint="give the web address of the repository's files, e.g. https://github.com/OWNER/REPO/blob/main",
            )
        if self.root is not None and not Path(self.root).is_dir():
            raise CiterenderError("repository checkout not found", path=self.root, hint="give a directory (--repo DIR)")

    def __bool__(self) -> bool:
        return self.root is not None or self.url is not None

    def file(self, path: str) -> RepoFile:
        """The source for ``path`` (as cited, relative to the repository root)."""
        clean = _clean_path(path)
        if clean is None:
            return RepoFile(Source(path, title=path), False, f"path {path[:200]!r} is outside the repository")
        if not self.include_hidden and any(part.startswith(".") for part in clean.split("/")):
            return RepoFile(Source(clean, title=clean), False, f"path {clean[:200]!r} is {_HIDDEN}")
        url = self.url.rstrip("/") + "/" + quote(clean, safe="/-_.~") if self.url else None
        lines, problem = (None, None) if self.root is None else _read_lines(Path(self.root), clean, self.include_hidden)
        found = self.root is not None and problem is None
        return RepoFile(Source(clean, title=clean, url=url, lines=lines, line_anchors=True).shown(), found, problem)


def _clean_path(path: str) -> str | None:
    """``path`` as a relative POSIX path inside the repository, or None if it leaves it."""
    p = path.strip().replace("\\", "/")
    if not p or p.startswith("/") or _DRIVE.match(p) or "\x00" in p:
        return None
    parts = [x for x in PurePosixPath(p).parts if x not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def _read_lines(root: Path, path: str, include_hidden: bool) -> tuple[tuple[str, ...] | None, str | None]:
    """The lines of ``path`` in the checkout, or why they are not read. Judged on the path the
    file resolves to, symlinks followed: a link (of any name) into ``.git/`` or to ``.env`` is as
    hidden as they are, and one that leads out of the checkout is never read."""
    base = root.resolve()
    target = (base / path).resolve()
    if not target.is_relative_to(base):
        return None, f"{path!r} leads outside the repository checkout (through a symbolic link): not read or quoted"
    inside = target.relative_to(base).parts
    if not include_hidden and any(part.startswith(".") for part in inside):
        return None, f"path {path[:200]!r} is a symbolic link to {'/'.join(inside)[:200]!r}, which is {_HIDDEN}"
    if not target.is_file():
        return None, f"{path!r} is not in the repository checkout"
    if target.stat().st_size > MAX_REPO_FILE_BYTES:
        return None, None  # cited without lines: too large to quote
    text = target.read_bytes().decode("utf-8", errors="replace")
    return tuple(text.splitlines()), None
