"""The results file of ``check-dataset``: written as results come (JSON Lines appended, JSON and
Parquet replaced whole at the end), and read back to resume — where every line must be a result
(:func:`~citerender.evaluate.metrics.result_problem`): a hand-edited or foreign line is an
input error naming it, never a traceback, and the file is left as it was.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from .datasets import BATCH, MAX_LINE_BYTES, dataset_format, numbered_records, pyarrow_modules, results_format
from .metrics import result_problem

__all__ = ["ResultsWriter", "done_ids", "read_results"]

_NESTED = ("columns", "diagnostics", "claims", "metrics", "alce")  # alce: ALCE's per-item values (--alce)


def done_ids(path: str | Path) -> Counter[str]:
    """How many results each id already has (a run resumed skips as many rows of that id). A line
    a killed run left half-written is dropped from the file; a line that is not a result is an
    input error naming it (the file is not changed)."""
    p = Path(path)
    if not p.exists():
        return Counter()
    done = Counter(str(r["id"]) for r in read_results(p, partial_tail=True))
    if dataset_format(p) == "jsonl":
        _repair_tail(p)
    return done


def _repair_tail(p: Path) -> None:
    """A last line without its newline: a whole result gets its newline, a cut one is dropped."""
    with p.open("rb") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        start = max(0, size - MAX_LINE_BYTES)
        f.seek(start)
        tail = f.read()
    cut = tail.rfind(b"\n") + 1
    try:
        whole = result_problem(json.loads(tail[cut:])) is None
    except (ValueError, RecursionError):
        whole = False
    with p.open("r+b") as f:
        if whole:
            f.seek(0, os.SEEK_END)
            f.write(b"\n")
        else:
            f.truncate(start + cut)


def read_results(p: str | Path, *, partial_tail: bool = False) -> Iterator[dict[str, Any]]:
    """The records of a results file, as :func:`citerender.evaluate.records.check_record` made
    them; a line (or row) that is not one is an input error naming it (``partial_tail`` as for
    :func:`numbered_records`)."""
    p = Path(p)
    fmt = dataset_format(p)
    where = "line" if fmt == "jsonl" else "item" if fmt == "json" else "row"
    for n, r in numbered_records(p, partial_tail=partial_tail):
        if fmt == "parquet":
            try:
                r = {k: (json.loads(v) if k in _NESTED and isinstance(v, str) else v) for k, v in r.items()
                     if k != "alce" or v is not None}  # fmt: skip
            except (ValueError, RecursionError):
                r = {"__failure__": "a nested column is not JSON"}
        problem = result_problem(r)
        if problem is not None:
            raise CiterenderError(
                f"{'' if fmt == 'jsonl' else where + f' {n} '}not a result of check-dataset: {problem}".lstrip(),
                path=str(p),
                line=n if fmt == "jsonl" else None,
                hint="fix or delete that line (its record is checked again), or --restart to check everything again",
            )
        yield r


class ResultsWriter:
    """Results written as they come: JSON Lines appended (a resumed run adds to the file);
    JSON and Parquet to a temporary file that replaces the results at :meth:`close`, earlier
    results first (nothing half-written is ever the results file)."""

    def __init__(self, path: str | Path, *, resume: bool) -> None:
        self.path, self.fmt = Path(path), results_format(path)
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
        pa, pq = pyarrow_modules()
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
                pa, pq = pyarrow_modules()
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
    if key == "alce" and value is None:
        return None
    if key in _NESTED:
        return json.dumps(value, ensure_ascii=False)
    if key == "row":
        return value
    return None if value is None else str(value)  # ids and failures as text, whatever the input held


def _schema(pa: Any) -> Any:
    return pa.schema(
        [("id", pa.string()), ("row", pa.int64()), ("failure", pa.string()), *((k, pa.string()) for k in _NESTED)]
    )
