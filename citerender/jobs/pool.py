"""Running page renders: the result of one page, worker processes with a bounded number of pages
in flight, and the progress bar a terminal shows (shared by folder and conversation builds)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, TextIO, TypeVar

__all__ = ["PageResult", "Progress", "batched", "run_pages"]

R = TypeVar("R")
T = TypeVar("T")


@dataclass
class PageResult:
    rel: str
    out: str
    title: str
    output_hash: str | None = None
    input_hash: str = ""
    errors: int = 0
    warnings: int = 0
    lines: list[str] = field(default_factory=list)
    failure: str | None = None
    skipped: bool = False
    #: rendered without sources (CR112): every citation unverified; a failure under ``--strict``
    unverified: bool = False
    #: the page's source views written (path in the site → hash), for the build's manifest
    views: dict[str, str] = field(default_factory=dict)


class Progress:
    """A progress bar on a terminal (not in CI, not when piped)."""

    def __init__(self, total: int | None, stream: TextIO, what: str = "") -> None:
        """``total`` None: a stream of unknown length, counted (every 100th step shown)."""
        self.total, self.stream, self.done, self.what = total, stream, 0, what
        self.on = stream.isatty() and not os.environ.get("CI") and (total is None or total > 0)

    def step(self) -> None:
        self.done += 1
        if not self.on:
            return
        if self.total is None:
            if self.done % 100 == 0:
                self.stream.write(f"\r{self.done:,} {self.what}")
                self.stream.flush()
            return
        fill = int(30 * self.done / self.total)
        self.stream.write(f"\r[{'#' * fill}{'.' * (30 - fill)}] {self.done}/{self.total}")
        self.stream.flush()

    def close(self) -> None:
        if self.on:
            self.stream.write("\n")


#: pages sent to a worker at once: one process round trip per batch, not per page
BATCH = 4


def run_pages(tasks: Iterable[dict[str, Any]], jobs: int, work: Callable[[dict[str, Any]], R]) -> Iterator[R]:
    """Run ``work`` on each task (a module-level function: it runs in worker processes when
    ``jobs > 1``), a bounded number in flight, so ``tasks`` may be a generator and memory stays
    flat; results come in the tasks' order with one job, as they finish with more."""
    if jobs <= 1:
        for t in tasks:
            yield work(t)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: set[Future[list[R]]] = set()
        for batch in batched(tasks, BATCH):
            pending.add(pool.submit(_run_batch, work, batch))
            if len(pending) >= jobs * 2:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    yield from f.result()
        for f in pending:
            yield from f.result()


def _run_batch(work: Callable[[dict[str, Any]], R], batch: list[dict[str, Any]]) -> list[R]:
    return [work(t) for t in batch]


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size`` (the last shorter): ``itertools.batched`` before Python 3.12."""
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch
