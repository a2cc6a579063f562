"""The chat answer a web service renders per request (issue 27): what each further marker costs
against the footnote plugin's reference, and ``check`` against ``render`` on 100 answers that
share one set of sources. CPU time, side by side, per-round ratios."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Sequence

from bench import inputs
from bench.measure import Report, side_by_side

#: the marker counts of the sweep (the same 2 KB of sentences, more of them cited)
SWEEP = (0, 2, 4, 8, 12, 16)
#: distinct answers a chat measure cycles through: a service never renders one text twice, and
#: what citerender keeps between calls (parsed markers, source domains) must not make it look so
ROTATION = 20


def rotation(base: inputs.Corpus, n: int = ROTATION) -> list[inputs.Corpus]:
    """``n`` chat answers over ``base``'s sources (``base`` first)."""
    return [base, *(inputs.chat(seed=200 + k, sources=base.sources) for k in range(n - 1))]


def cycling(fn: Callable[[str], object], texts: Sequence[str]) -> Callable[[], object]:
    """A call of ``fn`` on the next of ``texts``, round and round."""
    it = itertools.cycle(texts)
    return lambda: fn(next(it))


def slope(xs: Sequence[int], ys: Sequence[float]) -> float:
    """The least-squares slope of ``ys`` over ``xs``."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def bench_chat(rep: Report) -> None:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin

    from citerender import check, render
    from citerender.sources.model import registry_from_data

    print("\n# chat: the cost of each further marker (2 KB, 0–16 markers), in CPU time", flush=True)
    foot = MarkdownIt("commonmark").use(footnote_plugin)
    fns: dict[str, Callable[[], object]] = {}
    for k in SWEEP:
        c = inputs.chat(markers=k)
        reg = registry_from_data(c.sources)
        fns[f"ours{k}"] = lambda c=c, reg=reg: render(c.marked, reg)
        fns[f"foot{k}"] = lambda c=c: foot.render(c.footnoted)
    stats, _ = side_by_side(fns, repeat=11, inner=100)
    # the slope of the medians: a slope per round is as noisy as two points a round apart
    ours_us = slope(SWEEP, [stats[f"ours{k}"]["median"] for k in SWEEP]) * 1e6
    foot_us = slope(SWEEP, [stats[f"foot{k}"]["median"] for k in SWEEP]) * 1e6
    low = slope(SWEEP, [stats[f"ours{k}"]["min"] for k in SWEEP]) / slope(
        SWEEP, [stats[f"foot{k}"]["min"] for k in SWEEP]
    )
    print(f"  each further marker: ours {ours_us:.0f} µs, the footnote plugin's reference {foot_us:.0f} µs")
    print(f"  no marker at all: ours {stats['ours0']['median'] * 1e6:.0f} µs")
    rep.data["chat per marker (µs)"] = {"ours": ours_us, "footnote": foot_us}
    rep.target(
        "cost per additional marker: ours / the footnote plugin's per reference", ours_us / foot_us, 0.8, best=low
    )

    print("\n# check: 100 chat answers sharing one sources file, against render of the same", flush=True)
    base = inputs.chat()
    answers = [base.marked, *(inputs.chat(seed=100 + k, sources=base.sources).marked for k in range(99))]
    reg = registry_from_data(base.sources)  # one registry, as a service or a build holds it
    stats, times = side_by_side(
        {
            "check": lambda: [check(a, reg) for a in answers],
            "render": lambda: [render(a, reg) for a in answers],
        },
        repeat=7,
    )
    rep.row("check, 100 chat answers", stats["check"])
    rep.row("render, the same 100 answers", stats["render"])
    rep.ratio_target("check on 100 chat answers sharing one sources file: ours / render", times, "check", "render", 2.0)
