"""The 95% intervals of check-dataset are over answers: on answers that differ a lot in how well
they are supported, the support rate's interval is as wide as a straightforward percentile
bootstrap over answers (computed here), far wider than Wilson's on the pooled claims; and the same
whatever order or partition the results are reduced in."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from citerender.evaluate.check_dataset import check_dataset
from citerender.evaluate.intervals import MAX_KINDS, binomial, ratio_interval
from citerender.evaluate.metrics import Totals, wilson
from citerender.evaluate.records import check_record
from citerender.evaluate.results_file import read_results

S, D, E = "\ue200", "\ue202", "\ue201"
LINES = [f"Meter {k} reads {7 * k + 3} units at noon." for k in range(1, 9)]
SOURCES = [{"id": "log", "title": "Meter log", "lines": LINES}]


def answers(n: int, seed: int) -> list[dict[str, Any]]:
    """Answers of 4 to 8 claims; most either well supported or mostly not (a wrong number)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        good = rng.choice([0.05, 0.1, 0.9, 1.0, 1.0, 0.5])
        claims = []
        for k in rng.sample(range(1, 9), rng.randint(4, 8)):
            value = 7 * k + 3 if rng.random() < good else 7 * k + 4
            claims.append(f"Meter {k} reads {value} units at noon.{S}cite{D}log{D}L{k}{E}")
        out.append({"id": f"a{i}", "answer": " ".join(claims), "sources": SOURCES})
    return out


def percentile_bootstrap(pairs: list[tuple[int, int]], seed: int = 7, resamples: int = 2000) -> tuple[float, float]:
    """The textbook percentile bootstrap over answers: answers drawn with replacement, pooled rate."""
    rng = random.Random(seed)
    stats = []
    for _ in range(resamples):
        draw = rng.choices(pairs, k=len(pairs))
        den = sum(d for _, d in draw)
        if den:
            stats.append(sum(n for n, _ in draw) / den)
    stats.sort()
    return stats[int(0.025 * len(stats))], stats[int(0.975 * len(stats)) - 1]


def test_the_support_rate_interval_is_a_bootstrap_over_answers(tmp_path: Path) -> None:
    records = answers(80, seed=11)
    data = tmp_path / "answers.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    summary = check_dataset(data, tmp_path / "r.jsonl").to_dict()
    assert summary["intervals"].startswith("95% percentile bootstrap over answers")
    support = summary["overall"]["rates"]["support_rate"]
    results = list(read_results(tmp_path / "r.jsonl"))
    pairs = [(r["metrics"]["supported"], r["metrics"]["checked"]) for r in results]
    assert len({round(n / d, 1) for n, d in pairs}) >= 5  # answers differ a lot
    lo, hi = percentile_bootstrap(pairs)
    width = support["ci95"][1] - support["ci95"][0]
    assert 0.75 * (hi - lo) <= width <= 1.25 * (hi - lo), (support, (lo, hi))
    assert support["ci95"][0] < support["value"] < support["ci95"][1]
    num, den = sum(n for n, _ in pairs), sum(d for _, d in pairs)
    wlo, whi = wilson(num, den) or (0.0, 0.0)
    assert width > 1.5 * (whi - wlo)  # before: Wilson on pooled claims, far too narrow here


def test_the_intervals_are_deterministic_in_any_order_and_partition() -> None:
    results = [check_record(r) for r in answers(40, seed=3)]
    whole, parts = Totals(), [Totals(), Totals(), Totals()]
    for k, r in enumerate(results):
        whole.add(r)
        parts[k % 3].add(r)
    merged = parts[2].merge(parts[0]).merge(parts[1])
    assert merged.summary() == whole.summary()
    again = Totals()
    for r in reversed(results):
        again.add(r)
    assert again.summary()["rates"] == whole.summary()["rates"]


def test_binomial_draws_have_the_binomial_s_mean_and_variance() -> None:
    rng = random.Random(5)
    for n, p in [(7, 0.5), (60, 0.1), (5000, 0.3), (1000, 0.97)]:
        xs = [binomial(rng, n, p) for _ in range(4000)]
        mean = sum(xs) / len(xs)
        var = sum((x - mean) ** 2 for x in xs) / len(xs)
        assert abs(mean - n * p) < 4 * (n * p * (1 - p) / len(xs)) ** 0.5
        assert 0.85 < var / (n * p * (1 - p)) < 1.15


def test_beyond_the_bootstrap_s_kinds_the_clustered_normal_interval_is_as_wide() -> None:
    rng = random.Random(9)
    pairs: Counter[tuple[int, int]] = Counter()
    while len(pairs) <= MAX_KINDS:
        den = rng.randint(1, 30)
        pairs[(rng.randint(0, den), den)] += rng.randint(1, 3)
    lo, hi = ratio_interval(pairs) or (0.0, 0.0)
    ref_lo, ref_hi = percentile_bootstrap(list(pairs.elements()))
    assert 0.75 * (ref_hi - ref_lo) <= hi - lo <= 1.25 * (ref_hi - ref_lo)
