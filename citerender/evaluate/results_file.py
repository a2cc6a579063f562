"""The results file of ``check-dataset``: written as results come (JSON Lines appended, JSON and
Parquet replaced whole at the end), and read back to resume, where a line that is not a result
(:func:`~citerender.evaluate.metrics.result_problem`) is an input error naming it, the file left
as it was.
"""

from __future__ import annotations

import glob
import itertools
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..jobs.pool import batched
from .datasets import BATCH, MAX_LINE_BYTES, dataset_format, numbered_records, pyarrow_modules, results_format
from .metrics import result_problem

__all__ = ["ResultsWriter", "done_ids", "earlier_results", "journal_path", "read_results"]

_NESTED = ("columns", "diagnostics", "claims", "metrics", "alce")  # alce: ALCE's per-item values (--alce)


def done_ids(path: str | Path) -> Counter[str]:
    """How many results each id already has in the results file and its journal (a resume skips as
    many rows of that id); a line a killed run left half-written is dropped."""
    done: Counter[str] = Counter()
    for f in _written(path):
        done.update(str(r["id"]) for r in read_results(f, partial_tail=True))
        if dataset_format(f) == "jsonl":
            _repair_tail(f)
    return done


def journal_path(path: str | Path) -> Path:
    """Where JSON and Parquet results are kept as they come (JSON Lines) until the file is written
    whole: ``.NAME.journal.jsonl`` beside it (JSON Lines results need none)."""
    p = Path(path)
    return p if dataset_format(p) == "jsonl" else p.with_name(f".{p.name}.journal.jsonl")


def earlier_results(path: str | Path) -> Iterator[dict[str, Any]]:
    """The results a resumed run finds: the results file's, then its journal's."""
    for f in _written(path):
        yield from read_results(f)


def _written(path: str | Path) -> list[Path]:
    """The results file and its journal, those that exist (JSON Lines: the file is its own journal)."""
    p = Path(path)
    return [f for f in dict.fromkeys((p, journal_path(p))) if f.exists()]


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
    """Results written as they come, each line flushed: JSON Lines appended to the results; JSON
    and Parquet to their journal (:func:`journal_path`), the file written whole from it at
    :meth:`close` through a temporary file. A killed run's work is in the journal, for a resume."""

    def __init__(self, path: str | Path, *, resume: bool) -> None:
        self.path, self.fmt = Path(path), results_format(path)
        self.resume = resume
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.journal = journal_path(self.path)
        if self.fmt != "jsonl":
            for stale in self.path.parent.glob(f".{glob.escape(self.path.name)}.*.tmp"):  # a run killed in close
                stale.unlink(missing_ok=True)
        self._file = self.journal.open("a" if resume else "w", encoding="utf-8")

    def write(self, result: dict[str, Any]) -> None:
        self._file.write(json.dumps(result, ensure_ascii=False) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()
        if self.fmt == "jsonl":
            return
        fd, name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        tmp = Path(name)
        try:
            earlier = read_results(self.path) if self.resume and self.path.exists() else iter(())
            results = itertools.chain(earlier, read_results(self.journal))
            (_write_json if self.fmt == "json" else _write_parquet)(tmp, results)
            tmp.replace(self.path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        self.journal.unlink(missing_ok=True)

    def abort(self) -> None:
        """Stop without replacing the results: what was written stays (the file or the journal),
        and a resume goes on from it."""
        self._file.close()


def _write_json(tmp: Path, results: Iterable[dict[str, Any]]) -> None:
    with tmp.open("w", encoding="utf-8") as f:
        f.write("[")
        for k, r in enumerate(results):
            f.write(("\n" if k == 0 else ",\n") + json.dumps(r, ensure_ascii=False))
        f.write("\n]\n")


def _write_parquet(tmp: Path, results: Iterable[dict[str, Any]]) -> None:
    pa, pq = pyarrow_modules()
    schema = _schema(pa)
    with pq.ParquetWriter(tmp, schema) as writer:
        for batch in batched(results, BATCH):
            rows = [{k: _cell(k, v) for k, v in r.items()} for r in batch]
            writer.write_table(pa.Table.from_pylist(rows, schema=schema))


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
