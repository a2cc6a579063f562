"""Answer files for publishing: YAML front matter, the body, and where the sources come from
(inline front matter, a path in it, or a ``NAME.sources.*`` sidecar)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..jobs.files import settled
from ..sources.files import load_sources, load_yaml, read_text_file
from ..sources.model import Registry, registry_from_data

__all__ = [
    "SIDE_SUFFIXES",
    "Answer",
    "find_answers",
    "front_matter_title",
    "is_within",
    "load_answer",
    "page_name_problem",
    "registry_for",
    "shared_sources",
    "sidecar_for",
    "sources_file",
    "split_front_matter",
]

SIDE_SUFFIXES = (".sources.json", ".sources.yaml", ".sources.yml", ".sources.toml", ".sources.txt")


@dataclass
class Answer:
    """An answer file read for publishing: its Markdown body, sources and front matter."""

    path: Path
    body: str
    registry: Registry | None
    meta: dict[str, Any]
    first_line: int = 1  # the file line the body starts on (after the front matter)

    @property
    def title(self) -> str | None:
        return front_matter_title(self.meta)


def front_matter_title(meta: Mapping[str, Any]) -> str | None:
    """The front matter's title as one line of plain text (:func:`.shown.shown_text`)."""
    t = meta.get("title")
    if not isinstance(t, str | int | float) or isinstance(t, bool) or not str(t).strip():
        return None
    from .shown import shown_text  # (a render of an answer without a title never loads the site's pass)

    return shown_text(t) or None


#: the line closing the front matter: ``---``, or ``...`` as pandoc also reads it
_CLOSING = re.compile(r"\n(?:---|\.\.\.)[ \t]*(?=\r?\n|\Z)")


def split_front_matter(text: str, path: str, *, strict: bool = True) -> tuple[dict[str, Any], str, int]:
    """YAML front matter (``---`` … ``---`` or ``...``) as a dict, the body, and the body's first line.

    ``strict=False`` (a single answer, which may open with a thematic break): an unclosed block,
    or one that is not a mapping of keys, is Markdown, not front matter. Invalid YAML in a closed
    block is an error either way."""
    if not text.startswith("---\n") and not text.startswith("---\r\n"):
        return {}, text, 1
    closing = _CLOSING.search(text, 3)
    if closing is None:
        if not strict:
            return {}, text, 1
        raise CiterenderError("front matter is not closed by a '---' line", path=path, line=1)
    end = closing.start()
    meta = load_yaml(text[4:end], path, first_line=2, what="YAML front matter") or {}
    if not isinstance(meta, dict):
        if not strict:
            return {}, text, 1
        raise CiterenderError("front matter must be a mapping of keys", path=path, line=2)
    newline = text.find("\n", end + 1)  # the body starts after the closing line
    body_start = len(text) if newline == -1 else newline + 1
    return meta, text[body_start:], text.count("\n", 0, body_start) + 1


def sidecar_for(path: Path) -> Path | None:
    """``NAME.sources.{json,yaml,yml,toml,txt}`` next to ``NAME.md``."""
    for suffix in SIDE_SUFFIXES:
        cand = path.with_name(path.stem + suffix)
        try:
            if cand.is_file():
                return cand
        except OSError:  # a legal answer name of 246-255 bytes: its sidecar's would be too long to exist
            continue
    return None


def sources_file(meta: Mapping[str, Any], path: Path, root: Path | None = None) -> Path | None:
    """The file an answer's sources come from: a front-matter path, else a sidecar (None if inline);
    inside ``root`` when given, symlinks resolved (front matter must not publish ``../creds.json``)."""
    spec = meta.get("sources")
    if spec is None:
        target = sidecar_for(path)
    elif isinstance(spec, str):
        target = Path(os.path.normpath(path.parent / spec))
    else:
        return None
    if target is not None and root is not None and not is_within(target, root):
        raise CiterenderError(
            f"the sources file {spec if isinstance(spec, str) else target.name} is outside {root}",
            path=str(path),
            hint="keep sources next to the answers, or pass --follow-outside to allow it",
        )
    return target


def is_within(path: Path, root: Path) -> bool:
    """Does ``path`` (symlinks resolved) lie inside ``root``?"""
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def registry_for(meta: Mapping[str, Any], path: Path, root: Path | None = None) -> tuple[Registry | None, list[Path]]:
    """Sources from front matter (inline list, or a path relative to the answer) or a sidecar
    (inside ``root`` when given, see :func:`sources_file`)."""
    target = sources_file(meta, path, root)
    if target is not None:
        return shared_sources(target), [target]
    spec = meta.get("sources")
    if spec is None:
        return None, []
    if isinstance(spec, (list, dict)):
        return registry_from_data(spec, path=f"{path} (front matter)"), []
    raise CiterenderError("front matter 'sources' must be a list of sources or a path", path=str(path))


def shared_sources(path: Path) -> Registry:
    """:func:`load_sources`, parsed once while the file keeps its size and modification time (the
    answers of a folder often share one); each caller gets its own registry, which can be added to."""
    try:
        st = path.stat()
    except OSError:
        return load_sources(path)  # load_sources says what is wrong with it
    if not settled(st.st_mtime_ns):
        return load_sources(path)  # may change again within the clock's granularity: read it
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    found = _SHARED.get(key)
    if found is None:
        found = load_sources(path)
        if len(_SHARED) >= 32:
            _SHARED.pop(next(iter(_SHARED)))
        _SHARED[key] = found
    return Registry(found.values(), path=found.path)


_SHARED: dict[tuple[str, int, int], Registry] = {}


def load_answer(path: str | Path, root: Path | None = None) -> Answer:
    """Read an answer for publishing: front matter, body and its sources (inside ``root``)."""
    p = Path(path)
    if root is not None and not is_within(p, root):
        raise CiterenderError(
            f"the answer is a link to a file outside {root}", path=str(p), hint="pass --follow-outside to allow it"
        )
    text = read_text_file(p, what="answer")
    meta, body, first_line = split_front_matter(text, str(p))
    registry, _ = registry_for(meta, p, root)
    return Answer(p, body, registry, meta, first_line)


def find_answers(src: Path) -> list[Path]:
    """Every ``.md`` answer under ``src``, hidden folders and ``*.sources.*`` files skipped."""
    out = []
    for p in sorted(src.rglob("*.md")):
        rel = p.relative_to(src)
        if any(part.startswith(".") for part in rel.parts) or ".sources." in p.name:
            continue
        out.append(p)
    return out


#: the longest name a file system takes, less what a page's temporary name adds (``.NAME.XXXXXXXX.tmp``)
MAX_PAGE_NAME_BYTES = 255 - 14


def page_name_problem(out_rel: str) -> str | None:
    """Why a page cannot be written as ``out_rel`` (its answer's name, ``.html``), or None: a name
    that is not UTF-8, holds a marker, or has a part too long for the file system."""
    try:
        out_rel.encode("utf-8")
    except UnicodeEncodeError:
        return "the file name is not UTF-8: rename it (the site's index, links and manifest are UTF-8)"
    from .shown import holds_marker

    if holds_marker(out_rel):
        return "the file name holds a citation marker or its residue: rename it (a page's name is shown in its address)"
    *folders, name = (len(part.encode("utf-8")) for part in out_rel.split("/"))
    if name > MAX_PAGE_NAME_BYTES or any(n > 255 for n in folders):
        return (
            f"its page's name would be {name} bytes, over the {MAX_PAGE_NAME_BYTES} a build can write "
            "(a file system takes 255, the temporary file a page is written to first 14 more): shorten its name"
        )
    return None
