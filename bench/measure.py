"""Measuring for the benchmarks: CPU time (this process and its finished children), runs side by
side in alternation, per-round ratios, and the report of rows and PASS/FAIL targets."""

from __future__ import annotations

import gc
import resource
import statistics
import time
from collections.abc import Callable
from typing import Any


def cpu() -> float:
    """CPU seconds of this process and of its finished children (pandoc, a CLI run): what the
    work costs, whatever else the shared machine is doing — wall time measured the neighbours."""
    c = resource.getrusage(resource.RUSAGE_CHILDREN)  # microseconds, where os.times() counts 10 ms ticks
    return time.process_time() + c.ru_utime + c.ru_stime


def measure(fn: Callable[[], object], *, repeat: int = 7, warmup: int = 1, inner: int = 1) -> dict[str, float]:
    """Median, min and max CPU time of ``fn`` over ``repeat`` runs after ``warmup`` runs (each
    run calls it ``inner`` times, for work too short for the clock)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        gc.collect()
        t = cpu()
        for _ in range(inner):
            fn()
        times.append((cpu() - t) / inner)
    return {"median": statistics.median(times), "min": min(times), "max": max(times), "runs": repeat}


def side_by_side(
    fns: dict[str, Callable[[], object]], *, repeat: int = 7, inner: int = 1
) -> tuple[dict[str, dict[str, float]], dict[str, list[float]]]:
    """Time several functions in alternation (one run of each per round, after one warm-up run of
    each), in CPU time, so that a slow spell of the machine weighs on all of them alike. Returns
    each one's median/min/max, and the times per round for :func:`ratio`."""
    for fn in fns.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            gc.collect()
            t = cpu()
            for _ in range(inner):
                fn()
            times[name].append((cpu() - t) / inner)
    stats = {
        name: {"median": statistics.median(ts), "min": min(ts), "max": max(ts), "runs": repeat}
        for name, ts in times.items()
    }
    return stats, times


def ratio(times: dict[str, list[float]], a: str, b: str) -> float:
    """The median over rounds of ``a``'s time / ``b``'s time in the same round."""
    return statistics.median(_ratios(times, a, b))


def ratio_min(times: dict[str, list[float]], a: str, b: str) -> float:
    """The least of the per-round ratios: the one a quiet moment of the machine gave."""
    return min(_ratios(times, a, b))


def _ratios(times: dict[str, list[float]], a: str, b: str) -> list[float]:
    return [x / y for x, y in zip(times[a], times[b], strict=True) if y > 0]


def fmt_t(m: dict[str, float]) -> str:
    return f"{m['median'] * 1000:9.1f} ms  ({m['min'] * 1000:.1f}–{m['max'] * 1000:.1f})"


class Report:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str]] = []
        self.targets: list[dict[str, Any]] = []
        self.data: dict[str, Any] = {}

    def row(self, name: str, m: dict[str, float]) -> None:
        self.data[name] = m
        self.rows.append((name, fmt_t(m)))
        print(f"  {name:<58} {fmt_t(m)}", flush=True)

    def target(
        self,
        name: str,
        value: float,
        limit: float,
        *,
        lower_is_better: bool = True,
        unit: str = "×",
        best: float | None = None,
    ) -> None:
        """A target judged on ``value`` (the median of per-round ratios); ``best`` is the least
        (or greatest) of them, printed beside it."""
        ok = value <= limit if lower_is_better else value >= limit
        cmp = "≤" if lower_is_better else "≥"
        self.targets.append({"target": name, "value": value, "best": best, "limit": limit, "pass": ok})
        extra = f", best round {best:.2f}{unit}" if best is not None else ""
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {value:.2f}{unit}{extra} (target {cmp} {limit}{unit})", flush=True)

    def ratio_target(
        self, name: str, times: dict[str, list[float]], a: str, b: str, limit: float, *, lower_is_better: bool = True
    ) -> None:
        """A target on ``a``'s time / ``b``'s, per round: judged on the median, the best round beside it."""
        best = ratio_min(times, a, b) if lower_is_better else max(_ratios(times, a, b))
        self.target(name, ratio(times, a, b), limit, lower_is_better=lower_is_better, best=best)
