"""A/B of two checkouts: the default path's render against plain markdown-it-py, per round, in CPU time.

Run it once per checkout and compare the printed ratios (each process measures its own peer, so a
busy machine weighs on both sides alike)::

    python bench/ab.py                                   # this checkout's citerender
    PYTHONPATH=/path/to/other/checkout python bench/ab.py  # another one's (first on the path)

The corpora are this file's neighbour ``inputs.py``, loaded by path, so both sides render the same
answers whichever ``citerender`` is imported.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

import citerender
from citerender import RenderOptions, render
from citerender.sources.model import registry_from_data


def _inputs() -> Any:
    spec = importlib.util.spec_from_file_location("bench_inputs", Path(__file__).with_name("inputs.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_inputs"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _ratio(times: dict[str, list[float]], a: str, b: str) -> float:
    return round(statistics.median(x / y for x, y in zip(times[a], times[b], strict=True)), 3)


def _floor() -> Callable[[str], str]:
    try:
        from citerender.rendering.pipeline import make_markdown
    except ImportError:  # a checkout from before the one pipeline
        from citerender.rendering.html import make_markdown  # type: ignore[no-redef]
    return make_markdown(RenderOptions(), citations=False).render  # type: ignore[no-any-return]


def main() -> None:
    plain = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    floor = _floor()
    out: dict[str, object] = {"citerender": citerender.__file__}
    inputs = _inputs()
    for name, c, inner, rounds in (
        ("chat", inputs.chat(), 200, 9),
        ("spec", inputs.spec(), 1, 7),
        ("dense", inputs.dense(), 1, 5),
    ):
        reg = registry_from_data(c.sources)
        fns: dict[str, Callable[[], object]] = {
            "plain": lambda c=c: plain.render(c.stripped),
            "ours": lambda c=c, reg=reg: render(c.marked, reg, markdown="commonmark"),
            "full": lambda c=c, reg=reg: render(c.marked, reg),
            "floor": lambda c=c: floor(c.stripped),
        }
        for f in fns.values():
            f()
        times: dict[str, list[float]] = {k: [] for k in fns}
        for _ in range(rounds):
            for k, f in fns.items():
                gc.collect()
                t = time.process_time()
                for _ in range(inner):
                    f()
                times[k].append((time.process_time() - t) / inner)
        out[name] = {
            "ours/plain": _ratio(times, "ours", "plain"),
            "full/floor": _ratio(times, "full", "floor"),
            "full/plain": _ratio(times, "full", "plain"),
            "ours ms": round(statistics.median(times["ours"]) * 1000, 2),
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
