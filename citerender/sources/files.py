"""Reading sources: JSON, YAML or TOML data (a list of sources or ``{"sources": [...]}``), or the
very text shown to the model. Every problem is a :class:`CiterenderError` naming file and line."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from io import BufferedReader
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..syntax.format import DEFAULT_FORMAT, CitationFormat
from .model import MAX_SOURCES_FILE_BYTES, Registry, registry_from_data

__all__ = [
    "MAX_INPUT_BYTES",
    "decode_text",
    "load_sources",
    "load_yaml",
    "parse_data",
    "read_bytes",
    "read_text_file",
    "regular_file",
]


#: the largest answer, response or transcript read (see SECURITY.md)
MAX_INPUT_BYTES = 64 * 1024 * 1024


@contextmanager
def regular_file(path: str | Path) -> Iterator[BufferedReader | None]:
    """``path`` open for reading, or None when it is not a regular file. Opened without blocking and
    checked once open: a FIFO or device (or one swapped in after a check) never hangs the reader.
    ``OSError`` as :func:`os.open` raises it."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        yield f if stat.S_ISREG(os.fstat(f.fileno()).st_mode) else None


def read_text_file(path: str | Path, *, limit: int = MAX_SOURCES_FILE_BYTES, what: str = "file") -> str:
    """Read a UTF-8 text file (see :func:`read_bytes`), turning every failure into a :class:`CiterenderError`."""
    return decode_text(read_bytes(path, limit=limit, what=what), str(path), what)


def read_bytes(path: str | Path, *, limit: int, what: str = "file") -> bytes:
    """At most ``limit`` bytes of a regular file, else a :class:`CiterenderError`.

    ``stat`` is not trusted for the size (it is 0 for a FIFO or a device, which would then be read
    without bound or block forever): the file is opened without blocking, must be a regular file
    once open (a FIFO swapped in after a check is caught), and ``limit + 1`` bytes are read at most."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            if stat.S_ISDIR(mode):
                raise CiterenderError(f"{what} is a directory, not a file", path=name)
            if not stat.S_ISREG(mode):
                raise CiterenderError(
                    f"{what} is not a regular file (a FIFO, device or socket)",
                    path=name,
                    hint="pass a file's path, or - for stdin",
                )
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise CiterenderError(f"{what} not found", path=name, hint="check the path") from None
    except IsADirectoryError:
        raise CiterenderError(f"{what} is a directory, not a file", path=name) from None
    except PermissionError:
        raise CiterenderError(f"{what} is not readable (permission denied)", path=name) from None
    except OSError as e:
        raise CiterenderError(f"cannot read {what}: {e.strerror or e}", path=name) from None
    if len(data) > limit:
        raise CiterenderError(f"{what} is over the limit of {limit:,} bytes", path=name)
    return data


def decode_text(data: bytes, name: str, what: str = "file") -> str:
    """Decode UTF-8 (a BOM is allowed), refusing binary data with a clear message."""
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CiterenderError(f"{what} looks binary (it has NUL bytes)", path=name, hint="pass a UTF-8 text file")
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data  # as utf-8-sig (whose codec is a module to load)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as e:
        line = body[: e.start].count(b"\n") + 1
        raise CiterenderError(
            f"{what} is not valid UTF-8 (byte {e.start})", path=name, line=line, hint="save it as UTF-8"
        ) from None


def load_yaml(raw: str, name: str, *, first_line: int = 1, what: str = "YAML") -> Any:
    """Safe YAML without aliases: a few bytes of ``*alias`` references can expand to gigabytes
    (an alias bomb), and no sources file or front matter needs them."""
    import yaml  # lazy: only YAML users pay for it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        for event in yaml.parse(raw, Loader=loader):
            if isinstance(event, yaml.AliasEvent):
                mark = event.start_mark
                raise CiterenderError(
                    f"{what} aliases (*name) are not accepted",
                    path=name,
                    line=(mark.line + first_line) if mark is not None else None,
                    hint="write the value out instead of referring to an &anchor",
                )
        return yaml.load(raw, Loader=loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        problem = "nested too deeply" if "nesting depth" in problem else problem  # libyaml's limit
        raise CiterenderError(
            f"invalid {what}: {problem}", path=name, line=mark.line + first_line if mark is not None else None
        ) from None
    except RecursionError:
        raise CiterenderError(f"invalid {what}: nested too deeply", path=name) from None


def parse_data(raw: str, suffix: str, name: str) -> object:
    """Parse JSON, YAML or TOML text, reporting the parser's line on failure."""
    if suffix == ".json":
        try:
            return json.loads(raw)
        except json.JSONDecodeError as e:
            raise CiterenderError(f"invalid JSON: {e.msg} (column {e.colno})", path=name, line=e.lineno) from None
        except RecursionError:
            raise CiterenderError("invalid JSON: nested too deeply", path=name) from None
    if suffix in (".yaml", ".yml"):
        return load_yaml(raw, name)
    if suffix == ".toml":
        import tomllib

        try:
            return tomllib.loads(raw)
        except RecursionError:
            raise CiterenderError("invalid TOML: nested too deeply", path=name) from None
        except tomllib.TOMLDecodeError as e:
            m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
            msg = re.sub(r"\s*\(at line.*\)", "", str(e))
            raise CiterenderError(f"invalid TOML: {msg}", path=name, line=int(m.group(1)) if m else None) from None
    raise CiterenderError(
        f"unknown sources format {suffix!r}",
        path=name,
        hint="use .json, .yaml, .toml, or tool-output / <BLOCK> text in .txt",
    )


def load_sources(
    path: str | Path, *, fmt: CitationFormat = DEFAULT_FORMAT, numbered: str | None = None, first: int = 1
) -> Registry:
    """Load a registry, choosing the format from the file name and content (``numbered``, ``first``:
    ids for a numbering dialect's entries without one, see :func:`registry_from_data`)."""
    name = str(path)
    raw = read_text_file(path, what="sources file")
    suffix = Path(path).suffix.lower()
    stripped = raw.lstrip()
    if suffix in (".json", ".yaml", ".yml", ".toml") or stripped.startswith(("{", "[")):
        data = parse_data(raw, suffix if suffix in (".yaml", ".yml", ".toml") else ".json", name)
        try:
            return registry_from_data(data, path=name, raw=raw, fmt=fmt, numbered=numbered, first=first)
        except CiterenderError as e:  # the data's own checks (its depth: clean_data) name the file too
            if e.path is None:
                e.path = name
            raise
    if stripped.startswith(("Citation Marker:", "<BLOCK")):  # the context formats' reader loads for them
        from .context import parse_blocks, parse_tool_output

        if stripped.startswith("<BLOCK"):
            return parse_blocks(raw, path=name, fmt=fmt)
        return parse_tool_output(raw, path=name, fmt=fmt)
    raise CiterenderError(
        "cannot tell the sources format",
        path=name,
        line=1,
        hint="use .json/.yaml/.toml, or text starting with 'Citation Marker:' or '<BLOCK'",
    )
