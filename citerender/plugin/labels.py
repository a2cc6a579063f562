"""The one label of a citation group, ``[1]``, ``[1, 2]``, ``[1–3, 5]``, in every output but the
Markdown ones (footnote references: ``rendering.exports.markdown``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import groupby

__all__ = ["collapse_runs", "group_label"]


def collapse_runs(numbers: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted unique numbers as runs: ``[1, 2, 3, 5]`` → ``[(1, 3), (5, 5)]``. Only runs of three or
    more collapse (``1–3``); two neighbours stay ``1, 2``."""
    out: list[tuple[int, int]] = []
    for _, run in groupby(enumerate(sorted(set(numbers))), lambda kn: kn[1] - kn[0]):  # consecutive numbers
        ns = [n for _, n in run]
        out.extend([(n, n) for n in ns] if len(ns) < 3 else [(ns[0], ns[-1])])
    return out


def group_label(numbers: Sequence[int], show: Callable[[int], str] = str, dash: str = "\u2013") -> str:
    """``[1, 3–5]`` for a group citing ``numbers``; ``show`` writes each number, ``dash`` the en dash."""
    if len(numbers) == 1:  # most groups cite one source
        return "[" + show(numbers[0]) + "]"
    parts = [show(lo) if lo == hi else f"{show(lo)}{dash}{show(hi)}" for lo, hi in collapse_runs(numbers)]
    return "[" + ", ".join(parts) + "]"
