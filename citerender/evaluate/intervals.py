"""95% intervals over answers, not claims: claims of one answer are not independent (an answer
that misreads its source gets all its claims wrong together), so a Wilson interval on pooled
counts is too narrow when answers differ.

A rate ``Σ num / Σ den`` gets a percentile bootstrap over answers. An answer enters only through
its ``(num, den)``, so answers are kept as counts of distinct pairs and a resample is a
multinomial draw over them: cost follows the distinct pairs, and any order of reduction gives the
same interval (pairs sorted, the generator seeded). Beyond :data:`MAX_KINDS` distinct pairs the
cluster-robust normal interval, what the bootstrap converges to, stands in. A paired difference
is bootstrapped over questions the same way (:func:`difference_interval`).
"""

from __future__ import annotations

import math
import operator
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

__all__ = ["MAX_KINDS", "METHOD", "RESAMPLES", "SEED", "binomial", "difference_interval", "ratio_interval"]

RESAMPLES = 2000
SEED = 44
#: above this many distinct rows, the normal (delta-method) interval clustered by answer stands in
MAX_KINDS = 100
METHOD = f"95% percentile bootstrap over answers ({RESAMPLES:,} resamples, seed {SEED})"
_Z = 1.959963984540054

Row = tuple[int, ...]
K = TypeVar("K", bound=Row)
#: a rate from the kinds' columns (numerators, denominators …) and how many of each kind were drawn
Stat = Callable[[Sequence[Sequence[int]], Sequence[int]], float | None]


def binomial(rng: random.Random, n: int, p: float) -> int:
    """A Binomial(n, p) draw, exact: the geometric method for small ``n·p``, else Hörmann's BTRS
    (transformed rejection with squeeze) — as Python 3.12's ``random.binomialvariate``, here so
    every supported Python draws the same numbers."""
    if p <= 0.0 or n <= 0:
        return 0
    if p >= 1.0:
        return n
    if p > 0.5:
        return n - binomial(rng, n, 1.0 - p)
    if n * p < 10.0:
        x = y = 0
        c = math.log(1.0 - p)
        while True:
            y += math.floor(math.log(1.0 - rng.random()) / c) + 1
            if y > n:
                return x
            x += 1
    spq = math.sqrt(n * p * (1.0 - p))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    vr = 0.92 - 4.2 / b
    alpha, lpq = (2.83 + 5.1 / b) * spq, math.log(p / (1.0 - p))
    m = math.floor((n + 1) * p)
    h = math.lgamma(m + 1) + math.lgamma(n - m + 1)
    while True:
        u = rng.random() - 0.5
        us = 0.5 - abs(u)
        k = math.floor((2.0 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        v = rng.random()
        if us >= 0.07 and v <= vr:
            return k
        v *= alpha / (a / (us * us) + b)
        if math.log(v) <= h - math.lgamma(k + 1) - math.lgamma(n - k + 1) + (k - m) * lpq:
            return k


def _multinomial(rng: random.Random, n: int, counts: Sequence[int]) -> list[int]:
    """How many of ``n`` draws (with replacement) fall on each kind, kind ``k`` having ``counts[k]``
    of the ``n`` members: the bootstrap's resample, one binomial a kind."""
    out, left, mass = [], n, n
    for c in counts:
        if left == 0 or mass <= 0:
            out.append(0)
            continue
        x = binomial(rng, left, c / mass) if c < mass else left
        out.append(x)
        left -= x
        mass -= c
    return out


def _percentiles(values: list[float]) -> tuple[float, float]:
    values.sort()

    def at(q: float) -> float:
        pos = q * (len(values) - 1)
        i = math.floor(pos)
        j = min(i + 1, len(values) - 1)
        return values[i] + (values[j] - values[i]) * (pos - i)

    return at(0.025), at(0.975)


def _columns(rows: Mapping[K, int]) -> tuple[list[K], list[int], list[list[int]]]:
    """The kinds of ``rows`` sorted, how many of each, and their columns (numerators, denominators …)."""
    kinds = sorted(rows)
    return kinds, [rows[k] for k in kinds], [list(col) for col in zip(*kinds, strict=True)]


def _bootstrap(rows: Mapping[K, int], stat: Stat) -> tuple[float, float] | None:
    _, counts, cols = _columns(rows)
    n = sum(counts)
    if n == 0 or stat(cols, counts) is None:
        return None
    rng = random.Random(SEED)
    values = []
    for _ in range(RESAMPLES):
        v = stat(cols, _multinomial(rng, n, counts))
        if v is not None:
            values.append(v)
    lo, hi = _percentiles(values)
    return round(lo, 4), round(hi, 4)


def _ratio(cols: Sequence[Sequence[int]], counts: Sequence[int], at: int = 0) -> float | None:
    den = sum(map(operator.mul, counts, cols[at + 1]))
    return sum(map(operator.mul, counts, cols[at])) / den if den else None


def _difference(cols: Sequence[Sequence[int]], counts: Sequence[int]) -> float | None:
    first, second = _ratio(cols, counts, 0), _ratio(cols, counts, 2)
    return None if first is None or second is None else second - first


def ratio_interval(pairs: Mapping[tuple[int, int], int]) -> tuple[float, float] | None:
    """The 95% interval of ``Σ num / Σ den`` over answers, given how many answers have each
    ``(num, den)``; None without a denominator."""
    if len(pairs) > MAX_KINDS:
        return _normal(pairs)
    return _bootstrap(pairs, _ratio)


def difference_interval(quads: Mapping[tuple[int, int, int, int], int]) -> tuple[float, float] | None:
    """The paired 95% interval of ``Σ num₂/Σ den₂ − Σ num₁/Σ den₁`` over questions, given how many
    questions have each ``(num₁, den₁, num₂, den₂)``; None when either side has no denominator."""
    if len(quads) > MAX_KINDS:
        return _normal_difference(quads)
    return _bootstrap(quads, _difference)


def _normal(pairs: Mapping[K, int]) -> tuple[float, float] | None:
    """The ratio's normal interval clustered by answer (linearised: Σ (num − R·den)² / (Σ den)²)."""
    kinds, counts, cols = _columns(pairs)
    r = _ratio(cols, counts)
    if r is None:
        return None
    n = sum(counts)
    den = sum(c * k[1] for k, c in zip(kinds, counts, strict=True))
    squares = sum(c * (k[0] - r * k[1]) ** 2 for k, c in zip(kinds, counts, strict=True))
    se = math.sqrt(squares * n / max(n - 1, 1)) / den
    return round(max(0.0, r - _Z * se), 4), round(min(1.0, r + _Z * se), 4)


def _normal_difference(quads: Mapping[K, int]) -> tuple[float, float] | None:
    kinds, counts, cols = _columns(quads)
    first, second = _ratio(cols, counts, 0), _ratio(cols, counts, 2)
    if first is None or second is None:
        return None
    n = sum(counts)
    d1 = sum(c * k[1] for k, c in zip(kinds, counts, strict=True))
    d2 = sum(c * k[3] for k, c in zip(kinds, counts, strict=True))
    squares = sum(
        c * ((k[2] - second * k[3]) / d2 - (k[0] - first * k[1]) / d1) ** 2 for k, c in zip(kinds, counts, strict=True)
    )
    se = math.sqrt(squares * n / max(n - 1, 1))
    d = second - first
    return round(max(-1.0, d - _Z * se), 4), round(min(1.0, d + _Z * se), 4)
