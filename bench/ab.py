"""A/B of two checkouts: the default path's render against plain markdown-it-py, per round, in CPU time.

Run it once per checkout and compare the printed ratios (each process measures its own peer, so a
busy machine weighs on both sides alike)::

    python bench/ab.py                                   # this checkout's citerender
    PYTHONPATH=/path/to/other/checkout python bench/ab.py  # another one's (first on the path)

The corpora and the side-by-side timing are this file's neighbours ``inputs.py`` and ``measure.py``,
loaded by path, so both sides render the same answers whichever ``citerender`` is imported.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

import citerender
from citerender import RenderOptions, render
from citerender.sources.model import registry_from_data


def _neighbour(name: str) -> Any:
    """This file's neighbour ``name``.py, loaded by path (whichever ``citerender`` is imported)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"bench_{name}"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


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
    inputs, measure = _neighbour("inputs"), _neighbour("measure")
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
        _, times = measure.side_by_side(fns, repeat=rounds, inner=inner)
        out[name] = {
            "ours/plain": round(measure.ratio(times, "ours", "plain"), 3),
            "full/floor": round(measure.ratio(times, "full", "floor"), 3),
            "full/plain": round(measure.ratio(times, "full", "plain"), 3),
            "ours ms": round(statistics.median(times["ours"]) * 1000, 2),
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
