"""A paired A/B comparison (``check-dataset --compare COL --pair-by COL``): the two values of a
column (two models, two prompts) compared on the questions (``--pair-by``) both answered. Per rate:
both sides pooled over those questions, and the difference (second minus first, in sort order)
with its paired 95% interval (:func:`~citerender.evaluate.intervals.difference_interval`):
questions differ in difficulty far more than two models do, and pairing takes that out. A question
answered several times by one side counts its answers' sums; a failed record is no answer.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import CiterenderError
from .intervals import METHOD, difference_interval
from .metrics import METRICS, rate

__all__ = ["Comparison", "compare_ready", "value_key"]


def value_key(value: object) -> str:
    """A column's value as compared and shown: text as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def compare_ready(records: Iterable[Mapping[str, Any]], column: str, pair_by: str) -> tuple[str, str]:
    """The two values of ``column`` (in sort order), once the dataset is sure to give a comparison:
    exactly two values, and a value of ``pair_by`` (a question) both answered; else a usage error."""
    asked: dict[str, set[str]] = {}
    for record in records:
        if "__failure__" in record or column not in record or pair_by not in record:
            continue
        asked.setdefault(value_key(record[column]), set()).add(value_key(record[pair_by]))
    values = sorted(asked)
    if len(values) != 2:
        shown = ", ".join(repr(v) for v in values[:5]) + (", …" if len(values) > 5 else "")
        raise CiterenderError(
            f"--compare {column}: a paired comparison needs exactly two values of {column!r}, the dataset has"
            f" {len(values)}{f' ({shown})' if values else ''}",
            hint=f"compare a column with two values, or keep the records of two values of {column!r}",
        )
    if not asked[values[0]] & asked[values[1]]:
        raise CiterenderError(
            f"--compare {column} --pair-by {pair_by}: no value of {pair_by!r} was answered by both"
            f" {column}={values[0]} and {column}={values[1]}, so there is nothing to pair",
            hint="--pair-by names the column that identifies the question both answered (a prompt or question id)",
        )
    return values[0], values[1]


class Comparison:
    """The two sides' counts per question, and their paired differences (:meth:`summary`)."""

    def __init__(self, column: str, pair_by: str) -> None:
        self.column, self.pair_by = column, pair_by
        #: question -> value -> each rate's (numerator, denominator), summed over its answers
        self.cells: dict[str, dict[str, list[int]]] = {}

    def add(self, result: Mapping[str, Any]) -> None:
        cols = result.get("columns") or {}
        if result.get("failure") or self.column not in cols or self.pair_by not in cols:
            return
        m = result.get("metrics") or {}
        side = self.cells.setdefault(value_key(cols[self.pair_by]), {})
        sums = side.setdefault(value_key(cols[self.column]), [0] * (2 * len(METRICS)))
        for i, (_, a, b) in enumerate(METRICS):
            sums[2 * i] += int(m.get(a, 0))
            sums[2 * i + 1] += int(m.get(b, 0))

    def summary(self) -> dict[str, Any]:
        """The comparison as the summary JSON holds it: per rate, both sides, ``difference``
        (second − first) and ``ci95`` (paired, over questions)."""
        values = sorted({v for side in self.cells.values() for v in side})
        out: dict[str, Any] = {"column": self.column, "pair_by": self.pair_by, "values": values}
        if len(values) != 2:
            return {**out, "questions": 0, "rates": {}}
        first, second = values
        paired = [(side[first], side[second]) for side in self.cells.values() if first in side and second in side]
        rates = {name: _paired_rate(paired, i) for i, (name, _, _) in enumerate(METRICS)}
        return {
            **out,
            "first": first,
            "second": second,
            "questions": len(paired),
            "only_first": sum(first in s and second not in s for s in self.cells.values()),
            "only_second": sum(second in s and first not in s for s in self.cells.values()),
            "method": f"second minus first on the questions both answered; {METHOD.replace('answers', 'questions')}",
            "rates": rates,
        }


def _paired_rate(paired: list[tuple[list[int], list[int]]], i: int) -> dict[str, Any]:
    """The ``i``-th rate of :data:`METRICS` on the paired questions: each side pooled over them,
    and, when both have one, the difference (second − first) and its paired interval."""
    num, den = 2 * i, 2 * i + 1
    one = rate(sum(x[num] for x, _ in paired), sum(x[den] for x, _ in paired))
    two = rate(sum(y[num] for _, y in paired), sum(y[den] for _, y in paired))
    if one is None or two is None:
        return {"first": one, "second": two, "difference": None, "ci95": None}
    quads = Counter((x[num], x[den], y[num], y[den]) for x, y in paired)
    return {"first": one, "second": two, "difference": round(two - one, 4), "ci95": difference_interval(quads)}
