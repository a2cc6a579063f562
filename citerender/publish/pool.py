"""Running page renders: the result of one page, worker processes with a bounded number of pages
in flight, and the progress bar a terminal shows (shared by folder and conversation builds)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, TextIO

__all__ = ["PageResult", "Progress", "run_pages"]


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


class Progress:
    """A progress bar on a terminal (not in CI, not when piped)."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.stream, self.done = total, stream, 0
        self.on = stream.isatty() and not os.environ.get("CI") and total > 0

    def step(self) -> None:
        self.done += 1
        if self.on:
            fill = int(30 * self.done / self.total)
            self.stream.write(f"\r[{'#' * fill}{'.' * (30 - fill)}] {self.done}/{self.total}")
            self.stream.flush()

    def close(self) -> None:
        if self.on:
            self.stream.write("\n")


def run_pages(
    tasks: Iterable[dict[str, Any]], jobs: int, work: Callable[[dict[str, Any]], PageResult]
) -> Iterator[PageResult]:
    """Render the pages with ``work`` (a module-level function: it runs in worker processes when
    ``jobs > 1``), a bounded number in flight, so ``tasks`` may be a generator and memory stays flat."""
    if jobs <= 1:
        for t in tasks:
            yield work(t)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: set[Future[PageResult]] = set()
        for t in tasks:
            pending.add(pool.submit(work, t))
            if len(pending) >= jobs * 4:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    yield f.result()
        for f in pending:
            yield f.result()
