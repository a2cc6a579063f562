"""Datasets of answers in and results out: JSON Lines, JSON and Parquet (``pyarrow``, the
``parquet`` extra), read as streams of records, so memory does not grow with the dataset. What is
read is checked as it enters, so a run never ends in a traceback: a dataset is UTF-8 (gzip read
through, other compressions refused), a ``.json`` dataset is a list of records, a Parquet file is
valid Parquet, and every value is plain JSON (:func:`plain`). Results: :mod:`.results_file`.
"""

from __future__ import annotations

import base64
import codecs
import datetime
import gzip
import io
import json
import math
import zlib
from collections.abc import Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..sources.clean import no_surrogates

__all__ = [
    "BATCH", "MAX_DEPTH", "MAX_LINE_BYTES", "dataset_format", "numbered_records", "plain",
    "pyarrow_modules", "read_records", "results_format",
]  # fmt: skip

BATCH = 1000
#: nesting a record may hold (deeper is that record's failure, not a RecursionError)
MAX_DEPTH = 200
#: the longest line of a JSON Lines dataset (a longer one is that record's failure)
MAX_LINE_BYTES = 64 * 1024 * 1024
#: compressions refused (gzip is read through): name, file suffix, first bytes (None: not told by
#: them) and the command that undoes it
_PACKED = (
    ("bzip2", ".bz2", b"BZh", "bunzip2"),
    ("xz", ".xz", b"\xfd7zXZ\x00", "unxz"),
    ("zstd", ".zst", b"\x28\xb5\x2f\xfd", "unzstd"),
    ("zip", ".zip", b"PK\x03\x04", "unzip"),
    ("7z", ".7z", b"7z\xbc\xaf\x27\x1c", "7z x"),
    ("lz4", ".lz4", None, "unlz4"),
    ("brotli", ".br", None, "brotli -d"),
)


def dataset_format(path: str | Path) -> str:
    """``jsonl``, ``json`` or ``parquet``, from the file's name (``.gz`` after JSON Lines or JSON;
    any other compression named is refused, saying which)."""
    name = str(path).lower()
    packed = next((k for k in _PACKED if name.endswith(k[1])), None)
    if packed is not None and name.rsplit(".", 2)[-2] in ("jsonl", "ndjson", "json", "parquet", "pq"):
        raise _compressed(path, packed[0], packed[3])
    gz = name.endswith(".gz")
    name = name.removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    if name.endswith((".parquet", ".pq")):
        if gz:
            raise _compressed(path, "gzip", "gunzip")
        return "parquet"
    raise CiterenderError(
        "cannot tell the dataset's format",
        path=str(path),
        hint="name it .jsonl, .json or .parquet (.jsonl.gz read too)",
    )


def _compressed(path: str | Path, kind: str, command: str, what: str = "") -> CiterenderError:
    return CiterenderError(
        f"the dataset is compressed ({kind}){what}", path=str(path), hint=f"decompress it first: {command} FILE"
    )


def results_format(path: str | Path) -> str:
    """The format of a results file: as :func:`dataset_format`, uncompressed (results are appended)."""
    if str(path).lower().endswith(".gz"):
        raise CiterenderError(
            "results are written uncompressed", path=str(path), hint="name them .jsonl, .json or .parquet"
        )
    return dataset_format(path)


def pyarrow_modules() -> Any:
    """``(pyarrow, pyarrow.parquet)``, or a clear error saying what to install."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CiterenderError(
            "Parquet needs pyarrow", hint="pip install 'citerender[parquet]' (or use .jsonl)"
        ) from None
    return pa, pq


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data: lone surrogates replaced, and what JSON cannot hold as text —
    a timestamp, date or time in ISO 8601, a decimal as written, bytes as UTF-8 text (or
    ``base64:…`` when they are not UTF-8), NaN and infinities as ``nan``/``inf``, anything else
    as ``str()``. Nesting deeper than :data:`MAX_DEPTH` is a :class:`CiterenderError`."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, str):
        return no_surrogates(value)[0]
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping | list | tuple):
        if depth >= MAX_DEPTH:
            raise CiterenderError(f"nested too deeply (more than {MAX_DEPTH} levels)")
        if isinstance(value, Mapping):
            return {(plain(k) if isinstance(k, str) else str(k)): plain(v, depth + 1) for k, v in value.items()}
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value)
        try:
            return no_surrogates(raw.decode("utf-8"))[0]
        except UnicodeDecodeError:
            return "base64:" + base64.b64encode(raw).decode("ascii")
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return no_surrogates(str(value))[0]


def _open(p: Path) -> io.BufferedIOBase:
    """The bytes of a JSON Lines or JSON dataset: gzip read through, other compressions refused."""
    with p.open("rb") as f:
        head = f.read(8)
    if head.startswith(b"\x1f\x8b"):
        return gzip.open(p, "rb")
    for kind, _, magic, command in _PACKED:
        if magic is not None and head.startswith(magic):
            raise _compressed(p, kind, command, ", not JSON")
    return p.open("rb")


def _check_utf8(p: Path) -> None:
    """A dataset that is not UTF-8 is an input error naming its first bad line (never read with
    U+FFFD in place of its letters); read in chunks, so memory stays flat."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    line = 1
    try:
        with _open(p) as f:
            while chunk := f.read(1 << 20):
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError as e:
                    at = max(e.start, 0)
                    where = line + chunk.count(b"\n", 0, at)
                    raise CiterenderError(
                        f"not UTF-8 (byte 0x{chunk[at : at + 1].hex() or '?'} on line {where})",
                        path=str(p),
                        line=where,
                        hint="convert it to UTF-8, e.g. iconv -f latin1 -t utf-8",
                    ) from None
                line += chunk.count(b"\n")
            decoder.decode(b"", final=True)
    except (OSError, EOFError, zlib.error) as e:  # a damaged gzip stream
        raise CiterenderError(f"cannot be read: {str(e)[:120] or type(e).__name__}", path=str(p)) from None
    except UnicodeDecodeError:
        raise CiterenderError("not UTF-8 (its last character is cut short)", path=str(p)) from None


def read_records(path: str | Path, id_col: str = "id", *, within: str | None = None) -> Iterator[dict[str, Any]]:
    """Every record of the dataset, in order, streamed (every value :func:`plain`); one that cannot
    be read is ``{"__failure__": why, id_col: its id if known}``. ``within``: a ``.json`` dataset
    may be an object holding the list under that key (ALCE's result files: ``data``)."""
    return (record for _, record in numbered_records(path, id_col, within=within))


def numbered_records(
    path: str | Path, id_col: str = "id", *, partial_tail: bool = False, within: str | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """:func:`read_records` with each record's line (JSON Lines) or position (JSON, Parquet), the
    file checked before this returns; ``partial_tail``: a last JSON Lines line cut short is left out."""
    fmt, p = dataset_format(path), Path(path)
    if not p.is_file():
        raise CiterenderError("dataset not found (or not a regular file)", path=str(path))
    if fmt == "parquet":
        return _parquet_records(p, _parquet_file(p), id_col)
    _check_utf8(p)
    if fmt == "json":
        _json_list(p, within)
    items = _json_items(p, within) if fmt == "json" else _jsonl_items(p, partial_tail)
    return _plain_items(items, id_col, "line" if fmt == "jsonl" else "item")


def _plain_items(items: Iterator[tuple[int, Any]], id_col: str, where: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for n, item in items:
        yield n, item if isinstance(item, dict) and "__failure__" in item else _plain_record(n, item, id_col, where)


def _plain_record(n: int, item: Any, id_col: str, where: str) -> Any:
    """``item`` made :func:`plain`; too deep, that record's failure, keeping its id for a resume."""
    try:
        return plain(item)
    except CiterenderError as e:
        return {"__failure__": f"{where} {n}: {e.message}", **_ident(item, id_col)}


def _ident(item: Any, id_col: str) -> dict[str, str]:
    rid = item.get(id_col) if isinstance(item, Mapping) else None
    return {id_col: str(rid)} if isinstance(rid, str | int) and not isinstance(rid, bool) else {}


def _jsonl_items(p: Path, partial_tail: bool = False) -> Iterator[tuple[int, Any]]:
    with _open(p) as f:
        for n, raw in enumerate(_lines(f), start=1):
            if raw is None:
                yield n, {"__failure__": f"line {n}: longer than {MAX_LINE_BYTES // 2**20} MB"}
                continue
            text = raw.decode("utf-8").removeprefix("\ufeff") if n == 1 else raw.decode("utf-8")
            if not text.strip():
                continue
            try:
                item = json.loads(text)
            except (ValueError, RecursionError) as e:  # one bad line is that record's failure
                if partial_tail and not raw.endswith(b"\n"):
                    return  # a killed run's last line, half-written
                item = {"__failure__": f"line {n}: invalid JSON ({str(e)[:80]})"}
            yield n, item if isinstance(item, dict) else {"__failure__": f"line {n}: not an object"}


def _lines(f: io.BufferedIOBase) -> Iterator[bytes | None]:
    """The lines of ``f`` (None for one longer than :data:`MAX_LINE_BYTES`, skipped unread)."""
    while line := f.readline(MAX_LINE_BYTES + 1):
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while (rest := f.readline(1 << 20)) and not rest.endswith(b"\n"):
                pass
            yield None
            continue
        yield line


def _json_list(p: Path, within: str | None = None) -> None:
    """A ``.json`` dataset is one well-formed list of records (or, ``within``, an object holding
    it under that key): any other document, or JSON cut short, is an input error before anything
    is written (read through once, in linear time, building each record as the run will: one
    reader, at about a quarter more than walking the parser's events alone)."""
    with _open(p) as f:
        head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"[") and not (within and head.startswith(b"{")):
        kind = {b"{": "an object", b'"': "a string", b"": "empty"}.get(head[:1], "a single value")
        raise CiterenderError(
            f"not a list of records (the JSON document is {kind})",
            path=str(p),
            hint="give a list [{...}, {...}], or one record a line as JSON Lines (.jsonl)",
        )
    for _ in _json_items(p, within):
        pass


def _no_list(p: Path, key: str | None) -> CiterenderError:
    return CiterenderError(
        f"not a list of records, nor an object with a {key!r} list", path=str(p), hint=f'give {{"{key}": [...]}}'
    )


def _json_items(p: Path, within: str | None = None) -> Iterator[tuple[int, Any]]:
    """The items of a JSON list, streamed (one that is not an object is that record's failure),
    and the rest of the document read through. Built from the parser's events, not by ijson's item
    builder, whose cost grows with the square of the nesting: an item nested deeper than
    :data:`MAX_DEPTH` fails, read past in linear time."""
    import ijson

    with _open(p) as f:
        if f.read(3) != b"\xef\xbb\xbf":  # a byte order mark is no part of the JSON
            f.seek(0)
        events = ijson.basic_parse(f, use_float=True)
        try:
            first = next(events, ("", None))[0]
            if first == "start_map" and within:
                _seek_key(events, within, p)
            elif first != "start_array":
                return
            for n, (event, value) in enumerate(events, start=1):
                if event == "end_array":  # the list's end: the rest must be JSON too
                    for _ in events:
                        pass
                    return
                item, deep = _item(event, value, events)
                if deep:
                    item = {
                        "__failure__": f"item {n}: nested too deeply (more than {MAX_DEPTH} levels)",
                        **_ident(item, "id"),
                    }
                elif not isinstance(item, dict):
                    item = {"__failure__": f"item {n}: not an object (a record)"}
                yield n, item
        except (ijson.JSONError, ijson.IncompleteJSONError, UnicodeDecodeError) as e:
            raise CiterenderError(f"invalid JSON: {' '.join(str(e).split())[:120]}", path=str(p)) from None


def _seek_key(events: Iterator[tuple[str, Any]], key: str, p: Path) -> None:
    """Past the object's members up to ``key``'s list (the others read past, bounded in depth)."""
    for event, value in events:
        if event == "map_key" and value == key:
            if next(events, ("", None))[0] == "start_array":
                return
            break
        if event == "map_key":
            _item(*next(events), events)
        else:  # the object's end
            break
    for _ in events:  # invalid JSON after it is said first
        pass
    raise _no_list(p, key)


def _item(event: str, value: Any, events: Iterator[tuple[str, Any]]) -> tuple[Any, bool]:
    """One JSON value from its first event on, and whether it was too deep to build whole."""
    if event not in ("start_map", "start_array"):
        return value, False
    root: Any = {} if event == "start_map" else []
    stack: list[Any] = [root]
    keys: list[str | None] = [None]
    depth, deep = 1, False
    for event, value in events:
        if event in ("start_map", "start_array"):
            depth += 1
            deep = deep or depth > MAX_DEPTH
            if not deep:
                new: Any = {} if event == "start_map" else []
                _put(stack[-1], keys[-1], new)
                stack.append(new)
                keys.append(None)
        elif event in ("end_map", "end_array"):
            depth -= 1
            if depth == 0:
                return root, deep
            if len(stack) > depth:
                stack.pop()
                keys.pop()
        elif len(stack) < depth:  # inside what is too deep: read past
            continue
        elif event == "map_key":
            keys[-1] = value
        else:
            _put(stack[-1], keys[-1], value)
    raise CiterenderError("the JSON ends inside a record")


def _put(container: Any, key: str | None, value: Any) -> None:
    if isinstance(container, dict):
        container[key] = value
    else:
        container.append(value)


def _parquet_file(p: Path) -> Any:
    pa, pq = pyarrow_modules()
    try:
        return pq.ParquetFile(p)
    except (pa.ArrowException, OSError, ValueError) as e:
        raise CiterenderError(f"not a valid Parquet file ({type(e).__name__}: {str(e)[:120]})", path=str(p)) from None


def _parquet_records(p: Path, file: Any, id_col: str) -> Iterator[tuple[int, dict[str, Any]]]:
    pa, _ = pyarrow_modules()
    n = 0
    try:
        for batch in file.iter_batches(batch_size=BATCH):
            for row in batch.to_pylist():
                n += 1
                yield n, _plain_record(n, row, id_col, "row")
    except (pa.ArrowException, OSError, ValueError) as e:
        raise CiterenderError(
            f"not a valid Parquet file at row {n + 1} ({type(e).__name__}: {str(e)[:120]})", path=str(p)
        ) from None
