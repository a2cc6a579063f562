"""A chat export's file: ``conversations.json`` or the export's ``.zip``, read as a stream of
conversations (``ijson``), a zip inflating to at most ``max_bytes`` and 200 times its size.

ChatGPT's and Claude's exports are both a JSON array of conversation objects, zipped with the same
member name; what each object holds is read by :mod:`.chatgpt` or :mod:`.claude`."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ..errors import CiterenderError

__all__ = ["MAX_INFLATED_BYTES", "MAX_INFLATE_RATIO", "head", "is_zipped_export", "read_raw"]


#: the most a zipped export may inflate to, and the most it may inflate per compressed byte: an
#: 800 KB zip inflating to 800 MB ran for minutes (see SECURITY.md); ``max_bytes`` changes the first
MAX_INFLATED_BYTES = 4 * 1024**3
MAX_INFLATE_RATIO = 200


@contextmanager
def _open(path: str | Path, max_bytes: int = MAX_INFLATED_BYTES) -> Iterator[IO[bytes]]:
    p = Path(path)
    if not p.is_file():
        raise CiterenderError("export not found (or not a regular file)", path=str(path))
    if zipfile.is_zipfile(p):
        with zipfile.ZipFile(p) as z:
            members = [i for i in z.infolist() if i.filename.rsplit("/", 1)[-1] == "conversations.json"]
            if not members:
                raise CiterenderError("the zip holds no conversations.json", path=str(path))
            info = members[0]
            _check_inflation(info.file_size, info.compress_size, max_bytes, str(path))
            with z.open(info) as f:
                # the header's sizes may lie: the stream itself is bounded
                yield io.BufferedReader(_Bounded(f, max_bytes, info.compress_size, str(path)))
    else:
        with p.open("rb") as f:
            yield f


def _check_inflation(size: int, compressed: int, max_bytes: int, path: str) -> None:
    if size > max_bytes:
        raise CiterenderError(
            f"the zip's conversations.json inflates to {size:,} bytes, over the limit of {max_bytes:,}",
            path=path,
            hint="unzip it and build conversations.json, or raise the limit with --max-export-bytes",
        )
    if size > 1024 * 1024 and size > MAX_INFLATE_RATIO * max(compressed, 1):
        raise CiterenderError(
            f"the zip's conversations.json inflates {size // max(compressed, 1):,} times (over {MAX_INFLATE_RATIO}): "
            "refused as a zip bomb",
            path=path,
            hint="unzip it and build conversations.json",
        )


class _Bounded(io.RawIOBase):
    """A zip member read as a stream, stopped once it inflates past the limits whatever its header said."""

    def __init__(self, f: IO[bytes], max_bytes: int, compressed: int, path: str) -> None:
        self.f, self.max_bytes, self.compressed, self.path, self.read_so_far = f, max_bytes, compressed, path, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.f.read(len(buffer))
        self.read_so_far += len(data)
        _check_inflation(self.read_so_far, self.compressed, self.max_bytes, self.path)
        buffer[: len(data)] = data
        return len(data)


def is_zipped_export(path: str | Path) -> bool:
    """Is the file a zip holding a ``conversations.json`` (its size is judged when it is read)?"""
    try:
        if not zipfile.is_zipfile(path):
            return False
        with zipfile.ZipFile(path) as z:
            return any(n.rsplit("/", 1)[-1] == "conversations.json" for n in z.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def head(path: str | Path) -> str:
    """The first 64 KiB of the export's JSON as text (a zip's ``conversations.json``), ``""`` when
    it cannot be read: enough to tell whose export it is."""
    try:
        with _open(path) as f:
            return f.read(65536).decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    except (CiterenderError, OSError, zipfile.BadZipFile):
        return ""


def read_raw(path: str | Path, max_bytes: int = MAX_INFLATED_BYTES) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """Every conversation of the export as its JSON data, with its position, read as a stream
    (a zipped export inflates to at most ``max_bytes``)."""
    import ijson

    with _open(path, max_bytes) as f:
        try:
            for k, data in enumerate(ijson.items(f, "item", use_float=True)):
                if isinstance(data, Mapping):
                    yield k, data
        except ijson.JSONError as e:
            raise CiterenderError(f"invalid JSON in the export: {e}", path=str(path)) from None
