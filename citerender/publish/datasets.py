"""Datasets of answers in and results out: JSON Lines, JSON and Parquet, read and written as
streams of records (a batch at a time), so memory does not grow with the dataset.

Parquet needs ``pyarrow`` (``pip install 'citerender[parquet]'``). A results file keeps one record
per answer: JSON Lines as they are, Parquet with the nested parts (columns, diagnostics, claims,
metrics) as JSON text columns, so reading either back gives the same records.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..sources.clean import clean_data

__all__ = ["FORMATS", "ResultsWriter", "dataset_format", "done_ids", "read_records", "read_results"]

FORMATS = ("jsonl", "json", "parquet")
_NESTED = ("columns", "diagnostics", "claims", "metrics")
BATCH = 1000


def dataset_format(path: str | Path) -> str:
    """``jsonl``, ``json`` or ``parquet``, from the file's name."""
    name = str(path).lower()
    if name.endswith((".jsonl", ".ndjson", ".jsonl.gz")):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    raise CiterenderError("cannot tell the dataset's format", path=str(path), hint="name it .jsonl, .json or .parquet")


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CiterenderError(
            "Parquet needs pyarrow", hint="pip install 'citerender[parquet]' (or use .jsonl)"
        ) from None
    return pa, pq


def read_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Every record of the dataset, in order, read as a stream (lone surrogates replaced)."""
    fmt, p = dataset_format(path), Path(path)
    if not p.is_file():
        raise CiterenderError("dataset not found (or not a regular file)", path=str(path))
    if fmt == "parquet":
        _, pq = _pyarrow()
        for batch in pq.ParquetFile(p).iter_batches(batch_size=BATCH):
            yield from (clean_data(r, []) for r in batch.to_pylist())
        return
    if fmt == "json":
        import ijson

        with p.open("rb") as f:
            try:
                for item in ijson.items(f, "item", use_float=True):
                    yield clean_data(item, []) if isinstance(item, dict) else {"answer": item}
            except ijson.JSONError as e:
                raise CiterenderError(f"invalid JSON: {e}", path=str(path)) from None
        return
    with p.open("r", encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except (ValueError, RecursionError) as e:  # one bad line is that record's failure
                item = {"__failure__": f"line {n}: invalid JSON ({str(e)[:80]})"}
            yield clean_data(item, []) if isinstance(item, dict) else {"__failure__": f"line {n}: not an object"}


def done_ids(path: str | Path) -> set[str]:
    """The ids a results file already holds (a run resumed skips them); a line a killed run left
    half-written is dropped from the file."""
    p = Path(path)
    if not p.exists():
        return set()
    if dataset_format(p) == "jsonl":
        _truncate_partial(p)
    return {str(r["id"]) for r in read_results(p) if r.get("id") is not None}


def _truncate_partial(p: Path) -> None:
    data = p.read_bytes()
    if data and not data.endswith(b"\n"):
        with p.open("r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)


def read_results(p: Path) -> Iterator[dict[str, Any]]:
    """The records of a results file, as :func:`citerender.publish.records.check_record` made them."""
    for r in read_records(p):
        if dataset_format(p) == "parquet":
            r = {k: (json.loads(v) if k in _NESTED and isinstance(v, str) else v) for k, v in r.items()}
        yield r


class ResultsWriter:
    """Results written as they come: JSON Lines appended (a resumed run adds to the file);
    JSON and Parquet to a temporary file that replaces the results at :meth:`close`, earlier
    results first (nothing half-written is ever the results file)."""

    def __init__(self, path: str | Path, *, resume: bool) -> None:
        self.path, self.fmt = Path(path), dataset_format(path)
        self._batch: list[dict[str, Any]] = []
        self._writer: Any = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.fmt == "jsonl":
            self._file = self.path.open("a" if resume else "w", encoding="utf-8")
            return
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        self._tmp = Path(tmp)
        self._first = True
        if self.fmt == "json":
            self._file = self._tmp.open("w", encoding="utf-8")
            self._file.write("[")
        if resume and self.path.exists():
            self.write_all(read_results(self.path))

    def write_all(self, results: Iterable[dict[str, Any]]) -> None:
        for r in results:
            self.write(r)

    def write(self, result: dict[str, Any]) -> None:
        if self.fmt == "parquet":
            self._batch.append(result)
            if len(self._batch) >= BATCH:
                self._flush()
            return
        line = json.dumps(result, ensure_ascii=False)
        if self.fmt == "jsonl":
            self._file.write(line + "\n")
            self._file.flush()
        else:
            self._file.write(("\n" if self._first else ",\n") + line)
            self._first = False

    def _flush(self) -> None:
        if not self._batch:
            return
        pa, pq = _pyarrow()
        rows = [{k: _cell(k, v) for k, v in r.items()} for r in self._batch]
        table = pa.Table.from_pylist(rows, schema=_schema(pa))
        if self._writer is None:
            self._writer = pq.ParquetWriter(self._tmp, table.schema)
        self._writer.write_table(table)
        self._batch = []

    def close(self) -> None:
        if self.fmt == "jsonl":
            self._file.close()
            return
        if self.fmt == "json":
            self._file.write("\n]\n")
            self._file.close()
        else:
            self._flush()
            if self._writer is None:  # no result at all: an empty table
                pa, pq = _pyarrow()
                pq.write_table(pa.Table.from_pylist([], schema=_schema(pa)), self._tmp)
            else:
                self._writer.close()
        self._tmp.replace(self.path)

    def abort(self) -> None:
        """Stop without replacing the results (JSON Lines keep what was written: a resume goes on)."""
        if self.fmt != "parquet":
            self._file.close()
        if self.fmt == "jsonl":
            return
        if self._writer is not None:
            self._writer.close()
        self._tmp.unlink(missing_ok=True)


def _cell(key: str, value: Any) -> Any:
    if key in _NESTED:
        return json.dumps(value, ensure_ascii=False)
    return None if value is None else str(value)  # ids and failures as text, whatever the input held


def _schema(pa: Any) -> Any:
    return pa.schema([("id", pa.string()), ("failure", pa.string()), *((k, pa.string()) for k in _NESTED)])
